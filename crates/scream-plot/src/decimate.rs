//! Thinning a dense series for drawing without losing its peaks.

/// Keeps at most about `max_points` points: the series is cut into buckets and each
/// bucket contributes its lowest and highest point, in time order, so spikes (a delay
/// peak, a capacity drop) stay visible however many samples are dropped.
pub(super) fn min_max(points: &[(f64, f64)], max_points: usize) -> Vec<(f64, f64)> {
    let buckets = (max_points / 2).max(1);
    if points.len() <= max_points {
        return points.to_vec();
    }
    let per_bucket = points.len().div_ceil(buckets);
    let mut out = Vec::with_capacity(2 * buckets);
    for chunk in points.chunks(per_bucket) {
        let Some(first) = chunk.first() else {
            continue;
        };
        let (mut lo, mut hi) = (first, first);
        for p in chunk {
            if p.1 < lo.1 {
                lo = p;
            }
            if p.1 > hi.1 {
                hi = p;
            }
        }
        if lo.0 <= hi.0 {
            out.extend([*lo, *hi]);
        } else {
            out.extend([*hi, *lo]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_series_pass_through_unchanged() {
        let pts: Vec<(f64, f64)> = (0..10).map(|i| (f64::from(i), 1.0)).collect();
        assert_eq!(min_max(&pts, 100), pts);
    }

    #[test]
    fn long_series_shrink_but_keep_the_extremes_in_time_order() {
        let mut pts: Vec<(f64, f64)> = (0..10_000).map(|i| (f64::from(i), 1.0)).collect();
        pts[4321].1 = 99.0;
        pts[7000].1 = -5.0;
        let thin = min_max(&pts, 1000);
        assert!(thin.len() <= 1000, "{}", thin.len());
        assert!(thin.contains(&(4321.0, 99.0)));
        assert!(thin.contains(&(7000.0, -5.0)));
        assert!(thin.windows(2).all(|w| w[0].0 <= w[1].0));
    }
}
