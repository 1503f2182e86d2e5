//! The SCReAM receiver: per-SSRC reception history and feedback cadence.
//!
//! PLACEHOLDER: the receiver implementation replaces this file's bodies; the public
//! signatures below are the contract the simulator and CLI build on.
//!
//! # Call order
//!
//! ```text
//! inputs : on_packet(now, ReceivedPacket)      -> updates the reception history
//!          handle_timeout(now)
//! outputs: poll_feedback(now) -> Option<Feedback>
//!          poll_timeout()     -> when a report will be due if nothing else arrives
//! ```

use crate::ecn::Ecn;
use crate::feedback::Feedback;
use crate::time::{Duration, Instant};

/// An RTP packet as seen by the receiver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReceivedPacket {
    /// RTP SSRC.
    pub ssrc: u32,
    /// RTP sequence number.
    pub seq: u16,
    /// Size in bytes (informational).
    pub size_bytes: u32,
    /// ECN codepoint from the IP header.
    pub ecn: Ecn,
    /// RTP marker bit.
    pub marker: bool,
}

/// Receiver parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct ReceiverConfig {
    /// A report is due once this many packets arrived since the last one.
    pub packets_per_report: u32,
    /// A report is due this long after the last one if anything new arrived.
    pub max_report_interval: Duration,
}

impl Default for ReceiverConfig {
    fn default() -> Self {
        Self {
            packets_per_report: 16,
            max_report_interval: Duration::from_millis(40),
        }
    }
}

/// A SCReAM receiver.
#[derive(Debug)]
pub struct Receiver {
    _config: ReceiverConfig,
}

impl Receiver {
    /// A receiver with `config`.
    pub fn new(config: ReceiverConfig) -> Self {
        Self { _config: config }
    }

    /// A media packet arrived at `now` (receiver clock).
    pub fn on_packet(&mut self, _now: Instant, _packet: ReceivedPacket) {
        todo!()
    }

    /// The next feedback report, if one is due at `now`.
    pub fn poll_feedback(&mut self, _now: Instant) -> Option<Feedback> {
        todo!()
    }

    /// When the next report falls due if no packet arrives.
    pub fn poll_timeout(&self) -> Option<Instant> {
        todo!()
    }
}
