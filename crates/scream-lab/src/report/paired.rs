//! Paired differences: two variants that ran the same seeds, compared seed by seed.
//!
//! A seed shapes a run (frame phases, jitter, random losses and marks) and shapes two
//! variants that share it in much the same way. The difference of the two runs of one
//! seed keeps the variants' difference and cancels most of what the seed adds, so the
//! spread of those differences is smaller than the spread of either variant, and the
//! confidence interval of their mean is narrower than two intervals side by side
//! suggest (docs/sweeps.md, "Paired differences").
//!
//! Variants that share seeds, in a sweep:
//! - two bases at the same design point (every base runs every point with the same
//!   seeds): each base is compared with the first;
//! - two values of one parameter, everything else equal: points of one base whose
//!   parameter cells differ only in that parameter (on a one-at-a-time design, the
//!   points of one axis), each compared with the first of them.

use std::collections::BTreeMap;

use scream_records::stats::{mean, mean_interval, std_dev};

use super::{PointMean, Results};
use crate::seeds::CONFIDENCE;

/// What a comparison holds fixed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Between {
    /// Two bases at one design point.
    Bases,
    /// Two values of parameter column `param` on one base.
    Values {
        /// Index into [`Results::params`].
        param: usize,
    },
}

/// The mean difference of one metric over the shared seeds.
#[derive(Debug, Clone, PartialEq)]
pub struct Difference {
    /// Seeds where both variants have a value.
    pub pairs: usize,
    /// Mean of (variant − reference) over those seeds.
    pub mean: f64,
    /// Sample standard deviation of the differences; `None` below two pairs.
    pub sd: Option<f64>,
    /// Half width of the 95 % confidence interval of `mean` (Student t over the
    /// differences); `None` below two pairs.
    pub half_width: Option<f64>,
    /// The reference's mean over the same seeds.
    pub reference_mean: f64,
    /// The variant's mean over the same seeds.
    pub variant_mean: f64,
}

impl Difference {
    /// Whether the interval leaves 0 out: the sign of the difference is clear at the
    /// confidence level.
    pub fn excludes_zero(&self) -> bool {
        self.half_width.is_some_and(|h| self.mean.abs() > h)
    }
}

/// A variant against its reference, every metric.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// What is held fixed.
    pub between: Between,
    /// Index into the point means of the reference.
    pub reference: usize,
    /// Index into the point means of the variant.
    pub variant: usize,
    /// Seeds both ran `ok`.
    pub pairs: usize,
    /// Per metric column (`None`: no seed where both have a value).
    pub differences: Vec<Option<Difference>>,
}

/// A run's metric cells, in [`Results::metrics`] order.
type Metrics<'a> = &'a [Option<f64>];

/// The comparisons of `points` (from `results.point_means()`): each base against the
/// first base at every point, then per base each parameter's values against the first.
pub fn comparisons(results: &Results, points: &[PointMean]) -> Vec<Comparison> {
    // Seed -> metric values of each (base, point) that ran ok.
    let mut runs: BTreeMap<(&str, usize), BTreeMap<u64, Metrics<'_>>> = BTreeMap::new();
    for r in results.rows.iter().filter(|r| r.ok) {
        runs.entry((r.base.as_str(), r.point))
            .or_default()
            .insert(r.seed, &r.metrics);
    }
    let empty = BTreeMap::new();
    let seeds_of = |i: usize| {
        runs.get(&(points[i].base.as_str(), points[i].point))
            .unwrap_or(&empty)
    };
    let compare = |between: Between, reference: usize, variant: usize| {
        let (a, b) = (seeds_of(reference), seeds_of(variant));
        let shared: Vec<(Metrics<'_>, Metrics<'_>)> = a
            .iter()
            .filter_map(|(seed, ra)| b.get(seed).map(|rb| (*ra, *rb)))
            .collect();
        let differences = (0..results.metrics.len())
            .map(|m| difference(shared.iter().map(|(ra, rb)| (ra[m], rb[m]))))
            .collect();
        Comparison {
            between,
            reference,
            variant,
            pairs: shared.len(),
            differences,
        }
    };
    let bases = results.bases();
    let mut out = Vec::new();
    if let Some((first, others)) = bases.split_first() {
        let of_first: BTreeMap<usize, usize> = points
            .iter()
            .enumerate()
            .filter(|(_, p)| p.base == *first)
            .map(|(i, p)| (p.point, i))
            .collect();
        for other in others {
            for (v, p) in points.iter().enumerate().filter(|(_, p)| p.base == *other) {
                if let Some(&r) = of_first.get(&p.point) {
                    out.push(compare(Between::Bases, r, v));
                }
            }
        }
    }
    for base in &bases {
        for param in 0..results.params.len() {
            for group in groups(points, base, param) {
                let Some((reference, variants)) = group.split_first() else {
                    continue;
                };
                for &v in variants {
                    if points[v].params[param] != points[*reference].params[param] {
                        out.push(compare(Between::Values { param }, *reference, v));
                    }
                }
            }
        }
    }
    out
}

/// The points of `base` that differ only in parameter `param` (and, on a one-at-a-time
/// design, share their axis), in groups of two or more, each in point order.
fn groups(points: &[PointMean], base: &str, param: usize) -> Vec<Vec<usize>> {
    let mut by_rest: BTreeMap<(Option<&str>, Vec<&str>), Vec<usize>> = BTreeMap::new();
    for (i, p) in points.iter().enumerate().filter(|(_, p)| p.base == base) {
        let rest: Vec<&str> = p
            .params
            .iter()
            .enumerate()
            .filter(|(k, _)| *k != param)
            .map(|(_, v)| v.as_str())
            .collect();
        by_rest
            .entry((p.axis.as_deref(), rest))
            .or_default()
            .push(i);
    }
    let mut groups: Vec<Vec<usize>> = by_rest.into_values().filter(|g| g.len() > 1).collect();
    groups.sort_by_key(|g| g[0]);
    groups
}

/// The paired difference over `(reference, variant)` values, seed by seed.
fn difference(pairs: impl Iterator<Item = (Option<f64>, Option<f64>)>) -> Option<Difference> {
    let both: Vec<(f64, f64)> = pairs.filter_map(|(a, b)| Some((a?, b?))).collect();
    let diffs: Vec<f64> = both.iter().map(|(a, b)| b - a).collect();
    Some(Difference {
        pairs: both.len(),
        mean: mean(diffs.iter().copied())?,
        sd: std_dev(&diffs),
        half_width: mean_interval(&diffs, CONFIDENCE).map(|i| i.half_width),
        reference_mean: mean(both.iter().map(|(a, _)| *a))?,
        variant_mean: mean(both.iter().map(|(_, b)| *b))?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_difference_is_taken_seed_by_seed() {
        // A seed effect of ±10 shared by both; the variant is 2 higher, ±0.5.
        let pairs = [(50.0, 52.5), (60.0, 61.5), (40.0, 42.5), (55.0, 56.5)];
        let d = difference(pairs.iter().map(|&(a, b)| (Some(a), Some(b)))).expect("pairs");
        assert_eq!((d.pairs, d.mean), (4, 2.0));
        assert_eq!((d.reference_mean, d.variant_mean), (51.25, 53.25));
        // Differences 2.5, 1.5, 2.5, 1.5: sd √(1/3); t(0.975, 3) = 3.182446.
        let hw = 3.182_446 * (1.0f64 / 3.0).sqrt() / 2.0;
        assert!((d.half_width.expect("interval") - hw).abs() < 1e-5, "{d:?}");
        assert!(d.excludes_zero());
        // A seed missing on either side is not a pair.
        let d = difference([(Some(1.0), None), (Some(2.0), Some(5.0))].into_iter());
        assert_eq!(
            d.map(|d| (d.pairs, d.mean, d.half_width)),
            Some((1, 3.0, None))
        );
        assert_eq!(difference([(None, Some(1.0))].into_iter()), None);
    }
}
