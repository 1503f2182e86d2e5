//! A byte-counted FIFO with tail-drop admission, the storage under every discipline.

use crate::packet::NetPacket;
use scream::{Duration, Ecn, Instant};
use std::collections::VecDeque;

/// A packet in a queue with the instant it was admitted (the queue's own bookkeeping,
/// never written into the packet).
#[derive(Debug, Clone, PartialEq)]
pub struct Queued<P> {
    /// The packet.
    pub packet: P,
    /// When it entered the queue.
    pub enqueued_at: Instant,
    /// Its ECN codepoint then, so that a link can tell the marks its AQM made.
    pub ecn_on_arrival: Ecn,
}

/// Packets waiting for the serializer, oldest first.
#[derive(Debug, Clone)]
pub struct Fifo<P> {
    packets: VecDeque<Queued<P>>,
    bytes: u64,
}

impl<P> Default for Fifo<P> {
    fn default() -> Self {
        Self::new()
    }
}

impl<P: NetPacket> Fifo<P> {
    /// Admits `pkt` stamped with `now` if it fits under `limit_bytes` (0 = unlimited);
    /// an empty queue always admits one packet, so a link can never refuse everything.
    /// A refused packet is handed back.
    pub fn push(&mut self, now: Instant, pkt: P, limit_bytes: u64) -> Result<(), P> {
        let size = u64::from(pkt.size_bytes());
        if limit_bytes > 0 && !self.packets.is_empty() && self.bytes + size > limit_bytes {
            return Err(pkt);
        }
        self.bytes += size;
        self.packets.push_back(Queued {
            ecn_on_arrival: pkt.ecn(),
            packet: pkt,
            enqueued_at: now,
        });
        Ok(())
    }

    /// Removes the oldest packet.
    pub fn pop(&mut self) -> Option<Queued<P>> {
        let q = self.packets.pop_front()?;
        self.bytes -= u64::from(q.packet.size_bytes());
        Some(q)
    }
}

impl<P> Fifo<P> {
    /// An empty FIFO.
    pub fn new() -> Self {
        Self {
            packets: VecDeque::new(),
            bytes: 0,
        }
    }

    /// The oldest packet.
    pub fn head(&self) -> Option<&Queued<P>> {
        self.packets.front()
    }

    /// Sojourn time of the head packet at `now` (zero when empty).
    pub fn head_sojourn(&self, now: Instant) -> Duration {
        self.head().map_or(Duration::ZERO, |q| now - q.enqueued_at)
    }

    /// Bytes queued.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Packets queued.
    pub fn len(&self) -> usize {
        self.packets.len()
    }

    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.packets.is_empty()
    }
}
