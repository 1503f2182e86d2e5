//! Printing the results: an aligned text table, Markdown (the snapshot in
//! docs/eval-v2.md), CSV or JSON. Numbers are rounded to what the measures resolve, so
//! equal runs print equal bytes.

use std::fmt::Write as _;

use serde_json::{Value, json};

use super::verdict::{
    JAIN_TARGET, L4S_SOJOURN_P95_TARGET_MS, L4S_UTILISATION_TARGET, RECOVERY_TARGET_S,
    STALL_TARGET_S, STARVATION_TARGET_S, Tally, Verdict, Worst,
};
use super::{CaseMetrics, CaseOutcome, CaseResult, Recovery};

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Aligned plain text.
    Text,
    /// Markdown tables.
    Markdown,
    /// One CSV row per case (no summary).
    Csv,
    /// Cases and summary as one JSON document.
    Json,
}

/// The column headers of a case row.
const COLUMNS: [&str; 14] = [
    "link",
    "mode",
    "options",
    "tput Mbit/s",
    "util %",
    "sojourn p95 ms",
    "sojourn p99 ms",
    "frame p95 ms",
    "frame p99 ms",
    "lost frames",
    "stall s",
    "starve s",
    "recovery s",
    "Jain",
];

/// The column headers of the summary.
fn summary_columns() -> [String; 8] {
    [
        "options".to_owned(),
        format!("stall ≤ {STALL_TARGET_S} s"),
        format!("starvation ≤ {STARVATION_TARGET_S} s"),
        format!("recovery ≤ {RECOVERY_TARGET_S} s"),
        format!("Jain ≥ {JAIN_TARGET} (2x50M)"),
        format!(
            "L4S 100M: util ≥ {:.0} %, p95 ≤ {L4S_SOJOURN_P95_TARGET_MS} ms",
            L4S_UTILISATION_TARGET * 100.0
        ),
        "worst tput vs faithful".to_owned(),
        "worst sojourn p95 vs faithful".to_owned(),
    ]
}

/// How to regenerate the snapshot; printed at the top of the Markdown output.
pub const REGENERATE: &str = "scream eval v2 --format md > docs/eval-v2.md";

/// The results (and, except for CSV, the summary) in `format`.
pub fn render(results: &[CaseResult], verdicts: &[Verdict], format: Format) -> String {
    match format {
        Format::Text => text(results, verdicts),
        Format::Markdown => markdown(results, verdicts),
        Format::Csv => csv_rows(results),
        Format::Json => json_doc(results, verdicts),
    }
}

fn recovery_cell(r: Option<Recovery>) -> String {
    match r {
        None => "-".to_owned(),
        Some(r) if r.recovered => format!("{:.2}", r.secs),
        Some(r) => format!(">{:.2}", r.secs),
    }
}

fn metric_cells(m: &CaseMetrics) -> Vec<String> {
    vec![
        format!("{:.2}", m.throughput_mbps),
        format!("{:.1}", m.utilisation * 100.0),
        format!("{:.1}", m.sojourn_p95_ms),
        format!("{:.1}", m.sojourn_p99_ms),
        format!("{:.1}", m.frame_delay_p95_ms),
        format!("{:.1}", m.frame_delay_p99_ms),
        m.lost_frames.to_string(),
        format!("{:.2}", m.longest_stall_s),
        format!("{:.2}", m.longest_starvation_s),
        recovery_cell(m.recovery),
        m.jain.map_or_else(|| "-".to_owned(), |j| format!("{j:.3}")),
    ]
}

fn row_cells(r: &CaseResult) -> Vec<String> {
    let mut cells = vec![
        r.case.link.to_string(),
        r.case.mode.to_string(),
        r.case.options.to_string(),
    ];
    match &r.outcome {
        CaseOutcome::Done(m) => cells.extend(metric_cells(m)),
        CaseOutcome::Skipped(_) => {
            cells.extend(std::iter::repeat_n("skipped".to_owned(), COLUMNS.len() - 3))
        }
    }
    cells
}

fn tally(t: Tally) -> String {
    if t.of == 0 {
        "-".to_owned()
    } else {
        format!("{}/{}", t.met, t.of)
    }
}

fn worst(w: Option<&Worst>, percent: bool) -> String {
    match w {
        None => "-".to_owned(),
        Some(w) if percent => format!("{:+.1} % ({})", w.change * 100.0, w.case),
        Some(w) => format!("{:+.1} ms ({})", w.change, w.case),
    }
}

fn summary_cells(v: &Verdict) -> Vec<String> {
    vec![
        v.options.clone(),
        tally(v.stall),
        tally(v.starvation),
        tally(v.recovery),
        tally(v.jain_2x50),
        tally(v.l4s_100),
        worst(v.worst_throughput.as_ref(), true),
        worst(v.worst_sojourn_p95.as_ref(), false),
    ]
}

/// The skipped cases, one line each: `id: why`.
fn notes(results: &[CaseResult]) -> Vec<String> {
    results
        .iter()
        .filter_map(|r| match &r.outcome {
            CaseOutcome::Skipped(why) => Some(format!("{}: {why}", r.case.id())),
            CaseOutcome::Done(_) => None,
        })
        .collect()
}

/// Columns padded to equal width: the first `left` left-aligned (names), the rest
/// right-aligned (numbers).
pub(crate) fn aligned(header: &[String], rows: &[Vec<String>], left: usize) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: &[String]| {
        let mut s = String::new();
        for (i, (c, w)) in cells.iter().zip(&widths).enumerate() {
            let pad = w - c.chars().count();
            if i < left {
                s.push_str(c);
                s.push_str(&" ".repeat(pad));
            } else {
                s.push_str(&" ".repeat(pad));
                s.push_str(c);
            }
            s.push_str("  ");
        }
        s.truncate(s.trim_end().len());
        s.push('\n');
        s
    };
    let mut out = line(header);
    for row in rows {
        out.push_str(&line(row));
    }
    out
}

fn text(results: &[CaseResult], verdicts: &[Verdict]) -> String {
    let header: Vec<String> = COLUMNS.iter().map(|c| (*c).to_owned()).collect();
    let rows: Vec<Vec<String>> = results.iter().map(row_cells).collect();
    let mut out = aligned(&header, &rows, 3);
    out.push_str("\nsummary (cases meeting each target / cases it applies to)\n");
    let rows: Vec<Vec<String>> = verdicts.iter().map(summary_cells).collect();
    out.push_str(&aligned(&summary_columns(), &rows, 1));
    for n in notes(results) {
        let _ = writeln!(out, "note: skipped {n}");
    }
    out
}

fn md_line(cells: &[String]) -> String {
    format!("| {} |\n", cells.join(" | "))
}

pub(crate) fn md_table(header: &[String], rows: &[Vec<String>]) -> String {
    let mut out = md_line(header);
    out.push_str(&md_line(&vec!["---".to_owned(); header.len()]));
    for row in rows {
        out.push_str(&md_line(row));
    }
    out
}

/// One Markdown table row of a case, as it appears in the snapshot.
pub fn markdown_row(r: &CaseResult) -> String {
    md_line(&row_cells(r))
}

fn markdown(results: &[CaseResult], verdicts: &[Verdict]) -> String {
    let mut out = String::from("# SCReAM V2 evaluation matrix\n\n");
    let whole = super::matrix().len();
    // A filtered run must not pass for the whole matrix: say what it covers.
    let _ = if results.len() == whole {
        writeln!(
            out,
            "Generated with `{REGENERATE}` (recorded traces: `scream data fetch all`);\n\
             docs/evaluation.md defines the cases, the measures and the targets. {whole} \
             cases.\n"
        )
    } else {
        writeln!(
            out,
            "A selection of {} of the matrix's {whole} cases (`scream eval v2 --filter`); \
             `{REGENERATE}` gives the whole table, and docs/evaluation.md defines the cases, \
             the measures and the targets.\n",
            results.len()
        )
    };
    out.push_str("## Summary\n\nCases meeting each target / cases it applies to.\n\n");
    let rows: Vec<Vec<String>> = verdicts.iter().map(summary_cells).collect();
    out.push_str(&md_table(&summary_columns(), &rows));
    out.push_str("\n## Cases\n\n");
    let header: Vec<String> = COLUMNS.iter().map(|c| (*c).to_owned()).collect();
    let rows: Vec<Vec<String>> = results.iter().map(row_cells).collect();
    out.push_str(&md_table(&header, &rows));
    let notes = notes(results);
    if !notes.is_empty() {
        out.push_str("\nSkipped:\n\n");
        for n in notes {
            let _ = writeln!(out, "- {n}");
        }
    }
    out
}

fn csv_rows(results: &[CaseResult]) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header: Vec<String> = vec!["case".to_owned()];
    header.extend(COLUMNS.iter().map(|c| (*c).to_owned()));
    header.push("note".to_owned());
    // Writing CSV into memory cannot fail.
    let _ = w.write_record(&header);
    for r in results {
        let mut cells = vec![r.case.id()];
        cells.extend(row_cells(r));
        cells.push(match &r.outcome {
            CaseOutcome::Skipped(why) => why.clone(),
            CaseOutcome::Done(_) => String::new(),
        });
        let _ = w.write_record(&cells);
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}

/// Rounds every float in `v` to 6 decimals, as the time series does.
fn rounded(v: Value) -> Value {
    match v {
        Value::Number(n) if n.is_f64() => {
            let x = n.as_f64().unwrap_or(0.0);
            let r = (x * 1e6).round() / 1e6;
            json!(if r == 0.0 { 0.0 } else { r })
        }
        Value::Array(a) => Value::Array(a.into_iter().map(rounded).collect()),
        Value::Object(o) => Value::Object(o.into_iter().map(|(k, v)| (k, rounded(v))).collect()),
        other => other,
    }
}

fn json_doc(results: &[CaseResult], verdicts: &[Verdict]) -> String {
    let cases: Vec<Value> = results
        .iter()
        .map(|r| {
            let (metrics, skipped) = match &r.outcome {
                CaseOutcome::Done(m) => (serde_json::to_value(m).unwrap_or(Value::Null), None),
                CaseOutcome::Skipped(why) => (Value::Null, Some(why.clone())),
            };
            json!({
                "case": r.case.id(),
                "link": r.case.link.to_string(),
                "mode": r.case.mode.to_string(),
                "options": r.case.options.to_string(),
                "metrics": metrics,
                "skipped": skipped,
            })
        })
        .collect();
    let doc = json!({
        "cases": cases,
        "summary": serde_json::to_value(verdicts).unwrap_or(Value::Null),
    });
    let mut s = serde_json::to_string_pretty(&rounded(doc)).unwrap_or_default();
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::super::{Case, LinkCase, Mode, OptionSet, verdicts};
    use super::*;

    fn results() -> Vec<CaseResult> {
        let case = |options| Case {
            link: LinkCase::Outage,
            mode: Mode::Delay,
            options,
        };
        vec![
            CaseResult {
                case: case(OptionSet::faithful()),
                outcome: CaseOutcome::Done(CaseMetrics {
                    throughput_mbps: 12.345,
                    utilisation: 0.5,
                    sojourn_p95_ms: 1.0,
                    sojourn_p99_ms: 2.0,
                    frame_delay_p95_ms: 30.0,
                    frame_delay_p99_ms: 40.0,
                    lost_frames: 7,
                    longest_stall_s: 0.04,
                    longest_starvation_s: 0.0,
                    recovery: Some(Recovery {
                        secs: 1.5,
                        recovered: false,
                    }),
                    jain: None,
                }),
            },
            CaseResult {
                case: case(OptionSet::all()),
                outcome: CaseOutcome::Skipped("no such file x".to_owned()),
            },
        ]
    }

    #[test]
    fn every_format_shows_each_case_and_the_skip_note() {
        let r = results();
        let v = verdicts(&r);
        for format in [Format::Text, Format::Markdown, Format::Csv, Format::Json] {
            let out = render(&r, &v, format);
            assert!(out.contains("outage-20M"), "{format:?}: {out}");
            assert!(out.contains("12.35") || out.contains("12.345"), "{out}");
            assert!(out.contains("no such file x"), "{format:?}: {out}");
        }
        let md = render(&r, &v, Format::Markdown);
        assert!(md.contains(REGENERATE), "{md}");
        let selection = format!(
            "A selection of 2 of the matrix's {} cases",
            super::super::matrix().len()
        );
        assert!(md.contains(&selection), "{md}");
        assert!(md.contains(&markdown_row(&r[0])), "{md}");
        assert!(md.contains("| >1.50 | - |"), "{md}");
        let json: Value = serde_json::from_str(&render(&r, &v, Format::Json)).unwrap();
        assert_eq!(json["cases"][0]["metrics"]["lost_frames"], 7);
        assert_eq!(json["summary"][0]["recovery"]["of"], 1);
    }
}
