//! manifest.json for `scream sim`: the facts only the process knows — the build (from
//! build.rs), the command line, the start time — joined to the run's.

use std::path::{Path, PathBuf};

use scream_sim::manifest::{Host, Manifest, Toolkit};
use scream_sim::scenario::load::Override;
use scream_sim::{RunResult, Scenario};

/// This binary's build: version, and the git commit and dirty flag build.rs found.
pub(crate) fn toolkit() -> Toolkit {
    Toolkit {
        version: env!("CARGO_PKG_VERSION").to_owned(),
        commit: env!("SCREAM_GIT_COMMIT").to_owned(),
        dirty: match env!("SCREAM_GIT_DIRTY") {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        },
    }
}

/// Seconds since the Unix epoch; 0 on a clock set before 1970.
pub(crate) fn now_unix_s() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// What `scream sim` ran, for [`write`].
#[derive(Debug)]
pub(crate) struct Run<'a> {
    /// The scenario after overrides.
    pub(crate) scenario: &'a Scenario,
    /// The overrides as given.
    pub(crate) overrides: &'a [Override],
    /// Its result (seed, durations).
    pub(crate) result: &'a RunResult,
    /// When it started, s since the Unix epoch.
    pub(crate) started_unix_s: f64,
    /// The files written so far.
    pub(crate) files: &'a [PathBuf],
}

/// Writes manifest.json into `dir`; call it after every other file is written.
pub(crate) fn write(run: &Run<'_>, dir: &Path) -> Result<PathBuf, String> {
    let fail = |e: std::io::Error| format!("cannot write manifest.json to {}: {e}", dir.display());
    let summary = &run.result.summary;
    let manifest = Manifest {
        toolkit: toolkit(),
        scenario: run.scenario.name.clone(),
        seed: summary.seed,
        command_line: std::env::args().collect(),
        overrides: run.overrides.iter().map(|o| o.raw().to_owned()).collect(),
        host: Host::current(),
        started_unix_s: run.started_unix_s,
        wall_time_s: summary.wall_time_s,
        simulated_duration_s: summary.duration_s,
        files: Manifest::file_names(run.files),
        scenario_toml: Manifest::scenario_text(run.scenario).map_err(fail)?,
    };
    scream_sim::manifest::write_manifest(&manifest, dir).map_err(fail)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toolkit_has_the_crate_version_and_a_commit_or_unknown() {
        let t = toolkit();
        assert_eq!(t.version, env!("CARGO_PKG_VERSION"));
        let hex = t.commit.len() == 40 && t.commit.bytes().all(|b| b.is_ascii_hexdigit());
        assert!(hex || t.commit == "unknown", "{}", t.commit);
        if t.commit == "unknown" {
            assert_eq!(t.dirty, None);
        }
    }
}
