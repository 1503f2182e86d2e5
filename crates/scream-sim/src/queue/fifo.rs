//! A byte-counted FIFO with tail-drop admission, the storage under every discipline.

use crate::packet::Packet;
use scream::Instant;
use std::collections::VecDeque;

/// Packets waiting for the serializer, oldest first.
#[derive(Debug, Clone, Default)]
pub struct Fifo {
    packets: VecDeque<Packet>,
    bytes: u64,
}

impl Fifo {
    /// An empty FIFO.
    pub fn new() -> Self {
        Self {
            packets: VecDeque::with_capacity(256),
            bytes: 0,
        }
    }

    /// Admits `pkt` stamped with `now` if it fits under `limit_bytes` (0 = unlimited);
    /// an empty queue always admits one packet, so a link can never refuse everything.
    /// A refused packet is handed back.
    pub fn push(&mut self, now: Instant, mut pkt: Packet, limit_bytes: u64) -> Result<(), Packet> {
        let size = u64::from(pkt.size_bytes);
        if limit_bytes > 0 && !self.packets.is_empty() && self.bytes + size > limit_bytes {
            return Err(pkt);
        }
        pkt.enqueued_at = now;
        self.bytes += size;
        self.packets.push_back(pkt);
        Ok(())
    }

    /// Removes the oldest packet.
    pub fn pop(&mut self) -> Option<Packet> {
        let p = self.packets.pop_front()?;
        self.bytes -= u64::from(p.size_bytes);
        Some(p)
    }

    /// The oldest packet.
    pub fn head(&self) -> Option<&Packet> {
        self.packets.front()
    }

    /// Sojourn time of the head packet at `now` (zero when empty).
    pub fn head_sojourn(&self, now: Instant) -> scream::Duration {
        self.head()
            .map_or(scream::Duration::ZERO, |p| now - p.enqueued_at)
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
