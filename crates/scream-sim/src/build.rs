//! Building the network of a scenario: directed links, endpoints, routes and flows.
//!
//! This is the one place that maps scenario keys onto network elements and endpoint
//! kinds; the event loop in [`crate::world`] sees only nodes, links and routes.

use std::sync::Arc;

mod tcp;

use crate::compat;
use crate::endpoint::{Cbr, Endpoint, FrameClock, MediaStream, Placement, ScreamSender, Sink};
use crate::error::SimError;
use crate::flow::{Flow, StreamInfo};
use crate::route::{self, Route};
use crate::scenario::{
    ALL_IMPROVEMENTS, Algorithm, Direction, EcnSetting, FlowConfig, Generation, Scenario,
    SourceConfig, SourceKind,
};
use scream::sender::{
    ConfigError, EcnMode, Improvements, Sender, SenderConfig, StreamConfig as ScreamStream,
};
use scream::{Bitrate, Duration, Ecn, Instant};
use scream_netmodel::RngStream;
use scream_traffic::source::{Audio, Source, Video, load_frame_sizes};

pub(crate) mod links;
mod rate_based;
mod receiver;

pub(crate) use links::{LinkNode, build_links};

use receiver::scream_receiver;

/// RTCP sender SSRC of a flow's feedback: its first media SSRC with the top bit flipped.
pub(crate) const RTCP_SSRC_FLIP: u32 = 0x8000_0000;
/// RTP fixed header, bytes (RFC 3550 §5.1); added to the payload of a CBR packet.
pub(crate) const RTP_HEADER_BYTES: u32 = 12;
/// The `[flows.params]` a `cbr` flow reads: the payload of its packets. It has no
/// congestion control, so any other sender parameter would be ignored: the loader
/// refuses them with their line, and [`Parts::add_flow`] refuses them in a scenario
/// built in code.
pub(crate) const CBR_PARAMS: &[&str] = &["mss_bytes"];

/// A time in ms as a `Duration`, as the network models convert their own time keys.
pub(crate) use scream_netmodel::keys::ms;

/// A time in s as an instant (saturating, as `as` casts do).
pub(crate) fn secs(v: f64) -> Instant {
    Instant::from_nanos((v.max(0.0) * 1e9).round() as u64)
}

fn rate(mbps: f64) -> Bitrate {
    Bitrate::from_mbps(mbps)
}

/// Everything of the network besides the links.
#[derive(Debug, Default)]
pub(crate) struct Parts {
    pub(crate) nodes: Vec<Endpoint>,
    pub(crate) routes: Vec<Route>,
    pub(crate) flows: Vec<Flow>,
    pub(crate) streams: Vec<StreamInfo>,
}

/// The sender's improvements from a flow's `improvements` names (`all` turns on every
/// one the library knows, so a new improvement joins without a change here).
pub(crate) fn improvements_of(names: &[String]) -> Result<Improvements, ConfigError> {
    let mut out = Improvements::default();
    for name in names {
        if name == ALL_IMPROVEMENTS {
            out = Improvements::all();
            continue;
        }
        out.set(name, true)?;
    }
    Ok(out)
}

fn ecn_of(e: EcnSetting) -> (EcnMode, Ecn) {
    match e {
        EcnSetting::None => (EcnMode::None, Ecn::NotEct),
        EcnSetting::Classic => (EcnMode::Classic, Ecn::Ect0),
        EcnSetting::L4s => (EcnMode::L4s, Ecn::Ect1),
    }
}

fn build_source(
    s: &Scenario,
    key: &str,
    src: &SourceConfig,
    start: Bitrate,
) -> Result<(Source, f64), SimError> {
    Ok(match src.kind {
        SourceKind::VideoTrace => {
            let sizes = load_frame_sizes(&src.trace, s.base_dir.as_deref()).map_err(|e| {
                SimError::FrameTrace {
                    key: format!("{key}.trace"),
                    source: e,
                }
            })?;
            let v = Video::from_trace(sizes, src.fps, start, src.sluggishness_s);
            (Source::Video(v), 1e9 / src.fps)
        }
        SourceKind::VideoConstant => (
            Source::Video(Video::constant(src.fps, start, src.sluggishness_s)),
            1e9 / src.fps,
        ),
        SourceKind::Audio => {
            let interval = ms(src.audio_packet_interval_ms);
            let a = Audio::new(Bitrate::from_kbps(src.audio_bitrate_kbps), interval);
            (Source::Audio(a), src.audio_packet_interval_ms * 1e6)
        }
    })
}

/// A flow's `pauses` (`[from, to]` in seconds) as instants, for its frame clocks.
fn pauses(spans: &[[f64; 2]]) -> Vec<(Instant, Instant)> {
    spans.iter().map(|&[a, b]| (secs(a), secs(b))).collect()
}

/// The offset of a stream's first frame: as configured, else uniform within one period
/// from the stream's own random stream.
fn phase(src: &SourceConfig, period_ns: f64, seed: u64, id: &str) -> Duration {
    match src.phase_ms {
        Some(p) => ms(p),
        None => {
            let u = RngStream::new(seed, &format!("{id}/phase")).uniform();
            Duration::from_nanos((u * period_ns) as u64)
        }
    }
}

impl Parts {
    fn add_node(&mut self, e: Endpoint) -> u32 {
        self.nodes.push(e);
        (self.nodes.len() - 1) as u32
    }

    fn add_route(&mut self, links: Vec<u32>, dest: u32) -> u32 {
        self.routes.push(Route { links, dest });
        (self.routes.len() - 1) as u32
    }

    /// Adds flow `i` of `s`: its two nodes, its two routes and its streams.
    pub(crate) fn add_flow(&mut self, s: &Scenario, i: usize, seed: u64) -> Result<(), SimError> {
        let cfg: &FlowConfig = &s.flows[i];
        let key = format!("flows[{i}]");
        let flow = i as u32;
        let name: Arc<str> = s.flow_name(i).into();
        let end = secs(s.duration_s);
        let start = secs(cfg.start_s);
        let stop = if cfg.stop_s > 0.0 {
            secs(cfg.stop_s).min(end)
        } else {
            end
        };

        let link_count = s.link_configs().len() as u32;
        let path: Vec<u32> = if cfg.path.is_empty() {
            (0..link_count).collect()
        } else {
            cfg.path
                .iter()
                .filter_map(|n| (0..link_count).find(|&j| s.link_name(j as usize) == *n))
                .collect()
        };
        let (media_links, feedback_links): (Vec<u32>, Vec<u32>) = match cfg.direction {
            Direction::Forward => (
                path.iter().map(|&l| route::forward(l)).collect(),
                path.iter().rev().map(|&l| route::reverse(l)).collect(),
            ),
            Direction::Reverse => (
                path.iter().rev().map(|&l| route::reverse(l)).collect(),
                path.iter().map(|&l| route::forward(l)).collect(),
            ),
        };
        // Node indices are known before the nodes exist: sender, then receiver.
        let sender_node = self.nodes.len() as u32;
        let receiver_node = sender_node + 1;
        let media_route = self.add_route(media_links, receiver_node);
        let feedback_route = self.add_route(feedback_links, sender_node);

        let (ecn_mode, ecn) = ecn_of(cfg.ecn);
        // A SCReAM flow's generation; the other flows take the library's defaults for
        // what they share with a SCReAM sender (packet sizes, queue limits).
        let generation = cfg
            .algorithm
            .generation()
            .map_or_else(SenderConfig::default, Generation::sender_config);
        let mut sender_cfg = SenderConfig {
            ecn: ecn_mode,
            improvements: improvements_of(&cfg.improvements).map_err(|e| SimError::Param {
                key: format!("{key}.improvements"),
                reason: e.to_string(),
            })?,
            ..generation
        };
        // A baseline's params are its own tunables (set in `rate_based`).
        let sender_params = if cfg.algorithm.is_rate_based() {
            &Default::default()
        } else {
            &cfg.params
        };
        for (param, value) in sender_params {
            if cfg.algorithm == Algorithm::Cbr && !CBR_PARAMS.contains(&param.as_str()) {
                return Err(SimError::Param {
                    key: format!("{key}.params.{param}"),
                    reason: format!(
                        "a cbr flow reads only {} from its params (it has no congestion \
                         control to tune)",
                        CBR_PARAMS.join(", ")
                    ),
                });
            }
            compat::set_param(&mut sender_cfg, param, *value).map_err(|reason| {
                SimError::Param {
                    key: format!("{key}.params.{param}"),
                    reason,
                }
            })?;
        }
        let streams = cfg.effective_streams(&name);
        let first_global = self.streams.len() as u32;
        let globals: Vec<u32> = (0..streams.len() as u32)
            .map(|j| first_global + j)
            .collect();
        let ssrc_of = |j: usize| 0x5c00_0000 + (flow << 8) + j as u32;
        let source_key = |j: usize| {
            if cfg.streams.is_empty() {
                format!("{key}.source")
            } else {
                format!("{key}.streams[{j}].source")
            }
        };
        for st in &streams {
            self.streams.push(StreamInfo {
                name: if cfg.streams.is_empty() {
                    name.clone()
                } else {
                    st.name.as_str().into()
                },
                flow,
            });
        }

        let (sender, receiver) = match cfg.algorithm {
            Algorithm::Cbr => {
                let packet_bytes = sender_cfg.mss_bytes + RTP_HEADER_BYTES;
                let cbr = streams
                    .iter()
                    .enumerate()
                    .map(|(j, st)| {
                        crate::endpoint::CbrStream::new(
                            globals[j],
                            ssrc_of(j),
                            rate(st.start_bitrate_mbps),
                            packet_bytes,
                            start,
                        )
                    })
                    .collect();
                (
                    Endpoint::Cbr(Cbr::new(cbr, flow, media_route, ecn, (start, stop))),
                    Endpoint::Sink(Sink),
                )
            }
            Algorithm::TcpNewreno | Algorithm::TcpCubic | Algorithm::TcpPrague => {
                let at = tcp::Placement {
                    flow,
                    routes: (media_route, feedback_route),
                    stream: globals[0],
                    active: (start, stop),
                    name: &name,
                };
                tcp::endpoints(cfg, &at, seed)
            }
            // A SCReAM sender of the generation the algorithm names (its
            // configuration came from `Generation::sender_config` above).
            Algorithm::Scream(_) => {
                let sender_err = |source| SimError::Sender {
                    key: key.clone(),
                    source,
                };
                let mut sender = Sender::new(sender_cfg).map_err(sender_err)?;
                let mut media = Vec::with_capacity(streams.len());
                for (j, st) in streams.iter().enumerate() {
                    let skey = source_key(j);
                    let start_rate = rate(st.start_bitrate_mbps);
                    let id = sender
                        .add_stream(ScreamStream {
                            ssrc: ssrc_of(j),
                            min_bitrate: rate(st.min_bitrate_mbps),
                            start_bitrate: start_rate,
                            max_bitrate: rate(st.max_bitrate_mbps),
                            priority: st.priority,
                        })
                        .map_err(sender_err)?;
                    let (source, period_ns) = build_source(s, &skey, &st.source, start_rate)?;
                    let offset = phase(
                        &st.source,
                        period_ns,
                        seed,
                        &format!("flow/{name}/{}", st.name),
                    );
                    let clock = FrameClock::new(start + offset, period_ns, stop)
                        .with_pauses(pauses(&cfg.pauses));
                    media.push((
                        id,
                        MediaStream {
                            global: globals[j],
                            source,
                            clock,
                        },
                    ));
                }
                let receiver = scream_receiver(s, cfg, &key, flow, feedback_route, ssrc_of(0))?;
                (
                    Endpoint::ScreamSender(Box::new(ScreamSender::new(
                        sender,
                        media,
                        flow,
                        media_route,
                        (start, stop),
                    ))),
                    receiver,
                )
            }
            Algorithm::Gcc | Algorithm::Nada => {
                let placement = Placement {
                    flow,
                    route: media_route,
                    ecn,
                    active: (start, stop),
                };
                let specs: Vec<rate_based::StreamSpec<'_>> = streams
                    .iter()
                    .enumerate()
                    .map(|(j, st)| rate_based::StreamSpec {
                        config: st,
                        global: globals[j],
                        ssrc: ssrc_of(j),
                        source_key: source_key(j),
                    })
                    .collect();
                let sender = rate_based::sender(s, &key, (seed, &name), &specs, placement)?;
                let receiver = scream_receiver(s, cfg, &key, flow, feedback_route, ssrc_of(0))?;
                (sender, receiver)
            }
        };
        let sent = self.add_node(sender);
        let received = self.add_node(receiver);
        debug_assert_eq!((sent, received), (sender_node, receiver_node));
        self.flows.push(Flow {
            name,
            algorithm: cfg.algorithm,
            sender: sender_node,
            streams: globals,
            media_route,
            start,
            stop,
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|n| (*n).to_owned()).collect()
    }

    #[test]
    fn all_turns_on_every_improvement_the_library_names() {
        let on = improvements_of(&names(&[ALL_IMPROVEMENTS])).unwrap();
        assert_eq!(on.enabled(), Improvements::names().to_vec());
        assert_eq!(on, Improvements::all());
    }

    #[test]
    fn each_name_turns_on_that_improvement_alone() {
        assert_eq!(improvements_of(&[]).unwrap(), Improvements::default());
        for name in Improvements::names() {
            let on = improvements_of(&names(&[name])).unwrap();
            assert_eq!(on.enabled(), vec![*name]);
        }
    }

    #[test]
    fn an_unknown_name_is_refused_by_name() {
        let e = improvements_of(&names(&["warp-drive"])).unwrap_err();
        assert_eq!(e.value, "warp-drive");
    }
}
