//! The names of the files a run writes into its output folder, and the clean-up before
//! a run writes there again.
//!
//! A folder is reused when the same run runs again (and, with `--force`, by another
//! run; [`super::folder`] decides which). Without a clean-up, a run with `--no-plots`
//! would leave the previous run's plots beside its new data, and a reader could not
//! tell which files belong together. So a run first removes every file it *could*
//! write — and nothing else: a researcher's notes or notebooks in the folder are never
//! touched.

use std::io;
use std::path::{Path, PathBuf};

/// The run's summary (nested JSON).
pub const SUMMARY_JSON: &str = "summary.json";
/// The run's summary, one row per flow and per stream.
pub const SUMMARY_CSV: &str = "summary.csv";
/// The run's summary, one row per link direction.
pub const LINKS_SUMMARY_CSV: &str = "links_summary.csv";
/// One row per stream per sampling instant.
pub const TIMESERIES_CSV: &str = "timeseries.csv";
/// One row per link direction per sampling instant.
pub const LINKS_CSV: &str = "links.csv";
/// What was run, with which build, on which host.
pub const MANIFEST_JSON: &str = "manifest.json";

/// The opt-in logs (`--packet-log`, `--event-log`). They are written while the run
/// goes, so they are cleaned up before it starts ([`remove_previous_outputs`]), not
/// with the results after it ([`remove_previous_results`]).
pub const LOG_FILES: &[&str] = &["packets.jsonl", "events.jsonl"];

/// Every file name a run may write into its output folder besides the logs: the one
/// list the clean-up reads. A writer of a new file (a log named by a new option, a new plot) adds its name
/// here; a test fails if a run writes a file missing from this list.
pub const OUTPUT_FILES: &[&str] = &[
    SUMMARY_JSON,
    SUMMARY_CSV,
    LINKS_SUMMARY_CSV,
    TIMESERIES_CSV,
    LINKS_CSV,
    MANIFEST_JSON,
    // The plots of scream-plot's PLOT_NAMES, each as PNG and SVG. The simulator does
    // not draw, so it cannot read that list; a test of the `scream` command, which
    // joins both, fails if the two disagree.
    "overview.png",
    "overview.svg",
    "delay_cdf.png",
    "delay_cdf.svg",
    "throughput.png",
    "throughput.svg",
    "delay.png",
    "delay.svg",
    "window.png",
    "window.svg",
    "rtt.png",
    "rtt.svg",
];

/// Removes from `dir` every file a run writes ([`OUTPUT_FILES`] and [`LOG_FILES`]) that
/// exists there, and returns the paths removed. A missing folder or file is not an
/// error; anything else in the folder is left alone, and so is a directory that
/// happens to carry one of the names. Call it before a run that writes logs.
pub fn remove_previous_outputs(dir: &Path) -> io::Result<Vec<PathBuf>> {
    remove_named(dir, OUTPUT_FILES.iter().chain(LOG_FILES))
}

/// As [`remove_previous_outputs`], for the results only: the logs of the run being
/// written are kept.
pub fn remove_previous_results(dir: &Path) -> io::Result<Vec<PathBuf>> {
    remove_named(dir, OUTPUT_FILES.iter())
}

fn remove_named<'a>(
    dir: &Path,
    names: impl Iterator<Item = &'a &'a str>,
) -> io::Result<Vec<PathBuf>> {
    let mut removed = Vec::new();
    for name in names {
        let path = dir.join(name);
        // symlink_metadata: a symlink named like an output is removed itself, never
        // followed to whatever it points at.
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if !meta.is_dir() => {
                std::fs::remove_file(&path)?;
                removed.push(path);
            }
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removes_known_outputs_and_nothing_else() {
        let dir = std::env::temp_dir().join(format!("scream-files-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("rtt.svg")).unwrap();
        for name in ["summary.json", "delay.png", "notes.txt", "old.png"] {
            std::fs::write(dir.join(name), b"x").unwrap();
        }
        let removed = remove_previous_outputs(&dir).unwrap();
        assert_eq!(
            removed,
            vec![dir.join("summary.json"), dir.join("delay.png")]
        );
        assert!(dir.join("notes.txt").is_file());
        assert!(dir.join("old.png").is_file());
        assert!(dir.join("rtt.svg").is_dir());
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(remove_previous_outputs(&dir).unwrap().is_empty());
    }
}
