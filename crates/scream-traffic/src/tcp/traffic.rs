//! What the application above a TCP sender writes: a bulk transfer that always has
//! data, or short objects separated by idle times (RFC 8867 §5.7, after the web-like
//! cross traffic of RFC 8868: sizes uniform in a range, exponential idle times).

use scream::Duration;
use scream_netmodel::rng::RngStream;

/// On-off traffic: objects of uniform size, exponential idle time between the end of
/// one object and the start of the next.
#[derive(Debug, Clone)]
pub struct OnOff {
    min_bytes: u64,
    max_bytes: u64,
    idle_mean: Duration,
    rng: RngStream,
    starts_idle: bool,
}

impl OnOff {
    /// Objects of `min_bytes..=max_bytes`, idle periods of mean `idle_mean`, both
    /// drawn from `rng`.
    pub fn new(min_bytes: u64, max_bytes: u64, idle_mean: Duration, rng: RngStream) -> Self {
        Self {
            min_bytes: min_bytes.max(1),
            max_bytes: max_bytes.max(min_bytes.max(1)),
            idle_mean,
            rng,
            starts_idle: false,
        }
    }

    /// The same source, but in its OFF state when the flow starts: the first object
    /// waits for an idle time drawn like the others (RFC 8867 §5.7 starts 8 of its 10
    /// short TCP flows OFF).
    #[must_use]
    pub fn starting_idle(mut self) -> Self {
        self.starts_idle = true;
        self
    }

    /// Whether the source is OFF when the flow starts.
    pub fn starts_idle(&self) -> bool {
        self.starts_idle
    }

    /// The size of the next object, bytes, uniform in `[min, max]`.
    pub fn object_bytes(&mut self) -> u64 {
        let span = (self.max_bytes - self.min_bytes) as f64 + 1.0;
        let draw = (self.rng.uniform() * span).floor() as u64;
        self.min_bytes + draw.min(self.max_bytes - self.min_bytes)
    }

    /// The idle time before the next object, exponential with the configured mean.
    pub fn idle(&mut self) -> Duration {
        // 1 − u lies in (0, 1], so the logarithm is finite.
        let u = 1.0 - self.rng.uniform();
        let s = -self.idle_mean.as_secs_f64() * u.ln();
        Duration::from_nanos((s * 1e9).min(1e18) as u64)
    }
}

/// The application's pattern.
#[derive(Debug, Clone)]
pub enum Traffic {
    /// Always data to send while the flow is active.
    Bulk,
    /// Objects and idle times (boxed: the random stream is large).
    OnOff(Box<OnOff>),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn on_off_object_sizes_stay_within_bounds_and_cover_them() {
        let mut t = OnOff::new(
            30_000,
            50_000,
            Duration::from_millis(10_000),
            RngStream::new(1, "t"),
        );
        let sizes: Vec<u64> = (0..10_000).map(|_| t.object_bytes()).collect();
        assert!(sizes.iter().all(|s| (30_000..=50_000).contains(s)));
        let (lo, hi) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
        assert!(*lo < 30_100 && *hi > 49_900, "{lo}..{hi}");
        let mean = sizes.iter().sum::<u64>() as f64 / sizes.len() as f64;
        assert!((mean - 40_000.0).abs() < 400.0, "mean {mean}");
    }

    #[test]
    fn on_off_idle_times_are_exponential_with_the_mean() {
        let mut t = OnOff::new(1, 1, Duration::from_millis(2_000), RngStream::new(2, "t"));
        let idle: Vec<f64> = (0..20_000).map(|_| t.idle().as_secs_f64()).collect();
        let mean = idle.iter().sum::<f64>() / idle.len() as f64;
        assert!((mean - 2.0).abs() < 0.06, "mean {mean}");
        // Exponential: P(X > mean) = 1/e.
        let above = idle.iter().filter(|s| **s > 2.0).count() as f64 / idle.len() as f64;
        assert!((above - (-1f64).exp()).abs() < 0.02, "{above}");
    }

    #[test]
    fn equal_bounds_give_that_size() {
        let mut t = OnOff::new(7, 7, Duration::ZERO, RngStream::new(3, "t"));
        assert_eq!(t.object_bytes(), 7);
        assert_eq!(t.idle(), Duration::ZERO);
    }
}
