//! A flow: media source, controller (SCReAM sender and receiver, or a fixed-rate
//! packetiser), path and metrics.

use crate::compat;
use crate::error::SimError;
use crate::metrics::FlowMetrics;
use crate::packet::Packet;
use crate::scenario::{Algorithm, EcnSetting, FlowConfig, Scenario, SourceKind};
use crate::source::{Audio, Source, Video, load_frame_sizes};
use scream::receiver::{Receiver, ReceiverConfig};
use scream::sender::{
    EcnMode, MediaFrame, Sender, SenderConfig, SentPacket, StreamConfig, StreamId,
};
use scream::wire::ccfb::TimestampUnwrapper;
use scream::{Bitrate, Duration, Ecn, Instant};

/// RTCP sender SSRC of a flow's feedback: its media SSRC with the top bit flipped.
pub const RTCP_SSRC_FLIP: u32 = 0x8000_0000;

/// RTP fixed header, bytes (RFC 3550 §5.1); added by the fixed-rate packetiser.
pub const RTP_HEADER_BYTES: u32 = 12;

/// The SCReAM endpoints of a flow and their pending wake-ups.
#[derive(Debug)]
pub struct ScreamEndpoints {
    /// The sender (one stream).
    pub sender: Sender,
    /// The receiver.
    pub receiver: Receiver,
    /// The stream's id.
    pub stream: StreamId,
    /// The instant a sender wake-up is scheduled for.
    pub sender_wake: Option<Instant>,
    /// The instant a receiver wake-up is scheduled for.
    pub receiver_wake: Option<Instant>,
    /// Extends the report timestamps of this flow's RFC 8888 feedback.
    pub unwrapper: TimestampUnwrapper,
}

/// Sends every frame at once as MSS-sized packets; no feedback.
#[derive(Debug, Clone)]
pub struct FixedRate {
    /// Largest payload per packet, bytes.
    pub mss_bytes: u32,
    /// ECN codepoint of every packet.
    pub ecn: Ecn,
    next_seq: u16,
    frame_index: u64,
}

impl FixedRate {
    /// Splits `frame` into packets appended to `out`.
    pub fn packetize(
        &mut self,
        now: Instant,
        flow: u32,
        ssrc: u32,
        frame: MediaFrame,
        out: &mut Vec<Packet>,
    ) {
        let mut left = frame.size_bytes;
        let mss = self.mss_bytes.max(1);
        while left > 0 {
            let chunk = left.min(mss);
            left -= chunk;
            let mut p =
                Packet::synthetic(flow, self.next_seq, chunk + RTP_HEADER_BYTES, self.ecn, now);
            p.ssrc = ssrc;
            p.marker = left == 0;
            p.frame_index = self.frame_index;
            out.push(p);
            self.next_seq = self.next_seq.wrapping_add(1);
        }
        self.frame_index += 1;
    }
}

/// What decides when packets leave.
#[derive(Debug)]
pub enum Controller {
    /// SCReAM V2.
    Scream(Box<ScreamEndpoints>),
    /// No congestion control.
    FixedRate(FixedRate),
}

/// One flow.
#[derive(Debug)]
pub struct Flow {
    /// Name.
    pub name: String,
    /// Controller kind.
    pub algorithm: Algorithm,
    /// RTP SSRC of its stream.
    pub ssrc: u32,
    /// Media source.
    pub source: Source,
    /// Controller.
    pub controller: Controller,
    /// Link indices crossed in order.
    pub path: Vec<u32>,
    /// First frame.
    pub start: Instant,
    /// No frame at or after this instant.
    pub stop: Instant,
    /// Frame period, ns (fractional, so 30 fps does not drift).
    pub frame_period_ns: f64,
    /// Frames produced so far.
    pub frames: u64,
    /// Measurements.
    pub metrics: FlowMetrics,
}

fn secs(s: f64) -> Instant {
    Instant::from_nanos((s * 1e9).round() as u64)
}

impl Flow {
    /// Builds flow `i` of `scenario` (which must be valid).
    pub fn build(scenario: &Scenario, i: usize, link_names: &[String]) -> Result<Self, SimError> {
        let cfg: &FlowConfig = &scenario.flows[i];
        let key = format!("flows[{i}]");
        let end = secs(scenario.duration_s);
        let path: Vec<u32> = if cfg.path.is_empty() {
            (0..link_names.len() as u32).collect()
        } else {
            cfg.path
                .iter()
                .filter_map(|n| link_names.iter().position(|l| l == n).map(|p| p as u32))
                .collect()
        };
        let start_rate = Bitrate::from_mbps(cfg.start_bitrate_mbps);
        let src = &cfg.source;
        let (source, frame_period_ns) =
            match src.kind {
                SourceKind::VideoTrace => {
                    let sizes = load_frame_sizes(&src.trace, scenario.base_dir.as_deref())
                        .map_err(|e| SimError::FrameTrace {
                            key: format!("{key}.source.trace"),
                            source: e,
                        })?;
                    (
                        Source::Video(Video::from_trace(
                            sizes,
                            src.fps,
                            start_rate,
                            src.sluggishness_s,
                        )),
                        1e9 / src.fps,
                    )
                }
                SourceKind::VideoConstant => (
                    Source::Video(Video::constant(src.fps, start_rate, src.sluggishness_s)),
                    1e9 / src.fps,
                ),
                SourceKind::Audio => {
                    let interval = Duration::from_secs_f64(src.audio_packet_interval_ms * 1e-3);
                    (
                        Source::Audio(Audio::new(
                            Bitrate::from_kbps(src.audio_bitrate_kbps),
                            interval,
                        )),
                        src.audio_packet_interval_ms * 1e6,
                    )
                }
            };
        let ssrc = 0x5c00_0000 + i as u32;
        let (ecn_mode, ecn) = match cfg.ecn {
            EcnSetting::None => (EcnMode::None, Ecn::NotEct),
            EcnSetting::Classic => (EcnMode::Classic, Ecn::Ect0),
            EcnSetting::L4s => (EcnMode::L4s, Ecn::Ect1),
        };
        let mut sender_cfg = SenderConfig {
            ecn: ecn_mode,
            ..SenderConfig::default()
        };
        for (name, value) in &cfg.params {
            compat::set_param(&mut sender_cfg, name, *value).map_err(|reason| SimError::Param {
                key: format!("{key}.params.{name}"),
                reason,
            })?;
        }
        let controller = match cfg.algorithm {
            Algorithm::FixedRate => Controller::FixedRate(FixedRate {
                mss_bytes: sender_cfg.mss_bytes,
                ecn,
                next_seq: 0,
                frame_index: 0,
            }),
            Algorithm::ScreamV2 => {
                let sender_err = |source| SimError::Sender {
                    key: key.clone(),
                    source,
                };
                let mut sender = Sender::new(sender_cfg).map_err(sender_err)?;
                let stream = sender
                    .add_stream(StreamConfig {
                        ssrc,
                        min_bitrate: Bitrate::from_mbps(cfg.min_bitrate_mbps),
                        start_bitrate: start_rate,
                        max_bitrate: Bitrate::from_mbps(cfg.max_bitrate_mbps),
                        priority: cfg.priority,
                    })
                    .map_err(sender_err)?;
                let receiver = Receiver::new(ReceiverConfig {
                    packets_per_report: cfg.packets_per_report,
                    max_report_interval: Duration::from_secs_f64(cfg.max_report_interval_ms * 1e-3),
                    ..ReceiverConfig::default()
                })
                .map_err(|e| SimError::Param {
                    key: format!("{key}.packets_per_report"),
                    reason: e.to_string(),
                })?;
                Controller::Scream(Box::new(ScreamEndpoints {
                    sender,
                    receiver,
                    stream,
                    sender_wake: None,
                    receiver_wake: None,
                    unwrapper: TimestampUnwrapper::new(),
                }))
            }
        };
        let stop = if cfg.stop_s > 0.0 {
            secs(cfg.stop_s).min(end)
        } else {
            end
        };
        Ok(Self {
            name: scenario.flow_name(i),
            algorithm: cfg.algorithm,
            ssrc,
            source,
            controller,
            path,
            start: secs(cfg.start_s),
            stop,
            frame_period_ns,
            frames: 0,
            metrics: FlowMetrics::default(),
        })
    }

    /// When frame `k` is produced.
    pub fn frame_time(&self, k: u64) -> Instant {
        self.start + Duration::from_nanos((k as f64 * self.frame_period_ns).round() as u64)
    }

    /// Whether `hop` is the last link of the path.
    pub fn is_last_hop(&self, hop: u8) -> bool {
        usize::from(hop) + 1 >= self.path.len()
    }

    /// Length of the active period (start to stop), s.
    pub fn active_secs(&self) -> f64 {
        (self.stop - self.start).as_secs_f64()
    }
}

/// A packet the SCReAM sender released, as a network packet of flow `flow`.
pub fn packet_from_sent(flow: u32, sp: &SentPacket, now: Instant) -> Packet {
    Packet {
        flow,
        size_bytes: sp.size_bytes,
        ssrc: sp.ssrc,
        seq: sp.seq,
        marker: sp.marker,
        ecn: sp.ecn,
        frame_index: sp.frame_index,
        frame_enqueued_at: sp.frame_enqueued_at,
        sent_at: now,
        enqueued_at: now,
        queue_delay: Duration::ZERO,
        hop: 0,
    }
}
