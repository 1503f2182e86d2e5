//! report.md: the tables, with the figures linked where they belong.

use std::fmt::Write as _;

use super::paired::Comparison;
use super::tables::{best_and_worst, min_max, pareto_front, with_interval};
use super::{PointMean, Results, figures::axis_label};
use crate::sweep::{Better, metric_of_column};

/// The figure files written, for linking.
#[derive(Debug, Default)]
pub(super) struct Figures {
    /// (base, metric column, file) of the one-at-a-time line plots.
    pub(super) one_at_a_time: Vec<(String, usize, String)>,
    /// (metric column, file) of the per-experiment series.
    pub(super) per_experiment: Vec<(usize, String)>,
    /// The Pareto scatter.
    pub(super) pareto: Option<String>,
}

/// A table cell: `|` would end the cell early.
pub(super) fn cell(s: &str) -> String {
    s.replace('|', "\\|")
}

/// A parameter value for a table: a sampled float (`0.06876472141908857`) is cut to six
/// significant digits, which tell the points apart; results.csv keeps it whole.
pub(super) fn param(s: &str) -> String {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && s.contains('.') && s.len() > 8 => {
            let short: f64 = format!("{v:.5e}").parse().unwrap_or(v);
            format!("{short}")
        }
        _ => cell(s),
    }
}

pub(super) fn table(out: &mut String, header: &[String], right: &[bool], rows: &[Vec<String>]) {
    let line = |cells: &[String]| format!("| {} |\n", cells.join(" | "));
    out.push_str(&line(header));
    let rule: Vec<String> = right
        .iter()
        .map(|&r| if r { "---:" } else { "---" }.to_owned())
        .collect();
    out.push_str(&line(&rule));
    for r in rows {
        out.push_str(&line(r));
    }
    out.push('\n');
}

pub(super) fn render(
    results: &Results,
    points: &[PointMean],
    source: &str,
    pareto: Option<(usize, usize)>,
    figures: &Figures,
    comparisons: &[Comparison],
) -> String {
    let mut out = String::new();
    let bases = results.bases();
    let ok = results.rows.iter().filter(|r| r.ok).count();
    let errors = results.rows.len() - ok;
    let seeds: Vec<usize> = points.iter().map(|p| p.seeds + p.errors).collect();
    let (lo, hi) = (
        seeds.iter().copied().min().unwrap_or(0),
        seeds.iter().copied().max().unwrap_or(0),
    );
    let _ = writeln!(out, "# Sweep report\n");
    let _ = writeln!(
        out,
        "From `{}`: {} runs ({ok} ok, {errors} errors) of {} design points on {} base \
         scenario(s) ({}); seeds per point: {}. Every value below is the mean over a \
         point's seeds that ran `ok`.\n",
        cell(source),
        results.rows.len(),
        points.len() / bases.len().max(1),
        bases.len(),
        bases
            .iter()
            .map(|b| format!("`{}`", cell(b)))
            .collect::<Vec<_>>()
            .join(", "),
        if lo == hi {
            lo.to_string()
        } else {
            format!("{lo} to {hi}")
        },
    );
    if points
        .iter()
        .any(|p| p.half_widths.iter().any(Option::is_some))
    {
        let _ = writeln!(
            out,
            "With several seeds a value reads `mean ± h`: h is the half width of the 95 % \
             confidence interval of the mean over the point's seeds (Student t), the mean \
             written to the precision h gives it. A value without `± h` had one seed with \
             a value. `points.csv` holds every point's means and intervals.\n"
        );
    }
    if results.incomplete_rows > 0 {
        let _ = writeln!(
            out,
            "{} incomplete rows (a sweep still writing?) were left out.\n",
            results.incomplete_rows
        );
    }
    errors_list(&mut out, results);
    metrics_table(&mut out, results);
    let oat = points.iter().any(|p| p.axis.is_some());
    let others = points.iter().any(|p| p.axis.is_none());
    for base in &bases {
        let _ = writeln!(out, "## Base `{}`\n", cell(base));
        if oat {
            min_max_tables(&mut out, results, points, base, figures);
        }
        if others {
            best_worst_table(&mut out, results, points, base);
        }
        if let Some(cols) = pareto {
            front_table(&mut out, results, points, base, cols);
        }
    }
    super::markdown_paired::section(&mut out, results, points, comparisons);
    if !figures.per_experiment.is_empty() {
        let _ = writeln!(out, "## Each metric per experiment\n");
        for (m, file) in &figures.per_experiment {
            let _ = writeln!(out, "![{} per experiment]({file})\n", results.metrics[*m]);
        }
    }
    if let Some(file) = &figures.pareto {
        let _ = writeln!(
            out,
            "## Throughput against delay\n\n![Pareto fronts]({file})\n"
        );
    }
    out
}

/// Distinct error messages shown; the rest are counted.
const ERRORS_SHOWN: usize = 5;

/// The distinct reasons runs failed, with how many runs each.
fn errors_list(out: &mut String, results: &Results) {
    let mut reasons: Vec<(&str, usize, &str)> = Vec::new();
    for r in results.rows.iter().filter(|r| !r.ok) {
        match reasons.iter_mut().find(|(m, _, _)| *m == r.error) {
            Some(entry) => entry.1 += 1,
            None => reasons.push((&r.error, 1, &r.run_id)),
        }
    }
    if reasons.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "## Failed runs
"
    );
    for (message, n, first) in reasons.iter().take(ERRORS_SHOWN) {
        let _ = writeln!(out, "- {n} run(s), first `{}`: {}", cell(first), message);
    }
    if reasons.len() > ERRORS_SHOWN {
        let _ = writeln!(
            out,
            "- and {} other reasons (see the `error` column)",
            reasons.len() - ERRORS_SHOWN
        );
    }
    out.push('\n');
}

fn metrics_table(out: &mut String, results: &Results) {
    let _ = writeln!(out, "## Metrics\n");
    let rows: Vec<Vec<String>> = results
        .metrics
        .iter()
        .map(|c| {
            let m = metric_of_column(c);
            let better = match m.map(|m| m.better) {
                Some(Better::Higher) => "higher",
                Some(Better::Lower) => "lower",
                _ => "",
            };
            vec![
                format!("`{}`", cell(c)),
                m.map_or("", |m| m.unit).to_owned(),
                better.to_owned(),
                m.map_or("", |m| m.description).to_owned(),
            ]
        })
        .collect();
    let header = ["metric", "unit", "better", "what"].map(str::to_owned);
    table(out, &header, &[false; 4], &rows);
}

/// Tables 6-11 of the tuning study: per metric, each parameter's min and max.
fn min_max_tables(
    out: &mut String,
    results: &Results,
    points: &[PointMean],
    base: &str,
    figures: &Figures,
) {
    let _ = writeln!(
        out,
        "### Minimum and maximum over each parameter's values (one at a time)\n"
    );
    for (m, column) in results.metrics.iter().enumerate() {
        let rows: Vec<Vec<String>> = min_max(points, &results.params, base, m)
            .into_iter()
            .map(|r| {
                vec![
                    format!("`{}`", cell(&r.axis)),
                    with_interval(r.min, r.min_half_width),
                    param(&r.min_at),
                    with_interval(r.max, r.max_half_width),
                    param(&r.max_at),
                ]
            })
            .collect();
        if rows.is_empty() {
            continue;
        }
        let _ = writeln!(out, "**{}**\n", axis_label(column));
        let header = ["parameter", "min", "at value", "max", "at value"].map(str::to_owned);
        table(out, &header, &[false, true, false, true, false], &rows);
        if let Some((_, _, file)) = figures
            .one_at_a_time
            .iter()
            .find(|(b, fm, _)| b == base && *fm == m)
        {
            let _ = writeln!(out, "![{column} over each parameter's values]({file})\n");
        }
    }
}

/// Tables 12-15 of the tuning study: the best and worst points per metric.
fn best_worst_table(out: &mut String, results: &Results, points: &[PointMean], base: &str) {
    let experiments: Vec<PointMean> = points
        .iter()
        .filter(|p| p.axis.is_none())
        .cloned()
        .collect();
    let mut rows = Vec::new();
    let mut constant = Vec::new();
    for (m, column) in results.metrics.iter().enumerate() {
        let Some(metric) = metric_of_column(column) else {
            continue;
        };
        let Some((best, worst)) = best_and_worst(&experiments, base, m, metric.better) else {
            continue;
        };
        if best.metrics[m] == worst.metrics[m] {
            constant.push(format!("`{}`", cell(column)));
            continue;
        }
        let (best_word, worst_word) = match metric.better {
            Better::Higher => ("max", "min"),
            _ => ("min", "max"),
        };
        for (word, p) in [(best_word, best), (worst_word, worst)] {
            let mut row = vec![
                format!("{word} `{}`", cell(column)),
                p.metrics[m].map_or_else(String::new, |v| with_interval(v, p.half_widths[m])),
                p.point.to_string(),
            ];
            row.extend(p.params.iter().map(|v| param(v)));
            rows.push(row);
        }
    }
    if rows.is_empty() && constant.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "### Best and worst points\n\nFor each metric, its best point (first row) and its \
         worst (second).\n"
    );
    if !constant.is_empty() {
        let _ = writeln!(out, "The same at every point: {}.\n", constant.join(", "));
    }
    if rows.is_empty() {
        return;
    }
    let mut header = ["objective", "value", "point"].map(str::to_owned).to_vec();
    header.extend(results.params.iter().map(|p| format!("`{}`", cell(p))));
    let mut right = vec![false, true, true];
    right.extend(results.params.iter().map(|_| false));
    table(out, &header, &right, &rows);
}

fn front_table(
    out: &mut String,
    results: &Results,
    points: &[PointMean],
    base: &str,
    (t, d): (usize, usize),
) {
    let mine: Vec<&PointMean> = points.iter().filter(|p| p.base == base).collect();
    let coords: Vec<(f64, f64)> = mine
        .iter()
        .map(|p| {
            (
                p.metrics[t].unwrap_or(f64::NAN),
                p.metrics[d].unwrap_or(f64::NAN),
            )
        })
        .collect();
    let front = pareto_front(&coords);
    if front.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "### Pareto front: `{}` against `{}`\n\nThe points no other point beats on both \
         (more throughput and less delay), by increasing delay.\n",
        cell(&results.metrics[t]),
        cell(&results.metrics[d])
    );
    let mut header = vec![
        "point".to_owned(),
        format!("`{}`", cell(&results.metrics[t])),
        format!("`{}`", cell(&results.metrics[d])),
    ];
    header.extend(results.params.iter().map(|p| format!("`{}`", cell(p))));
    let mut right = vec![true, true, true];
    right.extend(results.params.iter().map(|_| false));
    let rows: Vec<Vec<String>> = front
        .into_iter()
        .map(|i| {
            let p = mine[i];
            let mut row = vec![
                p.point.to_string(),
                with_interval(coords[i].0, p.half_widths[t]),
                with_interval(coords[i].1, p.half_widths[d]),
            ];
            row.extend(p.params.iter().map(|v| param(v)));
            row
        })
        .collect();
    table(out, &header, &right, &rows);
}
