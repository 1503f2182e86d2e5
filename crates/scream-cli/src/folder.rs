//! The output folder of the commands that write runs (`scream sim`, `scream suite`,
//! `scream study`): its default name, and the choice that keeps one run from
//! overwriting another (`scream_sim::output::folder` holds the rule; docs/outputs.md
//! states it).

use std::path::{Path, PathBuf};

use scream_sim::manifest::{Host, MatrixManifest};
use scream_sim::output::folder::{self, Claim, Placed, Requested, RunDefinition};

/// `--force`, shared by the commands that write a run's folder.
#[derive(Debug, Clone, Copy, clap::Args)]
pub(crate) struct ForceArg {
    /// Write into the output folder even if it holds another run, or files but no
    /// manifest.json of a run (only the files a run writes are replaced).
    #[arg(long)]
    pub(crate) force: bool,
}

/// The default output folder of `scream sim SCENARIO`: `out/<file stem>` for a file,
/// `out/<name>` for a built-in.
///
/// A file's run is named after the file, not after the `name` key inside it: a file
/// made with `scream scenarios show default > mine.toml` keeps `name = "default"`, and
/// its runs belong in `out/mine`, beside the built-in's `out/default`, not in it.
pub(crate) fn default_out_dir(scenario: &str) -> PathBuf {
    let name = if scream_sim::scenario::load::names_a_file(scenario) {
        Path::new(scenario)
            .file_stem()
            .map_or_else(|| scenario.to_owned(), |s| s.to_string_lossy().into_owned())
    } else {
        scenario.to_owned()
    };
    Path::new("out").join(name)
}

/// Picks the folder of the run `definition` describes: `given` (`--out`) if any, else
/// `default` or, when that holds another run, a numbered sibling
/// (`scream_sim::output::folder::place`). What `--force` replaced is said on stderr;
/// where the run went instead of `default` is the returned note, for the command's
/// summary.
pub(crate) fn place(
    given: Option<&Path>,
    default: &Path,
    definition: &RunDefinition,
    force: ForceArg,
) -> Result<Placed, String> {
    let requested = given.map_or(Requested::Default(default), Requested::Given);
    let placed = folder::place(requested, definition, force.force).map_err(|e| e.to_string())?;
    if let Claim::Forced(what) = &placed.claim {
        crate::warn(&format!(
            "{} held {what}; --force replaces it",
            placed.dir.display()
        ));
    }
    Ok(placed)
}

/// As [`place`] for a matrix of runs (suite, study), and writes its manifest.json at
/// once, so that a call cut short leaves a folder the same call resumes.
pub(crate) fn place_matrix(
    given: Option<&Path>,
    default: &Path,
    definition: RunDefinition,
    force: ForceArg,
) -> Result<Placed, String> {
    let placed = place(given, default, &definition, force)?;
    let manifest = MatrixManifest {
        toolkit: crate::manifest::toolkit(),
        command_line: std::env::args().collect(),
        host: Host::current(),
        started_unix_s: crate::manifest::now_unix_s(),
        definition,
    };
    scream_sim::manifest::write_matrix_manifest(&manifest, &placed.dir).map_err(|e| {
        format!(
            "cannot write manifest.json to {}: {e}",
            placed.dir.display()
        )
    })?;
    Ok(placed)
}

/// The line a command's summary ends with when the run went elsewhere than the
/// default folder (after the line naming the folder); empty otherwise.
pub(crate) fn note_line(placed: &Placed) -> String {
    placed
        .note()
        .map_or_else(String::new, |note| format!("note: {note}\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_runs_into_its_stem_and_a_builtin_into_its_name() {
        assert_eq!(default_out_dir("default"), Path::new("out/default"));
        assert_eq!(default_out_dir("dir/mine.toml"), Path::new("out/mine"));
        assert_eq!(default_out_dir("mine.toml"), Path::new("out/mine"));
    }
}
