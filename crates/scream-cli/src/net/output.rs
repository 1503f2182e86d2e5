//! The files of a real run: the simulator's timeseries.csv and links.csv rows, a
//! summary.json of the run's own shape, and the simulator's plots (the rows and
//! writers of scream-records, the figures of scream-plot).

use std::io::Write;
use std::path::{Path, PathBuf};

use scream_plot::{PlotInput, write_plots};
use scream_records::{DECIMALS, LinkSample, Sample, csv_text, timeseries_csv};

/// What a real run writes.
pub(super) struct RunFiles<'a> {
    /// Shown in plot titles.
    pub(super) title: &'a str,
    /// timeseries.csv rows (none: no file, no plots).
    pub(super) samples: &'a [Sample],
    /// links.csv rows (none: no file).
    pub(super) link_samples: &'a [LinkSample],
    /// summary.json.
    pub(super) summary: serde_json::Value,
    /// Highest target bitrate of the stream, Mbit/s, drawn in the overview.
    pub(super) max_bitrate_mbps: Option<f64>,
    /// Skip the PNG/SVG plots.
    pub(super) no_plots: bool,
}

/// Through the outputs' atomic writer, so that a run stopped or starved of disk
/// space mid-write never leaves a truncated file that looks complete.
fn write(path: PathBuf, bytes: &[u8], written: &mut Vec<PathBuf>) -> Result<(), String> {
    scream_records::write_atomic(&path, bytes)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    written.push(path);
    Ok(())
}

/// Writes the run's files into `dir` (created if missing); returns them.
pub(super) fn write_run(dir: &Path, run: &RunFiles<'_>) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut written = Vec::new();
    let json = serde_json::to_vec_pretty(&run.summary).map_err(|e| e.to_string())?;
    write(dir.join("summary.json"), &json, &mut written)?;
    if !run.samples.is_empty() {
        let csv = timeseries_csv(run.samples).map_err(|e| e.to_string())?;
        write(dir.join("timeseries.csv"), csv.as_bytes(), &mut written)?;
    }
    if !run.link_samples.is_empty() {
        let csv = csv_text(run.link_samples).map_err(|e| e.to_string())?;
        write(dir.join("links.csv"), csv.as_bytes(), &mut written)?;
    }
    if !run.samples.is_empty() && !run.no_plots {
        let max = run.max_bitrate_mbps.map(|m| vec![m]).unwrap_or_default();
        let footer = format!(
            "real run: {} · scream {}",
            run.title,
            env!("CARGO_PKG_VERSION")
        );
        let input = PlotInput {
            scenario_name: run.title,
            samples: run.samples,
            footer: &footer,
            max_bitrate_mbps: &max,
            cdfs: &[],
        };
        written.extend(write_plots(&input, dir).map_err(|e| e.to_string())?);
    }
    Ok(written)
}

/// Creates `dir` if missing and proves that a file can be written in it, so that a bad
/// `--out` fails before the run rather than after it.
pub(super) fn check_writable(dir: &Path) -> Result<(), String> {
    let shown = dir.display();
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("--out {shown}: cannot create the folder: {e}"))?;
    // Named after the process, so that two runs into one folder do not trip over each
    // other's probe.
    let probe = dir.join(format!(".scream-write-check-{}", std::process::id()));
    let written = std::fs::File::create(&probe)
        .and_then(|mut f| f.write_all(b"probe\n").and_then(|()| f.sync_all()));
    let removed = std::fs::remove_file(&probe);
    written.map_err(|e| format!("--out {shown}: cannot write a file in the folder: {e}"))?;
    removed.map_err(|e| format!("--out {shown}: cannot remove a file from the folder: {e}"))
}

/// Rounds every float in `v` to the simulator's [`DECIMALS`], so that a real run's
/// summary.json reads like a simulated one's (`30.000117`, not `30.000116956000003`).
/// Integers (counters) stay exact.
pub(super) fn round_floats(v: &mut serde_json::Value) {
    use serde_json::Value;
    match v {
        Value::Number(n) if n.is_f64() => {
            let scale = 10f64.powi(i32::try_from(DECIMALS).unwrap_or(6));
            let x = n.as_f64().unwrap_or(0.0);
            let r = (x * scale).round() / scale;
            // So large that scaling overflows: it has no decimals to drop.
            let r = if r.is_finite() { r } else { x };
            // -0.0 and 0.0 must read alike.
            let r = if r == 0.0 { 0.0 } else { r };
            if let Some(m) = serde_json::Number::from_f64(r) {
                *n = m;
            }
        }
        Value::Array(a) => a.iter_mut().for_each(round_floats),
        Value::Object(o) => o.values_mut().for_each(round_floats),
        _ => {}
    }
}

/// Time-series rows kept for the outputs: a run without an end (a service) would
/// otherwise grow them without bound.
#[derive(Debug)]
pub(super) struct Series<T> {
    rows: Vec<T>,
    /// Rows not kept past the cap.
    dropped: u64,
}

impl<T> Series<T> {
    /// Rows kept at most: a million rows of about 250 bytes, a quarter of a GB; at the
    /// default 50 ms that is about 14 h of one sender (7 h of a link, with two rows per
    /// sample). Longer services can sample less often.
    pub(super) const MAX_ROWS: usize = 1_000_000;

    pub(super) fn new() -> Self {
        Self {
            rows: Vec::new(),
            dropped: 0,
        }
    }

    /// Keeps `row` while there is room; says once on stderr when there is none.
    pub(super) fn push(&mut self, row: T) {
        if self.rows.len() < Self::MAX_ROWS {
            self.rows.push(row);
            return;
        }
        if self.dropped == 0 {
            super::warning(&format!(
                "the time series is full ({} rows); later rows are not kept, the summary \
                 still counts everything (sample less often with --sample-interval-ms)",
                Self::MAX_ROWS
            ));
        }
        self.dropped += 1;
    }

    /// The rows kept.
    pub(super) fn rows(&self) -> &[T] {
        &self.rows
    }

    /// How many rows were not kept.
    pub(super) fn dropped(&self) -> u64 {
        self.dropped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The longest run of digits after a decimal point in `text`.
    fn most_decimals(text: &str) -> usize {
        text.split('.')
            .skip(1)
            .map(|rest| rest.chars().take_while(char::is_ascii_digit).count())
            .max()
            .unwrap_or(0)
    }

    #[test]
    fn summary_floats_keep_at_most_six_decimals_and_counters_stay_exact() {
        let mut v = serde_json::json!({
            "duration_s": 30.000116956000003,
            "packets": 18_446_744_073_709_551_615u64,
            "tiny": -0.000_000_1,
            "nested": [{"p95": 1.234_567_89}, null],
            "started_unix_s": 1_795_694_886.332_781_5,
        });
        round_floats(&mut v);
        assert_eq!(v["duration_s"], 30.000117);
        assert_eq!(v["packets"], u64::MAX);
        assert_eq!(v["nested"][0]["p95"], 1.234568);
        let text = serde_json::to_string_pretty(&v).unwrap();
        assert!(!text.contains("-0"), "{text}");
        assert!(most_decimals(&text) <= DECIMALS, "{text}");
    }

    #[test]
    fn a_series_keeps_its_first_rows_up_to_the_cap_and_counts_the_rest() {
        let mut s = Series::new();
        for i in 0..Series::<u32>::MAX_ROWS + 5 {
            s.push(u32::try_from(i).unwrap());
        }
        assert_eq!(s.rows().len(), Series::<u32>::MAX_ROWS);
        assert_eq!(s.rows()[0], 0);
        assert_eq!(s.dropped(), 5);
    }

    #[test]
    fn an_out_folder_under_a_file_is_refused_before_anything_is_written() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("a-file");
        std::fs::write(&file, "x").unwrap();
        let e = check_writable(&file.join("run")).unwrap_err();
        assert!(
            e.starts_with("--out ") && e.contains("cannot create"),
            "{e}"
        );
        let fine = tmp.path().join("new/run");
        check_writable(&fine).unwrap();
        assert_eq!(
            std::fs::read_dir(&fine).unwrap().count(),
            0,
            "no probe left"
        );
    }
}
