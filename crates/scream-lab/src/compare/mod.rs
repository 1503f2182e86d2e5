//! Several runs on one set of axes (`scream compare`, and `scream.compare` in Python):
//! a stacked time-series figure, a throughput–delay chart and a table of each run's
//! headline metrics (docs/compare.md).
//!
//! A run is its folder: what `scream sim` or `scream send --out` wrote. Both front ends
//! take the same steps through here — [`labels`], [`read_run`] for every folder (a
//! folder that is not a run is refused before anything is written), [`definition`] to
//! claim the output folder, then [`write()`] — so their files are the same bytes.

mod table;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use scream_plot::compare::{CompareRun, run_color, write_timeseries};
use scream_plot::xy::{self, Series, Style, XyChart};
use scream_records::Sample;
use scream_sim::output::folder::RunDefinition;

pub use table::{METRICS, Row, csv, markdown, text};

/// The files a run folder must hold to be compared.
pub const NEEDED: [&str; 2] = ["timeseries.csv", "summary.json"];
/// The table, every digit as the summaries have it.
pub const COMPARE_CSV: &str = "compare.csv";
/// The table rounded for reading.
pub const COMPARE_MD: &str = "compare.md";
/// Name of the stacked time-series figure (`.png`, `.svg`).
pub const TIMESERIES: &str = "timeseries";
/// Name of the throughput–delay chart (`.png`, `.svg`).
pub const THROUGHPUT_DELAY: &str = "throughput_delay";

/// One run read from its folder.
#[derive(Debug, Clone)]
pub struct ComparedRun {
    /// Its name in legends and tables.
    pub label: String,
    /// Its timeseries.csv.
    pub samples: Vec<Sample>,
    /// Its flows' rows of the table.
    pub rows: Vec<Row>,
}

/// What [`write()`] wrote.
#[derive(Debug, Clone)]
pub struct Written {
    /// Every file, in the order written.
    pub files: Vec<PathBuf>,
    /// The table's rows, run by run.
    pub rows: Vec<Row>,
}

/// The runs' labels: `given` if any (one per run, distinct, non-empty), else each
/// folder's name, or its whole path where two folders share a name. `flag` names the
/// argument that gave them, for messages (`--labels`, `labels`).
pub fn labels(runs: &[PathBuf], given: &[String], flag: &str) -> Result<Vec<String>, String> {
    if !given.is_empty() {
        if given.len() != runs.len() {
            return Err(format!(
                "{flag}: {} given for {} run folders; give one per run, in order",
                given.len(),
                runs.len()
            ));
        }
        let mut seen = HashSet::new();
        for label in given {
            if label.trim().is_empty() {
                return Err(format!("{flag} has an empty name: every run needs one"));
            }
            if !seen.insert(label.as_str()) {
                return Err(format!(
                    "{flag} names two runs `{label}`: the names must differ"
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
pub fn read_run(dir: &Path, label: String) -> Result<ComparedRun, String> {
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
    let samples = scream_records::read::read_samples(&dir.join("timeseries.csv"))?;
    Ok(ComparedRun {
        label,
        samples,
        rows,
    })
}

/// What defines a comparison, for its folder's manifest.json: the run folders (as
/// absolute paths, so that the same comparison asked from another directory is
/// recognised) and the labels.
pub fn definition(runs: &[PathBuf], labels: &[String]) -> RunDefinition {
    RunDefinition::new()
        .with(
            "compare",
            runs.iter()
                .map(|d| absolute(d).display().to_string())
                .collect::<Vec<_>>(),
        )
        .with("labels", labels)
}

/// The path made absolute; as given when the current directory is unknown.
fn absolute(dir: &Path) -> PathBuf {
    std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf())
}

/// Writes compare.csv, compare.md and the two figures of `runs` into `dir` (which
/// must exist, claimed by the caller).
pub fn write(runs: &[ComparedRun], dir: &Path) -> Result<Written, String> {
    let rows: Vec<Row> = runs.iter().flat_map(|r| r.rows.clone()).collect();
    let write = |name: &str, text: String| {
        let path = dir.join(name);
        scream_records::write_atomic(&path, text)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        Ok::<_, String>(path)
    };
    let mut files = vec![
        write(COMPARE_CSV, csv(&rows)?)?,
        write(COMPARE_MD, markdown(&rows))?,
    ];
    let plotted: Vec<CompareRun<'_>> = runs
        .iter()
        .map(|r| CompareRun {
            label: &r.label,
            samples: &r.samples,
        })
        .collect();
    files.extend(write_timeseries(&plotted, dir, TIMESERIES).map_err(|e| e.to_string())?);
    files.extend(
        xy::write_x_reversed(&throughput_delay(runs), dir, THROUGHPUT_DELAY)
            .map_err(|e| e.to_string())?,
    );
    Ok(Written { files, rows })
}

/// The throughput–delay chart: one labelled point per run and flow at (queue delay
/// p95, throughput), in the run's colour; flows whose summary lacks either value are
/// left out.
fn throughput_delay(runs: &[ComparedRun]) -> XyChart {
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
        assert_eq!(
            labels(&runs, &[], "--labels").expect("labels"),
            ["a", "x/run", "y/run"]
        );
    }

    #[test]
    fn given_labels_must_match_the_runs_and_differ() {
        let runs: Vec<PathBuf> = ["a", "b"].iter().map(PathBuf::from).collect();
        let l = |v: &[&str]| {
            labels(
                &runs,
                &v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>(),
                "--labels",
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

    #[test]
    fn a_folder_that_is_not_a_run_is_named_with_what_it_lacks() {
        let dir = tempfile::tempdir().expect("tempdir");
        let e = read_run(&dir.path().join("nope"), "x".into()).unwrap_err();
        assert!(e.contains("is not a folder"), "{e}");
        std::fs::write(dir.path().join("summary.json"), "{}").expect("write");
        let e = read_run(dir.path(), "x".into()).unwrap_err();
        assert!(
            e.contains("it has no timeseries.csv (a run folder is"),
            "{e}"
        );
    }
}
