//! A histogram of delays in fixed memory, whatever the run length (HdrHistogram).
//!
//! Delays are counted in bins of 65.5 µs (2^16 ns) up to 17.2 s, so the quantiles the
//! link reports (p50/p95/p99 in summary.json, the sojourn p95 of each line) keep a
//! resolution finer than 0.1 ms up to 10 s and beyond. Longer delays share the last
//! bin. The mean and the maximum are kept exactly beside the bins.

use hdrhistogram::Histogram;
use scream::Duration;

/// Width of a bin, ns: the largest power of two below 0.1 ms (HdrHistogram's lowest
/// discernible value is rounded down to a power of two anyway).
const BIN_NS: u64 = 1 << 16;
/// Largest delay counted in its own bin, ns (2^18 bins of [`BIN_NS`], 17.2 s); longer
/// ones are counted in the last bin.
const HIGHEST_NS: u64 = (1 << 34) - 1;
/// Significant decimal digits: with 5 (HdrHistogram's most) the first 2^18 bins are
/// all one [`BIN_NS`] wide, which covers [`HIGHEST_NS`] in 1 MiB of `u32` counts.
const SIGNIFICANT_DIGITS: u8 = 5;

/// Delays in bins of 65.5 µs up to 17.2 s; 1 MiB whatever the count.
#[derive(Clone)]
pub struct DelayHistogram {
    // u32 counts halve the memory; a bin saturates at 4 billion packets.
    bins: Histogram<u32>,
    sum_ns: u128,
    max: Duration,
}

impl std::fmt::Debug for DelayHistogram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DelayHistogram")
            .field("count", &self.count())
            .field("max", &self.max)
            .finish_non_exhaustive()
    }
}

impl Default for DelayHistogram {
    fn default() -> Self {
        let bins = Histogram::new_with_bounds(BIN_NS, HIGHEST_NS, SIGNIFICANT_DIGITS)
            .unwrap_or_else(|e| unreachable!("the histogram bounds are valid: {e}"));
        Self {
            bins,
            sum_ns: 0,
            max: Duration::ZERO,
        }
    }
}

impl DelayHistogram {
    /// Counts one delay.
    pub fn record(&mut self, d: Duration) {
        let ns = u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
        // Clamped into the last bin rather than refused: the maximum is kept exactly.
        self.bins.saturating_record(ns);
        self.sum_ns += d.as_nanos();
        self.max = self.max.max(d);
    }

    /// Mean delay; `None` if empty.
    pub fn mean(&self) -> Option<Duration> {
        let n = u128::from(self.count());
        (n > 0).then(|| Duration::from_nanos(u64::try_from(self.sum_ns / n).unwrap_or(u64::MAX)))
    }

    /// Delays counted.
    pub fn count(&self) -> u64 {
        self.bins.len()
    }

    /// Largest delay counted.
    pub fn max(&self) -> Duration {
        self.max
    }

    /// The `q`-quantile (0..=1, nearest rank), as the upper edge of its bin but never
    /// above the maximum; `None` if empty.
    pub fn quantile(&self, q: f64) -> Option<Duration> {
        if self.count() == 0 {
            return None;
        }
        // HdrHistogram takes the lower edge of the bin for q = 0: the upper one for
        // every q keeps the quantiles in order.
        let edge = self.bins.value_at_quantile(q.clamp(0.0, 1.0));
        let edge = Duration::from_nanos(self.bins.highest_equivalent(edge));
        Some(edge.min(self.max))
    }

    /// Forgets every delay.
    pub fn clear(&mut self) {
        // Zeroing a mebibyte of bins each observation interval is worth skipping when
        // nothing was counted.
        if self.count() > 0 {
            self.bins.reset();
        }
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
        // The upper edge of the bin of 95 ms.
        let p95 = h.quantile(0.95).unwrap();
        let bin = Duration::from_millis(95)..Duration::from_nanos(95_000_000 + BIN_NS);
        assert!(bin.contains(&p95), "{p95:?}");
        assert_eq!(h.quantile(1.0), Some(Duration::from_millis(100)));
        assert_eq!(h.mean(), Some(Duration::from_micros(50_500)));
        assert_eq!(h.count(), 100);
        h.record(Duration::from_secs(3600));
        assert_eq!(h.max(), Duration::from_secs(3600));
        assert_eq!(
            h.quantile(1.0),
            Some(Duration::from_nanos(h.bins.highest_equivalent(HIGHEST_NS)))
        );
        h.clear();
        assert_eq!(h.quantile(0.5), None);
        assert_eq!(h.mean(), None);
        assert_eq!(h.count(), 0);
        assert_eq!(h.max(), Duration::ZERO);
    }

    #[test]
    fn quantiles_are_within_a_tenth_of_a_millisecond_up_to_ten_seconds() {
        let mut h = DelayHistogram::default();
        // 20,000 delays spread over 0..10 s at an awkward step, so that they fall at
        // every place within the bins.
        let step_ns = 499_979;
        let n = 20_000u64;
        for i in 1..=n {
            h.record(Duration::from_nanos(i * step_ns));
        }
        for q in [0.01, 0.25, 0.5, 0.9, 0.95, 0.99, 0.999] {
            let exact = (q * n as f64).ceil() as u64 * step_ns;
            let got = h.quantile(q).unwrap().as_nanos();
            let error_ns = got.abs_diff(u128::from(exact));
            assert!(
                got >= u128::from(exact) && error_ns < 100_000,
                "q {q}: {got} ns for {exact} ns"
            );
        }
    }

    #[test]
    fn memory_does_not_grow_with_the_count_or_the_delays() {
        let mut h = DelayHistogram::default();
        h.record(Duration::from_millis(1));
        let before = h.bins.distinct_values();
        assert_eq!(before, 1 << 18, "one bin per 65.5 µs up to 17.2 s");
        for i in 0..100_000u64 {
            h.record(Duration::from_millis(i * 7919 % 600_000));
        }
        assert_eq!(h.bins.distinct_values(), before);
    }
}
