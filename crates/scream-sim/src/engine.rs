//! The event queue: a binary heap keyed by (virtual time, insertion sequence).
//!
//! Events due at the same nanosecond run in the order they were scheduled, so a run
//! never depends on the heap's internal layout.

use core::cmp::Ordering;
use scream::Instant;
use std::collections::BinaryHeap;

struct Entry<E> {
    at: Instant,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.at == other.at && self.seq == other.seq
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    /// Reversed, so that `BinaryHeap` (a max-heap) pops the earliest entry first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.at, other.seq).cmp(&(self.at, self.seq))
    }
}

/// A queue of future events of type `E`.
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    next_seq: u64,
    now: Instant,
}

impl<E> core::fmt::Debug for EventQueue<E> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("EventQueue")
            .field("pending", &self.heap.len())
            .field("now", &self.now)
            .finish()
    }
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    /// An empty queue at time zero.
    pub fn new() -> Self {
        Self {
            heap: BinaryHeap::with_capacity(1024),
            next_seq: 0,
            now: Instant::ZERO,
        }
    }

    /// Schedules `event` at `at`; an instant in the past is moved to the present, so
    /// virtual time never runs backwards.
    pub fn schedule(&mut self, at: Instant, event: E) {
        let at = at.max(self.now);
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry { at, seq, event });
    }

    /// Removes the earliest event and advances the clock to it.
    pub fn pop(&mut self) -> Option<(Instant, E)> {
        let e = self.heap.pop()?;
        self.now = e.at;
        Some((e.at, e.event))
    }

    /// Time of the earliest pending event.
    pub fn peek_time(&self) -> Option<Instant> {
        self.heap.peek().map(|e| e.at)
    }

    /// The current virtual time (time of the last popped event).
    pub fn now(&self) -> Instant {
        self.now
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether no event is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_pop_in_time_order_and_ties_in_insertion_order() {
        let mut q = EventQueue::new();
        q.schedule(Instant::from_millis(5), "c");
        q.schedule(Instant::from_millis(1), "a");
        q.schedule(Instant::from_millis(5), "d");
        q.schedule(Instant::from_millis(1), "b");
        let order: Vec<_> = core::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, ["a", "b", "c", "d"]);
    }

    #[test]
    fn scheduling_in_the_past_runs_at_the_present() {
        let mut q = EventQueue::new();
        q.schedule(Instant::from_millis(10), 1);
        assert_eq!(q.pop(), Some((Instant::from_millis(10), 1)));
        q.schedule(Instant::from_millis(3), 2);
        assert_eq!(q.pop(), Some((Instant::from_millis(10), 2)));
    }
}
