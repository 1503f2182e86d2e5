//! Congestion-control events: an opt-in record of what the controller decided and why,
//! for logging and analysis.
//!
//! [`Event`](super::Event) tells the application what to do (encode at this rate, send
//! a key frame) and is kept small on purpose; adding variants to it would break every
//! exhaustive `match` in user code. This is a separate channel for people who study
//! the controller: off by default, turned on with [`Sender::enable_cc_events`], drained
//! with [`Sender::poll_cc_event`]. It only records; the sender behaves identically
//! whether it is on or off.
//!
//! The queue is bounded: when it is full the oldest event is dropped and counted
//! ([`Sender::cc_events_dropped`]), so a caller that never drains it costs a fixed
//! amount of memory and nothing else.

use std::collections::VecDeque;

use super::generation::contract::BackOffCause;
use super::{Sender, StreamId};
use crate::time::Instant;
use crate::units::Bitrate;

/// Most events [`Sender::enable_cc_events`] lets the queue hold (about 2.5 MB).
pub const MAX_CC_EVENTS: usize = 1 << 16;

/// What happened; see [`CongestionEvent`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum CongestionEventKind {
    /// The reference window was reduced. The sizes are those just before and just
    /// after the reduction (after the floor at the minimum window), not after the
    /// growth that the same feedback may add.
    BackOff {
        /// Which signal triggered it (one per congestion event, the strongest first:
        /// loss, then CE, then delay).
        cause: BackOffCause,
        /// Reference window before, bytes.
        window_before: u64,
        /// Reference window after, bytes.
        window_after: u64,
    },
    /// The send window held media back for the stall timeout: every packet in flight
    /// was given up (left the bytes in flight without counting as a loss signal).
    Stall {
        /// Packets given up.
        packets: u64,
        /// Their accounted bytes.
        bytes: u64,
    },
    /// A new target bitrate was announced to the encoder of `stream` (the same
    /// change as [`Event::TargetBitrate`](super::Event::TargetBitrate)).
    TargetBitrate {
        /// Stream concerned.
        stream: StreamId,
        /// The target announced before (the start bitrate before the first one).
        previous: Bitrate,
        /// The new target.
        target: Bitrate,
    },
    /// The RTP queue of `stream` grew older than `max_rtp_queue_delay` and was emptied.
    RtpQueueDiscard {
        /// Stream concerned.
        stream: StreamId,
        /// Packets discarded.
        packets: u64,
        /// Their accounted bytes.
        bytes: u64,
    },
    /// A key frame was requested from the encoder of `stream` (the same request as
    /// [`Event::KeyFrameRequest`](super::Event::KeyFrameRequest)).
    KeyFrameRequest {
        /// Stream concerned.
        stream: StreamId,
    },
}

/// One congestion-control decision, at the caller's clock.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct CongestionEvent {
    /// When it happened (the `now` of the input that caused it, on the caller's clock).
    pub at: Instant,
    /// What happened.
    pub kind: CongestionEventKind,
}

/// The bounded queue behind [`Sender::poll_cc_event`]. With a capacity of zero (the
/// default) `push` returns at once: the hot path pays one branch.
#[derive(Debug, Default)]
pub(crate) struct CcEventQueue {
    events: VecDeque<CongestionEvent>,
    capacity: usize,
    dropped: u64,
}

impl CcEventQueue {
    /// Whether events are being recorded; lets callers skip computing an event's
    /// values when nobody will read them.
    pub(crate) fn enabled(&self) -> bool {
        self.capacity > 0
    }

    /// The RTP queue of `stream` was discarded: (packets, bytes). Out of line: the
    /// check runs on every poll and this almost never.
    #[cold]
    pub(crate) fn on_discard(&mut self, at: Instant, stream: StreamId, discarded: (u64, u64)) {
        let (packets, bytes) = discarded;
        let discard = CongestionEventKind::RtpQueueDiscard {
            stream,
            packets,
            bytes,
        };
        self.push(at, discard);
        self.push(at, CongestionEventKind::KeyFrameRequest { stream });
    }

    pub(crate) fn push(&mut self, at: Instant, kind: CongestionEventKind) {
        if self.capacity == 0 {
            return;
        }
        if self.events.len() >= self.capacity {
            self.events.pop_front();
            self.dropped += 1;
        }
        self.events.push_back(CongestionEvent { at, kind });
    }
}

impl Sender {
    /// Starts (or, with `capacity` 0, stops) recording [`CongestionEvent`]s, keeping at
    /// most `capacity` undrained ones (capped at [`MAX_CC_EVENTS`]); past that the
    /// oldest is dropped and counted. Stopping discards the undrained events. Recording
    /// changes nothing else about the sender.
    pub fn enable_cc_events(&mut self, capacity: usize) {
        let capacity = capacity.min(MAX_CC_EVENTS);
        let q = &mut self.cc_events;
        q.capacity = capacity;
        if capacity == 0 {
            q.events = VecDeque::new();
        } else {
            while q.events.len() > capacity {
                q.events.pop_front();
                q.dropped += 1;
            }
            q.events.reserve(capacity.saturating_sub(q.events.len()));
        }
    }

    /// The oldest undrained congestion-control event, if any (only after
    /// [`Sender::enable_cc_events`]).
    pub fn poll_cc_event(&mut self) -> Option<CongestionEvent> {
        self.cc_events.events.pop_front()
    }

    /// Congestion-control events dropped because the queue was full.
    pub fn cc_events_dropped(&self) -> u64 {
        self.cc_events.dropped
    }

    /// Records `kind` at sender time `now`, on the caller's clock.
    pub(super) fn cc_event(&mut self, now: Instant, kind: CongestionEventKind) {
        if self.cc_events.enabled() {
            let at = self.time.to_caller(now);
            self.cc_events.push(at, kind);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(i: u32) -> CongestionEventKind {
        CongestionEventKind::KeyFrameRequest {
            stream: StreamId(i),
        }
    }

    #[test]
    fn disabled_queue_records_nothing() {
        let mut q = CcEventQueue::default();
        q.push(Instant::ZERO, ev(0));
        assert!(q.events.is_empty());
        assert_eq!(q.dropped, 0);
    }

    #[test]
    fn full_queue_drops_the_oldest_and_counts() {
        let mut q = CcEventQueue {
            capacity: 2,
            ..CcEventQueue::default()
        };
        for i in 0..5 {
            q.push(Instant::from_millis(u64::from(i)), ev(i));
        }
        assert_eq!(q.dropped, 3);
        let kept: Vec<_> = q.events.iter().map(|e| e.kind).collect();
        assert_eq!(kept, vec![ev(3), ev(4)]);
    }
}
