//! One stream's RTP queue: packets of encoded frames waiting for the send window.
//!
//! A ring buffer (`VecDeque`) that keeps its capacity, so steady-state operation does
//! not allocate. Sequence numbers are given at transmission, not here, so a discarded
//! queue leaves no gap the receiver would mistake for loss.

use std::collections::VecDeque;

use crate::time::{Duration, Instant};

/// A packet waiting in the queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct QueuedPacket {
    /// Accounted size on the wire (payload + RTP header), bytes.
    pub(crate) size_bytes: u32,
    /// Last packet of its frame.
    pub(crate) marker: bool,
    /// When its frame entered the queue.
    pub(crate) enqueued_at: Instant,
    /// Index of its frame within the stream.
    pub(crate) frame_index: u64,
}

/// FIFO of packets with running byte total.
#[derive(Debug, Default)]
pub(crate) struct RtpQueue {
    packets: VecDeque<QueuedPacket>,
    bytes: u64,
}

impl RtpQueue {
    /// Splits a frame of `payload_bytes` into packets of at most `mss` payload bytes
    /// (each accounted with `overhead` header bytes), marker on the last.
    pub(crate) fn push_frame(
        &mut self,
        now: Instant,
        frame_index: u64,
        payload_bytes: u32,
        mss: u32,
        overhead: u32,
    ) {
        let mss = mss.max(1);
        let mut left = payload_bytes;
        while left > 0 {
            let chunk = left.min(mss);
            left -= chunk;
            let size = chunk.saturating_add(overhead);
            self.packets.push_back(QueuedPacket {
                size_bytes: size,
                marker: left == 0,
                enqueued_at: now,
                frame_index,
            });
            self.bytes += u64::from(size);
        }
    }

    pub(crate) fn front(&self) -> Option<&QueuedPacket> {
        self.packets.front()
    }

    pub(crate) fn pop(&mut self) -> Option<QueuedPacket> {
        let p = self.packets.pop_front()?;
        self.bytes -= u64::from(p.size_bytes);
        Some(p)
    }

    /// Age of the oldest packet; zero when empty.
    pub(crate) fn delay(&self, now: Instant) -> Duration {
        self.packets.front().map_or(Duration::ZERO, |p| {
            now.saturating_duration_since(p.enqueued_at)
        })
    }

    /// When the oldest packet entered, if any.
    pub(crate) fn oldest(&self) -> Option<Instant> {
        self.packets.front().map(|p| p.enqueued_at)
    }

    /// Drops every packet; returns how many were dropped.
    pub(crate) fn clear(&mut self) -> usize {
        let n = self.packets.len();
        self.packets.clear();
        self.bytes = 0;
        n
    }

    pub(crate) fn len(&self) -> usize {
        self.packets.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.packets.is_empty()
    }

    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_is_split_into_mss_packets_with_marker_on_last() {
        let mut q = RtpQueue::default();
        q.push_frame(Instant::from_millis(1), 7, 2500, 1000, 12);
        assert_eq!(q.len(), 3);
        assert_eq!(q.bytes(), 2500 + 3 * 12);
        let sizes: Vec<_> = std::iter::from_fn(|| q.pop())
            .map(|p| (p.size_bytes, p.marker, p.frame_index))
            .collect();
        assert_eq!(
            sizes,
            vec![(1012, false, 7), (1012, false, 7), (512, true, 7)]
        );
        assert_eq!(q.bytes(), 0);
    }

    #[test]
    fn delay_is_age_of_oldest_packet() {
        let mut q = RtpQueue::default();
        assert_eq!(q.delay(Instant::from_millis(5)), Duration::ZERO);
        q.push_frame(Instant::from_millis(10), 0, 100, 1000, 12);
        q.push_frame(Instant::from_millis(30), 1, 100, 1000, 12);
        assert_eq!(q.delay(Instant::from_millis(50)), Duration::from_millis(40));
        q.pop();
        assert_eq!(q.delay(Instant::from_millis(50)), Duration::from_millis(20));
        assert_eq!(q.clear(), 1);
        assert!(q.is_empty());
    }
}
