//! A delay distribution in fixed memory.
//!
//! Values go into logarithmic buckets with a relative error of at most 1 % (two
//! significant decimal digits, HdrHistogram), so memory does not grow with the number
//! of packets and two runs' distributions merge exactly. The mean and the maximum are
//! kept exactly beside the buckets.

use hdrhistogram::Histogram;
use scream::Duration;
use scream_records::stats::histogram_quantile;

use crate::summary::{CountOf, Distribution};

/// Significant decimal digits kept: 2 gives a relative error of at most 1 %.
const SIGNIFICANT_DIGITS: u8 = 2;

/// A distribution of durations.
#[derive(Debug, Clone)]
pub struct DelayHistogram {
    buckets: Histogram<u64>,
    sum_ns: u128,
    max_ns: u64,
}

impl Default for DelayHistogram {
    fn default() -> Self {
        Self::new()
    }
}

impl DelayHistogram {
    /// An empty distribution.
    pub fn new() -> Self {
        let mut buckets = Histogram::new(SIGNIFICANT_DIGITS)
            .unwrap_or_else(|_| unreachable!("2 significant digits is a valid precision"));
        buckets.auto(true);
        Self {
            buckets,
            sum_ns: 0,
            max_ns: 0,
        }
    }

    /// Adds one value.
    pub fn record(&mut self, d: Duration) {
        let ns = u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
        // With auto-resize on, recording fails only beyond the largest trackable value
        // (2^63 ns, 292 years); such a value is counted at that bound.
        if self.buckets.record(ns).is_err() {
            let _ = self.buckets.record(self.buckets.high());
        }
        self.sum_ns += u128::from(ns);
        self.max_ns = self.max_ns.max(ns);
    }

    /// Adds every value of `other`.
    pub fn merge(&mut self, other: &Self) {
        // Both auto-resize, so adding cannot run out of range.
        let _ = self.buckets.add(&other.buckets);
        self.sum_ns += other.sum_ns;
        self.max_ns = self.max_ns.max(other.max_ns);
    }

    /// The cumulative distribution as `points` pairs (delay in ms, fraction of values
    /// at or below it), at evenly spaced fractions from 0 to 1; empty when there are
    /// no values.
    pub fn cdf_ms(&self, points: usize) -> Vec<(f64, f64)> {
        if self.count() == 0 || points < 2 {
            return Vec::new();
        }
        (0..points)
            .map(|i| {
                let q = i as f64 / (points - 1) as f64;
                let ns = histogram_quantile(&self.buckets, self.max_ns, q);
                (ns as f64 * 1e-6, q)
            })
            .collect()
    }

    /// Number of values above `d` (within the buckets' 1 %: a value within 1 % of `d`
    /// may fall on either side).
    pub fn count_above(&self, d: Duration) -> u64 {
        let ns = u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
        if ns >= self.max_ns {
            return 0;
        }
        let at_or_below = self.buckets.count_between(0, ns);
        self.count().saturating_sub(at_or_below)
    }

    /// Number of values.
    pub fn count(&self) -> u64 {
        self.buckets.len()
    }

    /// Mean, nearest-rank percentiles (within 1 %, never above the maximum) and
    /// maximum, in ms; all zero when empty. `count_of` says what one recorded value
    /// stands for (a packet, a frame).
    pub fn distribution_ms(&self, count_of: CountOf) -> Distribution {
        let n = self.count();
        if n == 0 {
            return Distribution {
                count_of,
                ..Distribution::default()
            };
        }
        let ms = |ns: u64| ns as f64 * 1e-6;
        let pct = |p: f64| ms(histogram_quantile(&self.buckets, self.max_ns, p / 100.0));
        Distribution {
            mean: self.sum_ns as f64 / n as f64 * 1e-6,
            p50: pct(50.0),
            p95: pct(95.0),
            p98: pct(98.0),
            p99: pct(99.0),
            max: ms(self.max_ns),
            count: n,
            count_of,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_within_one_percent_of_the_exact_ones() {
        let mut h = DelayHistogram::new();
        for i in 1..=10_000u64 {
            h.record(Duration::from_micros(i * 37));
        }
        let d = h.distribution_ms(CountOf::Packets);
        let exact = |p: f64| (p / 100.0 * 10_000.0).ceil() * 0.037;
        for (got, p) in [(d.p50, 50.0), (d.p95, 95.0), (d.p99, 99.0)] {
            assert!(
                (got / exact(p) - 1.0).abs() <= 0.01,
                "p{p}: {got} vs {}",
                exact(p)
            );
        }
        assert!((d.mean - 5000.5 * 0.037).abs() < 1e-9);
        assert_eq!(d.max, 370.0);
        assert_eq!(d.count, 10_000);
    }

    #[test]
    fn count_above_counts_the_values_past_the_threshold() {
        let mut h = DelayHistogram::new();
        for ms in [10, 200, 900, 1500, 3000] {
            h.record(Duration::from_millis(ms));
        }
        assert_eq!(h.count_above(Duration::from_secs(1)), 2);
        assert_eq!(h.count_above(Duration::from_millis(5)), 5);
        assert_eq!(h.count_above(Duration::from_secs(3)), 0);
        assert_eq!(DelayHistogram::new().count_above(Duration::ZERO), 0);
    }

    #[test]
    fn memory_does_not_grow_with_the_number_of_values() {
        let mut h = DelayHistogram::new();
        for i in 0..1_000u64 {
            h.record(Duration::from_micros(i % 500));
        }
        let before = h.buckets.distinct_values();
        for i in 0..1_000_000u64 {
            h.record(Duration::from_micros(i % 500));
        }
        assert_eq!(h.buckets.distinct_values(), before);
    }

    #[test]
    fn merged_distributions_equal_one_fed_with_both() {
        let (mut a, mut b, mut both) = (
            DelayHistogram::new(),
            DelayHistogram::new(),
            DelayHistogram::new(),
        );
        for i in 0..5000u64 {
            let d = Duration::from_micros(i * 13 % 7919);
            if i % 3 == 0 {
                a.record(d)
            } else {
                b.record(d)
            }
            both.record(d);
        }
        a.merge(&b);
        assert_eq!(
            a.distribution_ms(CountOf::Packets),
            both.distribution_ms(CountOf::Packets)
        );
    }

    #[test]
    fn the_cdf_rises_from_the_minimum_to_the_maximum() {
        let mut h = DelayHistogram::new();
        assert!(h.cdf_ms(11).is_empty());
        for ms in 1..=100 {
            h.record(Duration::from_millis(ms));
        }
        let cdf = h.cdf_ms(11);
        assert_eq!(cdf.len(), 11);
        assert!((cdf[0].0 - 1.0).abs() < 0.02, "{:?}", cdf[0]);
        assert!((cdf[5].0 - 50.0).abs() < 1.0, "{:?}", cdf[5]);
        assert!((cdf[10].0 - 100.0).abs() < 1.0 && cdf[10].1 == 1.0);
        assert!(cdf.windows(2).all(|w| w[0].0 <= w[1].0 && w[0].1 < w[1].1));
    }
}
