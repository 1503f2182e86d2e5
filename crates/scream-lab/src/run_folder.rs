//! One simulation written as a folder: the simulator's files, the plots and
//! manifest.json, in that order. `scream sim` and the Python package's `Run.write` both
//! write through [`write_run`], so a folder is the same whichever front end made it.
//!
//! Choosing the folder ([`scream_sim::output::folder::place`]) and clearing what an
//! earlier run left in it ([`scream_sim::output::remove_previous_outputs`]) come before,
//! because `scream sim` opens its logs in the folder while the run is still going.

use std::path::{Path, PathBuf};

use scream_sim::manifest::{Host, Manifest, Toolkit};
use scream_sim::{RunResult, Scenario};

/// A finished run and the facts only its front end knows.
#[derive(Debug)]
pub struct RunRecord<'a> {
    /// The scenario after overrides.
    pub scenario: &'a Scenario,
    /// The overrides as given (`key=value`), in order.
    pub overrides: &'a [String],
    /// What the run produced; its summary carries the wall time.
    pub result: &'a RunResult,
    /// The build that ran.
    pub toolkit: Toolkit,
    /// How the run was asked for: the process's arguments, or the call that made it.
    pub command_line: Vec<String>,
    /// When it started, s since the Unix epoch.
    pub started_unix_s: f64,
}

/// What to write besides the simulator's files.
#[derive(Debug, Clone, Default)]
pub struct WriteOptions {
    /// Skip the PNG and SVG figures.
    pub no_plots: bool,
    /// Files the front end already wrote into the folder (logs), for the manifest's list.
    pub extra_files: Vec<PathBuf>,
}

/// Writes the outputs, the figures (unless [`WriteOptions::no_plots`]) and, last,
/// manifest.json into `dir`; returns every file written, manifest.json last.
pub fn write_run(
    record: &RunRecord<'_>,
    dir: &Path,
    options: &WriteOptions,
) -> Result<Vec<PathBuf>, String> {
    let result = record.result;
    let mut files = scream_sim::write_outputs(result, dir)
        .map_err(|e| format!("cannot write outputs to {}: {e}", dir.display()))?;
    if !options.no_plots {
        let commit: String = record.toolkit.commit.chars().take(12).collect();
        let footer = format!(
            "scenario {}  ·  seed {}  ·  scream {} ({commit})",
            record.scenario.name, result.summary.seed, record.toolkit.version
        );
        let max_bitrates = record.scenario.stream_max_bitrates();
        let input = scream_plot::PlotInput {
            scenario_name: &result.scenario_name,
            samples: &result.samples,
            footer: &footer,
            max_bitrate_mbps: &max_bitrates,
            cdfs: &result.delay_cdfs,
        };
        files.extend(scream_plot::write_plots(&input, dir).map_err(|e| e.to_string())?);
    }
    files.extend(options.extra_files.iter().cloned());
    let fail = |e: std::io::Error| format!("cannot write manifest.json to {}: {e}", dir.display());
    let manifest = manifest(record, &files).map_err(fail)?;
    files.push(scream_sim::manifest::write_manifest(&manifest, dir).map_err(fail)?);
    Ok(files)
}

/// manifest.json of `record` listing `files` (manifest.json is added when written).
pub fn manifest(record: &RunRecord<'_>, files: &[PathBuf]) -> std::io::Result<Manifest> {
    let summary = &record.result.summary;
    Ok(Manifest {
        toolkit: record.toolkit.clone(),
        scenario: record.scenario.name.clone(),
        seed: summary.seed,
        command_line: record.command_line.clone(),
        overrides: record.overrides.to_vec(),
        host: Host::current(),
        started_unix_s: record.started_unix_s,
        wall_time_s: summary.wall_time_s,
        simulated_duration_s: summary.duration_s,
        files: Manifest::file_names(files),
        scenario_toml: Manifest::scenario_text(record.scenario)?,
    })
}
