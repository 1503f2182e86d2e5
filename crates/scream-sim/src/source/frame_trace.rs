//! Frame-size traces: one integer size in bytes per line.

use std::path::{Path, PathBuf};

/// Where a `builtin:<name>` frame trace comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BuiltinTrace {
    /// Text embedded in the binary.
    Text(&'static str),
    /// A file on disk.
    File(PathBuf),
}

/// Resolves a built-in frame trace name (without the `builtin:` prefix) to the trace
/// bundled from the repository's `data/video/` (small, BSD-2-Clause, so built in: a
/// scenario that names one runs wherever the binary does).
pub fn builtin_frame_trace(name: &str) -> Option<BuiltinTrace> {
    let text = match name {
        "trace_no_key" => include_str!("../../../../data/video/trace_no_key.txt"),
        "trace_key" => include_str!("../../../../data/video/trace_key.txt"),
        "trace_flat" => include_str!("../../../../data/video/trace_flat.txt"),
        _ => return None,
    };
    Some(BuiltinTrace::Text(text))
}

/// A frame trace that could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrameTraceError {
    /// `builtin:<name>` with an unknown name.
    #[error("unknown built-in frame trace `{0}`")]
    UnknownBuiltin(String),
    /// A `data:` trace that no data folder holds.
    #[error(transparent)]
    Missing(#[from] scream_data::Missing),
    /// The file could not be read.
    #[error("cannot read {path}: {reason}")]
    Io {
        /// The file.
        path: String,
        /// The OS error.
        reason: String,
    },
    /// A line is not a frame size.
    #[error("{file}:{line}: `{text}` is not a frame size in bytes")]
    Parse {
        /// The trace (a path, or `builtin:<name>`).
        file: String,
        /// One-based line number.
        line: usize,
        /// The offending text.
        text: String,
    },
    /// No frame, or only empty frames.
    #[error("{0}: the frame trace holds no non-empty frame")]
    Empty(String),
}

/// Parses frame sizes from text (blank lines and `#` comments ignored; a fractional
/// size is rounded). `file` names the trace in errors.
pub fn parse_frame_sizes(text: &str, file: &str) -> Result<Vec<u32>, FrameTraceError> {
    let mut sizes = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let l = line.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let v: f64 = l
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite() && *v >= 0.0 && *v < f64::from(u32::MAX))
            .ok_or_else(|| FrameTraceError::Parse {
                file: file.to_owned(),
                line: i + 1,
                text: l.to_owned(),
            })?;
        sizes.push(v.round() as u32);
    }
    if sizes.iter().all(|s| *s == 0) {
        return Err(FrameTraceError::Empty(file.to_owned()));
    }
    Ok(sizes)
}

/// Loads the trace named by `spec`: `builtin:<name>`, `data:<name>`, or a path resolved
/// against `base_dir` when relative.
pub fn load_frame_sizes(spec: &str, base_dir: Option<&Path>) -> Result<Vec<u32>, FrameTraceError> {
    let path = if let Some(name) = spec.strip_prefix("builtin:") {
        match builtin_frame_trace(name) {
            Some(BuiltinTrace::Text(t)) => return parse_frame_sizes(t, spec),
            Some(BuiltinTrace::File(p)) => p,
            None => return Err(FrameTraceError::UnknownBuiltin(name.to_owned())),
        }
    } else {
        resolve_path(spec, base_dir)?
    };
    let text = std::fs::read_to_string(&path).map_err(|e| FrameTraceError::Io {
        path: path.display().to_string(),
        reason: e.to_string(),
    })?;
    parse_frame_sizes(&text, &path.display().to_string())
}

/// The file a trace key names: a `data:<name>` reference through the data search path
/// (`scream_data`), else `p` itself if absolute (or no base is known), else `base/p`.
pub fn resolve_path(p: &str, base_dir: Option<&Path>) -> Result<PathBuf, scream_data::Missing> {
    if p.starts_with(scream_data::REFERENCE_PREFIX) {
        return scream_data::find(p);
    }
    let path = Path::new(p);
    Ok(match base_dir {
        Some(b) if path.is_relative() => b.join(path),
        _ => path.to_path_buf(),
    })
}
