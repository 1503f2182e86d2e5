//! The real clock, read here and nowhere in the state machines.

use scream::Instant;

/// Monotonic time since the endpoint started, as the library's [`Instant`].
///
/// The library only ever compares instants of one clock, so an origin at start-up is
/// as good as any and keeps the numbers in logs small.
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    origin: std::time::Instant,
    /// Wall-clock time at the origin, to line up the outputs of several processes.
    wall_origin: std::time::SystemTime,
}

impl Clock {
    /// A clock whose zero is now.
    pub fn start() -> Self {
        Self {
            origin: std::time::Instant::now(),
            wall_origin: std::time::SystemTime::now(),
        }
    }

    /// Seconds since the Unix epoch at the clock's zero (the system's wall clock, which
    /// may be stepped: only for lining up the outputs of processes on one machine).
    pub fn origin_unix_s(&self) -> f64 {
        self.wall_origin
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64())
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
