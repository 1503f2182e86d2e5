//! `scream report`: tables and figures from a sweep's results.csv ([`crate::sweep`]),
//! in the forms of the published SCReAM tuning studies — per-parameter minimum and
//! maximum of each metric over a one-at-a-time design, each metric over the
//! transitions of every parameter, best and worst points and the per-experiment series
//! of a factorial (or sampled, or listed) design — plus the throughput/delay Pareto
//! front. A point's value is the mean over its seeds that ran `ok`; with several seeds,
//! with its confidence interval (tables and error bars) and, where two variants share
//! seeds, their paired differences ([`comparisons`]).

mod csv_files;
mod figures;
mod markdown;
mod markdown_paired;
mod paired;
pub mod published;
mod results;
mod tables;

use std::path::{Path, PathBuf};

pub use paired::{Between, Comparison, Difference, comparisons};
pub use results::{PointMean, Results, Row};
pub use tables::{MinMax, best_and_worst, min_max, pareto_front};

use crate::sweep::metric_of_column;
use scream_plot::PlotError;

/// A number as the report's tables print it: four significant digits, no exponent for
/// the sizes metrics take; empty when not finite.
pub fn format_number(v: f64) -> String {
    tables::fmt(v)
}

/// The report's text file; the figures are written beside it.
pub const REPORT_MD: &str = "report.md";
/// Each point's means with their confidence intervals; written when a point has
/// several seeds.
pub const POINTS_CSV: &str = "points.csv";
/// Every paired difference; written when two variants share several seeds.
pub const PAIRED_CSV: &str = "paired.csv";

/// Why a report could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The results file is not what `scream sweep` writes.
    #[error("{origin}: {message}")]
    Format {
        /// The file.
        origin: String,
        /// What is wrong, with the line.
        message: String,
    },
    /// A figure could not be drawn.
    #[error(transparent)]
    Plot(#[from] PlotError),
}

/// The metric columns the Pareto figure plots: the first throughput column, and the
/// same flow's true mean queue delay (or, without it, its delay estimate).
fn pareto_columns(results: &Results) -> Option<(usize, usize)> {
    let is = |c: &str, name: &str| metric_of_column(c).is_some_and(|m| m.name == name);
    let t = results
        .metrics
        .iter()
        .position(|c| is(c, "throughput_mbps"))?;
    let prefix = results.metrics[t].trim_end_matches("throughput_mbps");
    let d = ["qdelay_mean_ms", "est_qdelay_ms"]
        .iter()
        .find_map(|name| {
            let wanted = format!("{prefix}{name}");
            results.metrics.iter().position(|c| *c == wanted)
        })?;
    Some((t, d))
}

/// Writes report.md and its figures (SVG and PNG) into `out_dir` (created if
/// missing). `source` names the results file in the text. Returns the files written.
pub fn write_report(
    results: &Results,
    source: &str,
    out_dir: &Path,
) -> Result<Vec<PathBuf>, ReportError> {
    std::fs::create_dir_all(out_dir).map_err(|e| ReportError::Io {
        path: out_dir.to_path_buf(),
        source: e,
    })?;
    let points = results.point_means();
    let bases = results.bases();
    let mut written = Vec::new();
    let mut figures = markdown::Figures::default();
    let mut save = |chart: Option<scream_plot::xy::XyChart>,
                    name: String|
     -> Result<Option<String>, ReportError> {
        let Some(chart) = chart else { return Ok(None) };
        written.extend(scream_plot::xy::write(&chart, out_dir, &name)?);
        Ok(Some(format!("{name}.svg")))
    };
    for base in &bases {
        for (m, column) in results.metrics.iter().enumerate() {
            let name = format!(
                "oat-{}-{}",
                figures::file_part(base),
                figures::file_part(column)
            );
            if let Some(f) = save(figures::one_at_a_time(&points, base, m, column), name)? {
                figures.one_at_a_time.push((base.clone(), m, f));
            }
        }
    }
    let experiments: Vec<PointMean> = points
        .iter()
        .filter(|p| p.axis.is_none())
        .cloned()
        .collect();
    for (m, column) in results.metrics.iter().enumerate() {
        let name = format!("series-{}", figures::file_part(column));
        if let Some(f) = save(
            figures::per_experiment(&experiments, &bases, m, column),
            name,
        )? {
            figures.per_experiment.push((m, f));
        }
    }
    if let Some((t, d)) = pareto_columns(results) {
        let columns = (results.metrics[t].as_str(), results.metrics[d].as_str());
        figures.pareto = save(
            figures::pareto(&points, &bases, (t, d), columns),
            "pareto".to_owned(),
        )?;
    }
    // With one seed per point there is nothing to pair, and a sweep of a million
    // points should not pay for a million comparisons it never shows.
    let several_seeds = points.iter().any(|p| p.seeds > 1);
    let comparisons = if several_seeds {
        paired::comparisons(results, &points)
    } else {
        Vec::new()
    };
    let text = markdown::render(
        results,
        &points,
        source,
        pareto_columns(results),
        &figures,
        &comparisons,
    );
    let write = |name: &str, text: std::io::Result<String>| {
        let path = out_dir.join(name);
        let io = |source| ReportError::Io {
            path: path.clone(),
            source,
        };
        scream_sim::output::write_atomic(&path, text.map_err(io)?).map_err(io)?;
        Ok::<_, ReportError>(path)
    };
    written.insert(0, write(REPORT_MD, Ok(text))?);
    // With one seed per point results.csv already is the table of the points, and the
    // report's files stay as they were.
    if several_seeds {
        written.push(write(POINTS_CSV, csv_files::points_csv(results, &points))?);
    }
    if comparisons.iter().any(|c| c.pairs > 1) {
        let text = csv_files::paired_csv(results, &points, &comparisons);
        written.push(write(PAIRED_CSV, text)?);
    }
    Ok(written)
}
