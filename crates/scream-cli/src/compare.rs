//! `scream compare RUN_DIR...`: several runs on one set of axes — a stacked time-series
//! figure, a throughput–delay chart and a table of each run's headline metrics
//! (docs/compare.md).

mod table;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use scream_plot::compare::{CompareRun, run_color, write_timeseries};
use scream_plot::xy::{self, Series, Style, XyChart};
use scream_records::Sample;
use scream_sim::output::folder::RunDefinition;

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

/// The files a run folder must hold to be compared.
const NEEDED: [&str; 2] = ["timeseries.csv", "summary.json"];

/// Names of the figures written.
const TIMESERIES: &str = "timeseries";
const THROUGHPUT_DELAY: &str = "throughput_delay";

/// One run read from its folder.
struct Run {
    label: String,
    samples: Vec<Sample>,
    rows: Vec<table::Row>,
}

pub(crate) fn main(args: &CompareArgs) -> Result<String, String> {
    let labels = labels(&args.runs, &args.labels)?;
    let runs = args
        .runs
        .iter()
        .zip(labels)
        .map(|(dir, label)| read_run(dir, label))
        .collect::<Result<Vec<_>, _>>()?;
    let definition = RunDefinition::new()
        .with(
            "compare",
            args.runs
                .iter()
                .map(|d| absolute(d).display().to_string())
                .collect::<Vec<_>>(),
        )
        .with(
            "labels",
            runs.iter().map(|r| r.label.as_str()).collect::<Vec<_>>(),
        );
    let placed = crate::folder::place_matrix(
        args.out.as_deref(),
        &Path::new("out").join("compare"),
        definition,
        args.force,
    )?;
    let dir = &placed.dir;
    let rows: Vec<table::Row> = runs.iter().flat_map(|r| r.rows.clone()).collect();
    let write = |name: &str, text: String| {
        scream_records::write_atomic(&dir.join(name), text)
            .map_err(|e| format!("cannot write {}: {e}", dir.join(name).display()))
    };
    write("compare.csv", table::csv(&rows)?)?;
    write("compare.md", table::markdown(&rows))?;
    let plotted: Vec<CompareRun<'_>> = runs
        .iter()
        .map(|r| CompareRun {
            label: &r.label,
            samples: &r.samples,
        })
        .collect();
    write_timeseries(&plotted, dir, TIMESERIES).map_err(|e| e.to_string())?;
    xy::write_x_reversed(&throughput_delay(&runs), dir, THROUGHPUT_DELAY)
        .map_err(|e| e.to_string())?;
    if runs.len() == 1 {
        crate::warn("one run given: its figures and table have nothing beside them");
    }
    Ok(format!(
        "{}\nwrote compare.csv, compare.md, {TIMESERIES}.png/.svg and \
         {THROUGHPUT_DELAY}.png/.svg to {}\n{}",
        table::text(&rows),
        dir.display(),
        crate::folder::note_line(&placed)
    ))
}

/// The path made absolute, so the same comparison asked from another directory is
/// recognised as the same; as given when the current directory is unknown.
fn absolute(dir: &Path) -> PathBuf {
    std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf())
}

/// The runs' labels: `--labels` if given (one per run, distinct, non-empty), else each
/// folder's name, or its whole path where two folders share a name.
fn labels(runs: &[PathBuf], given: &[String]) -> Result<Vec<String>, String> {
    if !given.is_empty() {
        if given.len() != runs.len() {
            return Err(format!(
                "--labels: {} given for {} run folders; give one per RUN_DIR, in order",
                given.len(),
                runs.len()
            ));
        }
        let mut seen = HashSet::new();
        for label in given {
            if label.trim().is_empty() {
                return Err("--labels has an empty name: every run needs one".to_owned());
            }
            if !seen.insert(label.as_str()) {
                return Err(format!(
                    "--labels names two runs `{label}`: the names must differ"
                ));
            }
        }
        return Ok(given.to_vec());
    }
    let name = |d: &PathBuf| {
        d.file_name().map_or_else(
            || d.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    };
    let names: Vec<String> = runs.iter().map(name).collect();
    Ok(runs
        .iter()
        .zip(&names)
        .map(|(dir, n)| {
            if names.iter().filter(|m| *m == n).count() > 1 {
                dir.display().to_string()
            } else {
                n.clone()
            }
        })
        .collect())
}

/// Reads one run folder, naming what is missing when it is not a run.
fn read_run(dir: &Path, label: String) -> Result<Run, String> {
    if !dir.is_dir() {
        return Err(format!("{} is not a folder (RUN_DIR)", dir.display()));
    }
    let missing: Vec<&str> = NEEDED
        .iter()
        .copied()
        .filter(|f| !dir.join(f).is_file())
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "{} is not a run folder: it has no {} (a run folder is what `scream sim` or \
             `scream send --out` writes)",
            dir.display(),
            missing.join(" and no ")
        ));
    }
    let path = dir.join("summary.json");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let summary: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let rows = table::rows(&label, &summary, &path)?;
    let samples = crate::net::plot::read_samples(&dir.join("timeseries.csv"))?;
    Ok(Run {
        label,
        samples,
        rows,
    })
}

/// The throughput–delay chart: one labelled point per run and flow at (queue delay
/// p95, throughput), in the run's colour; flows whose summary lacks either value are
/// left out.
fn throughput_delay(runs: &[Run]) -> XyChart {
    let series = runs
        .iter()
        .enumerate()
        .flat_map(|(i, run)| {
            let several = run.rows.len() > 1;
            run.rows.iter().filter_map(move |row| {
                let x = row.metrics[table::P95_DELAY]?;
                let y = row.metrics[table::THROUGHPUT]?;
                let label = if several {
                    format!("{}: {}", run.label, row.flow)
                } else {
                    run.label.clone()
                };
                Some(Series::new(
                    label,
                    vec![(x, y)],
                    run_color(i),
                    Style::Labelled,
                ))
            })
        })
        .collect();
    XyChart {
        title: "Throughput vs queue delay (better: up and right)".to_owned(),
        x_label: "path queue delay, 95th percentile (ms, reversed)".to_owned(),
        y_label: "throughput (Mbit/s)".to_owned(),
        x_is_index: false,
        series,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_labels_are_folder_names_unless_two_share_one() {
        let runs: Vec<PathBuf> = ["out/a", "x/run", "y/run"]
            .iter()
            .map(PathBuf::from)
            .collect();
        assert_eq!(labels(&runs, &[]).expect("labels"), ["a", "x/run", "y/run"]);
    }

    #[test]
    fn given_labels_must_match_the_runs_and_differ() {
        let runs: Vec<PathBuf> = ["a", "b"].iter().map(PathBuf::from).collect();
        let l = |v: &[&str]| {
            labels(
                &runs,
                &v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>(),
            )
        };
        assert_eq!(l(&["p", "q"]).expect("ok"), ["p", "q"]);
        assert!(
            l(&["p"])
                .unwrap_err()
                .contains("--labels: 1 given for 2 run folders")
        );
        assert!(l(&["p", "p"]).unwrap_err().contains("must differ"));
        assert!(l(&["p", " "]).unwrap_err().contains("empty"));
    }
}
