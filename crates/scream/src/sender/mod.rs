//! The SCReAM sender: RTP queues, transmission control, congestion control and media
//! rate control.
//!
//! # Call order
//!
//! ```text
//! inputs : on_media_frame(now, stream, frame)  -> packets enter the stream's RTP queue
//!          on_feedback(now, &feedback)         -> acks, losses, ECN, delay samples
//!          handle_timeout(now)                 -> when poll_timeout()'s instant is reached
//! outputs: poll_transmit(now)                  -> Transmit::{Now(packet), At(t), Idle}
//!          poll_timeout()                      -> the next instant handle_timeout wants
//!          poll_event()                        -> TargetBitrate, KeyFrameRequest, ...
//! getters: target_bitrate(stream), stats()
//! ```
//!
//! After every input, drain `poll_transmit` until it returns `At` or `Idle`, and
//! `poll_event` until `None`; then sleep until the earlier of `poll_timeout()` and the
//! `At` instant. `now` must never go backwards; a `now` earlier than the previous one
//! is treated as equal to it.

// PLACEHOLDER: the sender implementation replaces this file's bodies; the public
// signatures below are the contract the simulator and CLI build on.

use crate::feedback::Feedback;
use crate::time::Instant;
use crate::units::Bitrate;

/// Identifies a stream added with [`Sender::add_stream`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StreamId(pub(crate) u32);

impl StreamId {
    /// Index of the stream in the order streams were added (0, 1, ...).
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Per-stream settings given to [`Sender::add_stream`].
#[derive(Clone, Debug, PartialEq)]
pub struct StreamConfig {
    /// RTP SSRC the stream's packets carry.
    pub ssrc: u32,
    /// Lowest target bitrate the encoder can produce.
    pub min_bitrate: Bitrate,
    /// Target bitrate before any feedback has arrived.
    pub start_bitrate: Bitrate,
    /// Highest useful target bitrate.
    pub max_bitrate: Bitrate,
    /// Relative share of the total target (a stream of priority 2 gets twice the share
    /// of a stream of priority 1). Must be > 0.
    pub priority: f64,
}

/// One encoded media frame handed to [`Sender::on_media_frame`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MediaFrame {
    /// Encoded size in bytes (RTP payload of all its packets together).
    pub size_bytes: u32,
    /// Whether the frame is a key frame (informational, for stats and queue discard).
    pub key_frame: bool,
}

/// What [`Sender::poll_transmit`] asks the caller to do.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Transmit {
    /// Send this packet now.
    Now(SentPacket),
    /// Nothing may be sent before this instant (pacing); poll again then.
    At(Instant),
    /// Nothing to send (empty queues or a full send window); poll again after the next
    /// input.
    Idle,
}

/// A packet the sender released for transmission.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SentPacket {
    /// The stream it belongs to.
    pub stream: StreamId,
    /// RTP SSRC.
    pub ssrc: u32,
    /// RTP sequence number.
    pub seq: u16,
    /// Size on the wire that the congestion controller accounts for (RTP payload plus
    /// RTP header), in bytes.
    pub size_bytes: u32,
    /// RTP marker bit: last packet of a frame.
    pub marker: bool,
    /// ECN codepoint to set on the IP header.
    pub ecn: crate::Ecn,
    /// When the frame this packet belongs to entered the RTP queue.
    pub frame_enqueued_at: Instant,
    /// Index of the frame within its stream (0, 1, ...), to correlate packets of a frame.
    pub frame_index: u64,
}

/// Notifications for the application.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Event {
    /// The encoder of `stream` should now produce `bitrate`.
    TargetBitrate {
        /// Stream concerned.
        stream: StreamId,
        /// New target.
        bitrate: Bitrate,
    },
    /// The RTP queue of `stream` was discarded because it grew too old; the encoder
    /// should produce a key frame.
    KeyFrameRequest {
        /// Stream concerned.
        stream: StreamId,
    },
}

mod config;
mod stats;

pub use config::{ConfigError, EcnMode, SenderConfig};
pub use stats::{SenderStats, StreamStats};

/// A SCReAM sender (all streams sharing one congestion controller).
#[derive(Debug)]
pub struct Sender {
    _config: SenderConfig,
}

impl Sender {
    /// A sender with `config`, which must pass [`SenderConfig::validate`].
    pub fn new(config: SenderConfig) -> Result<Self, ConfigError> {
        config.validate()?;
        Ok(Self { _config: config })
    }

    /// Adds a media stream; streams are served by priority.
    pub fn add_stream(&mut self, _config: StreamConfig) -> Result<StreamId, ConfigError> {
        todo!()
    }

    /// A frame was encoded: it enters the stream's RTP queue as MSS-sized packets.
    pub fn on_media_frame(&mut self, _now: Instant, _stream: StreamId, _frame: MediaFrame) {
        todo!()
    }

    /// Feedback arrived from the receiver.
    pub fn on_feedback(&mut self, _now: Instant, _feedback: &Feedback) {
        todo!()
    }

    /// Runs timers that are due at `now`.
    pub fn handle_timeout(&mut self, _now: Instant) {
        todo!()
    }

    /// The next packet to send, or when to ask again.
    pub fn poll_transmit(&mut self, _now: Instant) -> Transmit {
        todo!()
    }

    /// The next instant at which [`Sender::handle_timeout`] must be called.
    pub fn poll_timeout(&self) -> Option<Instant> {
        todo!()
    }

    /// The next pending event.
    pub fn poll_event(&mut self) -> Option<Event> {
        todo!()
    }

    /// Current target bitrate of `stream`.
    pub fn target_bitrate(&self, _stream: StreamId) -> Bitrate {
        todo!()
    }

    /// A snapshot of the sender's state for logging and plots.
    pub fn stats(&self) -> SenderStats {
        todo!()
    }
}
