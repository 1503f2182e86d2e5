//! `scream compare RUN_DIR...`: several runs on one set of axes — a stacked time-series
//! figure, a throughput–delay chart and a table of each run's headline metrics
//! (docs/compare.md). The comparison itself is the lab's (`scream_lab::compare`), which
//! the Python package's `scream.compare` calls too; this is the command around it.

use std::path::{Path, PathBuf};

use scream_lab::compare::{self, THROUGHPUT_DELAY, TIMESERIES};

/// Arguments of `scream compare`.
#[derive(Debug, clap::Args)]
pub(crate) struct CompareArgs {
    /// Run folders (`scream sim` or `scream send` outputs), each with timeseries.csv and
    /// summary.json; one is allowed (a table and figures of that run alone).
    #[arg(required = true, value_name = "RUN_DIR")]
    runs: Vec<PathBuf>,
    /// Output folder (default: out/compare, or out/compare-2, ... when that holds
    /// another comparison).
    #[arg(long)]
    out: Option<PathBuf>,
    /// The runs' names in legends and tables, comma-separated, one per RUN_DIR
    /// (default: each folder's name).
    #[arg(long, value_delimiter = ',')]
    labels: Vec<String>,
    #[command(flatten)]
    force: crate::folder::ForceArg,
}

pub(crate) fn main(args: &CompareArgs) -> Result<String, String> {
    let labels = compare::labels(&args.runs, &args.labels, "--labels")?;
    // Every folder is read before anything is written: one that is not a run stops
    // the command with nothing changed.
    let runs = args
        .runs
        .iter()
        .zip(&labels)
        .map(|(dir, label)| compare::read_run(dir, label.clone()))
        .collect::<Result<Vec<_>, _>>()?;
    let placed = crate::folder::place_matrix(
        args.out.as_deref(),
        &Path::new("out").join("compare"),
        compare::definition(&args.runs, &labels),
        args.force,
    )?;
    let written = compare::write(&runs, &placed.dir)?;
    if runs.len() == 1 {
        crate::warn("one run given: its figures and table have nothing beside them");
    }
    Ok(format!(
        "{}\nwrote {}, {}, {TIMESERIES}.png/.svg and {THROUGHPUT_DELAY}.png/.svg to {}\n{}",
        compare::text(&written.rows),
        compare::COMPARE_CSV,
        compare::COMPARE_MD,
        placed.dir.display(),
        crate::folder::note_line(&placed)
    ))
}
