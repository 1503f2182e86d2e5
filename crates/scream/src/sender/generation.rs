//! What differs between SCReAM generations, behind one small contract.
//!
//! The chassis ([`super::Sender`]) owns what every generation shares: streams and
//! their RTP queues, sent packets and loss detection, base delay and sRTT, the
//! scheduler and the pacer's spacing. A [`Generation`] owns the rest: the congestion
//! window law, the media rate control, the pacing rate, and its own per-stream state.
//! Variants are siblings; the sender dispatches by `match`, never through a trait
//! object, so the per-packet path stays monomorphic.

use super::MediaFrame;
use super::cc_events::BackOffCause;
use super::config::{GenerationConfig, SenderConfig};
use super::draft00::{self, Draft00};
use super::stream::Stream;
use super::v1::V1;
use super::v2::{self, V2};
use crate::time::{Duration, Instant};
use crate::units::Bitrate;

/// What one feedback message acknowledged, as the congestion controller needs it.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct AckSummary {
    /// Bytes newly acknowledged (draft `bytes_newly_acked`).
    pub(crate) bytes_acked: u64,
    /// Of which CE-marked (draft `bytes_newly_acked_ce`).
    pub(crate) bytes_acked_ce: u64,
    /// Packets newly acknowledged.
    pub(crate) packets_acked: u64,
    /// Of which CE-marked.
    pub(crate) packets_ce: u64,
    /// Packets newly declared lost by the reordering window.
    pub(crate) packets_lost: u64,
}

/// Measurements the chassis shares with the generation after each feedback.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Measurements {
    pub(crate) now: Instant,
    /// Smoothed RTT, followed once per RTT (see `DelayEstimator::srtt`).
    pub(crate) srtt: Duration,
    pub(crate) qdelay_avg: Duration,
    /// Latest queue delay sample.
    pub(crate) queue_delay: Duration,
    /// Whether the latest RTT sample lowered the smoothed RTT (the queue drains).
    pub(crate) rtt_falling: bool,
    /// Rate of acknowledged bytes over the last 200 ms.
    pub(crate) rate_acked: Bitrate,
    pub(crate) bytes_in_flight: u64,
    /// 1 when the queue delay is steady, towards 0 when it varies.
    pub(crate) steadiness: f64,
    pub(crate) total_target: Bitrate,
    pub(crate) total_max: Bitrate,
    /// Largest packet on the wire recently (the draft's MSS), bytes.
    pub(crate) mss_bytes: u64,
}

/// What media rate control reads of the chassis.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TargetInput {
    pub(crate) srtt: Duration,
    /// Largest packet on the wire recently, bytes.
    pub(crate) mss_bytes: u64,
    /// Factor the chassis' base delay refresh applies to the rate (1 outside one).
    pub(crate) rate_factor: f64,
    /// Sender time of the input that asks for the targets.
    pub(crate) now: Instant,
}

/// How the chassis' delay estimator is to average and judge the queue delay for this
/// generation.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DelayParams {
    /// Queue delay target: caps the variation estimate and sets the standing-queue
    /// level of the base delay refresh.
    pub(crate) qdelay_target: Duration,
    /// Gain of `qdelay_avg` on increase.
    pub(crate) qdelay_avg_g: f64,
    /// How often `qdelay_avg` and the variation are updated at most.
    pub(crate) interval: Duration,
}

/// The generation-specific congestion and rate control of a sender.
#[derive(Debug, Clone)]
pub(crate) enum Generation {
    /// SCReAM V2.
    V2(V2),
    /// SCReAM V1 (RFC 8298 as the Ericsson code ran it).
    V1(V1),
    /// The 2014 draft-00 SCReAM.
    Draft00(Draft00),
}

impl Generation {
    pub(crate) fn new(cfg: &SenderConfig) -> Self {
        match &cfg.generation {
            GenerationConfig::V2(p) => Self::V2(V2::new(cfg, p)),
            GenerationConfig::Draft00(p) => Self::Draft00(Draft00::new(cfg, p)),
            GenerationConfig::V1(p) => Self::V1(V1::new(cfg, p)),
        }
    }

    /// A stream was added (its index is the number of streams before).
    pub(crate) fn on_stream_added(&mut self, stream: &Stream) {
        match self {
            Self::V2(g) => g.streams.push(v2::streams::V2Stream::default()),
            Self::V1(g) => g.on_stream_added(stream.target),
            Self::Draft00(g) => g.streams.push(draft00::Draft00Stream::default()),
        }
    }

    /// Whether `frame`, arriving at `now` for stream `idx` whose RTP queue is
    /// `queue_delay` old, enters the queue; a refused frame is skipped (draft-00 frame
    /// skipping). Called before the frame is queued.
    pub(crate) fn admit_frame(
        &mut self,
        idx: usize,
        frame: MediaFrame,
        queue_delay: Duration,
        now: Instant,
    ) -> bool {
        match self {
            Self::V2(_) => true,
            Self::V1(_) => true,
            Self::Draft00(g) => g.admit_frame(idx, frame, queue_delay, now),
        }
    }

    /// A frame of `size_bytes` entered stream `idx`'s RTP queue, which was
    /// `queue_delay` old just before.
    pub(crate) fn on_frame(
        &mut self,
        idx: usize,
        stream: &Stream,
        size_bytes: u32,
        queue_delay: Duration,
    ) {
        match self {
            Self::V2(g) => {
                if let Some(s) = g.streams.get_mut(idx) {
                    s.on_frame(stream, size_bytes, queue_delay);
                }
            }
            // Draft-00 looks at the RTP queue in `admit_frame` only.
            Self::Draft00(_) => {}
            Self::V1(g) => g.on_frame(idx, stream, size_bytes),
        }
    }

    /// Stream `idx`'s RTP queue was discarded.
    pub(crate) fn on_discard(&mut self, idx: usize) {
        match self {
            Self::V2(g) => {
                if let Some(s) = g.streams.get_mut(idx) {
                    s.on_discard();
                }
            }
            Self::Draft00(g) => g.on_discard(idx),
            Self::V1(g) => g.on_discard(idx),
        }
    }

    /// How the delay estimator works for this generation, at smoothed RTT `srtt`.
    pub(crate) fn delay_params(&self, srtt: Duration) -> DelayParams {
        match self {
            Self::V2(g) => DelayParams {
                qdelay_target: g.cfg.qdelay_target,
                qdelay_avg_g: g.cfg.qdelay_avg_g,
                interval: g.cfg.virtual_rtt.min(srtt),
            },
            Self::Draft00(g) => g.delay_params(srtt),
            // V1 keeps its own queue delay estimate; the chassis' serves clock-step
            // checks and the statistics only.
            Self::V1(g) => DelayParams {
                qdelay_target: g.window.qdelay_target,
                qdelay_avg_g: g.cfg.qdelay_weight,
                interval: Duration::from_millis(50),
            },
        }
    }

    /// Feedback was processed: update the window. Returns the back-off it made, if
    /// any: cause, window before and after (bytes).
    pub(crate) fn on_feedback(
        &mut self,
        ack: &AckSummary,
        m: &Measurements,
    ) -> Option<(BackOffCause, u64, u64)> {
        match self {
            Self::V2(g) => g.on_feedback(ack, m),
            Self::Draft00(g) => g.on_feedback(ack, m),
            Self::V1(g) => g.on_feedback(ack, m),
        }
    }

    /// The send window stalled the sender and the flight was given up, the
    /// `in_a_row`-th time with nothing acknowledged since (only with the
    /// `outage-recovery` improvement). Returns the window before and after (bytes) if
    /// it shrank.
    pub(crate) fn on_stall(&mut self, in_a_row: u32) -> Option<(u64, u64)> {
        match self {
            Self::V2(g) => g.window.on_stall(in_a_row),
            // Draft-00 has no reaction of its own to a stall.
            Self::Draft00(_) => None,
            Self::V1(_) => None,
        }
    }

    /// A packet left; `bytes_in_flight` includes it.
    pub(crate) fn on_sent(&mut self, bytes_in_flight: u64) {
        match self {
            Self::V2(g) => g.window.on_sent(bytes_in_flight),
            Self::Draft00(g) => g.window.on_sent(bytes_in_flight),
            Self::V1(_) => {}
        }
    }

    /// A packet of `size` bytes of stream `idx` left at `now`; `bytes_in_flight`
    /// includes it.
    pub(crate) fn on_packet_sent(
        &mut self,
        idx: usize,
        now: Instant,
        size: u32,
        bytes_in_flight: u64,
    ) {
        match self {
            Self::V2(_) | Self::Draft00(_) => {}
            Self::V1(g) => g.on_packet_sent(idx, now, size, bytes_in_flight),
        }
    }

    /// A packet of `size` bytes of stream `idx` was acknowledged at `now`; `owd_nanos`
    /// is its one-way delay sample if the chassis' delay estimator accepted it.
    pub(crate) fn on_packet_acked(
        &mut self,
        idx: usize,
        now: Instant,
        size: u32,
        owd_nanos: Option<i64>,
    ) {
        match self {
            Self::V2(_) | Self::Draft00(_) => {}
            Self::V1(g) => g.on_packet_acked(idx, now, size, owd_nanos),
        }
    }

    /// The generation's own queue delay estimate, if it keeps one.
    pub(crate) fn queue_delay(&self) -> Option<Duration> {
        match self {
            Self::V2(_) | Self::Draft00(_) => None,
            Self::V1(g) => Some(g.window.owd.queue_delay()),
        }
    }

    /// Congestion window, bytes (V2: the reference window; V1 and draft-00: `cwnd`).
    pub(crate) fn window_bytes(&self) -> u64 {
        match self {
            Self::V2(g) => g.window.ref_wnd_bytes(),
            Self::Draft00(g) => g.window.cwnd_bytes(),
            Self::V1(g) => g.window.cwnd,
        }
    }

    /// How many bytes may be in flight before the send window closes.
    pub(crate) fn send_limit_bytes(&self, steadiness: f64, mss: u64) -> u64 {
        match self {
            Self::V2(g) => g.send_limit_bytes(steadiness, mss),
            Self::Draft00(g) => g.window.send_limit_bytes(&g.cfg),
            Self::V1(g) => g.send_limit_bytes(),
        }
    }

    /// When the generation's own timer falls due next (sender time), if it has one.
    pub(crate) fn next_timeout(&self) -> Option<Instant> {
        match self {
            Self::V2(_) | Self::Draft00(_) => None,
            Self::V1(g) => g.next_timeout(),
        }
    }

    /// Runs the generation's own timers due at `now`; returns whether the streams'
    /// targets are to be recomputed.
    pub(crate) fn on_timeout(&mut self, now: Instant) -> bool {
        match self {
            // Both adjust their rates on feedback and frames only.
            Self::V2(_) | Self::Draft00(_) => false,
            // V1's timer runs its rate estimates; targets change at frames only.
            Self::V1(g) => {
                g.tick(now);
                false
            }
        }
    }

    /// Media rate control: sets every stream's `target`.
    pub(crate) fn update_targets(&mut self, streams: &mut [Stream], input: &TargetInput) {
        match self {
            Self::V2(g) => g.update_targets(streams, input),
            Self::Draft00(g) => g.update_targets(streams, input),
            Self::V1(g) => g.update_targets(streams, input),
        }
    }

    /// The pacing rate for the streams' current targets.
    pub(crate) fn pacing_rate(
        &self,
        streams: &[Stream],
        media_rate: Bitrate,
        delivery_peak: Option<Bitrate>,
    ) -> Bitrate {
        match self {
            Self::V2(g) => g.pacing_rate(streams, media_rate, delivery_peak),
            Self::Draft00(g) => g.pacing_rate(streams),
            Self::V1(g) => g.pacing_rate(),
        }
    }

    /// Whether the window exceeds what the recent bytes in flight can use.
    pub(crate) fn app_limited(&self) -> bool {
        match self {
            Self::V2(g) => g.window.app_limited(),
            // Draft-00 follows every RTT sample alike.
            Self::Draft00(_) => false,
            Self::V1(_) => false,
        }
    }

    /// Averaged CE fraction (L4S), 0 when not applicable.
    pub(crate) fn l4s_alpha(&self) -> f64 {
        match self {
            Self::V2(g) => g.window.l4s_alpha(),
            Self::Draft00(_) => 0.0,
            Self::V1(g) => g.l4s_alpha(),
        }
    }

    /// The generation's own part of [`super::SenderStats`].
    pub(crate) fn stats(&self, steadiness: f64) -> super::GenerationStats {
        match self {
            Self::V2(g) => super::GenerationStats::V2(super::stats::V2Stats {
                window_headroom: v2::window::headroom(&g.cfg, steadiness),
            }),
            Self::Draft00(g) => super::GenerationStats::Draft00(g.stats()),
            Self::V1(g) => super::GenerationStats::V1(g.stats()),
        }
    }
}
