//! Frame-size traces: one integer size in bytes per line.

use std::io::{ErrorKind, Read};
use std::path::{Path, PathBuf};

/// Largest frame-size trace read, bytes: 16 MiB is about three million frames of up to
/// five digits, over sixteen hours at 50 fps, and far more than any trace we know (the
/// reference's are 40 kB). A wrong path (`/dev/zero`, a video file) then fails at once
/// instead of filling memory.
pub const MAX_TRACE_BYTES: usize = 16 << 20;
/// Longest line of a frame-size trace, bytes: a frame size is a few digits; a comment may
/// run longer.
pub const MAX_LINE_BYTES: usize = 1024;

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
    /// The file is larger than [`MAX_TRACE_BYTES`], has a line longer than
    /// [`MAX_LINE_BYTES`], or is not text.
    #[error("{path}: {reason}")]
    Bounds {
        /// The file.
        path: String,
        /// Which bound, and where.
        reason: String,
    },
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
    let file = std::fs::File::open(&path).map_err(|e| FrameTraceError::Io {
        path: path.display().to_string(),
        reason: e.to_string(),
    })?;
    let text = read_bounded(file).map_err(|reason| FrameTraceError::Bounds {
        path: path.display().to_string(),
        reason,
    })?;
    parse_frame_sizes(&text, &path.display().to_string())
}

/// The text of `input`, refusing a line or a whole beyond the bounds. Read in chunks
/// and checked byte by byte: as fast as reading it whole, and never holding more than
/// the limit.
fn read_bounded(mut input: impl Read) -> Result<String, String> {
    let mut bytes = Vec::new();
    let mut chunk = vec![0u8; 64 << 10];
    let (mut line, mut line_bytes) = (1usize, 0usize);
    loop {
        let n = match input.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(format!("cannot read line {line}: {e}")),
        };
        for &b in &chunk[..n] {
            if b == b'\n' {
                line += 1;
                line_bytes = 0;
            } else {
                line_bytes += 1;
                if line_bytes > MAX_LINE_BYTES {
                    return Err(format!(
                        "line {line} is longer than {MAX_LINE_BYTES} bytes, the limit of a \
                         frame-size trace line (one frame size in bytes per line)"
                    ));
                }
            }
        }
        if bytes.len() + n > MAX_TRACE_BYTES {
            return Err(format!(
                "larger than {} MiB, the limit of a frame-size trace (one frame size in \
                 bytes per line)",
                MAX_TRACE_BYTES >> 20
            ));
        }
        bytes.extend_from_slice(&chunk[..n]);
    }
    String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = 1 + valid.iter().filter(|&&b| b == b'\n').count();
        format!("line {line} is not text (UTF-8)")
    })
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

#[cfg(test)]
mod bounds_tests {
    use super::*;

    /// An endless input repeating a few bytes.
    struct Cycle<'a> {
        bytes: &'a [u8],
        at: usize,
    }

    impl Read for Cycle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            for b in buf.iter_mut() {
                *b = self.bytes[self.at];
                self.at = (self.at + 1) % self.bytes.len();
            }
            Ok(buf.len())
        }
    }

    #[test]
    fn a_trace_within_the_bounds_reads_whole() {
        let t = read_bounded("1000\n# a comment\n2000".as_bytes()).unwrap();
        assert_eq!(t, "1000\n# a comment\n2000");
    }

    #[test]
    fn a_line_past_the_limit_is_refused_by_number() {
        let long = format!("100\n{}\n", "9".repeat(MAX_LINE_BYTES + 1));
        let e = read_bounded(long.as_bytes()).unwrap_err();
        assert!(e.contains("line 2") && e.contains("1024 bytes"), "{e}");
        let fits = format!("{}\n", "9".repeat(MAX_LINE_BYTES));
        assert!(read_bounded(fits.as_bytes()).is_ok());
    }

    #[test]
    fn a_line_that_is_not_text_is_named() {
        let e = read_bounded(&b"100\n200\n\xff\xfe\n"[..]).unwrap_err();
        assert_eq!(e, "line 3 is not text (UTF-8)");
    }

    #[test]
    fn an_endless_input_stops_at_the_byte_limit() {
        // Long comment lines, so that reaching the limit takes few passes.
        let line = format!("#{}\n", "x".repeat(MAX_LINE_BYTES - 1));
        let lines = Cycle {
            bytes: line.as_bytes(),
            at: 0,
        };
        let e = read_bounded(lines).unwrap_err();
        assert!(e.contains("16 MiB"), "{e}");
    }
}
