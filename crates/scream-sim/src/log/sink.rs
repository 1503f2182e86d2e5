//! One JSON Lines file with a size cap.
//!
//! A log is a research aid, not the run's result: once it would pass its cap, rows are
//! counted instead of written, and a last line says so. A write error likewise stops the
//! log, not the run; it is reported when the log is closed.

use std::io::{self, Write};

use serde::Serialize;

/// What became of one log.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SinkReport {
    /// Rows written.
    pub rows: u64,
    /// Bytes written, the truncation line included.
    pub bytes: u64,
    /// Rows left out because the cap was reached, and the simulated time (s) of the
    /// first of them; `None` when the log is complete.
    pub truncated: Option<(u64, f64)>,
}

/// A JSON Lines writer that stops at `limit` bytes.
pub(crate) struct Sink {
    out: Box<dyn Write + Send>,
    limit: u64,
    report: SinkReport,
    error: Option<io::Error>,
    /// One row's text, reused.
    line: Vec<u8>,
}

impl std::fmt::Debug for Sink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sink")
            .field("limit", &self.limit)
            .field("report", &self.report)
            .finish_non_exhaustive()
    }
}

impl Sink {
    pub(crate) fn new(out: Box<dyn Write + Send>, limit_bytes: u64) -> Self {
        Self {
            out,
            limit: limit_bytes,
            report: SinkReport::default(),
            error: None,
            line: Vec::with_capacity(512),
        }
    }

    /// Writes `row` as one line, unless the cap or an earlier error stops the log;
    /// `t_s` is the simulated time the row belongs to.
    pub(crate) fn write<T: Serialize>(&mut self, t_s: f64, row: &T) {
        if self.error.is_some() {
            return;
        }
        if let Some((omitted, _)) = &mut self.report.truncated {
            *omitted += 1;
            return;
        }
        self.line.clear();
        if let Err(e) = serde_json::to_writer(&mut self.line, row) {
            self.error = Some(io::Error::other(e));
            return;
        }
        self.line.push(b'\n');
        let len = self.line.len() as u64;
        if self.report.bytes + len > self.limit {
            self.report.truncated = Some((1, t_s));
            return;
        }
        match self.out.write_all(&self.line) {
            Ok(()) => {
                self.report.rows += 1;
                self.report.bytes += len;
            }
            Err(e) => self.error = Some(e),
        }
    }

    /// Ends the log: the truncation line if rows were left out, then a flush.
    pub(crate) fn finish(mut self) -> io::Result<SinkReport> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        if let Some((omitted, from_s)) = self.report.truncated {
            let marker = Truncated {
                truncated: true,
                limit_bytes: self.limit,
                rows_omitted: omitted,
                from_s,
            };
            let mut line = serde_json::to_vec(&marker).map_err(io::Error::other)?;
            line.push(b'\n');
            self.out.write_all(&line)?;
            self.report.bytes += line.len() as u64;
        }
        self.out.flush()?;
        Ok(self.report)
    }
}

/// The last line of a truncated log.
#[derive(Serialize)]
struct Truncated {
    truncated: bool,
    limit_bytes: u64,
    rows_omitted: u64,
    from_s: f64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    /// A writer whose bytes the test can read afterwards.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[derive(Serialize)]
    struct Row {
        i: u32,
    }

    #[test]
    fn rows_stop_at_the_cap_and_a_last_line_says_how_many_were_left_out() {
        let buf = Shared::default();
        // Each row is `{"i":N}\n`, 8 bytes for one digit.
        let mut sink = Sink::new(Box::new(buf.clone()), 20);
        for i in 0..5 {
            sink.write(f64::from(i) * 0.5, &Row { i });
        }
        let report = sink.finish().unwrap();
        let text = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[..2], [r#"{"i":0}"#, r#"{"i":1}"#]);
        assert_eq!(
            lines[2],
            r#"{"truncated":true,"limit_bytes":20,"rows_omitted":3,"from_s":1.0}"#
        );
        assert_eq!(lines.len(), 3);
        assert_eq!(report.rows, 2);
        assert_eq!(report.truncated, Some((3, 1.0)));
        assert_eq!(report.bytes, text.len() as u64);
    }

    #[test]
    fn a_log_under_its_cap_has_no_marker() {
        let buf = Shared::default();
        let mut sink = Sink::new(Box::new(buf.clone()), 1000);
        sink.write(0.0, &Row { i: 1 });
        let report = sink.finish().unwrap();
        assert_eq!(report.truncated, None);
        assert_eq!(buf.0.lock().unwrap().as_slice(), b"{\"i\":1}\n");
    }

    struct Broken;
    impl Write for Broken {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::other("disk full"))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_write_error_is_reported_at_the_end() {
        let mut sink = Sink::new(Box::new(Broken), 1000);
        sink.write(0.0, &Row { i: 1 });
        sink.write(0.0, &Row { i: 2 });
        let err = sink.finish().unwrap_err();
        assert!(err.to_string().contains("disk full"), "{err}");
    }
}
