//! Snapshot of the sender state, for logging, metrics and plots.

use crate::time::Duration;
use crate::units::Bitrate;

/// Sender-wide state, cheap to take (no allocation beyond the per-stream vector).
///
/// Rates are measured over a sliding interval of about 200 ms ending at the latest
/// input the sender saw.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SenderStats {
    /// Reference window, bytes.
    pub ref_window_bytes: u64,
    /// Bytes sent and not yet acknowledged or declared lost.
    pub bytes_in_flight: u64,
    /// Smoothed round-trip time the controller uses: followed once per RTT, so it
    /// spans about eight RTTs (50 ms before the first sample).
    pub srtt: Duration,
    /// Estimated queue delay (one-way delay minus base delay) of the latest sample.
    pub queue_delay: Duration,
    /// Queue delay averaged with a slow-attack, fast-decay filter (draft `qdelay_avg`).
    pub queue_delay_avg: Duration,
    /// Averaged fraction of CE-marked packets (0 unless in L4S mode).
    pub l4s_alpha: f64,
    /// Rate of packets released by `poll_transmit`.
    pub rate_transmitted: Bitrate,
    /// Rate of packets acknowledged.
    pub rate_acked: Bitrate,
    /// Rate of packets declared lost.
    pub rate_lost: Bitrate,
    /// Rate of packets acknowledged with a CE mark.
    pub rate_ce: Bitrate,
    /// Packets released by `poll_transmit`.
    pub packets_sent: u64,
    /// Packets acknowledged.
    pub packets_acked: u64,
    /// Packets declared lost (reordering window passed, or in-flight timeout).
    pub packets_lost: u64,
    /// Packets acknowledged with a CE mark.
    pub packets_ce: u64,
    /// Per-packet feedback reports ignored as inconsistent: unknown SSRC, a sequence
    /// number never sent or far behind anything in flight, an arrival time after the
    /// report time, or a report time going backwards.
    pub feedback_ignored: u64,
    /// Total target bitrate of all streams.
    pub target_bitrate: Bitrate,
    /// Current pacing rate.
    pub pacing_rate: Bitrate,
    /// Send window headroom factor applied to the reference window.
    pub window_headroom: f64,
    /// Per stream, in the order streams were added.
    pub streams: Vec<StreamStats>,
}

/// Per-stream state.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StreamStats {
    /// RTP SSRC.
    pub ssrc: u32,
    /// Current target bitrate.
    pub target_bitrate: Bitrate,
    /// Age of the oldest packet in the RTP queue (zero when empty).
    pub rtp_queue_delay: Duration,
    /// Bytes waiting in the RTP queue (accounted size, header included).
    pub rtp_queue_bytes: u64,
    /// Packets waiting in the RTP queue.
    pub rtp_queue_packets: usize,
    /// How many times the RTP queue was discarded for being too old.
    pub queue_discards: u64,
}
