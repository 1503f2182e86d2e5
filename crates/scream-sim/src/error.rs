//! Errors of building a simulation from a scenario, or of writing its logs.

use crate::scenario::ValidationError;
use scream_netmodel::TraceError;
use scream_traffic::source::FrameTraceError;

/// Why a scenario could not be run. Each variant names the scenario key at fault.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SimError {
    /// A value is out of range.
    #[error("invalid scenario: {0}")]
    Invalid(#[from] ValidationError),
    /// A link capacity trace could not be used.
    #[error("{key}: {source}")]
    LinkTrace {
        /// Dotted key.
        key: String,
        /// The problem.
        source: TraceError,
    },
    /// A `data:` file that no data folder holds.
    #[error("{key}: {source}")]
    Data {
        /// Dotted key.
        key: String,
        /// Which file, where it was looked for, and how to get it.
        source: scream_data::Missing,
    },
    /// A frame-size trace could not be used.
    #[error("{key}: {source}")]
    FrameTrace {
        /// Dotted key.
        key: String,
        /// The problem.
        source: FrameTraceError,
    },
    /// A sender parameter is unknown or out of range.
    #[error("{key}: {reason}")]
    Param {
        /// Dotted key.
        key: String,
        /// The problem.
        reason: String,
    },
    /// The sender refused its configuration.
    #[error("{key}: {source}")]
    Sender {
        /// Dotted key of the flow.
        key: String,
        /// The sender's error.
        source: scream::sender::ConfigError,
    },
    /// A log (`--packet-log`, `--event-log`) could not be written.
    #[error("cannot write the {log}: {reason}")]
    Log {
        /// Which log.
        log: &'static str,
        /// The I/O error.
        reason: String,
    },
}
