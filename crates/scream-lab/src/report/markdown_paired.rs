//! The "Paired differences" section of report.md: one table per pair of bases and per
//! parameter of a base, a row per compared point, a column per metric.

use std::fmt::Write as _;

use super::markdown::{cell, param, table};
use super::paired::{Between, Comparison, Difference};
use super::tables::with_interval;
use super::{PAIRED_CSV, PointMean, Results};

/// Rows shown per table; paired.csv holds them all.
const TABLE_ROWS: usize = 40;

/// A difference as a cell: `mean ± half width`, with `*` when the interval leaves 0
/// out.
fn difference_cell(d: Option<&Difference>) -> String {
    d.map_or_else(String::new, |d| {
        let text = with_interval(d.mean, d.half_width);
        if d.excludes_zero() {
            format!("{text} *")
        } else {
            text
        }
    })
}

/// Writes the section, when some comparison has two seeds or more to pair.
pub(super) fn section(
    out: &mut String,
    results: &Results,
    points: &[PointMean],
    comparisons: &[Comparison],
) {
    if !comparisons.iter().any(|c| c.pairs > 1) {
        return;
    }
    let _ = writeln!(
        out,
        "## Paired differences\n\n\
         Two variants that ran the same seeds, compared seed by seed: each cell is the mean \
         over the shared seeds of (variant − reference) ± the half width of its 95 % \
         confidence interval (Student t over the per-seed differences); `pairs` counts the \
         seeds both ran `ok`. A seed moves both variants alike, and the difference cancels \
         that, so this interval is narrower than the variants' own intervals suggest. `*`: \
         the interval leaves 0 out (among twenty differences that are truly 0, about one \
         is marked by chance). Every comparison is in `{PAIRED_CSV}`.\n"
    );
    // Tables in the order of their first comparison.
    let mut tables: Vec<(Between, &str, Vec<&Comparison>)> = Vec::new();
    for c in comparisons {
        let base = points[c.variant].base.as_str();
        match tables
            .iter_mut()
            .find(|(between, b, _)| *between == c.between && *b == base)
        {
            Some((_, _, rows)) => rows.push(c),
            None => tables.push((c.between.clone(), base, vec![c])),
        }
    }
    let first_base = results.bases().into_iter().next().unwrap_or_default();
    for (between, base, rows) in tables {
        if !rows.iter().any(|c| c.pairs > 1) {
            continue;
        }
        let varied = match between {
            Between::Bases => {
                let _ = writeln!(
                    out,
                    "### `{}` − `{}`, point by point\n",
                    cell(base),
                    cell(&first_base)
                );
                None
            }
            Between::Values { param: k } => {
                let _ = writeln!(
                    out,
                    "### Base `{}`: `{}` against its first value\n",
                    cell(base),
                    cell(&results.params[k])
                );
                Some(k)
            }
        };
        comparison_table(out, results, points, &rows, varied);
    }
}

/// The rows of one table; `varied` is the parameter the table compares (none: bases).
fn comparison_table(
    out: &mut String,
    results: &Results,
    points: &[PointMean],
    rows: &[&Comparison],
    varied: Option<usize>,
) {
    // The parameters that tell the rows apart: those some row sets, but the varied one.
    let shown: Vec<usize> = (0..results.params.len())
        .filter(|&k| Some(k) != varied)
        .filter(|&k| rows.iter().any(|c| !points[c.variant].params[k].is_empty()))
        .collect();
    let mut header = vec![match varied {
        Some(k) => format!("`{}`", cell(&results.params[k])),
        None => "point".to_owned(),
    }];
    header.extend(
        shown
            .iter()
            .map(|&k| format!("`{}`", cell(&results.params[k]))),
    );
    header.push("pairs".to_owned());
    header.extend(results.metrics.iter().map(|m| format!("`{}`", cell(m))));
    let mut right = vec![varied.is_none()];
    right.extend(shown.iter().map(|_| false));
    right.push(true);
    right.extend(results.metrics.iter().map(|_| true));
    let value = |p: &PointMean, k: usize| {
        let v = &p.params[k];
        if v.is_empty() {
            "(base)".to_owned()
        } else {
            param(v)
        }
    };
    let body: Vec<Vec<String>> = rows
        .iter()
        .take(TABLE_ROWS)
        .map(|c| {
            let (r, v) = (&points[c.reference], &points[c.variant]);
            let mut row = vec![match varied {
                Some(k) => format!("{} − {}", value(v, k), value(r, k)),
                None => v.point.to_string(),
            }];
            row.extend(shown.iter().map(|&k| param(&v.params[k])));
            row.push(c.pairs.to_string());
            row.extend(c.differences.iter().map(|d| difference_cell(d.as_ref())));
            row
        })
        .collect();
    table(out, &header, &right, &body);
    if rows.len() > TABLE_ROWS {
        let _ = writeln!(
            out,
            "and {} more rows in `{PAIRED_CSV}`.\n",
            rows.len() - TABLE_ROWS
        );
    }
}
