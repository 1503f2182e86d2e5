//! A fixed-resolution histogram of delays: bounded memory whatever the run length.

use scream::Duration;

/// Bin width.
const BIN_NS: u64 = 100_000;
/// Bins: 0.1 ms each up to 10 s; longer delays share the last bin.
const BINS: usize = 100_000;

/// Delays in 0.1 ms bins up to 10 s.
#[derive(Clone)]
pub struct DelayHistogram {
    bins: Vec<u32>,
    count: u64,
    sum_ns: u128,
    max: Duration,
}

impl std::fmt::Debug for DelayHistogram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DelayHistogram")
            .field("count", &self.count)
            .field("max", &self.max)
            .finish_non_exhaustive()
    }
}

impl Default for DelayHistogram {
    fn default() -> Self {
        Self {
            bins: vec![0; BINS],
            count: 0,
            sum_ns: 0,
            max: Duration::ZERO,
        }
    }
}

impl DelayHistogram {
    /// Counts one delay.
    pub fn record(&mut self, d: Duration) {
        let bin = usize::try_from(d.as_nanos() / u128::from(BIN_NS))
            .map_or(BINS - 1, |b| b.min(BINS - 1));
        self.bins[bin] = self.bins[bin].saturating_add(1);
        self.count += 1;
        self.sum_ns += d.as_nanos();
        self.max = self.max.max(d);
    }

    /// Mean delay; `None` if empty.
    pub fn mean(&self) -> Option<Duration> {
        let n = u128::from(self.count);
        (n > 0).then(|| Duration::from_nanos(u64::try_from(self.sum_ns / n).unwrap_or(u64::MAX)))
    }

    /// Delays counted.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Largest delay counted.
    pub fn max(&self) -> Duration {
        self.max
    }

    /// The `q`-quantile (0..=1), as the upper edge of its bin; `None` if empty.
    pub fn quantile(&self, q: f64) -> Option<Duration> {
        if self.count == 0 {
            return None;
        }
        let rank = (q.clamp(0.0, 1.0) * self.count as f64).ceil().max(1.0) as u64;
        let mut seen = 0u64;
        for (i, &n) in self.bins.iter().enumerate() {
            seen += u64::from(n);
            if seen >= rank {
                let edge = Duration::from_nanos((i as u64 + 1) * BIN_NS);
                return Some(edge.min(self.max));
            }
        }
        Some(self.max)
    }

    /// Forgets every delay.
    pub fn clear(&mut self) {
        if self.count > 0 {
            self.bins.fill(0);
        }
        self.count = 0;
        self.sum_ns = 0;
        self.max = Duration::ZERO;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_fall_in_the_right_bin() {
        let mut h = DelayHistogram::default();
        for ms in 1..=100 {
            h.record(Duration::from_millis(ms));
        }
        // The upper edge of the bin of 95 ms, compared as a duration: in floating-point
        // milliseconds it reads 95.10000000000001.
        let p95 = h.quantile(0.95).unwrap();
        let bin = Duration::from_millis(95)..=Duration::from_micros(95_100);
        assert!(bin.contains(&p95), "{p95:?}");
        assert_eq!(h.quantile(1.0), Some(Duration::from_millis(100)));
        h.record(Duration::from_secs(3600));
        assert_eq!(h.max(), Duration::from_secs(3600));
        h.clear();
        assert_eq!(h.quantile(0.5), None);
    }
}
