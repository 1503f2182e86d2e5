//! The report's numbers as CSV, for a sweep with several seeds per point: each point's
//! means with their intervals (points.csv), and every paired difference (paired.csv).
//! A table cell `56.2 ± 5.4` reads well but no program reads it as numbers, so here
//! each number has its own column, at six decimals at most as in results.csv.

use super::paired::{Between, Comparison};
use super::{PointMean, Results};
use crate::sweep::rows::cell_text;

fn optional(v: Option<f64>) -> String {
    v.map_or_else(String::new, cell_text)
}

fn csv(rows: Vec<Vec<String>>) -> std::io::Result<String> {
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    for r in rows {
        w.write_record(&r).map_err(std::io::Error::other)?;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    String::from_utf8(bytes).map_err(std::io::Error::other)
}

/// points.csv: one row per (base, point), as results.csv names its identification and
/// parameter columns; per metric column `m`, its mean `m`, the half width of its 95 %
/// interval `m_ci95` (empty below two seeds) and the seeds with a value `m_n`.
pub(super) fn points_csv(results: &Results, points: &[PointMean]) -> std::io::Result<String> {
    let mut header: Vec<String> = ["base", "point", "axis", "transition"]
        .map(str::to_owned)
        .to_vec();
    header.extend(results.params.iter().cloned());
    header.extend(["seeds_ok", "seeds_error"].map(str::to_owned));
    for m in &results.metrics {
        header.extend([m.clone(), format!("{m}_ci95"), format!("{m}_n")]);
    }
    let mut rows = vec![header];
    for p in points {
        let mut row = vec![
            p.base.clone(),
            p.point.to_string(),
            p.axis.clone().unwrap_or_default(),
            p.transition.map_or_else(String::new, |t| t.to_string()),
        ];
        row.extend(p.params.iter().cloned());
        row.extend([p.seeds.to_string(), p.errors.to_string()]);
        for m in 0..results.metrics.len() {
            row.extend([
                optional(p.metrics[m]),
                optional(p.half_widths[m]),
                p.counts[m].to_string(),
            ]);
        }
        rows.push(row);
    }
    csv(rows)
}

/// paired.csv: one row per comparison and metric.
pub(super) fn paired_csv(
    results: &Results,
    points: &[PointMean],
    comparisons: &[Comparison],
) -> std::io::Result<String> {
    let header = [
        "base",
        "point",
        "reference_base",
        "reference_point",
        "parameter",
        "value",
        "reference_value",
        "metric",
        "pairs",
        "difference",
        "difference_sd",
        "difference_ci95",
        "difference_ci95_low",
        "difference_ci95_high",
        "mean",
        "reference_mean",
    ]
    .map(str::to_owned)
    .to_vec();
    let mut rows = vec![header];
    for c in comparisons {
        let (r, v) = (&points[c.reference], &points[c.variant]);
        let (parameter, value, reference_value) = match c.between {
            Between::Bases => Default::default(),
            Between::Values { param } => (
                results.params[param].clone(),
                v.params[param].clone(),
                r.params[param].clone(),
            ),
        };
        for (metric, d) in results.metrics.iter().zip(&c.differences) {
            let Some(d) = d else { continue };
            let bound = |sign: f64| d.half_width.map(|h| d.mean + sign * h);
            rows.push(vec![
                v.base.clone(),
                v.point.to_string(),
                r.base.clone(),
                r.point.to_string(),
                parameter.clone(),
                value.clone(),
                reference_value.clone(),
                metric.clone(),
                d.pairs.to_string(),
                cell_text(d.mean),
                optional(d.sd),
                optional(d.half_width),
                optional(bound(-1.0)),
                optional(bound(1.0)),
                cell_text(d.variant_mean),
                cell_text(d.reference_mean),
            ]);
        }
    }
    csv(rows)
}
