//! Sans-I/O implementation of SCReAM, the self-clocked rate adaptation for multimedia.
//!
//! See the crate README for an overview; [`sender::Sender`] and [`receiver::Receiver`]
//! document the call order of the state machines.
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
