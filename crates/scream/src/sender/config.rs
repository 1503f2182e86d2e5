//! Sender configuration. PLACEHOLDER: the sender implementation completes the fields.

use crate::time::Duration;

/// Which congestion signal the sender asks the network for and reacts to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum EcnMode {
    /// Packets are sent Not-ECT; delay and loss are the only signals.
    #[default]
    None,
    /// Packets are sent ECT(0); CE is a classic ECN signal (RFC 3168 reaction).
    Classic,
    /// Packets are sent ECT(1); CE fraction drives an L4S back-off (RFC 9330/9331).
    L4s,
}

/// An invalid configuration value.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("invalid `{field}` = {value}: {reason}")]
pub struct ConfigError {
    /// Name of the offending field.
    pub field: &'static str,
    /// The offending value, as text.
    pub value: String,
    /// What the allowed range is.
    pub reason: String,
}

/// Sender parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct SenderConfig {
    /// ECN mode.
    pub ecn: EcnMode,
    /// Maximum RTP packet payload size in bytes.
    pub mss_bytes: u32,
    /// RTP queue age above which the queue is discarded.
    pub max_rtp_queue_delay: Duration,
}

impl Default for SenderConfig {
    fn default() -> Self {
        Self {
            ecn: EcnMode::None,
            mss_bytes: 1000,
            max_rtp_queue_delay: Duration::from_secs(2),
        }
    }
}

impl SenderConfig {
    /// Checks every field against its allowed range.
    pub fn validate(&self) -> Result<(), ConfigError> {
        Ok(())
    }
}
