//! The real clock, read here and nowhere in the state machines.

use scream::Instant;

/// Monotonic time since the endpoint started, as the library's [`Instant`].
///
/// The library only ever compares instants of one clock, so an origin at start-up is
/// as good as any and keeps the numbers in logs small.
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    origin: std::time::Instant,
}

impl Clock {
    /// A clock whose zero is now.
    pub fn start() -> Self {
        Self {
            origin: std::time::Instant::now(),
        }
    }

    /// The time now.
    pub fn now(&self) -> Instant {
        Instant::from_nanos(u64::try_from(self.origin.elapsed().as_nanos()).unwrap_or(u64::MAX))
    }

    /// The real-clock instant of `t`.
    pub fn to_std(&self, t: Instant) -> std::time::Instant {
        self.origin + std::time::Duration::from_nanos(t.as_nanos())
    }
}
