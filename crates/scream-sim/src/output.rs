//! Writing a run's outputs: summary.json (pretty, every float with 6 decimals) and
//! timeseries.csv (one row per flow per sampling instant).

use crate::RunResult;
use crate::metrics::{SAMPLE_COLUMNS, Sample};
use crate::summary::Summary;
use serde::Serialize;
use serde_json::ser::{Formatter, PrettyFormatter};
use std::fmt::Write as _;
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

/// timeseries.csv text.
pub fn timeseries_csv(samples: &[Sample]) -> String {
    let mut s = String::with_capacity(64 + samples.len() * 160);
    s.push_str(&SAMPLE_COLUMNS.join(","));
    s.push('\n');
    let fx = |v: f64| if v == 0.0 { 0.0 } else { v };
    for r in samples {
        // Writing to a String cannot fail.
        let _ = writeln!(
            s,
            "{:.6},{},{:.6},{:.6},{:.6},{:.6},{:.6},{:.6},{:.6},{:.6},{:.6},{:.6},{},{},{:.6}",
            fx(r.t_s),
            r.flow,
            fx(r.target_mbps),
            fx(r.tx_mbps),
            fx(r.acked_mbps),
            fx(r.ref_window_bytes),
            fx(r.bytes_in_flight),
            fx(r.srtt_ms),
            fx(r.est_queue_delay_ms),
            fx(r.sojourn_ms),
            fx(r.rtp_queue_delay_ms),
            fx(r.frame_size_bytes),
            r.ce_count,
            r.loss_count,
            fx(r.capacity_mbps),
        );
    }
    s
}

/// Writes summary.json and timeseries.csv into `dir` (created if missing).
pub fn write_outputs(result: &RunResult, dir: &Path) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join("summary.json"), summary_json(&result.summary)?)?;
    std::fs::write(dir.join("timeseries.csv"), timeseries_csv(&result.samples))
}
