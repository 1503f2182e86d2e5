//! The sender's own time line.
//!
//! Every input carries the caller's `now`. The sender does not keep that value as is:
//! it follows the caller's clock forward, but never backwards, and takes implausible
//! jumps as steps of the caller's clock rather than as elapsed time. Everything inside
//! the sender (RTP queue ages, send times, pacing, timers, rate meters, delay samples)
//! runs on this monotonic time line; instants handed back to the caller
//! (`Transmit::At`, `poll_timeout`, `SentPacket::frame_enqueued_at`) are translated
//! back onto the caller's clock as it reads at the latest input.
//!
//! Rules, for an input at caller time `now` after one at `prev` (the latest time the
//! line is anchored to):
//!
//! - `now >= prev`: the line advances by `now - prev`, at most [`MAX_TIME_STEP`]. A
//!   longer jump is a clock step: every timer of the sender has run out after a day,
//!   and the bound keeps absurd values from pushing the line to the end of its range.
//! - `now` earlier than `prev` by at most [`TIME_JITTER_TOLERANCE`]: the line stays
//!   where it is (the input is taken at the latest time seen).
//! - `now` earlier by more, once: taken as a stray value; the line stays. A stray
//!   far-future value followed by normal time, or a stray far-past one, thus never
//!   freezes the sender until the caller's clock catches up.
//! - `now` earlier by more, twice in a row: the caller's clock stepped back. The line
//!   stays where it is and from now on follows the caller's clock from this value.

use crate::time::{Duration, Instant};

/// How far back a `now` may lie behind the latest one and still be taken as the same
/// instant (time stamps taken on different threads), rather than as a step of the
/// caller's clock.
pub const TIME_JITTER_TOLERANCE: Duration = Duration::from_millis(10);

/// The longest step forward the sender's time takes on one input; a `now` further
/// ahead of the previous one is a step of the caller's clock and counts as this much.
pub const MAX_TIME_STEP: Duration = Duration::from_secs(24 * 3600);

/// The longest advance between two inputs that leaves round-trip samples trusted. A
/// caller that feeds the sender at least every time it asks (`poll_timeout`), and on
/// every feedback, never leaves a gap this long while packets are in flight: a longer
/// one means the caller stalled or its clock leapt, and a packet in flight across it
/// would time that leap, not the path. One second is also the default
/// `in_flight_timeout`, after which packets in flight are given up anyway.
pub const RTT_LEAP: Duration = Duration::from_secs(1);

/// Where the time line starts at the latest: a first `now` beyond this is taken as
/// this instant, so the line keeps 2^62 ns (146 years) of room before it saturates.
const LATEST_START: Instant = Instant::from_nanos(1 << 62);

/// The sender's monotonic time line and its anchor on the caller's clock.
#[derive(Debug, Clone, Default)]
pub(crate) struct Clock {
    /// Sender time at `anchor`.
    now: Instant,
    /// Caller time the line was last advanced from.
    anchor: Instant,
    /// Caller time of the latest input, which instants handed back are relative to.
    latest: Instant,
    /// The previous input lay too far behind the anchor.
    behind: bool,
    started: bool,
    /// Inputs taken as steps of the caller's clock.
    steps: u64,
    /// Sender time right after the latest advance longer than [`RTT_LEAP`].
    leap_at: Instant,
}

impl Clock {
    /// Takes the caller's `now` of an input; returns the sender's time for it.
    pub(crate) fn advance(&mut self, now: Instant) -> Instant {
        self.latest = now;
        if !self.started {
            self.started = true;
            self.anchor = now;
            self.now = now.min(LATEST_START);
            return self.now;
        }
        if now >= self.anchor {
            let elapsed = now - self.anchor;
            if elapsed > MAX_TIME_STEP {
                self.steps += 1;
            }
            self.now += elapsed.min(MAX_TIME_STEP);
            if elapsed > RTT_LEAP {
                self.leap_at = self.now;
            }
            self.anchor = now;
            self.behind = false;
        } else if self.anchor - now <= TIME_JITTER_TOLERANCE {
            self.behind = false;
        } else if self.behind {
            self.steps += 1;
            self.anchor = now;
            self.behind = false;
        } else {
            self.behind = true;
        }
        self.now
    }

    /// The sender's time at the latest input.
    pub(crate) fn now(&self) -> Instant {
        self.now
    }

    /// Sender time right after the latest leap (an advance longer than [`RTT_LEAP`]
    /// between two inputs); packets sent before it give no round-trip samples.
    pub(crate) fn last_leap(&self) -> Instant {
        self.leap_at
    }

    /// Inputs whose `now` was taken as a step of the caller's clock.
    pub(crate) fn steps(&self) -> u64 {
        self.steps
    }

    /// Sender time `t` on the caller's clock (saturating at its ends).
    pub(crate) fn to_caller(&self, t: Instant) -> Instant {
        if t >= self.now {
            self.latest + (t - self.now)
        } else {
            self.latest - (self.now - t)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Instant {
        Instant::from_millis(v)
    }

    #[test]
    fn a_monotonic_caller_clock_is_followed_exactly() {
        let mut c = Clock::default();
        for t in [5, 5, 7, 1000, 1001] {
            assert_eq!(c.advance(ms(t)), ms(t));
            assert_eq!(c.to_caller(ms(t + 3)), ms(t + 3));
        }
        assert_eq!(c.steps(), 0);
    }

    #[test]
    fn a_long_gap_between_inputs_is_remembered_as_a_leap() {
        let mut c = Clock::default();
        c.advance(ms(100));
        c.advance(ms(900));
        assert_eq!(c.last_leap(), Instant::ZERO, "0.8 s is no leap");
        c.advance(ms(6_000));
        assert_eq!(c.last_leap(), ms(6_000));
        c.advance(ms(1_000));
        c.advance(ms(1_001));
        assert_eq!(c.last_leap(), ms(6_000), "steps back are no leap");
    }

    #[test]
    fn small_steps_back_are_clamped_without_drift() {
        let mut c = Clock::default();
        c.advance(ms(100));
        assert_eq!(c.advance(ms(95)), ms(100));
        assert_eq!(c.advance(ms(92)), ms(100));
        assert_eq!(c.advance(ms(101)), ms(101));
        // What the sender asks for at its time 110 is 9 ms after the caller's latest.
        c.advance(ms(99));
        assert_eq!(c.to_caller(ms(110)), ms(108));
    }

    #[test]
    fn one_stray_value_either_way_is_forgotten() {
        let mut c = Clock::default();
        c.advance(ms(10_000));
        assert_eq!(c.advance(Instant::ZERO), ms(10_000));
        assert_eq!(c.advance(ms(10_005)), ms(10_005));
        let day = Duration::from_secs(24 * 3600);
        let far = c.advance(ms(10_005) + day);
        assert_eq!(far, ms(10_005) + day);
        // Normal time again: one input at the far time, then the line follows.
        assert_eq!(c.advance(ms(10_007)), far);
        assert_eq!(c.advance(ms(10_008)), far);
        assert_eq!(c.advance(ms(10_010)), far + Duration::from_millis(2));
        assert_eq!(c.to_caller(far + Duration::from_millis(5)), ms(10_013));
        assert_eq!(c.steps(), 1);
    }

    #[test]
    fn a_step_back_is_followed_from_the_second_input_behind() {
        let mut c = Clock::default();
        c.advance(ms(3_600_000));
        assert_eq!(c.advance(ms(1000)), ms(3_600_000));
        assert_eq!(c.advance(ms(1001)), ms(3_600_000));
        assert_eq!(c.advance(ms(1011)), ms(3_600_010));
        assert_eq!(c.steps(), 1);
    }

    #[test]
    fn steps_forward_are_bounded_and_the_line_never_overflows() {
        let mut c = Clock::default();
        assert_eq!(c.advance(Instant::MAX), LATEST_START);
        c.advance(Instant::ZERO);
        c.advance(Instant::ZERO);
        assert_eq!(c.advance(Instant::MAX), LATEST_START + MAX_TIME_STEP);
        assert_eq!(c.to_caller(LATEST_START), Instant::MAX - MAX_TIME_STEP);
        assert_eq!(c.to_caller(Instant::MAX), Instant::MAX);
    }
}
