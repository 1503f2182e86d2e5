//! Printing an evaluation on drawn links: Markdown (the snapshot docs/eval-robust.md),
//! aligned text, one CSV row per run, or one JSON document with everything. Numbers are
//! rounded to what the measures resolve, so equal runs print equal bytes.

use std::fmt::Write as _;

use serde_json::json;

use super::aggregate::{ClassRow, MEASURES, Safety, Spread};
use super::classes::ConditionClass;
use super::{RobustReport, SNAPSHOT_SEED};
use crate::eval::Format;
use crate::eval::table::{aligned, md_table};

/// How to regenerate the snapshot; printed at the top of the Markdown output.
pub const REGENERATE: &str = "scream eval robust --seed 1 --format md > docs/eval-robust.md";

/// The report in `format` (text and Markdown carry the same tables).
pub fn render(report: &RobustReport, format: Format) -> String {
    match format {
        Format::Text | Format::Markdown => tables(report, format == Format::Markdown),
        Format::Csv => csv_rows(report),
        Format::Json => json_doc(report),
    }
}

fn number(x: f64) -> String {
    match x.abs() {
        a if a >= 100.0 => format!("{x:.0}"),
        a if a >= 10.0 => format!("{x:.1}"),
        _ => format!("{x:.2}"),
    }
}

fn spread_cell(s: Option<&Spread>) -> String {
    s.map_or_else(
        || "-".to_owned(),
        |s| {
            format!(
                "{} / {} / {}",
                number(s.median),
                number(s.p90),
                number(s.worst)
            )
        },
    )
}

fn delta_cell(s: &Safety, class: ConditionClass) -> String {
    let Some(d) = s.classes.iter().find(|d| d.class == class) else {
        return "-".to_owned();
    };
    let mark = if d.unsafe_because.is_empty() {
        ""
    } else {
        " ✗"
    };
    format!(
        "{:+.1} % · {:+.1} · {:+.1} · {}{mark}",
        d.throughput_change * 100.0,
        d.sojourn_p99_change_ms,
        d.frame_p99_change_ms,
        d.new_starvations
    )
}

fn verdict_cell(s: &Safety) -> String {
    if s.safe {
        return "safe".to_owned();
    }
    let why: Vec<String> = s
        .classes
        .iter()
        .filter(|d| !d.unsafe_because.is_empty())
        .map(|d| format!("{}: {}", d.class, d.unsafe_because.join(", ")))
        .collect();
    format!("unsafe ({})", why.join("; "))
}

fn class_table(rows: &[&ClassRow], md: bool) -> String {
    let mut header = vec!["options".to_owned()];
    header.extend(MEASURES.iter().map(|m| m.name.to_owned()));
    header.push("starved runs".to_owned());
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let mut c = vec![r.options.clone()];
            c.extend(r.spreads.iter().map(|s| spread_cell(s.as_ref())));
            c.push(format!("{}/{}", r.starved_runs, r.runs));
            c
        })
        .collect();
    if md {
        md_table(&header, &cells)
    } else {
        aligned(&header, &cells, 1)
    }
}

fn tables(report: &RobustReport, md: bool) -> String {
    let cfg = &report.config;
    let mut out = String::new();
    let h = |level: usize, title: &str| {
        if md {
            format!("{} {title}\n\n", "#".repeat(level))
        } else {
            format!("{title}\n\n")
        }
    };
    out.push_str(&h(1, "SCReAM V2 on drawn links"));
    let classes: Vec<&str> = cfg.classes.iter().map(|c| c.name()).collect();
    let _ = writeln!(
        out,
        "Draw seed {}, {} draws per class ({}), {} option sets: {} runs. \
         docs/evaluation.md defines the classes, the measures and the safety rule.",
        cfg.draw_seed,
        cfg.draws,
        classes.join(", "),
        cfg.option_sets.len(),
        report.runs.len()
    );
    if cfg.draw_seed == SNAPSHOT_SEED {
        let _ = writeln!(out, "Regenerate with `{REGENERATE}`.");
    }
    out.push('\n');
    out.push_str(&h(2, "Against faithful"));
    out.push_str(
        "Per class: median throughput change · median sojourn p99 change (ms) · median \
         frame-delay p99 change (ms) · draws where a flow starved and faithful's did not; \
         ✗ breaks the safety rule (throughput -5 %, p99 +max(5 ms, 10 %), any new \
         starvation).\n\n",
    );
    let mut header = vec!["options".to_owned()];
    header.extend(cfg.classes.iter().map(|c| c.name().to_owned()));
    header.push("verdict".to_owned());
    let rows: Vec<Vec<String>> = report
        .safety
        .iter()
        .map(|s| {
            let mut c = vec![s.options.clone()];
            c.extend(cfg.classes.iter().map(|&k| delta_cell(s, k)));
            c.push(verdict_cell(s));
            c
        })
        .collect();
    out.push_str(&if md {
        md_table(&header, &rows)
    } else {
        aligned(&header, &rows, 1)
    });
    out.push('\n');
    out.push_str(&h(2, "Classes"));
    out.push_str("Each cell: median / p90 / worst over the class's draws.\n\n");
    for &class in &cfg.classes {
        out.push_str(&h(3, class.name()));
        let rows: Vec<&ClassRow> = report.rows.iter().filter(|r| r.class == class).collect();
        out.push_str(&class_table(&rows, md));
        out.push('\n');
    }
    out.push_str(&h(2, "Draws"));
    for d in &report.draws {
        let _ = writeln!(out, "- `{}` (seed {}): {}", d.id(), d.seed, d.describe());
    }
    let errors: Vec<String> = report
        .runs
        .iter()
        .filter_map(|r| {
            let e = r.outcome.as_ref().err()?;
            Some(format!(
                "- {} {}: {e}",
                report.draws[r.draw].id(),
                r.options
            ))
        })
        .collect();
    if !errors.is_empty() {
        out.push('\n');
        out.push_str(&h(2, "Runs that failed"));
        for e in errors {
            let _ = writeln!(out, "{e}");
        }
    }
    out
}

fn csv_rows(report: &RobustReport) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header: Vec<String> = ["class", "draw", "seed", "mode", "options"]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    header.extend(MEASURES.iter().map(|m| m.name.to_owned()));
    header.extend(["lost frames", "link", "error"].map(str::to_owned));
    let _ = w.write_record(&header);
    for r in &report.runs {
        let d = &report.draws[r.draw];
        let mut row = vec![
            d.class.to_string(),
            d.index.to_string(),
            d.seed.to_string(),
            d.mode.to_string(),
            r.options.to_string(),
        ];
        match &r.outcome {
            Ok(m) => {
                row.extend(
                    MEASURES
                        .iter()
                        .map(|x| x.of(m).map_or(String::new(), number)),
                );
                row.push(m.lost_frames.to_string());
                row.push(d.describe());
                row.push(String::new());
            }
            Err(e) => {
                row.extend(std::iter::repeat_n(String::new(), MEASURES.len() + 1));
                row.push(d.describe());
                row.push(e.clone());
            }
        }
        let _ = w.write_record(&row);
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}

fn json_doc(report: &RobustReport) -> String {
    let cfg = &report.config;
    let runs: Vec<serde_json::Value> = report
        .runs
        .iter()
        .map(|r| {
            let id = report.draws[r.draw].id();
            match &r.outcome {
                Ok(m) => json!({"draw": id, "options": r.options.to_string(), "metrics": m}),
                Err(e) => json!({"draw": id, "options": r.options.to_string(), "error": e}),
            }
        })
        .collect();
    let doc = json!({
        "draw_seed": cfg.draw_seed,
        "draws_per_class": cfg.draws,
        "classes": cfg.classes,
        "option_sets": cfg.option_sets.iter().map(ToString::to_string).collect::<Vec<_>>(),
        "measures": MEASURES.iter().map(|m| m.name).collect::<Vec<_>>(),
        "draws": report.draws,
        "runs": runs,
        "classes_summary": report.rows,
        "safety": report.safety,
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
}
