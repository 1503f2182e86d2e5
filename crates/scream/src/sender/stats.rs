//! Snapshot of the sender state. PLACEHOLDER: the sender implementation completes it.

use crate::time::Duration;
use crate::units::Bitrate;

/// Sender-wide state, cheap to take (no allocation beyond the per-stream vector).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SenderStats {
    /// Reference window, bytes.
    pub ref_window_bytes: u64,
    /// Bytes sent and not yet acknowledged or declared lost.
    pub bytes_in_flight: u64,
    /// Smoothed round-trip time.
    pub srtt: Duration,
    /// Estimated queue delay (one-way delay minus base delay).
    pub queue_delay: Duration,
    /// Per stream, in the order streams were added.
    pub streams: Vec<StreamStats>,
}

/// Per-stream state.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StreamStats {
    /// Current target bitrate.
    pub target_bitrate: Bitrate,
}
