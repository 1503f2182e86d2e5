//! Writing a run's outputs: summary.json (pretty, every float with 6 decimals),
//! timeseries.csv (one row per stream per sampling instant) and links.csv (one row per
//! link direction per sampling instant).

use crate::RunResult;
use crate::metrics::Sample;
use crate::summary::Summary;
use serde::Serialize;
use serde_json::ser::{Formatter, PrettyFormatter};
use std::io::{self, Write};
use std::path::Path;

/// Decimals of every float in the outputs.
pub const DECIMALS: usize = 6;

/// serde_json's pretty layout with floats printed at a fixed precision, so equal runs
/// give equal bytes and diffs stay readable.
struct FixedFloats<'a>(PrettyFormatter<'a>);

impl Formatter for FixedFloats<'_> {
    fn write_f64<W: ?Sized + Write>(&mut self, w: &mut W, v: f64) -> io::Result<()> {
        if v.is_finite() {
            // -0.000000 and 0.000000 must not differ.
            let v = if v == 0.0 { 0.0 } else { v };
            write!(w, "{v:.DECIMALS$}")
        } else {
            w.write_all(b"null")
        }
    }
    fn write_f32<W: ?Sized + Write>(&mut self, w: &mut W, v: f32) -> io::Result<()> {
        self.write_f64(w, f64::from(v))
    }
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_value(w)
    }
}

/// summary.json text.
pub fn summary_json(summary: &Summary) -> io::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(4096);
    let mut ser =
        serde_json::Serializer::with_formatter(&mut out, FixedFloats(PrettyFormatter::new()));
    summary.serialize(&mut ser).map_err(io::Error::other)?;
    out.push(b'\n');
    Ok(out)
}

/// Rows as CSV text: a header from the row type's field names, one line per row.
pub fn csv_text<T: Serialize>(rows: &[T]) -> io::Result<String> {
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::with_capacity(64 + rows.len() * 160));
    for r in rows {
        w.serialize(r).map_err(io::Error::other)?;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| io::Error::other(e.to_string()))?;
    String::from_utf8(bytes).map_err(io::Error::other)
}

/// timeseries.csv text (one row per stream per sampling instant).
pub fn timeseries_csv(samples: &[Sample]) -> io::Result<String> {
    csv_text(samples)
}

fn write_csv<T: Serialize>(path: &Path, rows: &[T]) -> io::Result<()> {
    let file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(file);
    for r in rows {
        w.serialize(r).map_err(io::Error::other)?;
    }
    w.flush()
}

/// Writes summary.json, timeseries.csv and links.csv into `dir` (created if missing).
pub fn write_outputs(result: &RunResult, dir: &Path) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join("summary.json"), summary_json(&result.summary)?)?;
    write_csv(&dir.join("timeseries.csv"), &result.samples)?;
    write_csv(&dir.join("links.csv"), &result.link_samples)
}
