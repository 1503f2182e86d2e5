//! Writing a run's outputs: summary.json (pretty, every float with 6 decimals), the
//! same summary as flat tables (summary.csv, links_summary.csv), timeseries.csv (one row
//! per stream per sampling instant) and links.csv (one row per link direction per
//! sampling instant). docs/outputs.md documents every key and column. [`folder`] decides
//! whether a run may write into a folder at all. The text (fixed-precision floats, CSV
//! headers from the row types) and the files replaced whole come from `scream-records`.

mod files;
pub mod folder;
mod summary_csv;

pub use files::{
    LINKS_CSV, LINKS_SUMMARY_CSV, LOG_FILES, MANIFEST_JSON, OUTPUT_FILES, SUMMARY_CSV,
    SUMMARY_JSON, TIMESERIES_CSV, remove_previous_outputs, remove_previous_results,
};
// The writers live in scream-records; the simulator's other writers (manifest, sweeps,
// reports) reach them here.
pub use scream_records::{write_atomic, write_atomic_with};

use crate::RunResult;
use crate::summary::Summary;
use scream_records::{json_fixed, write_csv};
use std::io;
use std::path::{Path, PathBuf};

/// summary.json text.
pub fn summary_json(summary: &Summary) -> io::Result<Vec<u8>> {
    let mut out = json_fixed(summary)?;
    out.push(b'\n');
    Ok(out)
}

/// summary.csv and links_summary.csv text: summary.json's numbers as flat tables.
pub fn summary_csvs(summary: &Summary) -> io::Result<(Vec<u8>, Vec<u8>)> {
    let value: serde_json::Value =
        serde_json::from_slice(&summary_json(summary)?).map_err(io::Error::other)?;
    Ok((
        summary_csv::flows_csv(&value)?,
        summary_csv::links_csv(&value)?,
    ))
}

/// Writes summary.json, summary.csv, links_summary.csv, timeseries.csv and links.csv
/// into `dir` (created if missing) and returns the paths written.
///
/// It first removes every file of [`OUTPUT_FILES`] (not the logs: see [`LOG_FILES`]) left in `dir` by an earlier run
/// (see [`remove_previous_outputs`]), so write plots and a manifest after it, not
/// before.
pub fn write_outputs(result: &RunResult, dir: &Path) -> io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    remove_previous_results(dir)?;
    let (flows, links) = summary_csvs(&result.summary)?;
    let files: [(&str, Vec<u8>); 3] = [
        (SUMMARY_JSON, summary_json(&result.summary)?),
        (SUMMARY_CSV, flows),
        (LINKS_SUMMARY_CSV, links),
    ];
    let mut written = Vec::with_capacity(files.len() + 2);
    for (name, bytes) in files {
        let path = dir.join(name);
        write_atomic(&path, bytes)?;
        written.push(path);
    }
    let timeseries = dir.join(TIMESERIES_CSV);
    write_csv(&timeseries, &result.samples)?;
    written.push(timeseries);
    let links = dir.join(LINKS_CSV);
    write_csv(&links, &result.link_samples)?;
    written.push(links);
    Ok(written)
}
