//! Reading scenario TOML into the data model.
//!
//! The text is parsed into an editable document, to which `--set dotted.path=value`
//! overrides are applied before serde sees it. Errors name the file, the line and the
//! dotted key (from a second parse that keeps the source spans, made only on the way to
//! an error); an error caused by an override names the override instead of a line.
//!
//! Relative trace paths written in a scenario file resolve against that file's
//! directory; paths given by an override, and those in built-in scenarios (which have no
//! directory), resolve against the current directory.

mod checked;
mod diagnose;
mod document;
mod overrides;
mod written;

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use toml_edit::{DocumentMut, Item};

pub use checked::{load_checked, load_checked_str};
pub use diagnose::suggestion;
pub use document::Document;
pub use overrides::Override;

use super::builtin;

/// Prefix of a source trace that names a trace embedded in the binary rather than a file.
pub const BUILTIN_TRACE_PREFIX: &str = "builtin:";

/// Prefix of a link trace that names a generated capacity trace
/// ([`scream_netmodel::synthetic`]) rather than a file.
pub const SYNTHETIC_TRACE_PREFIX: &str = "synthetic:";

/// Why a scenario could not be loaded. Each variant displays as one line.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    /// The scenario file could not be read.
    #[error("{}: {source}", path.display())]
    Read {
        /// The file as given.
        path: PathBuf,
        /// The underlying I/O error.
        source: std::io::Error,
    },
    /// The text is not valid TOML.
    #[error("{origin}:{line}: {message}")]
    Syntax {
        /// File name (or `builtin:NAME`).
        origin: String,
        /// One-based line of the error.
        line: usize,
        /// What the TOML parser expected.
        message: String,
    },
    /// Valid TOML that does not fit the scenario schema, or names a missing file.
    #[error("{location}: {message}")]
    Invalid {
        /// Where the offending key was written.
        location: Location,
        /// The dotted key and what is wrong with it.
        message: String,
    },
    /// A `--set` argument that cannot be applied at all.
    #[error("--set {raw}: {message}")]
    Override {
        /// The argument as given.
        raw: String,
        /// What is wrong with it.
        message: String,
    },
    /// Neither a built-in scenario name nor an existing file.
    #[error(
        "unknown scenario \"{name}\" (built-in scenarios: {known}; or give the path of a .toml file)"
    )]
    UnknownBuiltin {
        /// The name as given.
        name: String,
        /// Comma-separated built-in names.
        known: String,
    },
}

/// Where a scenario value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// A line of a scenario file (`origin` is its name, `builtin:NAME` for built-ins).
    Line {
        /// File name.
        origin: String,
        /// One-based line.
        line: usize,
    },
    /// Somewhere in a file, no line known (e.g. a missing key).
    File {
        /// File name.
        origin: String,
    },
    /// A `--set` argument.
    Override {
        /// The argument as given, `path=value`.
        raw: String,
    },
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Line { origin, line } => write!(f, "{origin}:{line}"),
            Self::File { origin } => f.write_str(origin),
            Self::Override { raw } => write!(f, "--set {raw}"),
        }
    }
}

/// Loads a scenario file; relative trace paths in it resolve against its directory.
///
/// The scenario name defaults to the file stem.
pub fn load_file<T: DeserializeOwned>(
    path: &Path,
    overrides: &[Override],
) -> Result<T, ScenarioError> {
    Source::file(path)?.load(overrides)
}

/// Loads a built-in scenario by name (see [`builtin::BUILTINS`]).
pub fn load_builtin<T: DeserializeOwned>(
    name: &str,
    overrides: &[Override],
) -> Result<T, ScenarioError> {
    Source::builtin(name)?.load(overrides)
}

/// Whether [`load_named`] reads `name_or_path` as a file (it contains a `/`, ends in
/// `.toml` or names an existing file) rather than as a built-in scenario's name.
pub fn names_a_file(name_or_path: &str) -> bool {
    let path = Path::new(name_or_path);
    name_or_path.contains('/') || path.extension().is_some_and(|e| e == "toml") || path.is_file()
}

/// Loads `name_or_path`: an existing file, else a built-in scenario of that name.
///
/// Anything that looks like a path (contains a `/` or ends in `.toml`) is read as a file.
pub fn load_named<T: DeserializeOwned>(
    name_or_path: &str,
    overrides: &[Override],
) -> Result<T, ScenarioError> {
    Source::named(name_or_path)?.load(overrides)
}

/// A scenario text with what names it in errors and where its relative paths resolve.
struct Source {
    text: Cow<'static, str>,
    origin: String,
    base_dir: Option<PathBuf>,
}

/// Largest scenario file read, bytes. Parsed TOML costs up to about 75 bytes of memory
/// per byte of text (8 MB of `capacity_steps` took 600 MB to load), so this bounds a
/// load to about 600 MB, and the file still holds 10,000 flows of several hundred bytes
/// each. Long tables belong in trace files.
pub const MAX_SCENARIO_BYTES: u64 = 8 << 20;

/// The text of the scenario file at `path`, refused past [`MAX_SCENARIO_BYTES`] before
/// it is read.
pub fn read_scenario_file(path: &Path) -> Result<String, ScenarioError> {
    let fail = |source| ScenarioError::Read {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(fail)?;
    let mut text = String::new();
    // One byte past the limit tells a file at the limit from a larger one, even if the
    // file grows while it is read.
    std::io::Read::read_to_string(
        &mut std::io::Read::take(file, MAX_SCENARIO_BYTES + 1),
        &mut text,
    )
    .map_err(fail)?;
    if text.len() as u64 > MAX_SCENARIO_BYTES {
        return Err(fail(std::io::Error::other(format!(
            "a scenario file is at most {} MiB ({MAX_SCENARIO_BYTES} bytes), and this one is \
             larger; give a long capacity table as a trace file (link.trace)",
            MAX_SCENARIO_BYTES >> 20
        ))));
    }
    Ok(text)
}

impl Source {
    fn file(path: &Path) -> Result<Self, ScenarioError> {
        let text = read_scenario_file(path)?;
        let origin = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let base_dir = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map(Path::to_path_buf);
        Ok(Self {
            text: Cow::Owned(text),
            origin,
            base_dir,
        })
    }

    fn builtin(name: &str) -> Result<Self, ScenarioError> {
        let scenario = builtin::find(name).ok_or_else(|| ScenarioError::UnknownBuiltin {
            name: name.to_owned(),
            known: builtin::names()
                .into_iter()
                .chain(builtin::rmcat_names())
                .collect::<Vec<_>>()
                .join(", "),
        })?;
        Ok(Self {
            text: Cow::Borrowed(scenario.text),
            origin: format!("builtin:{name}"),
            base_dir: None,
        })
    }

    fn named(name_or_path: &str) -> Result<Self, ScenarioError> {
        if names_a_file(name_or_path) {
            Self::file(Path::new(name_or_path))
        } else {
            Self::builtin(name_or_path)
        }
    }

    fn load<T: DeserializeOwned>(&self, overrides: &[Override]) -> Result<T, ScenarioError> {
        load_str(
            &self.text,
            &self.origin,
            self.base_dir.as_deref(),
            overrides,
        )
    }
}

/// Loads scenario text. `origin` names it in errors and gives the default scenario name
/// (its stem); `base_dir` is where relative trace paths written in the text resolve
/// (`None`: the current directory).
pub fn load_str<T: DeserializeOwned>(
    text: &str,
    origin: &str,
    base_dir: Option<&Path>,
    overrides: &[Override],
) -> Result<T, ScenarioError> {
    // Parsed once; the spans an error message needs are parsed again only then.
    let mut doc: DocumentMut = document::parse_spans(text, origin)?.into_mut();

    if !doc.contains_key("name") {
        let stem = origin.strip_prefix("builtin:").unwrap_or(origin);
        let stem = Path::new(stem)
            .file_stem()
            .map_or_else(|| stem.to_owned(), |s| s.to_string_lossy().into_owned());
        doc["name"] = toml_edit::value(stem);
    }
    if let Some(dir) = base_dir {
        for path in file_path_keys(doc.as_item()) {
            if let Some(item) = item_at_mut(doc.as_item_mut(), &path) {
                resolve_against(item, dir);
            }
        }
    }
    for o in overrides {
        o.apply(&mut doc)?;
    }
    let ctx = diagnose::Context::new(text, origin, overrides);
    super::apparatus::complete(&mut doc).map_err(|e| {
        let path: Vec<String> = e.key.split('.').map(str::to_owned).collect();
        ScenarioError::Invalid {
            location: ctx.locate(&path),
            message: format!("{}: {}", e.key, e.message),
        }
    })?;
    check_files_exist(&mut doc, &ctx, base_dir.is_none())?;
    written::check(&doc, &ctx)?;

    let de = toml_edit::de::Deserializer::from(doc);
    serde_path_to_error::deserialize(de).map_err(|e| ctx.schema_error(&e))
}

/// Dotted paths of the string items that name files: link traces and video source
/// traces.
fn file_path_keys(root: &Item) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    let has_trace = |path: &[String]| item_at(root, path).is_some();
    let link_trace = vec!["link".to_owned(), "trace".to_owned()];
    if has_trace(&link_trace) {
        found.push(link_trace);
    }
    for (list, tail) in [
        ("links", &["trace"][..]),
        ("flows", &["source", "trace"][..]),
    ] {
        let Some(entries) = root.get(list) else {
            continue;
        };
        for i in (0..).take_while(|&i| entries.get(i).is_some()) {
            let mut path = vec![list.to_owned(), i.to_string()];
            path.extend(tail.iter().map(|s| (*s).to_owned()));
            if has_trace(&path) {
                found.push(path);
            }
        }
    }
    found
}

/// Steps into a table by key or into an array (of tables) by a numeric segment.
fn step<'a>(item: &'a Item, seg: &str) -> Option<&'a Item> {
    match seg.parse::<usize>() {
        Ok(i) if item.is_array() || item.is_array_of_tables() => item.get(i),
        _ => item.get(seg),
    }
}

fn step_mut<'a>(item: &'a mut Item, seg: &str) -> Option<&'a mut Item> {
    match seg.parse::<usize>() {
        Ok(i) if item.is_array() || item.is_array_of_tables() => item.get_mut(i),
        _ => item.get_mut(seg),
    }
}

fn item_at<'a>(root: &'a Item, path: &[String]) -> Option<&'a Item> {
    path.iter().try_fold(root, |item, seg| step(item, seg))
}

fn item_at_mut<'a>(root: &'a mut Item, path: &[String]) -> Option<&'a mut Item> {
    path.iter().try_fold(root, |item, seg| step_mut(item, seg))
}

/// Rewrites a relative file path (not `builtin:...`) to lie under `dir`.
fn resolve_against(item: &mut Item, dir: &Path) {
    let Some(path) = item.as_str() else {
        return;
    };
    if path.starts_with(BUILTIN_TRACE_PREFIX)
        || path.starts_with(SYNTHETIC_TRACE_PREFIX)
        || path.starts_with(scream_data::REFERENCE_PREFIX)
        || Path::new(path).is_absolute()
    {
        return;
    }
    let joined = dir.join(path).to_string_lossy().into_owned();
    *item = toml_edit::value(joined);
}

/// A named trace file that does not exist is reported here, where the line of the key
/// (or the override that set it) is still known, rather than when the run starts.
fn check_files_exist(
    doc: &mut DocumentMut,
    ctx: &diagnose::Context<'_>,
    relative_to_cwd: bool,
) -> Result<(), ScenarioError> {
    for path in file_path_keys(doc.as_item()) {
        let Some(file) = item_at(doc.as_item(), &path).and_then(Item::as_str) else {
            continue;
        };
        if file.starts_with(BUILTIN_TRACE_PREFIX) || Path::new(file).is_file() {
            continue;
        }
        let dotted = diagnose::dotted(&path);
        let set = diagnose::set_path(&path);
        if file.starts_with(scream_data::REFERENCE_PREFIX) {
            let Err(missing) = scream_data::find(file) else {
                continue;
            };
            return Err(ScenarioError::Invalid {
                location: ctx.locate(&path),
                message: format!("{dotted}: {missing}, or set {set} to another file"),
            });
        }
        // Only link traces can be generated; a frame trace named so is a missing file.
        let synthetic = file
            .strip_prefix(SYNTHETIC_TRACE_PREFIX)
            .filter(|_| path[0] != "flows");
        if let Some(name) = synthetic {
            if scream_netmodel::synthetic::preset(name).is_some() {
                continue;
            }
            let known: Vec<String> = scream_netmodel::synthetic::preset_names()
                .iter()
                .map(|n| format!("{SYNTHETIC_TRACE_PREFIX}{n}"))
                .collect();
            return Err(ScenarioError::Invalid {
                location: ctx.locate(&path),
                message: format!(
                    "{dotted}: unknown synthetic trace \"{file}\" (known: {})",
                    known.join(", ")
                ),
            });
        }
        let hint = if relative_to_cwd && Path::new(file).is_relative() {
            " (relative to the current directory)"
        } else {
            ""
        };
        return Err(ScenarioError::Invalid {
            location: ctx.locate(&path),
            message: format!("{dotted}: no such file \"{file}\"{hint}; set {set} to another file"),
        });
    }
    Ok(())
}

/// One-based line of a character offset (the TOML parser reports character spans).
fn line_at_char(text: &str, char_offset: usize) -> usize {
    1 + text
        .chars()
        .take(char_offset)
        .filter(|&c| c == '\n')
        .count()
}

#[cfg(test)]
mod tests;
