//! Receiver parameters and their validation.

use crate::time::Duration;

/// Receiver parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct ReceiverConfig {
    /// A report is due once this many packets arrived since the last one. Default 16
    /// (the Ericsson reference's cadence). Range 1..=`report_window`.
    pub packets_per_report: u32,
    /// A report is due this long after the last one if anything new arrived. Default
    /// 40 ms. Must be > 0.
    pub max_report_interval: Duration,
    /// Sequence numbers covered by each report, per stream. Default 64 (as the Ericsson
    /// reference). Range 1..=16384 (RFC 8888 §3.1 caps `num_reports` at 16384).
    pub report_window: u16,
    /// Whether the RTP marker bit (last packet of a frame) triggers a report. Default on.
    pub report_on_marker: bool,
    /// Most SSRCs whose reception history is kept at once; a packet of one more evicts
    /// a stream (see [`Receiver`](super::Receiver), *Many SSRCs*). Unit: streams.
    /// Default 64: an RTP session carrying SCReAM media has a handful of SSRCs (audio,
    /// video layers, retransmission and FEC streams), so 64 leaves room for several
    /// participants' simulcast layers while a flood of forged SSRCs costs at most
    /// 64 histories (about 100 KiB with the default window). Range 1..=4096, and
    /// `max_ssrcs × report_window` ≤ 1 048 576 history slots (24 MiB), so that no
    /// configuration lets peers make the receiver hold more than that.
    pub max_ssrcs: usize,
}

impl Default for ReceiverConfig {
    fn default() -> Self {
        Self {
            packets_per_report: 16,
            max_report_interval: Duration::from_millis(40),
            report_window: 64,
            report_on_marker: true,
            max_ssrcs: 64,
        }
    }
}

/// RFC 8888 §3.1: at most 16384 reports per block.
pub const MAX_REPORT_WINDOW: u16 = 16384;

/// Upper bound of [`ReceiverConfig::max_ssrcs`].
pub const MAX_SSRCS: usize = 4096;

/// Upper bound of `max_ssrcs × report_window`: the history slots (24 bytes each) that
/// packets from the peer can make the receiver hold.
pub const MAX_HISTORY_SLOTS: usize = 1 << 20;

/// An invalid receiver parameter.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("invalid receiver `{field}`: {reason}")]
pub struct ReceiverConfigError {
    /// Name of the offending field.
    pub field: &'static str,
    /// Allowed range.
    pub reason: &'static str,
}

impl ReceiverConfig {
    /// Checks every field against its allowed range.
    pub fn validate(&self) -> Result<(), ReceiverConfigError> {
        if self.report_window == 0 || self.report_window > MAX_REPORT_WINDOW {
            return Err(ReceiverConfigError {
                field: "report_window",
                reason: "must be in 1..=16384 (RFC 8888 §3.1)",
            });
        }
        if self.packets_per_report == 0 || self.packets_per_report > u32::from(self.report_window) {
            return Err(ReceiverConfigError {
                field: "packets_per_report",
                reason: "must be in 1..=report_window, or reports would leave holes",
            });
        }
        if self.max_report_interval.is_zero() {
            return Err(ReceiverConfigError {
                field: "max_report_interval",
                reason: "must be > 0",
            });
        }
        if self.max_ssrcs == 0 || self.max_ssrcs > MAX_SSRCS {
            return Err(ReceiverConfigError {
                field: "max_ssrcs",
                reason: "must be in 1..=4096",
            });
        }
        if self.max_ssrcs * usize::from(self.report_window) > MAX_HISTORY_SLOTS {
            return Err(ReceiverConfigError {
                field: "max_ssrcs",
                reason: "max_ssrcs × report_window must be ≤ 1048576 (24 MiB of history)",
            });
        }
        Ok(())
    }
}
