//! What a TCP segment carries through the simulated network: the few header fields the
//! model reads, kept small because every packet is copied through the event queue and
//! the link queues.

use scream::Instant;

/// A TCP data segment (the payload is only its length).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TcpData {
    /// Global index of the flow's stream (the metrics' index).
    pub stream: u32,
    /// Sequence number of the first payload byte (bytes from 0; 64 bits never wrap).
    pub seq: u64,
    /// Payload bytes.
    pub len: u32,
    /// The sender's clock when it sent the segment (TSval, RFC 7323 §3).
    pub ts_val: Instant,
    /// Congestion Window Reduced (RFC 3168 §6.1.2): the sender answered an ECE.
    pub cwr: bool,
}

impl TcpData {
    /// Sequence number just past the payload.
    pub fn end(&self) -> u64 {
        self.seq + u64::from(self.len)
    }
}

/// A pure TCP acknowledgement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TcpAck {
    /// Next byte expected (cumulative acknowledgement).
    pub ack: u64,
    /// The TSval echoed (TSecr, RFC 7323 §4.3).
    pub ts_ecr: Instant,
    /// ECN-Echo (RFC 3168 §6.1.3): a CE mark arrived and no CWR since.
    pub ece: bool,
    /// Payload bytes received CE-marked since the start, modulo 2^32: the accurate
    /// echo an L4S sender needs (AccECN-like, RFC 9331 §4.1; AccECN itself carries
    /// 24-bit byte counters, wrapping as this one does).
    pub ce_bytes: u32,
}
