//! The event queue: a binary heap keyed by (virtual time, insertion sequence).
//!
//! Events due at the same nanosecond run in the order they were scheduled, so a run
//! never depends on the heap's internal layout. On a step grid (`crate::clock`) every
//! event scheduled with [`EventQueue::schedule`] runs at the first step at or after
//! its instant.

use crate::clock::Grid;
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
    /// The loop's steps, if events run only on them.
    grid: Option<Grid>,
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
            grid: None,
        }
    }

    /// An empty queue whose events run on the steps of `grid` (continuous time with
    /// `None`).
    pub fn with_grid(grid: Option<Grid>) -> Self {
        Self {
            grid,
            ..Self::new()
        }
    }

    /// Schedules `event` at `at`; an instant in the past is moved to the present, so
    /// virtual time never runs backwards.
    /// On a step grid, the instant is moved on to the next step (or kept, on one), as
    /// a discrete-time loop handles what falls between two steps at the next.
    pub fn schedule(&mut self, at: Instant, event: E) {
        let at = self.run_time(at);
        self.push(at, event);
    }

    /// When an event scheduled for `at` runs: the present if `at` is past, then the
    /// step at or after it on a step grid. A caller that keeps its pending instants
    /// keeps these.
    pub fn run_time(&self, at: Instant) -> Instant {
        let at = at.max(self.now);
        self.grid.map_or(at, |g| g.ceil(at))
    }

    /// Schedules `event` at `at` (or the present) off the step grid: for observers that
    /// act on nothing, such as sampling on a fixed period.
    pub fn schedule_exact(&mut self, at: Instant, event: E) {
        self.push(at.max(self.now), event);
    }

    fn push(&mut self, at: Instant, event: E) {
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
    fn on_a_step_grid_events_run_at_the_next_step_and_observers_on_time() {
        let mut q = EventQueue::with_grid(Grid::new(10_000.0));
        q.schedule(Instant::from_nanos(150_000), "between steps 1 and 2");
        q.schedule(Instant::from_nanos(300_000), "on step 3");
        q.schedule_exact(Instant::from_nanos(250_000), "sample");
        let popped: Vec<_> = core::iter::from_fn(|| q.pop()).collect();
        let at = |ns| Instant::from_nanos(ns);
        assert_eq!(
            popped,
            [
                (at(200_000), "between steps 1 and 2"),
                (at(250_000), "sample"),
                (at(300_000), "on step 3"),
            ]
        );
        // After an observer off the grid, the present is rounded on to the next step.
        q.schedule(at(0), "late");
        assert_eq!(q.pop(), Some((at(300_000), "late")));
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
