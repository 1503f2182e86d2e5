//! Following each media frame from the encoder to the receiver, so that every frame is
//! counted: delivered (with its delay), lost on the way, or discarded by the sender
//! (from its RTP queue, or skipped before it was queued).

use std::collections::VecDeque;

use scream::Instant;

use super::histogram::DelayHistogram;

/// One frame whose fate is not yet known.
#[derive(Debug, Clone, Copy)]
struct Open {
    enqueued_at: Instant,
    sent: u32,
    resolved: u32,
    marker_sent: bool,
    lost: bool,
    /// The sender skipped it: it never entered the RTP queue.
    skipped: bool,
    last_arrival: Instant,
}

/// What became of a stream's frames.
#[derive(Debug, Clone, Default)]
pub struct FrameTracker {
    /// Index of `open[0]`.
    base: u64,
    open: VecDeque<Open>,
    /// Frame delay of every delivered frame: enqueued at the sender until its last
    /// packet reached the receiver.
    pub delay: DelayHistogram,
    /// Frames whose every packet arrived.
    pub delivered: u64,
    /// Frames with at least one packet dropped or lost in the network.
    pub lost: u64,
    /// Frames the sender never sent completely (RTP-queue discard, or skipped).
    pub discarded: u64,
    /// Of the discarded frames, those the sender skipped instead of queueing them
    /// (frame skipping, `scream-draft00`).
    pub skipped: u64,
}

/// Frames held open at most: a stream whose frames never resolve (a dead path) closes
/// the oldest as lost rather than growing without bound.
const MAX_OPEN_FRAMES: usize = 4096;

impl FrameTracker {
    /// The open frame `frame`, created if new. Frames skipped on the way were never
    /// sent at all: they are created already discarded.
    fn slot(&mut self, frame: u64, enqueued_at: Instant) -> Option<&mut Open> {
        if frame < self.base {
            return None;
        }
        while self.base + (self.open.len() as u64) <= frame {
            if self.open.len() >= MAX_OPEN_FRAMES {
                self.close_front_as_lost();
            }
            let skipped = self.base + (self.open.len() as u64) < frame;
            self.open.push_back(Open {
                enqueued_at: if skipped { Instant::MAX } else { enqueued_at },
                sent: 0,
                resolved: 0,
                marker_sent: skipped,
                lost: skipped,
                skipped: false,
                last_arrival: Instant::ZERO,
            });
        }
        let i = usize::try_from(frame - self.base).ok()?;
        self.open.get_mut(i)
    }

    fn close_front_as_lost(&mut self) {
        if self.open.pop_front().is_some() {
            self.lost += 1;
            self.base += 1;
        }
    }

    /// A packet of `frame` left the sender; `marker` if it is the frame's last.
    pub fn on_sent(&mut self, frame: u64, enqueued_at: Instant, marker: bool) {
        if let Some(f) = self.slot(frame, enqueued_at) {
            f.sent += 1;
            f.marker_sent |= marker;
        }
        // The RTP queue is FIFO per stream: once a packet of `frame` leaves, every older
        // frame whose last packet has not left never will.
        let older = frame.saturating_sub(self.base).min(self.open.len() as u64) as usize;
        for f in self.open.iter_mut().take(older) {
            if !f.marker_sent {
                f.marker_sent = true;
                f.lost = true;
                f.enqueued_at = Instant::MAX;
            }
        }
        self.settle();
    }

    /// The sender skipped `frame`: it was never queued and will never be sent.
    pub fn on_skipped(&mut self, frame: u64) {
        if let Some(f) = self.slot(frame, Instant::MAX) {
            f.enqueued_at = Instant::MAX;
            f.marker_sent = true;
            f.skipped = true;
        }
        self.settle();
    }

    /// A packet of `frame` reached the receiver at `now`.
    pub fn on_received(&mut self, frame: u64, now: Instant) {
        if let Some(i) = frame
            .checked_sub(self.base)
            .and_then(|i| usize::try_from(i).ok())
        {
            if let Some(f) = self.open.get_mut(i) {
                f.resolved += 1;
                f.last_arrival = f.last_arrival.max(now);
            }
        }
        self.settle();
    }

    /// A packet of `frame` was dropped or lost in the network.
    pub fn on_dropped(&mut self, frame: u64) {
        if let Some(i) = frame
            .checked_sub(self.base)
            .and_then(|i| usize::try_from(i).ok())
        {
            if let Some(f) = self.open.get_mut(i) {
                f.resolved += 1;
                f.lost = true;
            }
        }
        self.settle();
    }

    /// Closes the frames at the front whose fate is known, in order.
    fn settle(&mut self) {
        while let Some(f) = self.open.front() {
            if !(f.marker_sent && f.resolved >= f.sent) {
                return;
            }
            let f = *f;
            self.open.pop_front();
            self.base += 1;
            if f.enqueued_at == Instant::MAX {
                self.discarded += 1;
                self.skipped += u64::from(f.skipped);
            } else if f.lost {
                self.lost += 1;
            } else {
                self.delivered += 1;
                self.delay
                    .record(f.last_arrival.saturating_duration_since(f.enqueued_at));
            }
        }
    }

    /// Frames still on their way (neither delivered, lost nor discarded yet).
    pub fn in_flight(&self) -> u64 {
        self.open.len() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::summary::CountOf;

    fn t(ms: u64) -> Instant {
        Instant::from_millis(ms)
    }

    #[test]
    fn a_frame_is_delivered_when_all_its_packets_arrived() {
        let mut f = FrameTracker::default();
        f.on_sent(0, t(0), false);
        f.on_sent(0, t(0), true);
        f.on_received(0, t(30));
        assert_eq!(f.delivered, 0);
        f.on_received(0, t(42));
        assert_eq!((f.delivered, f.lost, f.discarded), (1, 0, 0));
        assert_eq!(f.delay.distribution_ms(CountOf::Frames).max, 42.0);
    }

    #[test]
    fn one_lost_packet_loses_the_frame_and_keeps_it_out_of_the_delays() {
        let mut f = FrameTracker::default();
        f.on_sent(0, t(0), false);
        f.on_sent(0, t(0), true);
        f.on_dropped(0);
        f.on_received(0, t(40));
        assert_eq!((f.delivered, f.lost), (0, 1));
        assert_eq!(f.delay.count(), 0);
    }

    #[test]
    fn a_skipped_frame_counts_as_discarded_at_once_and_never_as_lost() {
        let mut f = FrameTracker::default();
        f.on_sent(0, t(0), true);
        f.on_skipped(1);
        f.on_received(0, t(30));
        assert_eq!((f.delivered, f.lost, f.discarded, f.skipped), (1, 0, 1, 1));
        // The last frame of a run, skipped: settled without a later frame.
        f.on_skipped(2);
        assert_eq!((f.discarded, f.skipped, f.in_flight()), (2, 2, 0));
        // A frame the sender numbered but never sent, with no word of skipping.
        f.on_sent(4, t(80), true);
        f.on_received(4, t(100));
        assert_eq!((f.delivered, f.lost, f.discarded, f.skipped), (2, 0, 3, 2));
    }

    #[test]
    fn a_frame_never_sent_completely_counts_as_discarded() {
        let mut f = FrameTracker::default();
        f.on_sent(0, t(0), false);
        f.on_received(0, t(30));
        // Frame 1 goes out whole: frame 0's last packet will never follow.
        f.on_sent(1, t(20), true);
        f.on_received(1, t(50));
        assert_eq!((f.delivered, f.lost, f.discarded), (1, 0, 1));
        assert_eq!(f.in_flight(), 0);
    }
}
