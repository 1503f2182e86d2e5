//! The comparison table: per run and flow, the headline metrics of its summary.json,
//! copied as they are (never recomputed), printed and written as compare.csv and
//! compare.md.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::Value;

/// The table's metric columns: CSV header and where the value sits in a flow of
/// summary.json (a JSON pointer).
pub const METRICS: [(&str, &str); 8] = [
    ("throughput_mbps", "/throughput_mbps"),
    ("target_mean_mbps", "/target_bitrate_mbps/mean"),
    ("queue_delay_p50_ms", "/queue_delay_ms/p50"),
    ("queue_delay_p95_ms", "/queue_delay_ms/p95"),
    ("srtt_mean_ms", "/srtt_ms/mean"),
    ("srtt_p95_ms", "/srtt_ms/p95"),
    ("loss_ratio", "/loss_ratio"),
    ("ce_ratio", "/ce_ratio"),
];

/// Index of the queue delay p95 in [`METRICS`], for the throughput–delay chart.
pub(super) const P95_DELAY: usize = 3;
/// Index of the throughput in [`METRICS`].
pub(super) const THROUGHPUT: usize = 0;

/// One row: a flow of one run.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The run's label.
    pub run: String,
    /// The flow's name (`flow <i>` where the summary names none).
    pub flow: String,
    /// The run's simulated (or real) duration, s.
    pub duration_s: Option<f64>,
    /// In the order of [`METRICS`]; `None` where the summary has no such value (a real
    /// run's summary lacks some).
    pub metrics: Vec<Option<f64>>,
}

/// The rows of one run's summary.json (`path`, for messages), labelled `run`.
pub(super) fn rows(run: &str, summary: &Value, path: &Path) -> Result<Vec<Row>, String> {
    let flows = summary["flows"].as_array().ok_or_else(|| {
        format!(
            "{}: no `flows` list, so it is not a run's summary",
            path.display()
        )
    })?;
    Ok(flows
        .iter()
        .enumerate()
        .map(|(i, flow)| Row {
            run: run.to_owned(),
            flow: flow["name"]
                .as_str()
                .map_or_else(|| format!("flow {i}"), str::to_owned),
            duration_s: summary["duration_s"].as_f64(),
            metrics: METRICS
                .iter()
                .map(|(_, pointer)| flow.pointer(pointer).and_then(Value::as_f64))
                .collect(),
        })
        .collect())
}

fn header() -> Vec<&'static str> {
    let mut h = vec!["run", "flow", "duration_s"];
    h.extend(METRICS.iter().map(|(name, _)| *name));
    h
}

/// The rows as CSV, every value exactly as summary.json has it (an absent one empty).
pub fn csv(rows: &[Row]) -> Result<String, String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(header()).map_err(|e| e.to_string())?;
    let cell = |v: Option<f64>| v.map_or_else(String::new, |v| v.to_string());
    for r in rows {
        let mut record = vec![r.run.clone(), r.flow.clone(), cell(r.duration_s)];
        record.extend(r.metrics.iter().map(|v| cell(*v)));
        w.write_record(&record).map_err(|e| e.to_string())?;
    }
    let bytes = w.into_inner().map_err(|e| e.to_string())?;
    String::from_utf8(bytes).map_err(|e| e.to_string())
}

/// A value rounded for reading: ratios as %, the rest to what a reader compares.
fn shown(name: &str, v: Option<f64>) -> String {
    match v {
        None => "-".to_owned(),
        Some(v) if name.ends_with("_ratio") => format!("{:.2} %", 100.0 * v),
        Some(v) if v.abs() >= 100.0 => format!("{v:.0}"),
        Some(v) => format!("{v:.2}"),
    }
}

fn cells(r: &Row) -> Vec<String> {
    let mut c = vec![
        r.run.clone(),
        r.flow.clone(),
        shown("duration_s", r.duration_s),
    ];
    c.extend(
        METRICS
            .iter()
            .zip(&r.metrics)
            .map(|((name, _), v)| shown(name, *v)),
    );
    c
}

/// The rows as a Markdown table, rounded for reading (compare.csv keeps every digit).
pub fn markdown(rows: &[Row]) -> String {
    let header = header();
    let mut out = format!("| {} |\n", header.join(" | "));
    let _ = writeln!(out, "|{}", "---|".repeat(header.len()));
    for r in rows {
        let _ = writeln!(out, "| {} |", cells(r).join(" | "));
    }
    out
}

/// The rows as an aligned plain-text table for the terminal.
pub fn text(rows: &[Row]) -> String {
    let header: Vec<String> = header().iter().map(|h| (*h).to_owned()).collect();
    let body: Vec<Vec<String>> = rows.iter().map(cells).collect();
    let widths: Vec<usize> = (0..header.len())
        .map(|i| {
            std::iter::once(&header)
                .chain(&body)
                .map(|r| r[i].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for r in std::iter::once(&header).chain(&body) {
        let line: Vec<String> = r
            .iter()
            .zip(&widths)
            .enumerate()
            // Names left, numbers right.
            .map(|(i, (c, w))| {
                if i < 2 {
                    format!("{c:<w$}")
                } else {
                    format!("{c:>w$}")
                }
            })
            .collect();
        let _ = writeln!(out, "{}", line.join("  ").trim_end());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_read_by_pointer_and_absent_ones_stay_empty() {
        let summary = serde_json::json!({
            "duration_s": 2.0,
            "flows": [{"name": "video", "throughput_mbps": 1.25,
                       "queue_delay_ms": {"p50": 3.0, "p95": 7.5}, "loss_ratio": 0.01}]
        });
        let rows = rows("a", &summary, Path::new("s.json")).expect("rows");
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].metrics[THROUGHPUT], Some(1.25));
        assert_eq!(rows[0].metrics[P95_DELAY], Some(7.5));
        assert_eq!(rows[0].metrics[1], None);
        let csv = csv(&rows).expect("csv");
        assert_eq!(
            csv.lines().nth(1),
            Some("a,video,2,1.25,,3,7.5,,,0.01,"),
            "{csv}"
        );
        assert!(markdown(&rows).contains("| a | video | 2.00 | 1.25 | - |"));
        assert!(text(&rows).contains("1.00 %"));
    }

    #[test]
    fn a_summary_without_flows_is_refused_by_name() {
        let e = rows("a", &serde_json::json!({}), Path::new("x/summary.json")).unwrap_err();
        assert!(e.contains("x/summary.json") && e.contains("flows"), "{e}");
    }
}
