//! Reading the files back: a CSV file as rows whose cells are read by column name, and
//! timeseries.csv as [`Sample`]s. `scream compare` (in the lab) and `scream plot` (a
//! real run's figures) read run folders through here, so both accept the same files
//! and name a bad cell the same way.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::Sample;

/// A CSV file: its header and its rows, kept with the path for messages.
#[derive(Debug, Clone)]
pub struct CsvTable {
    path: PathBuf,
    header: csv::StringRecord,
    rows: Vec<csv::StringRecord>,
}

impl CsvTable {
    /// Reads the whole file; the error names the path.
    pub fn read(path: &Path) -> Result<Self, String> {
        let fail = |e: csv::Error| format!("{}: {e}", path.display());
        let mut r = csv::Reader::from_path(path).map_err(fail)?;
        let header = r.headers().map_err(fail)?.clone();
        let rows = r.records().collect::<Result<Vec<_>, _>>().map_err(fail)?;
        Ok(Self {
            path: path.to_path_buf(),
            header,
            rows,
        })
    }

    /// The rows, in file order.
    pub fn rows(&self) -> impl Iterator<Item = CsvRow<'_>> {
        self.rows.iter().map(|row| CsvRow { table: self, row })
    }
}

/// One row of a [`CsvTable`], its cells read by column name.
#[derive(Debug, Clone, Copy)]
pub struct CsvRow<'a> {
    table: &'a CsvTable,
    row: &'a csv::StringRecord,
}

impl<'a> CsvRow<'a> {
    /// The cell of column `col` as text (empty when the row is short); an error when
    /// the file has no such column.
    pub fn text(&self, col: &str) -> Result<&'a str, String> {
        let i = self
            .table
            .header
            .iter()
            .position(|h| h == col)
            .ok_or_else(|| format!("{}: no column {col}", self.table.path.display()))?;
        Ok(self.row.get(i).unwrap_or(""))
    }

    /// The cell as a number; `None` when empty.
    pub fn opt(&self, col: &str) -> Result<Option<f64>, String> {
        let t = self.text(col)?;
        if t.is_empty() {
            return Ok(None);
        }
        t.parse().map(Some).map_err(|_| {
            format!(
                "{}: {col} = `{t}` is not a number",
                self.table.path.display()
            )
        })
    }

    /// The cell as a number, 0 when empty.
    pub fn num(&self, col: &str) -> Result<f64, String> {
        Ok(self.opt(col)?.unwrap_or(0.0))
    }

    /// The cell as a count (0 when empty or negative).
    pub fn count(&self, col: &str) -> Result<u64, String> {
        Ok(self.num(col)?.max(0.0) as u64)
    }
}

/// A timeseries.csv (a real sender's or a simulated run's) as rows. Flow and stream
/// indices are numbered by first appearance of each (flow, stream) pair: the file does
/// not hold the simulator's own.
pub fn read_samples(path: &Path) -> Result<Vec<Sample>, String> {
    let table = CsvTable::read(path)?;
    let mut names: Vec<(Arc<str>, Arc<str>)> = Vec::new();
    table
        .rows()
        .map(|r| {
            let key = (r.text("flow")?, r.text("stream")?);
            let i = match names.iter().position(|(f, s)| (&**f, &**s) == key) {
                Some(i) => i,
                None => {
                    names.push((key.0.into(), key.1.into()));
                    names.len() - 1
                }
            };
            Ok(Sample {
                t_s: r.num("t_s")?,
                flow: names[i].0.clone(),
                stream: names[i].1.clone(),
                flow_index: i as u32,
                stream_index: i as u32,
                target_mbps: r.opt("target_mbps")?,
                tx_mbps: r.num("tx_mbps")?,
                rx_mbps: r.num("rx_mbps")?,
                acked_mbps: r.opt("acked_mbps")?,
                ref_window_bytes: r.opt("ref_window_bytes")?,
                bytes_in_flight: r.opt("bytes_in_flight")?,
                srtt_ms: r.opt("srtt_ms")?,
                est_queue_delay_ms: r.opt("est_queue_delay_ms")?,
                sojourn_ms: r.opt("sojourn_ms")?,
                rtp_queue_delay_ms: r.opt("rtp_queue_delay_ms")?,
                frame_size_bytes: r.opt("frame_size_bytes")?,
                rx_packets: r.count("rx_packets")?,
                ce_packets: r.count("ce_packets")?,
                ce_packets_total: r.count("ce_packets_total")?,
                lost_packets: r.count("lost_packets")?,
                lost_packets_total: r.count("lost_packets_total")?,
                capacity_mbps: r.opt("capacity_mbps")?.unwrap_or(f64::INFINITY),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_rows_read_back_and_a_bad_cell_is_named() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("timeseries.csv");
        let mut a = Sample::empty(0.02, Arc::from("video"), Arc::from("video"), 0);
        a.rx_mbps = 1.5;
        a.srtt_ms = Some(12.25);
        let mut b = Sample::empty(0.02, Arc::from("video"), Arc::from("audio"), 1);
        b.tx_mbps = 0.125;
        std::fs::write(&path, crate::timeseries_csv(&[a, b]).expect("csv")).expect("write");
        let back = read_samples(&path).expect("reads");
        assert_eq!(back.len(), 2);
        assert_eq!((back[0].rx_mbps, back[0].srtt_ms), (1.5, Some(12.25)));
        assert_eq!((&*back[1].stream, back[1].stream_index), ("audio", 1));
        assert_eq!(back[1].tx_mbps, 0.125);

        std::fs::write(&path, "t_s,flow,stream\nx,a,a\n").expect("write");
        let e = read_samples(&path).unwrap_err();
        assert!(e.contains("t_s = `x` is not a number"), "{e}");
        std::fs::write(&path, "t_s,flow\n1,a\n").expect("write");
        let e = read_samples(&path).unwrap_err();
        assert!(e.contains("no column stream"), "{e}");
    }
}
