//! A media packet as it travels through the simulated network.

use scream::{Duration, Ecn, Instant};

/// One packet in flight. Plain data, copied through the event queue (no allocation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Packet {
    /// Index of the flow that sent it.
    pub flow: u32,
    /// Size on the wire, bytes.
    pub size_bytes: u32,
    /// RTP SSRC.
    pub ssrc: u32,
    /// RTP sequence number.
    pub seq: u16,
    /// RTP marker bit (last packet of a frame).
    pub marker: bool,
    /// ECN codepoint; an AQM may change it to CE.
    pub ecn: Ecn,
    /// Index of the frame it belongs to.
    pub frame_index: u64,
    /// When its frame entered the sender's RTP queue.
    pub frame_enqueued_at: Instant,
    /// When the sender released it.
    pub sent_at: Instant,
    /// When it entered the queue of the link it is at (set by the link).
    pub enqueued_at: Instant,
    /// Sum of its sojourn times in the queues it has left so far.
    pub queue_delay: Duration,
    /// Position on its path: index into the flow's list of links.
    pub hop: u8,
}

impl Packet {
    /// A packet of `size_bytes` from `flow` with `ecn`, all other fields zero; for tests
    /// and synthetic traffic.
    pub fn synthetic(flow: u32, seq: u16, size_bytes: u32, ecn: Ecn, now: Instant) -> Self {
        Self {
            flow,
            size_bytes,
            ssrc: flow,
            seq,
            marker: false,
            ecn,
            frame_index: 0,
            frame_enqueued_at: now,
            sent_at: now,
            enqueued_at: now,
            queue_delay: Duration::ZERO,
            hop: 0,
        }
    }
}
