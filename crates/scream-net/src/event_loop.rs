//! The loop every endpoint runs: serve what is due, report on a schedule (every
//! sampling interval, and once more when the run ends), then wait for a datagram or
//! the earliest deadline. A run ends at its end instant, if it has one, or when its
//! poller's [`Stop`](crate::Stop) is requested, whichever comes first.

use std::io;

use crate::clock::Clock;
use crate::poller::Poller;
use crate::stop::Signal;
use scream::{Duration, Instant};

/// Why a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunEnd {
    /// It reached the end instant it was given.
    Deadline,
    /// A signal asked it to stop (see [`crate::Stop`]).
    Stopped(Signal),
}

/// What one pass of an endpoint's loop left behind.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Served {
    /// Every socket was read until empty (false: a read budget ran out and the loop must
    /// come back at once rather than sleep, as readiness is edge-triggered).
    pub(crate) drained: bool,
    /// The earliest deadline of the endpoint's state machines.
    pub(crate) deadline: Option<Instant>,
}

/// An endpoint driven by [`run`].
pub(crate) trait Endpoint {
    /// The endpoint's clock.
    fn loop_clock(&self) -> Clock;
    /// Its poller.
    fn poller_mut(&mut self) -> &mut Poller;
    /// Reads what arrived and does everything due at `now`.
    fn serve(&mut self, now: Instant) -> io::Result<Served>;
}

/// Runs `e` until `until` (`None`: until stopped), calling `observe` every `interval`
/// and once at the end.
pub(crate) fn run<E: Endpoint>(
    e: &mut E,
    until: Option<Instant>,
    interval: Duration,
    mut observe: impl FnMut(Instant, &mut E),
) -> io::Result<RunEnd> {
    let clock = e.loop_clock();
    let mut schedule = Schedule::new(clock.now(), until, interval);
    loop {
        let now = clock.now();
        let served = e.serve(now)?;
        // Read after serving, so that what arrived before the signal is counted in the
        // last report; checked on every pass, as a busy loop may never wait.
        let stopped = e.poller_mut().stop_requested();
        let tick = schedule.tick(now);
        if tick.observe || stopped.is_some() {
            observe(now, e);
        }
        if let Some(signal) = stopped {
            return Ok(RunEnd::Stopped(signal));
        }
        if tick.done {
            return Ok(RunEnd::Deadline);
        }
        if served.drained {
            let deadline = served
                .deadline
                .map_or(schedule.deadline(), |d| d.min(schedule.deadline()));
            e.poller_mut().wait(&clock, Some(deadline))?;
        }
    }
}

/// The sampling and end of one run.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Schedule {
    next: Instant,
    interval: Duration,
    until: Option<Instant>,
}

/// What a loop does at one instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Tick {
    /// Report now.
    pub(crate) observe: bool,
    /// The run is over (after this report).
    pub(crate) done: bool,
}

impl Schedule {
    /// Reports every `interval` (at least 1 ms) from `now`, until `until` (`None`:
    /// for ever).
    pub(crate) fn new(now: Instant, until: Option<Instant>, interval: Duration) -> Self {
        let interval = interval.max(Duration::from_millis(1));
        Self {
            next: now + interval,
            interval,
            until,
        }
    }

    /// What is due at `now`. A loop that woke late reports once, and the next report is
    /// back on the interval's grid rather than a burst of the ones it missed.
    pub(crate) fn tick(&mut self, now: Instant) -> Tick {
        let done = self.until.is_some_and(|u| now >= u);
        let observe = done || now >= self.next;
        if now >= self.next {
            // The first point of the grid after `now`.
            let step = self.interval.as_nanos().max(1);
            let missed = (now.saturating_duration_since(self.next).as_nanos() / step) + 1;
            let ahead = u64::try_from(missed * step).unwrap_or(u64::MAX);
            self.next = self.next.saturating_add(Duration::from_nanos(ahead));
        }
        Tick { observe, done }
    }

    /// The next instant the loop must wake for.
    pub(crate) fn deadline(&self) -> Instant {
        self.until.map_or(self.next, |u| self.next.min(u))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_on_the_interval_and_once_at_the_end() {
        let ms = Instant::from_millis;
        let mut s = Schedule::new(ms(0), Some(ms(100)), Duration::from_millis(30));
        assert_eq!(s.deadline(), ms(30));
        assert!(!s.tick(ms(10)).observe);
        assert!(s.tick(ms(30)).observe);
        // Late by more than an interval: one report, then back on the 30 ms grid.
        assert!(s.tick(ms(95)).observe);
        assert!(!s.tick(ms(96)).observe, "not due again at once");
        assert_eq!(s.deadline(), ms(100));
        let mut long = Schedule::new(ms(0), Some(ms(1000)), Duration::from_millis(30));
        assert!(long.tick(ms(95)).observe);
        assert_eq!(long.deadline(), ms(120));
        let end = s.tick(ms(100));
        assert!(end.observe && end.done);
    }

    #[test]
    fn without_an_end_reports_for_ever() {
        let ms = Instant::from_millis;
        let mut s = Schedule::new(ms(0), None, Duration::from_millis(50));
        let far = ms(86_400_000);
        let t = s.tick(far);
        assert!(t.observe && !t.done);
        assert_eq!(s.deadline(), far + Duration::from_millis(50));
    }
}
