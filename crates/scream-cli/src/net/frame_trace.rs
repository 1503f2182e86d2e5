//! `scream send --video FILE`: a frame-size trace read with bounds, so that a wrong
//! path (`/dev/zero`, a video file, a log without newlines) fails at once with a clear
//! message instead of filling memory.

use std::io::{ErrorKind, Read};

use scream_sim::source::{load_frame_sizes, parse_frame_sizes};

/// Largest trace read, bytes: 16 MiB is about three million frames of up to five
/// digits, over sixteen hours at 50 fps, and far more than any trace we know (the
/// reference's are 40 kB).
pub(super) const MAX_TRACE_BYTES: usize = 16 << 20;
/// Longest line, bytes: a frame size is a few digits; a comment may run longer.
pub(super) const MAX_LINE_BYTES: usize = 1024;

/// The frame sizes `spec` names: `builtin:NAME` (bundled, trusted) or a file read
/// within [`MAX_TRACE_BYTES`] and [`MAX_LINE_BYTES`]. Errors name `--video` and the
/// limit crossed.
pub(super) fn load(spec: &str) -> Result<Vec<u32>, String> {
    if spec.starts_with("builtin:") {
        return load_frame_sizes(spec, None).map_err(|e| format!("--video {spec}: {e}"));
    }
    let file =
        std::fs::File::open(spec).map_err(|e| format!("--video {spec}: cannot read it: {e}"))?;
    let text = read_bounded(file).map_err(|why| format!("--video {spec}: {why}"))?;
    parse_frame_sizes(&text, spec).map_err(|e| format!("--video {spec}: {e}"))
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

#[cfg(test)]
mod tests {
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
