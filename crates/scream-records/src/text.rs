//! Rows and values as text: CSV with a header from the row type's field names, and
//! pretty JSON with every float at a fixed precision. Equal runs give equal bytes, and
//! diffs stay readable.

use std::io::{self, Write};
use std::path::Path;

use serde::Serialize;
use serde_json::ser::{Formatter, PrettyFormatter};

use crate::sample::Sample;

/// Decimals of every float in the outputs.
pub const DECIMALS: usize = 6;

/// serde_json's pretty layout with floats printed at a fixed precision.
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

/// `value` as pretty JSON with every float at [`DECIMALS`] decimals (non-finite
/// floats as `null`), without a final newline.
pub fn json_fixed<T: Serialize + ?Sized>(value: &T) -> io::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(4096);
    let mut ser =
        serde_json::Serializer::with_formatter(&mut out, FixedFloats(PrettyFormatter::new()));
    value.serialize(&mut ser).map_err(io::Error::other)?;
    Ok(out)
}

fn csv_writer<W: Write>(w: W) -> csv::Writer<W> {
    csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(w)
}

/// Rows as CSV text: a header from the row type's field names, one line per row.
pub fn csv_text<T: Serialize>(rows: &[T]) -> io::Result<String> {
    let mut w = csv_writer(Vec::with_capacity(64 + rows.len() * 160));
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

/// Writes `rows` as CSV (the text of [`csv_text`]) to `path`, replaced whole
/// ([`crate::write_atomic_with`]), without holding the whole text in memory.
pub fn write_csv<T: Serialize>(path: &Path, rows: &[T]) -> io::Result<()> {
    crate::write_atomic_with(path, |file| {
        let mut w = csv_writer(file);
        for r in rows {
            w.serialize(r).map_err(io::Error::other)?;
        }
        w.flush()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Row {
        a: f64,
        b: Option<u32>,
    }

    #[test]
    fn json_floats_have_fixed_decimals_and_no_negative_zero() {
        let v = serde_json::json!({"x": 1.5, "y": -0.0, "z": 2.0 / 3.0});
        let text = String::from_utf8(json_fixed(&v).expect("text")).expect("utf-8");
        assert_eq!(
            text,
            "{\n  \"x\": 1.500000,\n  \"y\": 0.000000,\n  \"z\": 0.666667\n}"
        );
        assert_eq!(json_fixed(&f64::NAN).expect("text"), b"null");
    }

    #[test]
    fn csv_has_a_header_and_empty_cells_for_none() {
        let rows = [Row { a: 0.5, b: None }, Row { a: 2.0, b: Some(3) }];
        assert_eq!(csv_text(&rows).expect("text"), "a,b\n0.5,\n2.0,3\n");
    }

    #[test]
    fn a_written_csv_file_holds_the_same_text() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("rows.csv");
        let rows = [Row {
            a: 1.25,
            b: Some(7),
        }];
        write_csv(&path, &rows).expect("written");
        assert_eq!(
            std::fs::read_to_string(&path).expect("read"),
            csv_text(&rows).expect("text")
        );
    }
}
