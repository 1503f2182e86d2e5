//! manifest.json: what produced an output folder — which build of the toolkit, which
//! scenario after overrides, which seed and command line, on which host, in how long,
//! and which files. With it a result can be traced back and rerun years later.
//!
//! The simulator reads no clock and knows nothing of the process that drives it, so the
//! caller supplies the run facts ([`Toolkit`], the command line, the wall time); only
//! [`Host::current`] is read here. docs/outputs.md documents every key.

use std::io;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::Scenario;
use crate::output::MANIFEST_JSON;
use crate::output::folder::RunDefinition;

/// Which build of the toolkit ran.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Toolkit {
    /// Crate version (`CARGO_PKG_VERSION`).
    pub version: String,
    /// Git commit the binary was built from, or `unknown` outside a git checkout.
    pub commit: String,
    /// Whether tracked files differed from `commit` when it was built; `None` (`null`)
    /// when unknown.
    pub dirty: Option<bool>,
}

impl Toolkit {
    /// The build from the facts a build script found: `dirty` is `true`, `false` or
    /// anything else for unknown. Use [`crate::toolkit_of_this_build!`], which reads them
    /// from the calling crate's build environment.
    pub fn from_build(version: &str, commit: &str, dirty: &str) -> Self {
        Toolkit {
            version: version.to_owned(),
            commit: commit.to_owned(),
            dirty: match dirty {
                "true" => Some(true),
                "false" => Some(false),
                _ => None,
            },
        }
    }
}

/// The [`Toolkit`] of the crate that calls it, from the variables its build script
/// (crates/scream-cli/build.rs, shared by every front end) sets: `SCREAM_GIT_COMMIT` and
/// `SCREAM_GIT_DIRTY`. A macro, so that `env!` reads the caller's build, not this crate's.
#[macro_export]
macro_rules! toolkit_of_this_build {
    () => {
        $crate::manifest::Toolkit::from_build(
            env!("CARGO_PKG_VERSION"),
            env!("SCREAM_GIT_COMMIT"),
            env!("SCREAM_GIT_DIRTY"),
        )
    };
}

/// The machine the run happened on: what a wall time can be compared against.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Host {
    /// Parallelism the OS grants the process (`std::thread::available_parallelism`).
    pub cpus: usize,
    /// `std::env::consts::OS` (`linux`, `macos`, `windows`).
    pub os: &'static str,
    /// `std::env::consts::ARCH` (`x86_64`, `aarch64`).
    pub arch: &'static str,
}

impl Host {
    /// This process's host.
    pub fn current() -> Self {
        Host {
            // 0 when the OS cannot say: a visible unknown rather than a guess.
            cpus: std::thread::available_parallelism().map_or(0, usize::from),
            os: std::env::consts::OS,
            arch: std::env::consts::ARCH,
        }
    }
}

/// The content of manifest.json. The field order is the key order in the file; the
/// scenario text comes last because it is long.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Manifest {
    /// The build that ran.
    pub toolkit: Toolkit,
    /// Scenario name.
    pub scenario: String,
    /// Master seed the run used (the scenario's or the one given on the command line).
    pub seed: u64,
    /// The process's arguments, program name first.
    pub command_line: Vec<String>,
    /// The `--set KEY=VALUE` overrides, as given, in order.
    pub overrides: Vec<String>,
    /// The host.
    pub host: Host,
    /// When the run started, seconds since the Unix epoch (UTC).
    pub started_unix_s: f64,
    /// Wall-clock time of the simulation, s (as summary.json's `wall_time_s`).
    pub wall_time_s: f64,
    /// Simulated time, s.
    pub simulated_duration_s: f64,
    /// Files of the output folder this run wrote, manifest.json included, by name.
    pub files: Vec<String>,
    /// The scenario as run — after overrides — as a scenario file that loads back to
    /// the same scenario.
    pub scenario_toml: String,
}

impl Manifest {
    /// The resolved scenario as TOML text, for [`Manifest::scenario_toml`].
    pub fn scenario_text(scenario: &Scenario) -> io::Result<String> {
        crate::scenario::to_toml(scenario).map_err(io::Error::other)
    }

    /// Names of `paths` relative to their folder, for [`Manifest::files`].
    pub fn file_names(paths: &[PathBuf]) -> Vec<String> {
        paths
            .iter()
            .filter_map(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .collect()
    }
}

/// manifest.json text (pretty, newline-terminated).
pub fn manifest_json(manifest: &Manifest) -> io::Result<Vec<u8>> {
    let mut out = serde_json::to_vec_pretty(manifest).map_err(io::Error::other)?;
    out.push(b'\n');
    Ok(out)
}

/// Writes `manifest` as manifest.json into `dir`, adding manifest.json itself to its
/// file list; returns the path written. Write it last, once the other files exist.
pub fn write_manifest(manifest: &Manifest, dir: &Path) -> io::Result<PathBuf> {
    let mut manifest = manifest.clone();
    if !manifest.files.iter().any(|f| f == MANIFEST_JSON) {
        manifest.files.push(MANIFEST_JSON.to_owned());
    }
    let path = dir.join(MANIFEST_JSON);
    crate::output::write_atomic(&path, manifest_json(&manifest)?)?;
    Ok(path)
}

/// manifest.json of a folder of many runs (`scream suite`, `scream study`): who wrote
/// it, and what defines the matrix its cells belong to, which the next call compares
/// ([`crate::output::folder::claim`]) before it reuses or replaces any cell.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MatrixManifest {
    /// The build that ran.
    pub toolkit: Toolkit,
    /// The process's arguments, program name first.
    pub command_line: Vec<String>,
    /// The host.
    pub host: Host,
    /// When the call started, seconds since the Unix epoch (UTC).
    pub started_unix_s: f64,
    /// What defines the matrix, each key at the top level of the file.
    #[serde(flatten)]
    pub definition: RunDefinition,
}

/// Writes `manifest` as manifest.json into `dir` (created if missing); returns the
/// path written. Write it before the cells run, so that a call cut short leaves a
/// folder the same call can resume.
pub fn write_matrix_manifest(manifest: &MatrixManifest, dir: &Path) -> io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let mut text = serde_json::to_vec_pretty(manifest).map_err(io::Error::other)?;
    text.push(b'\n');
    let path = dir.join(MANIFEST_JSON);
    crate::output::write_atomic(&path, text)?;
    Ok(path)
}
