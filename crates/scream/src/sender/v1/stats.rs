//! SCReAM V1's own part of the sender's statistics.

use crate::time::Duration;

/// SCReAM V1's own state (RFC 8298 names in parentheses).
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct V1Stats {
    /// Queue delay target (`qdelay_target`); above `qdelay_target_lo` only with
    /// competing-flows compensation.
    pub qdelay_target: Duration,
    /// Queue delay trend in [0, 1] (`qdelay_trend`).
    pub qdelay_trend: f64,
    /// Averaged queue delay over its target (`qdelay_fraction_avg`).
    pub qdelay_fraction_avg: f64,
    /// Whether the window is in fast increase (`in_fast_increase`).
    pub in_fast_start: bool,
    /// Whether the last window update capped the window at the validated bytes in
    /// flight.
    pub cwnd_validated: bool,
    /// The validation limit (`max_bytes_in_flight` × head room), bytes.
    pub max_bytes_in_flight: u64,
    /// Fast-increase restraint after congestion, 0 to 1.
    pub post_congestion_scale: f64,
    /// Whether L4S counts as active (a CE event within 10 s).
    pub l4s_active: bool,
    /// Learnt MSS: the largest packet since the last one-second reset, bytes.
    pub mss_bytes: u64,
    /// Frame-size scale of the pacing rate and the send window.
    pub pacing_scale: f64,
}
