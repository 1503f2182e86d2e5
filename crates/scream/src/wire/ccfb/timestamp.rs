//! Report timestamps and arrival time offsets as time.
//!
//! The report timestamp is the middle 32 bits of a 64-bit NTP timestamp: seconds in Q16
//! fixed point, wrapping every 65536 s (about 18 h). Arrival time offsets count 1/1024 s,
//! which is exactly 64 Q16 ticks.

use super::{ATO_MAX, ATO_UNITS_PER_SECOND};
use crate::time::{Duration, RemoteInstant};

/// Q16 ticks per second of the report timestamp (RFC 8888 §3.1).
pub const Q16_TICKS_PER_SECOND: u64 = 1 << 16;
/// Q16 ticks in one arrival-time-offset unit (1/1024 s).
pub const Q16_TICKS_PER_ATO: u64 = Q16_TICKS_PER_SECOND / ATO_UNITS_PER_SECOND;
const NANOS_PER_SECOND: u128 = 1_000_000_000;

/// Q16 ticks to nanoseconds, rounded down (saturating at `u64::MAX`).
pub fn q16_to_nanos(ticks: u64) -> u64 {
    let ns = u128::from(ticks) * NANOS_PER_SECOND / u128::from(Q16_TICKS_PER_SECOND);
    u64::try_from(ns).unwrap_or(u64::MAX)
}

/// Nanoseconds to Q16 ticks, rounded to nearest. Round trips [`q16_to_nanos`] exactly.
pub fn nanos_to_q16(nanos: u64) -> u64 {
    let half = NANOS_PER_SECOND / 2;
    let ticks = (u128::from(nanos) * u128::from(Q16_TICKS_PER_SECOND) + half) / NANOS_PER_SECOND;
    // At most nanos * 2^16 / 10^9 < 2^64.
    u64::try_from(ticks).unwrap_or(u64::MAX)
}

/// An arrival time offset (1/1024 s units) as a duration.
pub fn ato_to_duration(ato: u16) -> Duration {
    Duration::from_nanos(q16_to_nanos(u64::from(ato) * Q16_TICKS_PER_ATO))
}

/// A duration as an arrival time offset, rounded to nearest and clamped to
/// [`ATO_MAX`](super::ATO_MAX) ("this long or longer", RFC 8888 §3.1).
pub fn duration_to_ato(d: Duration) -> u16 {
    let units =
        (d.as_nanos() * u128::from(ATO_UNITS_PER_SECOND) + NANOS_PER_SECOND / 2) / NANOS_PER_SECOND;
    u16::try_from(units).map_or(ATO_MAX, |u| u.min(ATO_MAX))
}

/// Extends 32-bit report timestamps to a 64-bit count of Q16 ticks across wraps, so that
/// times derived from a long session stay monotonic.
///
/// Each timestamp is placed within ±2^31 ticks (±9.1 h) of a reference: the report
/// time of the last report its user *accepted*. Placing reads the reference and never
/// moves it; only [`TimestampUnwrapper::accept`] does. The sender decides what to
/// accept ([`crate::sender::FeedbackUse::Taken`]), so a report it refused, forged,
/// corrupted or replayed, cannot shift how the genuine ones that follow are read: a
/// stream of random timestamps moving the reference would otherwise push genuine
/// reports a whole wrap (18.2 h) away, and make the sender judge them stale.
///
/// With no reference yet, a timestamp is taken as is. A timestamp that would unwrap
/// before the epoch is placed one wrap later instead, far ahead: distinct timestamps
/// always give distinct values. (A floor at zero would map every timestamp more than
/// the reference behind it to the same value, zero, and three forged reports that all
/// read zero agree with each other like a receiver's clock that stepped.)
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimestampUnwrapper {
    reference: Option<u64>,
}

impl TimestampUnwrapper {
    /// An unwrapper that has accepted nothing.
    pub const fn new() -> Self {
        Self { reference: None }
    }

    /// The extended value of `timestamp`, in Q16 ticks.
    pub fn place(&self, timestamp: u32) -> u64 {
        self.reference
            .map_or(u64::from(timestamp), |r| place(r, timestamp))
    }

    /// Makes `report_time` (a value [`TimestampUnwrapper::place`] gave, as decoded
    /// feedback carries it) the reference for later timestamps, backwards too: the
    /// caller's judgement of which report is current is the one that counts.
    pub fn accept(&mut self, report_time: RemoteInstant) {
        self.reference = Some(nanos_to_q16(report_time.as_nanos()));
    }

    /// The extended report time of the last accepted report, in Q16 ticks.
    pub fn reference(&self) -> Option<u64> {
        self.reference
    }
}

/// `timestamp` extended to the value nearest `reference` (within ±2^31 ticks), or one
/// wrap later if that lies before zero.
fn place(reference: u64, timestamp: u32) -> u64 {
    // Two's-complement reinterpretation: the signed distance modulo 2^32.
    let delta = timestamp.wrapping_sub(reference as u32) as i32;
    match reference.checked_add_signed(i64::from(delta)) {
        Some(placed) => placed,
        // Only below zero: a reference is at most the Q16 value of the largest
        // nanosecond count (about 2^50), far from the top of the range.
        None => reference.saturating_add_signed(i64::from(delta) + (1 << 32)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn q16_nanos_round_trip_exactly() {
        for ticks in [0, 1, 3, 65_535, 65_536, 99_380, 0xffff_ffff, 1 << 40] {
            assert_eq!(nanos_to_q16(q16_to_nanos(ticks)), ticks);
        }
        assert_eq!(q16_to_nanos(1 << 16), 1_000_000_000);
        assert_eq!(q16_to_nanos(1), 15_258); // 15.2587890625 ns, rounded down
    }

    #[test]
    fn timestamps_before_the_epoch_stay_distinct() {
        let mut u = TimestampUnwrapper::new();
        u.accept(RemoteInstant::from_nanos(q16_to_nanos(1_000)));
        // Behind the reference by more than it holds: one wrap later, each its own.
        assert_eq!(u.place(u32::MAX), u64::from(u32::MAX));
        assert_eq!(u.place(u32::MAX - 7), u64::from(u32::MAX - 7));
        assert_eq!(u.place(0x8000_0400), 0x8000_0400);
        // Within reach behind and ahead, as usual.
        assert_eq!(u.place(10), 10);
        assert_eq!(u.place(0x7fff_0000), 0x7fff_0000);
    }

    #[test]
    fn ato_units_are_1024ths_of_a_second() {
        assert_eq!(ato_to_duration(1024), Duration::from_secs(1));
        assert_eq!(ato_to_duration(1), Duration::from_nanos(976_562));
        assert_eq!(duration_to_ato(Duration::from_millis(500)), 512);
        assert_eq!(duration_to_ato(Duration::from_secs(60)), ATO_MAX);
    }
}
