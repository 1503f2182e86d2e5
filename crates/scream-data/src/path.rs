//! The search path of data folders, and the one function that finds a data file.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::catalogue::Dataset;

/// Environment variable naming the data folders to search, separated like `PATH`. When
/// set, it replaces the default folders (so that a run can be made to see only what a
/// fresh clone has: `SCREAM_DATA_PATH=data`).
pub const DATA_PATH_ENV: &str = "SCREAM_DATA_PATH";

/// How a scenario or sweep names a data file: `data:links/lumos5g-5g_trace_54_walking.tsv`.
/// The reference, not the path it resolves to, is what manifests and sweep fingerprints
/// record, so that a run means the same on every machine.
pub const REFERENCE_PREFIX: &str = "data:";

/// This crate's folder in the repository it was built from (`<repo>/crates/scream-data`).
/// Fixed at compile time, so that the command finds the repository's data from any
/// working directory (and an installed binary finds the clone it was installed from).
const CRATE_DIR: &str = env!("CARGO_MANIFEST_DIR");

/// The ordered data folders to search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataPath {
    dirs: Vec<PathBuf>,
}

impl DataPath {
    /// `SCREAM_DATA_PATH` when set (and not empty), else the repository's `data/` and
    /// then `../shared/data` beside the repository.
    pub fn from_env() -> Self {
        match std::env::var_os(DATA_PATH_ENV) {
            Some(v) if !v.is_empty() => Self {
                dirs: std::env::split_paths(&v).collect(),
            },
            _ => Self::defaults(),
        }
    }

    /// The repository's `data/`, then `../shared/data` beside the repository.
    pub fn defaults() -> Self {
        let crate_dir = Path::new(CRATE_DIR);
        let repo = crate_dir.ancestors().nth(2).unwrap_or(crate_dir);
        let beside = repo.parent().unwrap_or(repo);
        Self {
            dirs: vec![repo.join("data"), beside.join("shared/data")],
        }
    }

    /// These folders, in this order.
    pub fn new(dirs: Vec<PathBuf>) -> Self {
        Self { dirs }
    }

    /// The same path with `dir` searched first (a command's `--data DIR`).
    #[must_use]
    pub fn with_first(mut self, dir: PathBuf) -> Self {
        self.dirs.insert(0, dir);
        self
    }

    /// The folders, in search order.
    pub fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }

    /// The folder `scream data fetch` writes to: the first of the search path.
    pub fn fetch_dir(&self) -> Option<&Path> {
        self.dirs.first().map(PathBuf::as_path)
    }

    /// The first file named `name` (relative, `/`-separated) in the search path.
    pub fn find(&self, name: &str) -> Result<PathBuf, Missing> {
        let name = name.strip_prefix(REFERENCE_PREFIX).unwrap_or(name);
        let relative = Path::new(name);
        let escapes = relative.is_absolute()
            || relative
                .components()
                .any(|c| !matches!(c, std::path::Component::Normal(_)));
        if !escapes {
            for dir in &self.dirs {
                let candidate = dir.join(relative);
                if candidate.is_file() {
                    return Ok(candidate);
                }
            }
        }
        Err(Missing {
            name: name.to_owned(),
            searched: self.dirs.clone(),
        })
    }
}

/// [`DataPath::find`] on the path of the environment ([`DataPath::from_env`]).
pub fn find(name: &str) -> Result<PathBuf, Missing> {
    DataPath::from_env().find(name)
}

/// A data file that none of the searched folders holds.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("data file `{name}` is not here (searched {}); {}", display_dirs(.searched), self.remedy())]
pub struct Missing {
    /// The name looked for (relative to a data folder).
    pub name: String,
    /// The folders searched, in order.
    pub searched: Vec<PathBuf>,
}

impl Missing {
    /// The dataset the file belongs to, if the catalogue knows it.
    pub fn dataset(&self) -> Option<&'static Dataset> {
        crate::catalogue::file(&self.name).map(|(d, _)| d)
    }

    /// The command that gets the file, when it is one the toolkit can fetch.
    pub fn fetch_command(&self) -> Option<String> {
        self.dataset()
            .filter(|d| !d.shipped)
            .map(|d| format!("scream data fetch {}", d.name))
    }

    /// What to do about it, in one clause.
    pub fn remedy(&self) -> String {
        match (self.dataset(), self.fetch_command()) {
            (_, Some(cmd)) => format!("get it with `{cmd}`"),
            (Some(_), None) => "it ships in the repository's data/ folder: restore it \
                                (`git checkout -- data`)"
                .to_owned(),
            (None, None) => format!(
                "it is no file the toolkit knows (`scream data list` shows them); put it \
                 under one of these folders or set {DATA_PATH_ENV}"
            ),
        }
    }
}

fn display_dirs(dirs: &[PathBuf]) -> String {
    if dirs.is_empty() {
        return "no folder".to_owned();
    }
    dirs.iter()
        .map(|d| d.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The text of the data file `name` ([`find`] on the environment's path).
pub fn read_to_string(name: &str) -> Result<String, ReadError> {
    let path = find(name)?;
    std::fs::read_to_string(&path).map_err(|e| ReadError::Io {
        path: path.display().to_string(),
        reason: e.to_string(),
    })
}

/// A data file that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    /// No data folder holds it.
    #[error(transparent)]
    Missing(#[from] Missing),
    /// It is there but could not be read.
    #[error("{path}: {reason}")]
    Io {
        /// The file.
        path: String,
        /// The OS error.
        reason: String,
    },
}

/// For tests that need a data file a fresh clone may lack: the file, or `None` after a
/// line on stderr that names the test and the command that gets the file.
///
/// The line is written to the process's stderr directly rather than with `eprintln!`,
/// which the test harness captures and shows only for failing tests: a skip must be
/// visible in a passing run.
pub fn for_test(name: &str) -> Option<PathBuf> {
    find_or_say(name, "")
}

/// [`for_test`] for a test that runs on without the file, skipping only `part` of it
/// (`"the recorded trace of lte-synthetic"`): the line names that part.
pub fn for_test_part(name: &str, part: &str) -> Option<PathBuf> {
    find_or_say(name, &format!("{part} in "))
}

fn find_or_say(name: &str, part: &str) -> Option<PathBuf> {
    match find(name) {
        Ok(path) => Some(path),
        Err(missing) => {
            let thread = std::thread::current();
            let test = thread.name().unwrap_or("a test");
            let line = format!("skipped {part}{test}: {missing}\n");
            let _ = std::io::stderr().write_all(line.as_bytes());
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_folder_that_holds_the_file_wins() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        std::fs::create_dir(b.path().join("links")).unwrap();
        std::fs::write(b.path().join("links/x.tsv"), "1\t2\n").unwrap();
        let path = DataPath::new(vec![a.path().into(), b.path().into()]);
        assert_eq!(
            path.find("links/x.tsv").unwrap(),
            b.path().join("links/x.tsv")
        );
        std::fs::create_dir(a.path().join("links")).unwrap();
        std::fs::write(a.path().join("links/x.tsv"), "1\t3\n").unwrap();
        assert_eq!(
            path.find("data:links/x.tsv").unwrap(),
            a.path().join("links/x.tsv")
        );
    }

    #[test]
    fn a_missing_fetchable_file_names_the_fetch_command() {
        let empty = tempfile::tempdir().unwrap();
        let e = DataPath::new(vec![empty.path().into()])
            .find("links/lumos5g-5g_trace_54_walking.tsv")
            .unwrap_err();
        let text = e.to_string();
        assert!(text.contains("scream data fetch lumos5g"), "{text}");
        assert!(text.contains(&empty.path().display().to_string()), "{text}");
    }

    #[test]
    fn a_missing_shipped_file_says_it_ships() {
        let e = DataPath::new(vec![])
            .find("video/trace_key.txt")
            .unwrap_err();
        assert_eq!(e.fetch_command(), None);
        assert!(e.to_string().contains("ships in the repository"), "{e}");
    }

    #[test]
    fn names_that_climb_out_of_the_data_folder_are_not_found() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("inner")).unwrap();
        std::fs::write(dir.path().join("secret"), "x").unwrap();
        let path = DataPath::new(vec![dir.path().join("inner")]);
        assert!(path.find("../secret").is_err());
        assert!(
            path.find(&dir.path().join("secret").display().to_string())
                .is_err()
        );
    }

    #[test]
    fn the_repository_ships_its_own_data_folder() {
        let shipped = DataPath::defaults().dirs()[0].clone();
        assert!(shipped.join("README.md").is_file(), "{}", shipped.display());
    }
}
