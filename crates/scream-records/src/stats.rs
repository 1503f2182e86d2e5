//! The statistics of the outputs, written once: nearest-rank percentiles over values
//! and over a bounded delay histogram, the mean and standard deviation, Jain's fairness
//! index, and the confidence interval of a mean over seeds.
//!
//! The arithmetic order is part of the contract: the summaries, tables and sweeps
//! print these numbers at fixed precision and must not change by a digit when a caller
//! moves here, so sums run left to right from `0.0` and percentiles take the value at
//! the nearest rank (no interpolation).

use hdrhistogram::Histogram;
use statrs::distribution::{ContinuousCDF, StudentsT};

/// Nearest-rank percentile `p` (in percent, 0–100) of `sorted` (ascending): the
/// smallest value with at least `p` % of the values at or below it; `p` at or below
/// 0 gives the first value. `None` when there is no value.
pub fn percentile_sorted(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    // A negative or NaN rank saturates to 0, which the clamp turns into the first.
    let rank = (p / 100.0 * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

/// As [`percentile_sorted`], over `values` in any order; NaN values are left out.
pub fn percentile(values: &[f64], p: f64) -> Option<f64> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| !x.is_nan()).collect();
    v.sort_unstable_by(f64::total_cmp);
    percentile_sorted(&v, p)
}

/// The value at quantile `q` (0–1) of a delay histogram, never above `max` (the
/// exact maximum kept beside the buckets: a bucket's upper edge may lie above it).
/// Within the histogram's relative error of the exact nearest-rank percentile.
pub fn histogram_quantile(buckets: &Histogram<u64>, max: u64, q: f64) -> u64 {
    buckets.value_at_quantile(q).min(max)
}

/// Arithmetic mean of `values`, summed left to right; `None` when there is none.
pub fn mean(values: impl IntoIterator<Item = f64>) -> Option<f64> {
    let (sum, n) = values
        .into_iter()
        .fold((0.0, 0u64), |(s, n), v| (s + v, n + 1));
    (n > 0).then(|| sum / n as f64)
}

/// Jain's fairness index of the shares `x`: (Σx)² / (n · Σx²), 1 when all are equal,
/// 1/n when one takes everything (R. Jain, D. Chiu, W. Hawe, DEC-TR-301, 1984).
/// `None` without shares or when all are zero.
pub fn jain(x: &[f64]) -> Option<f64> {
    let sum: f64 = x.iter().sum();
    let squares: f64 = x.iter().map(|v| v * v).sum();
    (!x.is_empty() && squares > 0.0).then(|| sum * sum / (x.len() as f64 * squares))
}

/// The sample standard deviation of `values` (divided by n − 1: the spread of the
/// population the values are drawn from, such as the seeds of a scenario, not of these
/// values alone). `None` with fewer than two values or a NaN value.
pub fn std_dev(values: &[f64]) -> Option<f64> {
    let n = values.len();
    if n < 2 || values.iter().any(|v| v.is_nan()) {
        return None;
    }
    let m = mean(values.iter().copied())?;
    let squares: f64 = values.iter().map(|v| (v - m) * (v - m)).sum();
    Some((squares / (n - 1) as f64).sqrt())
}

/// A mean with its two-sided confidence interval `mean ± half_width`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeanInterval {
    /// The sample mean.
    pub mean: f64,
    /// Half the interval's width, in the unit of the values.
    pub half_width: f64,
    /// Number of values (seeds).
    pub count: usize,
}

/// The mean of `values` (one per seed) with its two-sided Student t confidence
/// interval at `confidence` (e.g. 0.95): half width t(1 − (1 − confidence)/2, n − 1)
/// · s / √n, s the sample standard deviation. The seeds of a deterministic simulator
/// are independent draws, and few, hence t rather than the normal quantile.
///
/// `None` with fewer than two values (no spread to estimate), a NaN value, or a
/// `confidence` outside (0, 1).
pub fn mean_interval(values: &[f64], confidence: f64) -> Option<MeanInterval> {
    let n = values.len();
    if n < 2 || !(confidence > 0.0 && confidence < 1.0) || values.iter().any(|v| v.is_nan()) {
        return None;
    }
    let m = mean(values.iter().copied())?;
    let sd = std_dev(values)?;
    let t = StudentsT::new(0.0, 1.0, (n - 1) as f64)
        .ok()?
        .inverse_cdf(1.0 - (1.0 - confidence) / 2.0);
    Some(MeanInterval {
        mean: m,
        half_width: t * sd / (n as f64).sqrt(),
        count: n,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_take_the_nearest_rank() {
        let v: Vec<f64> = (1..=100).rev().map(f64::from).collect();
        assert_eq!(percentile(&v, 50.0), Some(50.0));
        assert_eq!(percentile(&v, 95.0), Some(95.0));
        assert_eq!(percentile(&v, 99.5), Some(100.0));
        assert_eq!(percentile(&v, 0.0), Some(1.0));
        assert_eq!(percentile(&[3.0, f64::NAN, 1.0], 100.0), Some(3.0));
        assert_eq!(percentile(&[f64::NAN], 50.0), None);
        // Four values: the median is the second, not an interpolation.
        assert_eq!(percentile_sorted(&[1.0, 2.0, 3.0, 4.0], 50.0), Some(2.0));
        assert_eq!(percentile_sorted(&[], 50.0), None);
    }

    #[test]
    fn histogram_quantiles_stay_within_one_percent_and_below_the_maximum() {
        let mut h = Histogram::<u64>::new(2).expect("precision");
        for v in 1..=1000u64 {
            h.record(v * 1000).expect("in range");
        }
        let p90 = histogram_quantile(&h, 1_000_000, 0.9) as f64;
        assert!((p90 / 900_000.0 - 1.0).abs() <= 0.01, "{p90}");
        assert_eq!(histogram_quantile(&h, 999_999, 1.0), 999_999);
    }

    #[test]
    fn mean_sums_left_to_right() {
        assert_eq!(mean([1.0, 2.0, 4.0]), Some(7.0 / 3.0));
        assert_eq!(mean(std::iter::empty()), None);
        // Left to right: 1e16 + 1 + 1 loses both ones, unlike 1 + 1 + 1e16.
        assert_eq!(mean([1e16, 1.0, 1.0]), Some(1e16 / 3.0));
    }

    #[test]
    fn jain_is_one_for_equal_shares_and_one_over_n_for_a_hog() {
        assert!((jain(&[3.0, 3.0]).expect("shares") - 1.0).abs() < 1e-12);
        assert!((jain(&[4.0, 0.0, 0.0, 0.0]).expect("shares") - 0.25).abs() < 1e-12);
        assert_eq!(jain(&[0.0, 0.0]), None);
        assert_eq!(jain(&[]), None);
    }

    #[test]
    fn mean_interval_uses_the_t_quantile_of_n_minus_one_degrees() {
        // 1..=5: mean 3, s = √2.5; t(0.975, 4) = 2.776445 (any t table).
        let ci = mean_interval(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.95).expect("interval");
        assert_eq!((ci.mean, ci.count), (3.0, 5));
        let expected = 2.776_445 * 2.5f64.sqrt() / 5f64.sqrt();
        assert!((ci.half_width - expected).abs() < 1e-5, "{ci:?}");
        // Two seeds: t(0.95, 1) = 6.313752, wider than the normal 1.645.
        let ci = mean_interval(&[10.0, 12.0], 0.90).expect("interval");
        assert!((ci.half_width - 6.313_752).abs() < 1e-5, "{ci:?}");
        assert_eq!(mean_interval(&[1.0], 0.95), None);
        assert_eq!(mean_interval(&[1.0, 2.0], 1.0), None);
        assert_eq!(mean_interval(&[1.0, f64::NAN], 0.95), None);
    }

    #[test]
    fn std_dev_divides_by_n_minus_one() {
        // 2, 4, 4, 4, 5, 5, 7, 9: squares sum to 32; 32 / 7.
        let v = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0];
        let sd = std_dev(&v).expect("spread");
        assert!((sd - (32.0f64 / 7.0).sqrt()).abs() < 1e-12, "{sd}");
        assert_eq!(std_dev(&[3.0]), None);
        assert_eq!(std_dev(&[3.0, f64::NAN]), None);
        assert_eq!(std_dev(&[3.0, 3.0]), Some(0.0));
    }

    #[test]
    fn the_interval_holds_the_mean_and_narrows_as_seeds_are_added() {
        // A fixed spread pattern repeated: the sample deviation stays near 1 while n
        // grows, so the half width must fall (t falls and √n grows).
        let pattern = [-1.2, 0.4, 1.1, -0.3, 0.9, -0.9, 0.2, -0.2];
        let widths: Vec<f64> = [2usize, 4, 8, 16, 32]
            .iter()
            .map(|&n| {
                let values: Vec<f64> = (0..n).map(|i| 50.0 + pattern[i % 8]).collect();
                let ci = mean_interval(&values, 0.95).expect("interval");
                let m = mean(values.iter().copied()).expect("mean");
                assert_eq!((ci.mean, ci.count), (m, n));
                assert!(ci.mean - ci.half_width <= m && m <= ci.mean + ci.half_width);
                ci.half_width
            })
            .collect();
        assert!(widths.windows(2).all(|w| w[1] < w[0]), "{widths:?}");
    }
}
