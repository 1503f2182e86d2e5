//! The files of a real run: the simulator's timeseries.csv and links.csv rows, a
//! summary.json of the run's own shape, and the simulator's plots.

use std::path::{Path, PathBuf};

use scream_sim::Sample;
use scream_sim::metrics::LinkSample;
use scream_sim::output::{csv_text, timeseries_csv};
use scream_sim::plot::{PlotInput, write_plots};

/// What a real run writes.
pub(super) struct RunFiles<'a> {
    /// Shown in plot titles.
    pub(super) title: &'a str,
    /// timeseries.csv rows (none: no file, no plots).
    pub(super) samples: &'a [Sample],
    /// links.csv rows (none: no file).
    pub(super) link_samples: &'a [LinkSample],
    /// summary.json.
    pub(super) summary: serde_json::Value,
    /// Highest target bitrate of the stream, Mbit/s, drawn in the overview.
    pub(super) max_bitrate_mbps: Option<f64>,
    /// Skip the PNG/SVG plots.
    pub(super) no_plots: bool,
}

fn write(path: PathBuf, bytes: &[u8], written: &mut Vec<PathBuf>) -> Result<(), String> {
    std::fs::write(&path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    written.push(path);
    Ok(())
}

/// Writes the run's files into `dir` (created if missing); returns them.
pub(super) fn write_run(dir: &Path, run: &RunFiles<'_>) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut written = Vec::new();
    let json = serde_json::to_vec_pretty(&run.summary).map_err(|e| e.to_string())?;
    write(dir.join("summary.json"), &json, &mut written)?;
    if !run.samples.is_empty() {
        let csv = timeseries_csv(run.samples).map_err(|e| e.to_string())?;
        write(dir.join("timeseries.csv"), csv.as_bytes(), &mut written)?;
    }
    if !run.link_samples.is_empty() {
        let csv = csv_text(run.link_samples).map_err(|e| e.to_string())?;
        write(dir.join("links.csv"), csv.as_bytes(), &mut written)?;
    }
    if !run.samples.is_empty() && !run.no_plots {
        let max = run.max_bitrate_mbps.map(|m| vec![m]).unwrap_or_default();
        let footer = format!(
            "real run: {} · scream {}",
            run.title,
            env!("CARGO_PKG_VERSION")
        );
        let input = PlotInput {
            scenario_name: run.title,
            samples: run.samples,
            footer: &footer,
            max_bitrate_mbps: &max,
            cdfs: &[],
        };
        written.extend(write_plots(&input, dir).map_err(|e| e.to_string())?);
    }
    Ok(written)
}
