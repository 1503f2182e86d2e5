//! The report's figures, as charts for [`scream_plot::xy`].

use super::{PointMean, tables};
use crate::sweep::metric_of_column;
use scream_plot::xy::{Series, Style, XyChart};

/// Longest legend label before it is shortened from the left (the end of a dotted key
/// says most).
const LABEL_CHARS: usize = 36;

fn label(s: &str) -> String {
    let n = s.chars().count();
    if n <= LABEL_CHARS {
        s.to_owned()
    } else {
        let tail: String = s.chars().skip(n - (LABEL_CHARS - 1)).collect();
        format!("…{tail}")
    }
}

/// A parameter key without the part every study repeats: `flows.0.params.mss_bytes`
/// reads `mss_bytes`, `flows.0.max_bitrate_mbps` reads `max_bitrate_mbps`.
fn short_key(key: &str) -> &str {
    if let Some(i) = key.find(".params.") {
        return &key[i + ".params.".len()..];
    }
    match key.strip_prefix("flows.") {
        Some(rest) => rest.split_once('.').map_or(key, |(_, tail)| tail),
        None => key,
    }
}

/// Legend labels for `keys`: shortened when that keeps them apart (the keys of two
/// flows' same parameter stay whole).
fn key_labels(keys: &[&str]) -> Vec<String> {
    let short: Vec<&str> = keys.iter().map(|k| short_key(k)).collect();
    let distinct = short
        .iter()
        .enumerate()
        .all(|(i, a)| short.iter().skip(i + 1).all(|b| a != b));
    let chosen = if distinct { short } else { keys.to_vec() };
    chosen.into_iter().map(label).collect()
}

/// `throughput_mbps (Mbit/s)`; a ratio has no unit.
pub(super) fn axis_label(column: &str) -> String {
    match metric_of_column(column).map(|m| m.unit) {
        Some(unit) if !unit.is_empty() => format!("{column} ({unit})"),
        _ => column.to_owned(),
    }
}

/// A name safe in a file name, from a base or metric name of any results file.
pub(super) fn file_part(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The error bar of a point's metric: the half width of its confidence interval, NaN
/// (no bar) with one seed.
fn bar(p: &PointMean, metric: usize) -> f64 {
    p.half_widths[metric].unwrap_or(f64::NAN)
}

/// The x axis' label, saying what the bars are when a series has one (the title has no
/// room left on the Pareto figure).
fn with_bars_note(x_label: &str, series: &[Series]) -> String {
    let any = series
        .iter()
        .any(|s| s.y_errors.iter().chain(&s.x_errors).any(|e| e.is_finite()));
    if any {
        format!("{x_label} — bars: 95 % CI of the mean over seeds")
    } else {
        x_label.to_owned()
    }
}

/// One-at-a-time: metric `metric` over the transition index, one line per axis of
/// `base`.
pub(super) fn one_at_a_time(
    points: &[PointMean],
    base: &str,
    metric: usize,
    column: &str,
) -> Option<XyChart> {
    let mut axes: Vec<&str> = Vec::new();
    for p in points.iter().filter(|p| p.base == base) {
        if let Some(a) = p.axis.as_deref() {
            if !axes.contains(&a) {
                axes.push(a);
            }
        }
    }
    let labels = key_labels(&axes);
    let series: Vec<Series> = axes
        .iter()
        .zip(labels)
        .enumerate()
        .map(|(color, (axis, axis_label))| {
            let mut pts: Vec<(f64, f64, f64)> = points
                .iter()
                .filter(|p| p.base == base && p.axis.as_deref() == Some(*axis))
                .filter_map(|p| Some((p.transition? as f64, p.metrics[metric]?, bar(p, metric))))
                .collect();
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            Series {
                y_errors: pts.iter().map(|p| p.2).collect(),
                ..Series::new(
                    axis_label,
                    pts.iter().map(|p| (p.0, p.1)).collect(),
                    color,
                    Style::Line,
                )
            }
        })
        .filter(|s| !s.points.is_empty())
        .collect();
    (!series.is_empty()).then(|| XyChart {
        title: format!("{column} over each parameter's values — base {base}"),
        x_label: with_bars_note("transition (index of the parameter's value)", &series),
        y_label: axis_label(column),
        x_is_index: true,
        series,
    })
}

/// Metric `metric` over the experiment (point) index, one line per base.
pub(super) fn per_experiment(
    points: &[PointMean],
    bases: &[String],
    metric: usize,
    column: &str,
) -> Option<XyChart> {
    let series: Vec<Series> = bases
        .iter()
        .enumerate()
        .map(|(color, base)| {
            let mine = || {
                points
                    .iter()
                    .filter(|p| p.base == *base && p.metrics[metric].is_some())
            };
            Series {
                y_errors: mine().map(|p| bar(p, metric)).collect(),
                ..Series::new(
                    label(base),
                    mine()
                        .filter_map(|p| Some((p.point as f64, p.metrics[metric]?)))
                        .collect(),
                    color,
                    Style::Line,
                )
            }
        })
        .filter(|s| !s.points.is_empty())
        .collect();
    (!series.is_empty()).then(|| XyChart {
        title: format!("{column} per experiment"),
        x_label: with_bars_note("experiment (design point)", &series),
        y_label: axis_label(column),
        x_is_index: true,
        series,
    })
}

/// Throughput against delay, every point of every base, each base's Pareto front
/// marked.
pub(super) fn pareto(
    points: &[PointMean],
    bases: &[String],
    (throughput, delay): (usize, usize),
    (throughput_column, delay_column): (&str, &str),
) -> Option<XyChart> {
    let mut series = Vec::new();
    for (color, base) in bases.iter().enumerate() {
        let mine: Vec<&PointMean> = points
            .iter()
            .filter(|p| p.base == *base)
            .filter(|p| p.metrics[delay].is_some() && p.metrics[throughput].is_some())
            .collect();
        let pts: Vec<(f64, f64)> = mine
            .iter()
            .filter_map(|p| Some((p.metrics[delay]?, p.metrics[throughput]?)))
            .collect();
        if pts.is_empty() {
            continue;
        }
        let as_front: Vec<(f64, f64)> = pts.iter().map(|&(d, t)| (t, d)).collect();
        let front = tables::pareto_front(&as_front)
            .into_iter()
            .map(|i| pts[i])
            .collect();
        series.push(Series {
            x_errors: mine.iter().map(|p| bar(p, delay)).collect(),
            y_errors: mine.iter().map(|p| bar(p, throughput)).collect(),
            ..Series::new(
                label(&format!("{base}: all points")),
                pts,
                color,
                Style::Scatter,
            )
        });
        series.push(Series::new(
            label(&format!("{base}: Pareto front")),
            front,
            color,
            Style::Front,
        ));
    }
    (!series.is_empty()).then(|| XyChart {
        title: format!(
            "{throughput_column} vs {delay_column} (front: no point has more throughput and \
             less delay)"
        ),
        x_label: with_bars_note(&axis_label(delay_column), &series),
        y_label: axis_label(throughput_column),
        x_is_index: false,
        series,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legend_keys_drop_the_repeated_prefix_unless_two_would_read_alike() {
        let keys = [
            "flows.0.params.mss_bytes",
            "flows.0.max_bitrate_mbps",
            "link.capacity_mbps",
        ];
        assert_eq!(
            key_labels(&keys),
            ["mss_bytes", "max_bitrate_mbps", "link.capacity_mbps"]
        );
        let two_flows = ["flows.0.params.mss_bytes", "flows.1.params.mss_bytes"];
        assert_eq!(key_labels(&two_flows), two_flows);
    }
}
