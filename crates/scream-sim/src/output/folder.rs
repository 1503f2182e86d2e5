//! Which folder a run writes into: the one rule every command that writes a run's
//! folder (`scream sim`, `scream suite`, `scream study`) follows.
//!
//! A folder is named after what ran (`out/<file stem>`, `out/<built-in name>`,
//! `out/suite-rmcat`), so two different runs — another seed, another `--set`, an edited
//! file, two files of one name — would meet in one folder, and the second would clean
//! away the first's results without a word. So a folder's manifest.json records what
//! defines its run (a [`RunDefinition`]: for one simulation the scenario as run, the
//! seed and the overrides; never the time, host or build), and [`claim`] lets a run
//! write only into a folder that is empty, or holds the same run (a rerun refreshes
//! its own folder, as a user re-running a command expects), or when the user said
//! `--force`.
//!
//! When the folder is refused, [`place`] decides what happens, by who chose it:
//! - the default folder: the run goes to the first of `out/x-2`, `out/x-3`, ... that is
//!   free or holds this same run, and the command says so. A newcomer who runs a
//!   built-in and then one of the variants the docs suggest (`--set ...`), or edits a
//!   file and runs it again, is never stopped and never loses a result, gets the two
//!   runs side by side to compare, and a rerun of either lands in its own folder again.
//! - a folder given with `--out`: an error naming `--force` and `--out`. Whoever named
//!   the folder (a script that reads it next, most often) must get that folder or a
//!   failure, never results written somewhere else.
//!
//! A folder with files but no manifest.json of ours (someone's data, a run killed
//! before it finished) counts as held by another run: never written into without
//! `--force`, and even then only the files a run writes are replaced
//! ([`super::remove_previous_outputs`]).

use std::io;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value};

use super::MANIFEST_JSON;
use crate::Scenario;

/// What defines a run: the manifest.json keys (and their values) that must be equal for
/// a run to reuse the folder of another. Keys keep the order they were added in.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(transparent)]
pub struct RunDefinition(Map<String, Value>);

impl RunDefinition {
    /// An empty definition, for [`RunDefinition::with`].
    pub fn new() -> Self {
        Self::default()
    }

    /// The definition of one simulation, under the keys [`crate::manifest::Manifest`]
    /// writes them: the scenario after overrides as TOML (`scenario_toml`), the seed
    /// and the overrides as given. Two runs equal in these give equal results.
    pub fn of_run(scenario: &Scenario, seed: u64, overrides: &[String]) -> io::Result<Self> {
        let text = crate::manifest::Manifest::scenario_text(scenario)?;
        Ok(Self::new()
            .with("seed", seed)
            .with("overrides", overrides)
            .with("scenario_toml", text))
    }

    /// The definition with `key` set to `value`.
    pub fn with(mut self, key: &str, value: impl Serialize) -> Self {
        // Serialising numbers, strings and lists of them cannot fail; a value that
        // could would be recorded as null and still be compared.
        let value = serde_json::to_value(value).unwrap_or(Value::Null);
        self.0.insert(key.to_owned(), value);
        self
    }

    /// How `recorded` (a manifest.json as JSON) differs from this definition: the
    /// first key that differs, in the order the keys were added (put the short ones
    /// that explain the others first: overrides change the scenario text too); `None`
    /// when every key is equal.
    fn difference(&self, recorded: &Map<String, Value>) -> Option<String> {
        self.0
            .iter()
            .find_map(|(key, now)| match recorded.get(key) {
                Some(there) if there == now => None,
                Some(there) => Some(describe(key, there, now)),
                None => Some(format!("of another kind: its manifest has no {key}")),
            })
    }
}

/// Longest value quoted in a difference, in characters.
const QUOTE_CHARS: usize = 60;

/// `key` as it differs: a multi-line text by its first differing line, any other value
/// as compact JSON.
fn describe(key: &str, there: &Value, now: &Value) -> String {
    let quote = |s: &str| {
        let mut q: String = s.trim().chars().take(QUOTE_CHARS).collect();
        if s.trim().chars().count() > QUOTE_CHARS {
            q.push('…');
        }
        format!("`{q}`")
    };
    if let (Some(a), Some(b)) = (there.as_str(), now.as_str()) {
        if a.contains('\n') || b.contains('\n') {
            let (mut la, mut lb) = (a.lines(), b.lines());
            for line in 1.. {
                match (la.next(), lb.next()) {
                    (Some(x), Some(y)) if x == y => {}
                    (x, y) => {
                        let side = |l: Option<&str>| l.map_or_else(|| "nothing".to_owned(), quote);
                        return format!(
                            "{key} differs at line {line}: {} there, {} now",
                            side(x),
                            side(y)
                        );
                    }
                }
            }
        }
    }
    format!(
        "{key} {} there, {} now",
        quote(&there.to_string()),
        quote(&now.to_string())
    )
}

/// What [`claim`] found in the folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    /// Missing or empty: nothing to keep.
    Empty,
    /// It holds the same run (a rerun): its outputs are replaced.
    SameRun,
    /// It held something else and `force` let the run replace it; what it held.
    Forced(String),
}

/// Why a run may not write into a folder.
#[derive(Debug, thiserror::Error)]
pub enum FolderError {
    /// Its manifest.json records a different run.
    #[error(
        "{} holds another run ({difference}); its results would be overwritten: pass \
         --force to replace them, or --out DIR to write this run elsewhere",
        dir.display()
    )]
    OtherRun {
        /// The folder.
        dir: PathBuf,
        /// How the recorded run differs from this one.
        difference: String,
    },
    /// It has files but no manifest.json of a run.
    #[error(
        "{} {why}, so it may hold files that are not a run's: pass --force to write this \
         run there anyway (only the files a run writes are replaced), or --out DIR to \
         write it elsewhere",
        dir.display()
    )]
    Foreign {
        /// The folder.
        dir: PathBuf,
        /// What marks it as not ours.
        why: String,
    },
    /// The folder or its manifest could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// What could not be read.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
}

/// Decides whether the run `definition` describes may write into `dir`: yes when `dir`
/// is missing or empty, or its manifest.json records the same definition, or `force`;
/// else the reason why not. It reads and changes nothing else; the caller cleans the
/// folder ([`super::remove_previous_outputs`]) once it has the claim.
pub fn claim(dir: &Path, definition: &RunDefinition, force: bool) -> Result<Claim, FolderError> {
    let io_error = |path: &Path| {
        let path = path.to_path_buf();
        move |source| FolderError::Io { path, source }
    };
    let mut entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Claim::Empty),
        Err(e) => return Err(io_error(dir)(e)),
    };
    if entries.next().transpose().map_err(io_error(dir))?.is_none() {
        return Ok(Claim::Empty);
    }
    let manifest = dir.join(MANIFEST_JSON);
    let recorded = match std::fs::read_to_string(&manifest) {
        Ok(text) => serde_json::from_str::<Map<String, Value>>(&text)
            .map_err(|e| format!("has a {MANIFEST_JSON} that is not a run's manifest ({e})")),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            Err(format!("has files but no {MANIFEST_JSON}"))
        }
        Err(e) => return Err(io_error(&manifest)(e)),
    };
    let dir = dir.to_path_buf();
    let refusal = match recorded {
        Ok(recorded) => match definition.difference(&recorded) {
            None => return Ok(Claim::SameRun),
            Some(difference) => FolderError::OtherRun { dir, difference },
        },
        Err(why) => FolderError::Foreign { dir, why },
    };
    match refusal {
        FolderError::OtherRun { difference, .. } if force => {
            Ok(Claim::Forced(format!("another run ({difference})")))
        }
        FolderError::Foreign { why, .. } if force => {
            Ok(Claim::Forced(format!("a folder that {why}")))
        }
        refusal => Err(refusal),
    }
}

/// Who chose the folder a run is to write into.
#[derive(Debug, Clone, Copy)]
pub enum Requested<'a> {
    /// The command's default: another run there moves this one to a numbered sibling.
    Default(&'a Path),
    /// The user's (`--out`): another run there is an error.
    Given(&'a Path),
}

/// Where [`place`] put a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placed {
    /// The folder to write into.
    pub dir: PathBuf,
    /// What it found there.
    pub claim: Claim,
    /// The folders passed over on the way (the default one and any numbered sibling
    /// before `dir`), each with what it holds as a phrase (`holds another run (...)`).
    pub passed_over: Vec<(PathBuf, String)>,
}

impl Placed {
    /// One line for the command's summary when the run did not go where it was
    /// asked to; `None` when it did.
    pub fn note(&self) -> Option<String> {
        let (first, holds) = self.passed_over.first()?;
        Some(format!(
            "{} {holds}: this run went to {} instead (--force overwrites {}; --out DIR \
             picks the folder)",
            first.display(),
            self.dir.display(),
            first.display()
        ))
    }
}

/// The `n`th candidate for `base`: `base` itself, then `base-2`, `base-3`, ...
fn numbered(base: &Path, n: usize) -> PathBuf {
    if n == 1 {
        return base.to_path_buf();
    }
    let mut name = base.file_name().unwrap_or_default().to_os_string();
    name.push(format!("-{n}"));
    base.with_file_name(name)
}

/// Picks the folder of the run `definition` describes (see the module's doc). With
/// `force` it is the requested folder whatever it holds. Else a given folder must be
/// free or hold the same run; for the default one, the first of it and its numbered
/// siblings (`-2`, `-3`, ...) that holds the same run is reused, else the first free
/// one is taken; the search stops at the first sibling that does not exist.
pub fn place(
    requested: Requested<'_>,
    definition: &RunDefinition,
    force: bool,
) -> Result<Placed, FolderError> {
    let base = match requested {
        Requested::Given(dir) => {
            let claim = claim(dir, definition, force)?;
            return Ok(Placed {
                dir: dir.to_path_buf(),
                claim,
                passed_over: Vec::new(),
            });
        }
        Requested::Default(dir) if force => {
            let claim = claim(dir, definition, true)?;
            return Ok(Placed {
                dir: dir.to_path_buf(),
                claim,
                passed_over: Vec::new(),
            });
        }
        Requested::Default(dir) => dir,
    };
    // Each folder passed over, with its number and what it holds.
    let mut refused: Vec<(usize, PathBuf, String)> = Vec::new();
    let mut free: Option<(usize, PathBuf)> = None;
    for n in 1.. {
        let dir = numbered(base, n);
        let exists = dir.exists();
        match claim(&dir, definition, false) {
            Ok(Claim::SameRun) => {
                // A rerun goes back to its own folder.
                return Ok(Placed {
                    dir,
                    claim: Claim::SameRun,
                    passed_over: refused.into_iter().map(|(_, d, w)| (d, w)).collect(),
                });
            }
            Ok(_) => {
                free.get_or_insert((n, dir));
                if !exists {
                    break;
                }
            }
            Err(FolderError::OtherRun { dir, difference }) => {
                refused.push((n, dir, format!("holds another run ({difference})")));
            }
            Err(FolderError::Foreign { dir, why }) => {
                refused.push((n, dir, why));
            }
            Err(e) => return Err(e),
        }
    }
    // The loop ends only on a folder that does not exist, which is free.
    let (first_free, dir) = free.unwrap_or_else(|| (1, base.to_path_buf()));
    Ok(Placed {
        dir,
        claim: Claim::Empty,
        passed_over: refused
            .into_iter()
            .filter(|(n, _, _)| *n < first_free)
            .map(|(_, d, w)| (d, w))
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh folder under the system's temporary one, removed on drop.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(tag: &str) -> Self {
            let dir =
                std::env::temp_dir().join(format!("scream-folder-{tag}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).expect("temp dir");
            TempDir(dir)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn definition(seed: u64, toml: &str) -> RunDefinition {
        RunDefinition::new()
            .with("seed", seed)
            .with("overrides", ["a=1"])
            .with("scenario_toml", toml)
    }

    /// A manifest.json as a run writes it: the definition among other keys.
    fn record(dir: &Path, d: &RunDefinition) {
        let mut m = Map::new();
        m.insert("started_unix_s".into(), Value::from(1.5));
        m.extend(d.0.clone());
        m.insert("host".into(), serde_json::json!({"cpus": 2}));
        std::fs::write(dir.join(MANIFEST_JSON), Value::Object(m).to_string()).expect("written");
    }

    #[test]
    fn a_missing_or_empty_folder_is_free() {
        let tmp = TempDir::new("empty");
        let d = definition(1, "x = 1\n");
        assert_eq!(
            claim(&tmp.0.join("absent"), &d, false).unwrap(),
            Claim::Empty
        );
        assert_eq!(claim(&tmp.0, &d, false).unwrap(), Claim::Empty);
    }

    #[test]
    fn the_same_definition_reuses_the_folder_whatever_else_the_manifest_says() {
        let tmp = TempDir::new("same");
        let d = definition(1, "x = 1\ny = 2\n");
        record(&tmp.0, &d);
        assert_eq!(claim(&tmp.0, &d, false).unwrap(), Claim::SameRun);
    }

    #[test]
    fn another_seed_or_scenario_is_refused_with_what_differs_unless_forced() {
        let tmp = TempDir::new("other");
        record(&tmp.0, &definition(1, "x = 1\ny = 2\n"));
        let e = claim(&tmp.0, &definition(2, "x = 1\ny = 2\n"), false).unwrap_err();
        let text = e.to_string();
        assert!(matches!(e, FolderError::OtherRun { .. }), "{text}");
        assert!(text.contains("seed `1` there, `2` now"), "{text}");
        assert!(text.contains("--force") && text.contains("--out"), "{text}");

        let e = claim(&tmp.0, &definition(1, "x = 1\ny = 3\n"), false).unwrap_err();
        assert!(
            e.to_string()
                .contains("scenario_toml differs at line 2: `y = 2` there, `y = 3` now"),
            "{e}"
        );
        let forced = claim(&tmp.0, &definition(2, "x = 1\n"), true).unwrap();
        assert!(
            matches!(&forced, Claim::Forced(what) if what.contains("seed")),
            "{forced:?}"
        );
    }

    #[test]
    fn a_folder_with_files_but_no_manifest_of_ours_is_refused_unless_forced() {
        let tmp = TempDir::new("foreign");
        std::fs::write(tmp.0.join("data.csv"), "mine").expect("written");
        let d = definition(1, "x = 1\n");
        let e = claim(&tmp.0, &d, false).unwrap_err();
        assert!(matches!(e, FolderError::Foreign { .. }), "{e}");
        assert!(e.to_string().contains("no manifest.json"), "{e}");
        assert!(matches!(claim(&tmp.0, &d, true).unwrap(), Claim::Forced(_)));

        std::fs::write(tmp.0.join(MANIFEST_JSON), "[1, 2]").expect("written");
        let e = claim(&tmp.0, &d, false).unwrap_err();
        assert!(e.to_string().contains("not a run's manifest"), "{e}");
    }

    #[test]
    fn a_manifest_of_another_kind_of_run_is_another_run() {
        let tmp = TempDir::new("kind");
        record(
            &tmp.0,
            &RunDefinition::new()
                .with("matrix", "suite rmcat")
                .with("overrides", ["a=1"]),
        );
        let e = claim(&tmp.0, &definition(1, "x = 1\n"), false).unwrap_err();
        assert!(
            e.to_string()
                .contains("of another kind: its manifest has no seed"),
            "{e}"
        );
    }

    #[test]
    fn another_run_in_the_default_folder_moves_the_run_to_a_numbered_one_and_a_rerun_back() {
        let tmp = TempDir::new("place");
        let base = tmp.0.join("x");
        std::fs::create_dir_all(&base).expect("folder");
        let (a, b, c) = (
            definition(1, "a\n"),
            definition(2, "a\n"),
            definition(3, "a\n"),
        );
        record(&base, &a);

        let placed = place(Requested::Default(&base), &b, false).unwrap();
        assert_eq!(
            (placed.dir.clone(), placed.claim.clone()),
            (tmp.0.join("x-2"), Claim::Empty)
        );
        let note = placed.note().expect("a note");
        assert!(note.contains("holds another run (seed"), "{note}");
        assert!(
            note.contains("this run went to") && note.contains("x-2"),
            "{note}"
        );
        std::fs::create_dir_all(&placed.dir).expect("folder");
        record(&placed.dir, &b);

        let again = place(Requested::Default(&base), &b, false).unwrap();
        assert_eq!(
            (again.dir, again.claim),
            (tmp.0.join("x-2"), Claim::SameRun)
        );
        let third = place(Requested::Default(&base), &c, false).unwrap();
        assert_eq!(third.dir, tmp.0.join("x-3"));
        assert_eq!(third.passed_over.len(), 2);
        let first = place(Requested::Default(&base), &a, false).unwrap();
        assert_eq!(first.note(), None);
        assert_eq!((first.dir, first.claim), (base, Claim::SameRun));
    }

    #[test]
    fn a_given_folder_of_another_run_is_an_error_and_force_takes_the_requested_folder() {
        let tmp = TempDir::new("given");
        record(&tmp.0, &definition(1, "a\n"));
        let b = definition(2, "a\n");
        let e = place(Requested::Given(&tmp.0), &b, false).unwrap_err();
        assert!(matches!(e, FolderError::OtherRun { .. }), "{e}");
        for requested in [Requested::Given(&tmp.0), Requested::Default(&tmp.0)] {
            let placed = place(requested, &b, true).unwrap();
            assert_eq!(placed.dir, tmp.0);
            assert!(matches!(placed.claim, Claim::Forced(_)), "{placed:?}");
        }
    }

    #[test]
    fn a_default_folder_of_foreign_files_is_passed_over() {
        let tmp = TempDir::new("passed");
        let base = tmp.0.join("x");
        std::fs::create_dir_all(&base).expect("folder");
        std::fs::write(base.join("notes.txt"), "mine").expect("written");
        let placed = place(Requested::Default(&base), &definition(1, "a\n"), false).unwrap();
        assert_eq!(placed.dir, tmp.0.join("x-2"));
        let note = placed.note().expect("a note");
        assert!(note.contains("has files but no manifest.json"), "{note}");
    }

    #[test]
    fn the_definition_of_a_run_matches_the_manifest_a_run_writes() {
        let tmp = TempDir::new("manifest");
        let scenario: Scenario =
            crate::scenario::load::load_named("ericsson-default", &[]).expect("built-in");
        let overrides = vec!["duration_s=3".to_owned()];
        let manifest = crate::manifest::Manifest {
            toolkit: crate::manifest::Toolkit {
                version: "0".into(),
                commit: "unknown".into(),
                dirty: None,
            },
            scenario: scenario.name.clone(),
            seed: 4,
            command_line: vec!["scream".into()],
            overrides: overrides.clone(),
            host: crate::manifest::Host::current(),
            started_unix_s: 0.0,
            wall_time_s: 0.0,
            simulated_duration_s: 0.0,
            files: Vec::new(),
            scenario_toml: crate::manifest::Manifest::scenario_text(&scenario).expect("toml"),
        };
        crate::manifest::write_manifest(&manifest, &tmp.0).expect("written");
        let same = RunDefinition::of_run(&scenario, 4, &overrides).expect("toml");
        assert_eq!(claim(&tmp.0, &same, false).unwrap(), Claim::SameRun);
        let reseeded = RunDefinition::of_run(&scenario, 5, &overrides).expect("toml");
        assert!(claim(&tmp.0, &reseeded, false).is_err());
    }
}
