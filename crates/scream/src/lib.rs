//! Sans-I/O implementation of SCReAM, the self-clocked rate adaptation for multimedia.
//!
//! A [`sender::Sender`] takes video frames, RFC 8888 feedback and time, and says which
//! packet to send when and at which bitrate to encode; a [`receiver::Receiver`] takes
//! the packets that arrive and says what feedback to send. Both are plain state
//! machines: no clock reads, no sockets, no threads. Their type docs give the call order;
//! [`wire::ccfb`] encodes and decodes RFC 8888 feedback and [`wire::rtp`] RTP headers.
//! The repository's README drives one stream end to end with both.
#![cfg_attr(not(test), warn(clippy::unwrap_used, clippy::expect_used))]

pub mod ecn;
pub mod feedback;
pub mod receiver;
pub mod sender;
pub mod time;
pub mod units;
pub mod wire;

pub use ecn::Ecn;
pub use feedback::{Feedback, PacketReport, PacketStatus};
pub use time::{Duration, Instant, RemoteInstant};
pub use units::Bitrate;

/// The README's library example is compiled and run as a doctest, so it cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeDoctests;
