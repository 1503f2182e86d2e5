//! The analyses behind the report's tables: per-parameter minimum and maximum of a
//! one-at-a-time design, best and worst points, and the throughput/delay Pareto front.

use super::PointMean;
use crate::sweep::Better;

/// Over one axis of a one-at-a-time design: where a metric is smallest and largest.
#[derive(Debug, Clone, PartialEq)]
pub struct MinMax {
    /// The axis (dotted key).
    pub axis: String,
    /// Smallest mean value of the metric over the axis' values.
    pub min: f64,
    /// The axis value where it occurs (the first, on a tie).
    pub min_at: String,
    /// Half width of the confidence interval of `min` (`None`: one seed).
    pub min_half_width: Option<f64>,
    /// Largest mean value.
    pub max: f64,
    /// The axis value where it occurs (the first, on a tie).
    pub max_at: String,
    /// Half width of the confidence interval of `max`.
    pub max_half_width: Option<f64>,
}

/// For each axis of `base` (in the order of its points), the min and max of metric
/// column `metric` over the axis' transitions, and at which value of the axis each
/// occurs. Axes without a value of the metric are left out.
pub fn min_max(points: &[PointMean], params: &[String], base: &str, metric: usize) -> Vec<MinMax> {
    let mut axes: Vec<&str> = Vec::new();
    for p in points.iter().filter(|p| p.base == base) {
        if let Some(a) = p.axis.as_deref() {
            if !axes.contains(&a) {
                axes.push(a);
            }
        }
    }
    axes.into_iter()
        .filter_map(|axis| {
            let column = params.iter().position(|k| k == axis);
            let mut on_axis: Vec<&PointMean> = points
                .iter()
                .filter(|p| p.base == base && p.axis.as_deref() == Some(axis))
                .collect();
            on_axis.sort_by_key(|p| p.transition);
            let value_of = |p: &PointMean| match column {
                Some(c) => p.params[c].clone(),
                None => format!("#{}", p.transition.unwrap_or(0)),
            };
            let mut out: Option<MinMax> = None;
            for p in on_axis {
                let Some(v) = p.metrics.get(metric).copied().flatten() else {
                    continue;
                };
                let hw = p.half_widths.get(metric).copied().flatten();
                let m = out.get_or_insert_with(|| MinMax {
                    axis: axis.to_owned(),
                    min: v,
                    min_at: value_of(p),
                    min_half_width: hw,
                    max: v,
                    max_at: value_of(p),
                    max_half_width: hw,
                });
                if v < m.min {
                    m.min = v;
                    m.min_at = value_of(p);
                    m.min_half_width = hw;
                }
                if v > m.max {
                    m.max = v;
                    m.max_at = value_of(p);
                    m.max_half_width = hw;
                }
            }
            out
        })
        .collect()
}

/// The best and the worst point of `base` for metric column `metric` (first on a
/// tie), or `None` when the metric has no direction or no point has a value.
pub fn best_and_worst<'a>(
    points: &'a [PointMean],
    base: &str,
    metric: usize,
    better: Better,
) -> Option<(&'a PointMean, &'a PointMean)> {
    let valued = || {
        points
            .iter()
            .filter(move |p| p.base == base)
            .filter_map(move |p| p.metrics.get(metric).copied().flatten().map(|v| (v, p)))
    };
    // `min_by`/`max_by` keep the last of equal elements for max: fold to keep the first.
    let first_by = |pick: fn(f64, f64) -> bool| {
        valued()
            .fold(None::<(f64, &PointMean)>, |acc, (v, p)| match acc {
                Some((best, _)) if !pick(v, best) => acc,
                _ => Some((v, p)),
            })
            .map(|(_, p)| p)
    };
    let (high, low) = (first_by(|v, b| v > b)?, first_by(|v, b| v < b)?);
    match better {
        Better::Higher => Some((high, low)),
        Better::Lower => Some((low, high)),
        Better::Neither => None,
    }
}

/// Indexes of the non-dominated entries of `points` = `(throughput, delay)`: no other
/// entry has at least the throughput and at most the delay, and more of one or less of
/// the other. Entries with a non-finite coordinate are left out; of equal entries only
/// the first is kept. Ordered by increasing delay (and so increasing throughput).
pub fn pareto_front(points: &[(f64, f64)]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..points.len())
        .filter(|&i| points[i].0.is_finite() && points[i].1.is_finite())
        .collect();
    // By delay, then by throughput from high to low, then by position: walking this
    // order, an entry is on the front when it beats every throughput seen before it.
    order.sort_by(|&a, &b| {
        points[a]
            .1
            .total_cmp(&points[b].1)
            .then(points[b].0.total_cmp(&points[a].0))
            .then(a.cmp(&b))
    });
    let mut front = Vec::new();
    let mut best = f64::NEG_INFINITY;
    for i in order {
        if points[i].0 > best {
            best = points[i].0;
            front.push(i);
        }
    }
    front
}

/// A number for a table: four significant digits, no exponent for the sizes these
/// metrics take.
pub(super) fn fmt(v: f64) -> String {
    if !v.is_finite() {
        return String::new();
    }
    if v == 0.0 {
        return "0".to_owned();
    }
    #[expect(
        clippy::cast_possible_truncation,
        reason = "log10 of a finite f64 is within ±400"
    )]
    let magnitude = v.abs().log10().floor() as i32;
    let decimals = usize::try_from((3 - magnitude).clamp(0, 6)).unwrap_or(0);
    format!("{v:.decimals$}")
}

/// A mean with its confidence interval for a table, `mean ± half width`: the half
/// width to two significant digits and the mean to the same decimal place, the
/// precision the interval gives it. Without an interval (one seed), the mean as
/// [`fmt`] writes it.
pub(super) fn with_interval(mean: f64, half_width: Option<f64>) -> String {
    let Some(hw) = half_width.filter(|h| h.is_finite() && mean.is_finite()) else {
        return fmt(mean);
    };
    // Results carry six decimals: a narrower interval is rounding noise of equal values.
    if hw < 1e-6 {
        return format!("{} ± 0", fmt(mean));
    }
    #[expect(
        clippy::cast_possible_truncation,
        reason = "log10 of a finite positive f64 is within ±400"
    )]
    let magnitude = hw.log10().floor() as i32;
    let decimals = usize::try_from((1 - magnitude).clamp(0, 6)).unwrap_or(0);
    format!("{mean:.decimals$} ± {hw:.decimals$}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mean_is_written_to_the_precision_of_its_interval() {
        assert_eq!(with_interval(56.2137, Some(5.366)), "56.2 ± 5.4");
        assert_eq!(with_interval(13.215176, Some(0.005845)), "13.2152 ± 0.0058");
        assert_eq!(with_interval(11.0, Some(12.7)), "11 ± 13");
        assert_eq!(with_interval(3.0, Some(0.0)), "3.000 ± 0");
        assert_eq!(with_interval(55.312383, Some(3e-9)), "55.31 ± 0");
        // One seed: as without seeds.
        assert_eq!(with_interval(13.86774, None), fmt(13.86774));
    }

    #[test]
    fn numbers_keep_four_significant_digits() {
        assert_eq!(fmt(13.86774), "13.87");
        assert_eq!(fmt(0.050401), "0.05040");
        assert_eq!(fmt(1234.56), "1235");
        assert_eq!(fmt(0.0), "0");
        assert_eq!(fmt(f64::NAN), "");
    }
}
