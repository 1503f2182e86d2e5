//! SCReAM on real UDP sockets: a media sender, a receiver and a real-time link
//! emulator, each a single-threaded event loop over the `scream` library's sans-I/O
//! state machines (and, for the emulator, the network-model crate's directed links).
//!
//! This crate and the command-line tool are the only code that reads the real clock.
//! Every datagram carries its ECN codepoint both ways (quinn-udp's `IP_TOS` /
//! `IP_RECVTOS` handling), so L4S and classic ECN work over loopback, veth and real
//! networks alike. Sends use GSO where the kernel has it, receives GRO.
//!
//! Each loop wakes when a socket is readable or at the earliest deadline of its state
//! machines, whichever comes first; deadlines under a millisecond away are slept to
//! precisely (see [`poller`]). The state machines tolerate late wake-ups, so a busy
//! machine costs accuracy of the timing, not correctness.
//!
//! A loop runs until an instant or, without one, until stopped: a [`Stop`] handed to
//! an endpoint ends its loop on a signal, after one last report, so that the caller
//! writes its outputs as after a run of fixed length.

pub mod auth;
pub mod clock;
mod event_loop;
pub mod histogram;
pub mod ip;
pub mod link;
pub mod poller;
mod probation;
pub mod receiver;
pub mod sender;
pub mod socket;
pub mod stop;

pub use clock::Clock;
pub use event_loop::RunEnd;
pub use link::{LinkDatagram, LinkEmulator};
pub use receiver::{MediaReceiver, MediaReceiverConfig};
pub use sender::{Encoder, MediaSender, MediaSenderConfig};
pub use socket::EcnSocket;
pub use stop::{Signal, Stop, TERMINATION_SIGNALS};
