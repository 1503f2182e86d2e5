//! One stream's RTP queue: encoded frames waiting for the send window.
//!
//! Frames are kept whole and cut into packets as they leave, so the memory a frame
//! takes does not depend on its size (a caller handing in a 4 GB frame costs one
//! entry, not four million). The ring buffer (`VecDeque`) keeps its capacity, so
//! steady-state operation does not allocate. Sequence numbers are given at
//! transmission, not here, so a discarded queue leaves no gap the receiver would
//! mistake for loss.

use std::collections::VecDeque;

use crate::time::{Duration, Instant};

/// The next packet of the queue.
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
    /// The caller's handle of the bytes it carries.
    pub(crate) handle: u64,
    /// Where its bytes start in the caller's buffer.
    pub(crate) payload_offset: u32,
    /// How many of the caller's bytes it carries.
    pub(crate) payload_len: u32,
}

/// A frame or a whole RTP packet, or what is left of it.
#[derive(Clone, Copy, Debug)]
struct QueuedFrame {
    enqueued_at: Instant,
    frame_index: u64,
    /// The caller's handle of its bytes.
    handle: u64,
    /// Payload bytes in all.
    payload: u32,
    /// Payload bytes not yet sent.
    payload_left: u32,
    /// Largest payload per packet.
    mss: u32,
    /// Header bytes accounted per packet.
    overhead: u32,
    /// Whether its last packet ends a frame (always for a frame; for an RTP packet,
    /// as its caller said).
    ends_frame: bool,
}

impl QueuedFrame {
    fn next_packet(&self) -> QueuedPacket {
        let chunk = self.payload_left.min(self.mss);
        QueuedPacket {
            size_bytes: chunk.saturating_add(self.overhead),
            marker: chunk == self.payload_left && self.ends_frame,
            enqueued_at: self.enqueued_at,
            frame_index: self.frame_index,
            handle: self.handle,
            payload_offset: self.payload - self.payload_left,
            payload_len: chunk,
        }
    }
}

/// FIFO of frames with running totals of accounted bytes and packets.
#[derive(Debug, Default)]
pub(crate) struct RtpQueue {
    frames: VecDeque<QueuedFrame>,
    bytes: u64,
    packets: u64,
}

impl RtpQueue {
    /// Queues a frame of `payload_bytes`, to leave as packets of at most `mss` payload
    /// bytes (each accounted with `overhead` header bytes), marker on the last. An
    /// empty frame queues nothing.
    pub(crate) fn push_frame(
        &mut self,
        now: Instant,
        (frame_index, handle): (u64, u64),
        payload_bytes: u32,
        mss: u32,
        overhead: u32,
    ) {
        if payload_bytes == 0 {
            return;
        }
        let mss = mss.max(1);
        let packets = u64::from(payload_bytes.div_ceil(mss));
        self.frames.push_back(QueuedFrame {
            enqueued_at: now,
            frame_index,
            handle,
            payload: payload_bytes,
            payload_left: payload_bytes,
            mss,
            overhead,
            ends_frame: true,
        });
        self.bytes += u64::from(payload_bytes) + packets * u64::from(overhead);
        self.packets += packets;
    }

    /// Queues one whole RTP packet of `size_bytes` (its header included, so nothing is
    /// added to it), to leave as it is; `ends_frame` becomes its marker. An empty
    /// packet queues nothing.
    pub(crate) fn push_packet(
        &mut self,
        now: Instant,
        (frame_index, handle): (u64, u64),
        size_bytes: u32,
        ends_frame: bool,
    ) {
        if size_bytes == 0 {
            return;
        }
        self.frames.push_back(QueuedFrame {
            enqueued_at: now,
            frame_index,
            handle,
            payload: size_bytes,
            payload_left: size_bytes,
            mss: size_bytes,
            overhead: 0,
            ends_frame,
        });
        self.bytes += u64::from(size_bytes);
        self.packets += 1;
    }

    /// The packet that leaves next, if any.
    pub(crate) fn front(&self) -> Option<QueuedPacket> {
        self.frames.front().map(QueuedFrame::next_packet)
    }

    /// Takes the next packet off the queue.
    pub(crate) fn pop(&mut self) -> Option<QueuedPacket> {
        let frame = self.frames.front_mut()?;
        let p = frame.next_packet();
        frame.payload_left -= frame.payload_left.min(frame.mss);
        if frame.payload_left == 0 {
            self.frames.pop_front();
        }
        self.bytes -= u64::from(p.size_bytes);
        self.packets -= 1;
        Some(p)
    }

    /// Age of the oldest packet; zero when empty.
    pub(crate) fn delay(&self, now: Instant) -> Duration {
        self.frames.front().map_or(Duration::ZERO, |f| {
            now.saturating_duration_since(f.enqueued_at)
        })
    }

    /// When the oldest packet entered, if any.
    pub(crate) fn oldest(&self) -> Option<Instant> {
        self.frames.front().map(|f| f.enqueued_at)
    }

    /// Drops every packet; returns how many were dropped.
    pub(crate) fn clear(&mut self) -> u64 {
        let n = self.packets;
        self.frames.clear();
        self.bytes = 0;
        self.packets = 0;
        n
    }

    /// Packets waiting.
    pub(crate) fn len(&self) -> u64 {
        self.packets
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    /// Accounted bytes waiting.
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
        q.push_frame(Instant::from_millis(1), (7, 70), 2500, 1000, 12);
        assert_eq!(q.len(), 3);
        assert_eq!(q.bytes(), 2500 + 3 * 12);
        let sizes: Vec<_> = std::iter::from_fn(|| q.pop())
            .map(|p| (p.size_bytes, p.marker, p.frame_index))
            .collect();
        assert_eq!(
            sizes,
            vec![(1012, false, 7), (1012, false, 7), (512, true, 7)]
        );
        q.push_frame(Instant::from_millis(2), (8, 80), 2500, 1000, 12);
        let ranges: Vec<_> = std::iter::from_fn(|| q.pop())
            .map(|p| (p.handle, p.payload_offset, p.payload_len))
            .collect();
        assert_eq!(
            ranges,
            vec![(80, 0, 1000), (80, 1000, 1000), (80, 2000, 500)]
        );
        assert_eq!(q.bytes(), 0);
        assert!(q.is_empty());
    }

    #[test]
    fn a_huge_frame_is_one_entry_cut_as_it_leaves() {
        let mut q = RtpQueue::default();
        q.push_frame(Instant::from_millis(1), (0, 0), u32::MAX, 1000, 12);
        q.push_frame(Instant::from_millis(2), (1, 0), 0, 1000, 12);
        let packets = u64::from(u32::MAX.div_ceil(1000));
        assert_eq!(q.len(), packets);
        assert_eq!(q.bytes(), u64::from(u32::MAX) + packets * 12);
        assert_eq!(q.frames.len(), 1, "the empty frame queues nothing");
        assert_eq!(q.pop().map(|p| p.size_bytes), Some(1012));
        assert_eq!(q.clear(), packets - 1);
        assert_eq!(q.bytes(), 0);
    }

    #[test]
    fn a_whole_packet_leaves_as_it_came_with_its_own_marker() {
        let mut q = RtpQueue::default();
        q.push_packet(Instant::from_millis(1), (3, 30), 1200, false);
        q.push_packet(Instant::from_millis(1), (3, 31), 0, false);
        q.push_packet(Instant::from_millis(1), (3, 32), 700, true);
        assert_eq!(
            (q.len(), q.bytes()),
            (2, 1900),
            "nothing added, the empty one dropped"
        );
        let out: Vec<_> = std::iter::from_fn(|| q.pop())
            .map(|p| {
                (
                    p.size_bytes,
                    p.marker,
                    p.handle,
                    p.payload_offset,
                    p.payload_len,
                )
            })
            .collect();
        assert_eq!(
            out,
            vec![(1200, false, 30, 0, 1200), (700, true, 32, 0, 700)]
        );
    }

    #[test]
    fn delay_is_age_of_oldest_packet() {
        let mut q = RtpQueue::default();
        assert_eq!(q.delay(Instant::from_millis(5)), Duration::ZERO);
        q.push_frame(Instant::from_millis(10), (0, 0), 100, 1000, 12);
        q.push_frame(Instant::from_millis(30), (1, 0), 100, 1000, 12);
        assert_eq!(q.delay(Instant::from_millis(50)), Duration::from_millis(40));
        q.pop();
        assert_eq!(q.delay(Instant::from_millis(50)), Duration::from_millis(20));
        assert_eq!(q.clear(), 1);
        assert!(q.is_empty());
    }
}
