//! The receiver's own clock: monotonic whatever the caller's `now` does.
//!
//! Every time the receiver keeps (arrivals, the last report, report deadlines) is on this
//! clock, so comparisons between them never see time going backwards. It follows the
//! caller's clock with an offset that starts at zero:
//!
//! - a `now` later than the latest seen advances the clock to it (a jump forward is taken
//!   as elapsed time: an idle period looks the same);
//! - a `now` earlier by at most [`CLOCK_STEP_TOLERANCE`] is clamped to the latest seen
//!   (time stands still for a moment, nothing shifts);
//! - a `now` earlier by more is a step of the caller's clock: the offset grows by the
//!   step, so the receiver's clock continues from the latest instant and advances with
//!   the caller's clock from there.
//!
//! Re-anchoring on large steps, instead of clamping them, matters for the sender: while
//! clamped, every arrival would carry the same time stamp for as long as the step (an
//! hour for an hour), which reads as one-way delay shrinking by a second per second, and
//! `poll_timeout()` would name an instant that far in the caller's future. Small steps
//! are clamped instead because re-anchoring them would make jittery caller time stamps
//! add up to a clock that runs fast.

use crate::time::{Duration, Instant};

/// The largest step back of the caller's `now` that the receiver absorbs by letting its
/// clock stand still; a larger one re-anchors the clock (see the module docs).
///
/// 100 ms is far above the disorder of time stamps taken on different threads or sockets
/// (microseconds to a few milliseconds), and below 128 ms, the smallest offset at which
/// ntpd steps a wall clock rather than slewing it, so a stepped wall clock used as `now`
/// is re-anchored. A clamp costs at most this long of frozen arrival times.
pub const CLOCK_STEP_TOLERANCE: Duration = Duration::from_millis(100);

/// The receiver's clock (see the module docs).
#[derive(Debug, Default)]
pub(crate) struct Clock {
    /// Latest instant on the receiver's clock.
    latest: Instant,
    /// Receiver's clock minus the caller's, in nanoseconds. Only grows.
    offset_nanos: u64,
    /// Steps back larger than the tolerance so far.
    steps_back: u64,
}

impl Clock {
    /// The receiver's time for the caller's `now`; never earlier than the previous one.
    pub(crate) fn observe(&mut self, now: Instant) -> Instant {
        let local = now + Duration::from_nanos(self.offset_nanos);
        if local >= self.latest {
            self.latest = local;
        } else {
            let behind = self.latest - local;
            if behind > CLOCK_STEP_TOLERANCE {
                let behind_nanos = u64::try_from(behind.as_nanos()).unwrap_or(u64::MAX);
                self.offset_nanos = self.offset_nanos.saturating_add(behind_nanos);
                self.steps_back += 1;
            }
        }
        self.latest
    }

    /// `local` (an instant of the receiver's clock) on the caller's clock.
    pub(crate) fn to_caller(&self, local: Instant) -> Instant {
        local - Duration::from_nanos(self.offset_nanos)
    }

    /// Steps back larger than [`CLOCK_STEP_TOLERANCE`] so far.
    pub(crate) fn steps_back(&self) -> u64 {
        self.steps_back
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Instant {
        Instant::from_millis(v)
    }

    #[test]
    fn small_steps_back_are_clamped_without_an_offset() {
        let mut c = Clock::default();
        assert_eq!(c.observe(ms(1000)), ms(1000));
        assert_eq!(c.observe(ms(950)), ms(1000));
        assert_eq!(c.observe(ms(1001)), ms(1001));
        assert_eq!(c.to_caller(ms(1040)), ms(1040));
        assert_eq!(c.steps_back(), 0);
    }

    #[test]
    fn large_steps_back_re_anchor_the_clock() {
        let mut c = Clock::default();
        c.observe(ms(10_000));
        assert_eq!(c.observe(ms(4_000)), ms(10_000));
        assert_eq!(c.observe(ms(4_005)), ms(10_005));
        assert_eq!(c.to_caller(ms(10_045)), ms(4_045));
        assert_eq!(c.steps_back(), 1);
    }

    #[test]
    fn the_end_of_time_is_a_fixed_point() {
        let mut c = Clock::default();
        c.observe(ms(5));
        assert_eq!(c.observe(Instant::MAX), Instant::MAX);
        assert_eq!(c.observe(ms(6)), Instant::MAX);
        assert_eq!(c.observe(ms(7)), Instant::MAX);
        // The caller reaches receiver deadlines at the end of time right away.
        assert!(c.to_caller(Instant::MAX) <= ms(7));
    }
}
