//! What the chassis and a generation hand each other: plain data, so that both sides
//! depend on this file and neither on the other.
//!
//! This module names no generation and no part of the chassis; it stays a leaf of the
//! sender's module graph.

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
    /// When the newest packet acknowledged so far left (sender time).
    pub(crate) newest_acked_sent_at: Option<Instant>,
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

/// Why the reference window was reduced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BackOffCause {
    /// Packets were reported lost (window × `beta_loss`).
    Loss,
    /// Classic ECN: packets came back CE-marked (window × `beta_ecn`; `scream-draft00`:
    /// × `beta_loss`, CE counting as a loss).
    Ce,
    /// L4S: back-off in proportion to the averaged CE fraction `l4s_alpha`.
    L4s,
    /// Queue delay above the onset of the delay-based back-off ("virtual L4S").
    Delay,
    /// The send window stalled the sender several times in a row with nothing
    /// acknowledged (`outage-recovery` only).
    Stall,
}
