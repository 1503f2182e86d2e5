//! What the package's writers share: the wall clock of a call, and claiming the folder
//! of a set of runs (a seed set, a comparison) with its manifest.json, by the rule of
//! every folder the toolkit writes (`scream_sim::output::folder`).

use std::path::{Path, PathBuf};
use std::time::Instant;

use scream_lab::sweep::Clock;
use scream_sim::manifest::{Host, MatrixManifest};
use scream_sim::output::folder::{self, FolderError, Requested, RunDefinition};

use crate::errors::{Kind, error};
use pyo3::PyErr;

/// Unix time at a start plus a monotonic elapsed time: run times never go backwards
/// when the system clock is set.
pub(crate) struct WallClock {
    unix_at_start: f64,
    started: Instant,
}

impl WallClock {
    pub(crate) fn new() -> Self {
        Self {
            unix_at_start: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0.0, |d| d.as_secs_f64()),
            started: Instant::now(),
        }
    }
}

impl Clock for WallClock {
    fn now_unix_s(&self) -> f64 {
        self.unix_at_start + self.started.elapsed().as_secs_f64()
    }
}

/// The build of this module, for manifest.json.
pub(crate) fn toolkit() -> scream_sim::manifest::Toolkit {
    scream_sim::toolkit_of_this_build!()
}

/// Claims `dir` for the set `definition` describes (a folder given by the caller:
/// another set there is an error unless `force`) and writes its manifest.json at
/// once, recording `call` as the command line. Returns the manifest's path.
pub(crate) fn claim_set(
    dir: &Path,
    definition: RunDefinition,
    force: bool,
    call: &str,
) -> Result<PathBuf, PyErr> {
    folder::place(Requested::Given(dir), &definition, force)
        .map_err(|e| error(Kind::Output, folder_message(&e)))?;
    let manifest = MatrixManifest {
        toolkit: toolkit(),
        command_line: vec!["python".to_owned(), call.to_owned()],
        host: Host::current(),
        started_unix_s: WallClock::new().now_unix_s(),
        definition,
    };
    scream_sim::manifest::write_matrix_manifest(&manifest, dir).map_err(|e| {
        error(
            Kind::Output,
            format!("cannot write manifest.json to {}: {e}", dir.display()),
        )
    })
}

/// A refused folder in the words of this API (`force=True`, not `--force`).
pub(crate) fn folder_message(e: &FolderError) -> String {
    match e {
        FolderError::OtherRun { dir, difference } => format!(
            "{} holds another run ({difference}); its results would be overwritten: pass \
             force=True to replace them, or write this run to another folder",
            dir.display()
        ),
        FolderError::Foreign { dir, why } => format!(
            "{} {why}, so it may hold files that are not a run's: pass force=True to write \
             this run there anyway (only the files a run writes are replaced)",
            dir.display()
        ),
        FolderError::Io { .. } => e.to_string(),
    }
}
