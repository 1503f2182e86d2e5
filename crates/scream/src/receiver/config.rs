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
}

impl Default for ReceiverConfig {
    fn default() -> Self {
        Self {
            packets_per_report: 16,
            max_report_interval: Duration::from_millis(40),
            report_window: 64,
            report_on_marker: true,
        }
    }
}

/// RFC 8888 §3.1: at most 16384 reports per block.
pub const MAX_REPORT_WINDOW: u16 = 16384;

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
        Ok(())
    }
}
