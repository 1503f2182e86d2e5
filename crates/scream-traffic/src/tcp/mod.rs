//! A sans-I/O TCP model at packet level, as cross traffic for the simulator: a sender
//! chassis with slow start, NewReno loss recovery and the RFC 6298 timer; congestion
//! laws NewReno, CUBIC and a Prague-style L4S law; a receiver with delayed ACKs and an
//! accurate CE echo; bulk and on-off application traffic.
//!
//! Simplifications, each of them common in simulators: no handshake or teardown (the
//! flow starts with the initial window at its start time), no SACK (a timeout goes
//! back to the first unacknowledged byte), sequence numbers as 64-bit byte offsets
//! that never wrap, and a receive window that never limits.

mod cubic;
mod law;
mod prague;
mod receiver;
mod rto;
mod segment;
mod sender;
mod traffic;

pub use law::LawKind;
pub use receiver::TcpReceiver;
pub use rto::LINUX_MIN_RTO;
pub use segment::{TcpAck, TcpData};
pub use sender::{EcnUse, SenderConfig, TcpSender};
pub use traffic::{OnOff, Traffic};

/// Bytes of IP and TCP headers on every segment: IPv4 (20) + TCP (20) + the timestamp
/// option padded (12, RFC 7323 §3). A 1448-byte payload makes a 1500-byte packet.
pub const HEADER_BYTES: u32 = 52;
