//! Virtual time.
//!
//! The library never reads a clock: every input carries `now`. Time is counted in
//! nanoseconds because a 1500-byte packet on a 2 Gbit/s link takes only 6 µs.
//!
//! Two instant types exist on purpose. [`Instant`] is the local clock of whoever calls
//! the API (the sender's clock in `Sender`, the receiver's in `Receiver`).
//! [`RemoteInstant`] is a time stamp taken by the *peer's* clock and carried in
//! feedback (RFC 8888 report timestamp and arrival-time offsets). The two clocks have
//! unrelated epochs, so the types cannot be subtracted from each other by mistake; only
//! differences between remote instants are meaningful to the sender.

use core::fmt;
use core::ops::{Add, AddAssign, Sub, SubAssign};
pub use core::time::Duration;

macro_rules! instant_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        pub struct $name(u64);

        impl $name {
            /// The epoch of this clock (chosen by whoever drives it).
            pub const ZERO: Self = Self(0);
            /// The farthest representable instant.
            pub const MAX: Self = Self(u64::MAX);

            /// An instant `nanos` nanoseconds after the epoch.
            pub const fn from_nanos(nanos: u64) -> Self {
                Self(nanos)
            }

            /// An instant `micros` microseconds after the epoch (saturating).
            pub const fn from_micros(micros: u64) -> Self {
                Self(micros.saturating_mul(1_000))
            }

            /// An instant `millis` milliseconds after the epoch (saturating).
            pub const fn from_millis(millis: u64) -> Self {
                Self(millis.saturating_mul(1_000_000))
            }

            /// Nanoseconds since the epoch.
            pub const fn as_nanos(self) -> u64 {
                self.0
            }

            /// Seconds since the epoch, for display and plots.
            pub fn as_secs_f64(self) -> f64 {
                self.0 as f64 * 1e-9
            }

            /// Time elapsed since `earlier`, or `None` if `earlier` is later than `self`.
            pub fn checked_duration_since(self, earlier: Self) -> Option<Duration> {
                self.0.checked_sub(earlier.0).map(Duration::from_nanos)
            }

            /// Time elapsed since `earlier`, zero if `earlier` is later than `self`.
            pub fn saturating_duration_since(self, earlier: Self) -> Duration {
                Duration::from_nanos(self.0.saturating_sub(earlier.0))
            }

            /// `self + d`, or `None` on overflow.
            pub fn checked_add(self, d: Duration) -> Option<Self> {
                u64::try_from(d.as_nanos()).ok().and_then(|n| self.0.checked_add(n)).map(Self)
            }

            /// `self - d`, or `None` before the epoch.
            pub fn checked_sub(self, d: Duration) -> Option<Self> {
                u64::try_from(d.as_nanos()).ok().and_then(|n| self.0.checked_sub(n)).map(Self)
            }

            /// `self + d`, clamped to [`Self::MAX`].
            pub fn saturating_add(self, d: Duration) -> Self {
                self.checked_add(d).unwrap_or(Self::MAX)
            }

            /// `self - d`, clamped to [`Self::ZERO`].
            pub fn saturating_sub(self, d: Duration) -> Self {
                self.checked_sub(d).unwrap_or(Self::ZERO)
            }
        }

        /// Saturating: time never wraps in this library.
        impl Add<Duration> for $name {
            type Output = Self;
            fn add(self, d: Duration) -> Self {
                self.saturating_add(d)
            }
        }

        impl AddAssign<Duration> for $name {
            fn add_assign(&mut self, d: Duration) {
                *self = *self + d;
            }
        }

        /// Saturating at the epoch.
        impl Sub<Duration> for $name {
            type Output = Self;
            fn sub(self, d: Duration) -> Self {
                self.saturating_sub(d)
            }
        }

        impl SubAssign<Duration> for $name {
            fn sub_assign(&mut self, d: Duration) {
                *self = *self - d;
            }
        }

        /// Saturating: an `earlier` that is in fact later gives zero.
        impl Sub for $name {
            type Output = Duration;
            fn sub(self, earlier: Self) -> Duration {
                self.saturating_duration_since(earlier)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({:.9}s)", stringify!($name), self.as_secs_f64())
            }
        }
    };
}

instant_type!(
    /// A point on the caller's own clock, in nanoseconds since an epoch the caller picks.
    Instant
);
instant_type!(
    /// A point on the peer's clock as reported in feedback (RFC 8888 report timestamp
    /// minus arrival-time offset), in nanoseconds since an epoch the peer picked.
    RemoteInstant
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_saturates_instead_of_wrapping() {
        let t = Instant::from_millis(5);
        assert_eq!(t - Duration::from_millis(10), Instant::ZERO);
        assert_eq!(Instant::MAX + Duration::from_secs(1), Instant::MAX);
        assert_eq!(
            Instant::from_millis(1) - Instant::from_millis(2),
            Duration::ZERO
        );
        assert_eq!(
            Instant::from_millis(3) - Instant::from_millis(1),
            Duration::from_millis(2)
        );
    }

    #[test]
    fn checked_duration_since_refuses_negative_spans() {
        let a = RemoteInstant::from_micros(10);
        let b = RemoteInstant::from_micros(20);
        assert_eq!(b.checked_duration_since(a), Some(Duration::from_micros(10)));
        assert_eq!(a.checked_duration_since(b), None);
    }
}
