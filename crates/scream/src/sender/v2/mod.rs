//! SCReAM V2 (draft-ietf-ccwg-rfc8298bis-screamv2-00): the reference window
//! ([`window`]) and the target bitrate derived from it ([`rate`]).

pub(crate) mod rate;
pub(crate) mod window;

use super::cc_events::BackOffCause;
use super::config::SenderConfig;
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

/// Measurements the sender shares with the congestion controller.
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

/// The generation-specific congestion control and target bitrate logic. Variants are
/// siblings; the sender dispatches by `match`, never through a trait object.
#[derive(Debug, Clone)]
pub(crate) enum Algorithm {
    /// SCReAM V2.
    V2(window::RefWindow),
}

impl Algorithm {
    pub(crate) fn new_v2(cfg: &SenderConfig) -> Self {
        Self::V2(window::RefWindow::new(cfg))
    }

    /// Feedback was processed: update the window. Returns the back-off it made, if
    /// any: cause, window before and after (bytes).
    pub(crate) fn on_feedback(
        &mut self,
        cfg: &SenderConfig,
        ack: &AckSummary,
        m: &Measurements,
    ) -> Option<(BackOffCause, u64, u64)> {
        match self {
            Self::V2(w) => w.on_feedback(cfg, ack, m),
        }
    }

    /// The send window stalled the sender and the flight was given up, the
    /// `in_a_row`-th time with nothing acknowledged since (only with the
    /// `outage-recovery` improvement). Returns the window before and after (bytes) if
    /// it shrank.
    pub(crate) fn on_stall(&mut self, in_a_row: u32) -> Option<(u64, u64)> {
        match self {
            Self::V2(w) => w.on_stall(in_a_row),
        }
    }

    /// A packet left; `bytes_in_flight` includes it.
    pub(crate) fn on_sent(&mut self, bytes_in_flight: u64) {
        match self {
            Self::V2(w) => w.on_sent(bytes_in_flight),
        }
    }

    /// Reference (congestion) window, bytes.
    pub(crate) fn window_bytes(&self) -> u64 {
        match self {
            Self::V2(w) => w.ref_wnd_bytes(),
        }
    }

    /// How many bytes may be in flight before the send window closes.
    pub(crate) fn send_limit_bytes(&self, cfg: &SenderConfig, steadiness: f64, mss: u64) -> u64 {
        match self {
            Self::V2(w) => w.send_limit_bytes(cfg, steadiness, mss),
        }
    }

    /// Send window headroom factor currently applied.
    pub(crate) fn headroom(&self, cfg: &SenderConfig, steadiness: f64) -> f64 {
        match self {
            Self::V2(_) => window::headroom(cfg, steadiness),
        }
    }

    /// Total target bitrate for all streams, before the split across streams.
    pub(crate) fn total_target(&self, cfg: &SenderConfig, srtt: Duration, mss: u64) -> Bitrate {
        match self {
            Self::V2(w) => rate::total_target(cfg, w.ref_wnd_bytes(), srtt, mss),
        }
    }

    /// Whether the window exceeds what the recent bytes in flight can use.
    pub(crate) fn app_limited(&self) -> bool {
        match self {
            Self::V2(w) => w.app_limited(),
        }
    }

    /// Averaged CE fraction (L4S), 0 when not applicable.
    pub(crate) fn l4s_alpha(&self) -> f64 {
        match self {
            Self::V2(w) => w.l4s_alpha(),
        }
    }
}
