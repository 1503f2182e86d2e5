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
    SourceConfig, SourceKind, StreamConfig,
};
use scream::sender::{
    ConfigError, EcnMode, Improvements, Sender, SenderConfig, StreamConfig as ScreamStream,
};
use scream::{Bitrate, Duration, Ecn, Instant};
use scream_netmodel::RngStream;
use scream_traffic::source::{Audio, Source, Video, VideoEnc, load_frame_sizes};

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
/// The payload of a `cbr` flow's packets, bytes. Wider than a SCReAM sender's
/// `mss_bytes` (from 100): a CBR source models audio too, whose packets are small
/// (RFC 8867 §4.3's 20 kbit/s audio in 20 ms packets is 50 bytes with the RTP header).
pub(crate) const CBR_MSS_BYTES: std::ops::RangeInclusive<f64> = 1.0..=65_000.0;

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
            (Source::Video(v), s.clock.frame_period_ns(src.fps))
        }
        SourceKind::VideoEnc => {
            let sizes = load_frame_sizes(&src.trace, s.base_dir.as_deref()).map_err(|e| {
                SimError::FrameTrace {
                    key: format!("{key}.trace"),
                    source: e,
                }
            })?;
            // The offset is range-checked far below `usize::MAX`; it is taken modulo
            // the trace's length.
            let offset = usize::try_from(src.trace_offset_frames).unwrap_or(0);
            let v = VideoEnc::new(sizes, src.fps, start, offset, src.nominal_gain);
            (Source::VideoEnc(v), s.clock.frame_period_ns(src.fps))
        }
        SourceKind::VideoConstant => (
            Source::Video(Video::constant(src.fps, start, src.sluggishness_s)),
            s.clock.frame_period_ns(src.fps),
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
        let name: Arc<str> = s.flow_name(i).into();
        let end = secs(s.duration_s);
        let stop = if cfg.stop_s > 0.0 {
            secs(cfg.stop_s).min(end)
        } else {
            end
        };
        // Node indices are known before the nodes exist: sender, then receiver.
        let sender_node = self.nodes.len() as u32;
        let receiver_node = sender_node + 1;
        let (media_links, feedback_links) = route_links(s, cfg);
        let media_route = self.add_route(media_links, receiver_node);
        let feedback_route = self.add_route(feedback_links, sender_node);
        let sender_cfg = sender_config(cfg, &key)?;
        let streams = cfg.effective_streams(&name);
        let first_global = self.streams.len() as u32;
        for st in &streams {
            self.streams.push(StreamInfo {
                name: if cfg.streams.is_empty() {
                    name.clone()
                } else {
                    st.name.as_str().into()
                },
                flow: i as u32,
            });
        }
        let plan = FlowPlan {
            s,
            cfg,
            key,
            flow: i as u32,
            name,
            active: (secs(cfg.start_s), stop),
            routes: (media_route, feedback_route),
            ecn: ecn_of(cfg.ecn).1,
            globals: (0..streams.len() as u32)
                .map(|j| first_global + j)
                .collect(),
            seed,
        };
        let (sender, receiver) = match cfg.algorithm {
            Algorithm::Cbr => plan.cbr(&streams, &sender_cfg),
            Algorithm::TcpNewreno | Algorithm::TcpCubic | Algorithm::TcpPrague => {
                let at = tcp::Placement {
                    flow: plan.flow,
                    routes: plan.routes,
                    stream: plan.globals[0],
                    active: plan.active,
                    name: &plan.name,
                };
                tcp::endpoints(cfg, &at, seed)
            }
            // A SCReAM sender of the generation the algorithm names (its
            // configuration came from `Generation::sender_config`).
            Algorithm::Scream(_) => plan.scream(&streams, sender_cfg)?,
            Algorithm::Gcc | Algorithm::Nada => plan.rate_based(&streams)?,
        };
        let sent = self.add_node(sender);
        let received = self.add_node(receiver);
        debug_assert_eq!((sent, received), (sender_node, receiver_node));
        self.flows.push(Flow {
            name: plan.name,
            algorithm: cfg.algorithm,
            sender: sender_node,
            streams: plan.globals,
            media_route,
            start: plan.active.0,
            stop,
        });
        Ok(())
    }
}

/// The directed links of a flow's media and feedback routes: its `path` (every link by
/// default), forward links one way and reverse links back, or the other way round for
/// a flow in the reverse direction.
fn route_links(s: &Scenario, cfg: &FlowConfig) -> (Vec<u32>, Vec<u32>) {
    let link_count = s.link_configs().len() as u32;
    let path: Vec<u32> = if cfg.path.is_empty() {
        (0..link_count).collect()
    } else {
        cfg.path
            .iter()
            .filter_map(|n| (0..link_count).find(|&j| s.link_name(j as usize) == *n))
            .collect()
    };
    match cfg.direction {
        Direction::Forward => (
            path.iter().map(|&l| route::forward(l)).collect(),
            path.iter().rev().map(|&l| route::reverse(l)).collect(),
        ),
        Direction::Reverse => (
            path.iter().rev().map(|&l| route::reverse(l)).collect(),
            path.iter().map(|&l| route::forward(l)).collect(),
        ),
    }
}

/// The sender configuration of a flow: a SCReAM flow's generation with its ECN mode,
/// improvements and `[flows.params]`; the other flows take the library's defaults for
/// what they share with a SCReAM sender (packet sizes, queue limits).
fn sender_config(cfg: &FlowConfig, key: &str) -> Result<SenderConfig, SimError> {
    let generation = cfg
        .algorithm
        .generation()
        .map_or_else(SenderConfig::default, Generation::sender_config);
    let mut sender_cfg = SenderConfig {
        ecn: ecn_of(cfg.ecn).0,
        improvements: improvements_of(&cfg.improvements).map_err(|e| SimError::Param {
            key: format!("{key}.improvements"),
            reason: e.to_string(),
        })?,
        ..generation
    };
    // A baseline's params are its own tunables (set in `rate_based`).
    if cfg.algorithm.is_rate_based() {
        return Ok(sender_cfg);
    }
    for (param, value) in &cfg.params {
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
        if cfg.algorithm == Algorithm::Cbr {
            // Checked against `CBR_MSS_BYTES` when the scenario is validated.
            sender_cfg.mss_bytes = value.clamp(1.0, 65_000.0) as u32;
            continue;
        }
        compat::set_param(&mut sender_cfg, param, *value).map_err(|reason| SimError::Param {
            key: format!("{key}.params.{param}"),
            reason,
        })?;
    }
    Ok(sender_cfg)
}

/// What every endpoint of one flow is placed with.
struct FlowPlan<'a> {
    s: &'a Scenario,
    cfg: &'a FlowConfig,
    /// `flows[i]`, for error messages.
    key: String,
    flow: u32,
    name: Arc<str>,
    /// Start and stop.
    active: (Instant, Instant),
    /// Media and feedback routes.
    routes: (u32, u32),
    /// The ECN codepoint of its media packets.
    ecn: Ecn,
    /// Global index of each of its streams.
    globals: Vec<u32>,
    seed: u64,
}

impl FlowPlan<'_> {
    fn ssrc(&self, stream: usize) -> u32 {
        0x5c00_0000 + (self.flow << 8) + stream as u32
    }

    fn source_key(&self, stream: usize) -> String {
        if self.cfg.streams.is_empty() {
            format!("{}.source", self.key)
        } else {
            format!("{}.streams[{stream}].source", self.key)
        }
    }

    fn receiver(&self) -> Result<Endpoint, SimError> {
        scream_receiver(
            self.s,
            self.cfg,
            &self.key,
            self.flow,
            self.routes.1,
            self.ssrc(0),
        )
    }

    /// Paced constant-rate streams into a sink.
    fn cbr(&self, streams: &[StreamConfig], sender_cfg: &SenderConfig) -> (Endpoint, Endpoint) {
        let packet_bytes = sender_cfg.mss_bytes + RTP_HEADER_BYTES;
        let cbr = streams
            .iter()
            .enumerate()
            .map(|(j, st)| {
                crate::endpoint::CbrStream::new(
                    self.globals[j],
                    self.ssrc(j),
                    rate(st.start_bitrate_mbps),
                    packet_bytes,
                    self.active.0,
                )
            })
            .collect();
        (
            Endpoint::Cbr(Cbr::new(
                cbr,
                self.flow,
                self.routes.0,
                self.ecn,
                self.active,
            )),
            Endpoint::Sink(Sink),
        )
    }

    /// A SCReAM sender with one media source per stream, and its receiver.
    fn scream(
        &self,
        streams: &[StreamConfig],
        sender_cfg: SenderConfig,
    ) -> Result<(Endpoint, Endpoint), SimError> {
        let sender_err = |source| SimError::Sender {
            key: self.key.clone(),
            source,
        };
        let mut sender = Sender::new(sender_cfg).map_err(sender_err)?;
        let mut media = Vec::with_capacity(streams.len());
        for (j, st) in streams.iter().enumerate() {
            let start_rate = rate(st.start_bitrate_mbps);
            let id = sender
                .add_stream(ScreamStream {
                    ssrc: self.ssrc(j),
                    min_bitrate: rate(st.min_bitrate_mbps),
                    start_bitrate: start_rate,
                    max_bitrate: rate(st.max_bitrate_mbps),
                    priority: st.priority,
                })
                .map_err(sender_err)?;
            let (source, period_ns) =
                build_source(self.s, &self.source_key(j), &st.source, start_rate)?;
            let offset = phase(
                &st.source,
                period_ns,
                self.seed,
                &format!("flow/{}/{}", self.name, st.name),
            );
            let clock = FrameClock::new(self.active.0 + offset, period_ns, self.active.1)
                .with_pauses(pauses(&self.cfg.pauses));
            media.push((
                id,
                MediaStream {
                    global: self.globals[j],
                    source,
                    clock,
                },
            ));
        }
        let receiver = self.receiver()?;
        let sender = ScreamSender::new(
            sender,
            media,
            self.flow,
            self.routes.0,
            self.active,
            &self.s.clock,
        );
        Ok((Endpoint::ScreamSender(Box::new(sender)), receiver))
    }

    /// A GCC or NADA sender, and the SCReAM receiver whose feedback it reads.
    fn rate_based(&self, streams: &[StreamConfig]) -> Result<(Endpoint, Endpoint), SimError> {
        let placement = Placement {
            flow: self.flow,
            route: self.routes.0,
            ecn: self.ecn,
            active: self.active,
        };
        let specs: Vec<rate_based::StreamSpec<'_>> = streams
            .iter()
            .enumerate()
            .map(|(j, st)| rate_based::StreamSpec {
                config: st,
                global: self.globals[j],
                ssrc: self.ssrc(j),
                source_key: self.source_key(j),
            })
            .collect();
        let sender = rate_based::sender(
            self.s,
            &self.key,
            (self.seed, &self.name),
            &specs,
            placement,
        )?;
        Ok((sender, self.receiver()?))
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
