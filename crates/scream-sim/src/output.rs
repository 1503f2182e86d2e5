//! Writing a run's outputs: summary.json (pretty, every float with 6 decimals), the
//! same summary as flat tables (summary.csv, links_summary.csv), timeseries.csv (one row
//! per stream per sampling instant) and links.csv (one row per link direction per
//! sampling instant). docs/outputs.md documents every key and column. [`folder`] decides
//! whether a run may write into a folder at all.

mod atomic;
mod files;
pub mod folder;
mod summary_csv;

pub use atomic::{write_atomic, write_atomic_with};
pub use files::{
    LINKS_CSV, LINKS_SUMMARY_CSV, LOG_FILES, MANIFEST_JSON, OUTPUT_FILES, SUMMARY_CSV,
    SUMMARY_JSON, TIMESERIES_CSV, remove_previous_outputs, remove_previous_results,
};

use crate::RunResult;
use crate::metrics::Sample;
use crate::summary::Summary;
use serde::Serialize;
use serde_json::ser::{Formatter, PrettyFormatter};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

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
    write_atomic_with(path, |file| {
        let mut w = csv::WriterBuilder::new()
            .terminator(csv::Terminator::Any(b'\n'))
            .from_writer(file);
        for r in rows {
            w.serialize(r).map_err(io::Error::other)?;
        }
        w.flush()
    })
}

/// summary.csv and links_summary.csv text: summary.json's numbers as flat tables.
pub fn summary_csvs(summary: &Summary) -> io::Result<(Vec<u8>, Vec<u8>)> {
    let value: serde_json::Value =
        serde_json::from_slice(&summary_json(summary)?).map_err(io::Error::other)?;
    Ok((
        summary_csv::flows_csv(&value)?,
        summary_csv::links_csv(&value)?,
    ))
}

/// Writes summary.json, summary.csv, links_summary.csv, timeseries.csv and links.csv
/// into `dir` (created if missing) and returns the paths written.
///
/// It first removes every file of [`OUTPUT_FILES`] (not the logs: see [`LOG_FILES`]) left in `dir` by an earlier run
/// (see [`remove_previous_outputs`]), so write plots and a manifest after it, not
/// before.
pub fn write_outputs(result: &RunResult, dir: &Path) -> io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    remove_previous_results(dir)?;
    let (flows, links) = summary_csvs(&result.summary)?;
    let files: [(&str, Vec<u8>); 3] = [
        (SUMMARY_JSON, summary_json(&result.summary)?),
        (SUMMARY_CSV, flows),
        (LINKS_SUMMARY_CSV, links),
    ];
    let mut written = Vec::with_capacity(files.len() + 2);
    for (name, bytes) in files {
        let path = dir.join(name);
        write_atomic(&path, bytes)?;
        written.push(path);
    }
    let timeseries = dir.join(TIMESERIES_CSV);
    write_csv(&timeseries, &result.samples)?;
    written.push(timeseries);
    let links = dir.join(LINKS_CSV);
    write_csv(&links, &result.link_samples)?;
    written.push(links);
    Ok(written)
}
