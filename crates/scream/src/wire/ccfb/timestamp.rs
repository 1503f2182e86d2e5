//! Report timestamps and arrival time offsets as time.
//!
//! The report timestamp is the middle 32 bits of a 64-bit NTP timestamp: seconds in Q16
//! fixed point, wrapping every 65536 s (about 18 h). Arrival time offsets count 1/1024 s,
//! which is exactly 64 Q16 ticks.

use super::{ATO_MAX, ATO_UNITS_PER_SECOND};
use crate::time::Duration;

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

/// Timestamps this far or farther (2^30 ticks, 4.55 h) from the reference are a jump of
/// the peer's clock, or garbage: a quarter of the wrap, so that a genuine timestamp
/// after one far value still lands well inside the ±2^31 ticks that can be placed.
const FAR_TICKS: u64 = 1 << 30;

/// Extends 32-bit report timestamps to a 64-bit count of Q16 ticks across wraps, so that
/// times derived from a long session stay monotonic.
///
/// Each timestamp is placed within ±2^31 ticks (±9.1 h) of a reference, the highest
/// timestamp seen, which tolerates reordered or late feedback. The first timestamp is
/// taken as is. Results never go below zero: a timestamp that would unwrap before the
/// epoch gives zero.
///
/// One timestamp 4.55 h or more from the reference is placed like any other but does
/// not move the reference: a forged or corrupted report must not shift the placement of
/// the genuine ones that follow (one far value would otherwise push them a whole wrap,
/// 18.2 h, away). The reference follows such a jump once the next timestamp confirms
/// it, that is lies within 4.55 h of it: the peer's clock really stepped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimestampUnwrapper {
    highest: Option<u64>,
    /// A far timestamp waiting for confirmation, extended.
    jump: Option<u64>,
}

impl TimestampUnwrapper {
    /// An unwrapper that has seen nothing.
    pub const fn new() -> Self {
        Self {
            highest: None,
            jump: None,
        }
    }

    /// The extended value of `timestamp`, in Q16 ticks.
    pub fn unwrap(&mut self, timestamp: u32) -> u64 {
        let Some(highest) = self.highest else {
            self.highest = Some(u64::from(timestamp));
            return u64::from(timestamp);
        };
        let extended = place(highest, timestamp);
        if extended.abs_diff(highest) < FAR_TICKS {
            self.highest = Some(highest.max(extended));
            self.jump = None;
            return extended;
        }
        match self.jump {
            Some(jump) if place(jump, timestamp).abs_diff(jump) < FAR_TICKS => {
                // Two timestamps in a row agree on the new clock: follow it, backwards
                // too.
                let confirmed = place(jump, timestamp);
                self.highest = Some(confirmed);
                self.jump = None;
                confirmed
            }
            _ => {
                self.jump = Some(extended);
                extended
            }
        }
    }

    /// The highest extended timestamp seen, in Q16 ticks, not counting a far one still
    /// waiting for confirmation: new timestamps are placed around it.
    pub fn highest(&self) -> Option<u64> {
        self.highest
    }
}

/// `timestamp` extended to the value nearest `reference` (within ±2^31 ticks).
fn place(reference: u64, timestamp: u32) -> u64 {
    // Two's-complement reinterpretation: the signed distance modulo 2^32.
    let delta = timestamp.wrapping_sub(reference as u32) as i32;
    reference.saturating_add_signed(i64::from(delta))
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
    fn ato_units_are_1024ths_of_a_second() {
        assert_eq!(ato_to_duration(1024), Duration::from_secs(1));
        assert_eq!(ato_to_duration(1), Duration::from_nanos(976_562));
        assert_eq!(duration_to_ato(Duration::from_millis(500)), 512);
        assert_eq!(duration_to_ato(Duration::from_secs(60)), ATO_MAX);
    }
}
