//! Units carried in types, so that APIs never take a bare number of unknown unit.

use core::fmt;
use core::time::Duration;

/// A bit rate in bits per second.
///
/// Stored as `f64`: targets are the output of continuous control laws and are scaled by
/// fractional factors (priorities, headroom) on every update; integer rounding at each
/// step would bias them. Constructors clamp negatives and NaN to zero; where a rate
/// must be positive (stream limits, the minimum pacing rate) configuration validation
/// rejects zero, so such a value is refused there rather than silently used.
#[derive(Clone, Copy, PartialEq, PartialOrd, Default)]
pub struct Bitrate(f64);

impl Bitrate {
    /// Zero bits per second.
    pub const ZERO: Self = Self(0.0);

    /// A rate of `bps` bits per second (negative or NaN becomes zero).
    pub fn from_bps(bps: f64) -> Self {
        if bps.is_nan() || bps < 0.0 {
            Self(0.0)
        } else {
            Self(bps)
        }
    }

    /// A rate of `kbps` kilobits (1000 bits) per second.
    pub fn from_kbps(kbps: f64) -> Self {
        Self::from_bps(kbps * 1e3)
    }

    /// A rate of `mbps` megabits (10^6 bits) per second.
    pub fn from_mbps(mbps: f64) -> Self {
        Self::from_bps(mbps * 1e6)
    }

    /// The rate that moves `bytes` in `interval` (zero for an empty interval).
    pub fn from_bytes_per(bytes: u64, interval: Duration) -> Self {
        let secs = interval.as_secs_f64();
        if secs > 0.0 {
            Self::from_bps(bytes as f64 * 8.0 / secs)
        } else {
            Self::ZERO
        }
    }

    /// Bits per second.
    pub const fn bps(self) -> f64 {
        self.0
    }

    /// Kilobits per second.
    pub fn kbps(self) -> f64 {
        self.0 * 1e-3
    }

    /// Megabits per second.
    pub fn mbps(self) -> f64 {
        self.0 * 1e-6
    }

    /// Bytes per second.
    pub fn bytes_per_sec(self) -> f64 {
        self.0 / 8.0
    }

    /// Time to serialise `bytes` at this rate; `None` at zero rate. Saturates at
    /// [`Duration::MAX`] for rates so low that the time does not fit, and is zero at an
    /// infinite rate.
    pub fn transmit_time(self, bytes: u64) -> Option<Duration> {
        (self.0 > 0.0).then(|| {
            Duration::try_from_secs_f64(bytes as f64 * 8.0 / self.0).unwrap_or(Duration::MAX)
        })
    }

    /// Bytes this rate moves in `interval`.
    pub fn bytes_in(self, interval: Duration) -> f64 {
        self.0 * interval.as_secs_f64() / 8.0
    }

    /// The rate scaled by `factor` (clamped at zero).
    pub fn scale(self, factor: f64) -> Self {
        Self::from_bps(self.0 * factor)
    }

    /// The rate limited to `[min, max]`.
    pub fn clamp(self, min: Self, max: Self) -> Self {
        Self(self.0.max(min.0).min(max.0))
    }

    /// The smaller of two rates.
    pub fn min(self, other: Self) -> Self {
        Self(self.0.min(other.0))
    }

    /// The larger of two rates.
    pub fn max(self, other: Self) -> Self {
        Self(self.0.max(other.0))
    }
}

impl core::ops::Add for Bitrate {
    type Output = Self;
    fn add(self, rhs: Self) -> Self {
        Self(self.0 + rhs.0)
    }
}

impl core::ops::Sub for Bitrate {
    type Output = Self;
    /// Saturating at zero.
    fn sub(self, rhs: Self) -> Self {
        Self::from_bps(self.0 - rhs.0)
    }
}

impl fmt::Debug for Bitrate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for Bitrate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 >= 1e6 {
            write!(f, "{:.3} Mbit/s", self.mbps())
        } else {
            write!(f, "{:.1} kbit/s", self.kbps())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transmit_time_of_a_packet_matches_the_rate() {
        let r = Bitrate::from_mbps(8.0);
        assert_eq!(r.transmit_time(1000), Some(Duration::from_micros(1000)));
        assert_eq!(Bitrate::ZERO.transmit_time(1000), None);
    }

    #[test]
    fn transmit_time_never_panics() {
        for bps in [
            f64::MIN_POSITIVE,
            5e-324,
            1e-20,
            1e-15,
            1.0,
            1e11,
            f64::MAX,
            f64::INFINITY,
        ] {
            for bytes in [0, 1, 1500, u64::MAX] {
                let t = Bitrate::from_bps(bps).transmit_time(bytes);
                assert!(t.is_some(), "{bps} bit/s, {bytes} B");
            }
        }
        let slow = Bitrate::from_bps(1e-20).transmit_time(1500);
        assert_eq!(slow, Some(Duration::MAX));
        let fast = Bitrate::from_bps(f64::INFINITY).transmit_time(1500);
        assert_eq!(fast, Some(Duration::ZERO));
    }

    #[test]
    fn negative_and_nan_rates_become_zero() {
        assert_eq!(Bitrate::from_bps(-5.0), Bitrate::ZERO);
        assert_eq!(Bitrate::from_bps(f64::NAN), Bitrate::ZERO);
        assert_eq!(
            Bitrate::from_kbps(1.0) - Bitrate::from_kbps(2.0),
            Bitrate::ZERO
        );
    }
}
