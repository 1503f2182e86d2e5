//! Printing an evaluation on drawn links: Markdown (the snapshot docs/eval-robust.md),
//! aligned text, one CSV row per run, or one JSON document with everything. Numbers are
//! rounded to what the measures resolve, so equal runs print equal bytes.

use std::fmt::Write as _;

use serde_json::json;

use super::aggregate::{ClassRow, MEASURES, Safety, SeedSafety, Spread};
use super::classes::ConditionClass;
use super::{RobustReport, SNAPSHOT_SEED};
use crate::eval::table::{aligned, md_table};
use crate::eval::{Format, OptionSet};

/// How to regenerate the snapshot; printed at the top of the Markdown output.
pub const REGENERATE: &str = "scream eval robust --seed 1 --format md > docs/eval-robust.md";

/// Up to this many option sets (faithful included), text and Markdown show each set's
/// change against faithful class by class, and every set's spreads. Beyond it, one
/// verdict line per set, and spreads only for faithful and the sets that are safe.
pub const FULL_TABLES_UP_TO: usize = 10;

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
    table(&header, &cells, md)
}

fn table(header: &[String], rows: &[Vec<String>], md: bool) -> String {
    if md {
        md_table(header, rows)
    } else {
        aligned(header, rows, 1)
    }
}

fn list(values: impl IntoIterator<Item = impl ToString>) -> String {
    values
        .into_iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn tables(report: &RobustReport, md: bool) -> String {
    let cfg = &report.config;
    let full = cfg.option_sets.len() <= FULL_TABLES_UP_TO;
    let mut out = String::new();
    let h = |level: usize, title: &str| {
        if md {
            format!("{} {title}\n\n", "#".repeat(level))
        } else {
            format!("{title}\n\n")
        }
    };
    out.push_str(&h(1, "SCReAM V2 on drawn links"));
    let classes = list(cfg.classes.iter().map(|c| c.name()));
    if cfg.pooled() {
        let _ = writeln!(
            out,
            "Draw seeds {} pooled: {} draws per class from each, {} per class ({classes}), \
             {} option sets: {} runs. Draw ids carry their seed (`class/sSEED/index`). \
             docs/evaluation.md defines the classes, the measures and the safety rule.",
            list(&cfg.draw_seeds),
            cfg.draws,
            cfg.draws as usize * cfg.draw_seeds.len(),
            cfg.option_sets.len(),
            report.runs.len()
        );
    } else {
        let _ = writeln!(
            out,
            "Draw seed {}, {} draws per class ({classes}), {} option sets: {} runs. \
             docs/evaluation.md defines the classes, the measures and the safety rule.",
            list(&cfg.draw_seeds),
            cfg.draws,
            cfg.option_sets.len(),
            report.runs.len()
        );
    }
    if cfg.draw_seeds == [SNAPSHOT_SEED] {
        let _ = writeln!(out, "Regenerate with `{REGENERATE}`.");
    }
    out.push('\n');
    out.push_str(&h(2, "Against faithful"));
    if full {
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
        out.push_str(&table(&header, &rows, md));
    } else {
        let safe = report.safety.iter().filter(|s| s.safe).count();
        let _ = writeln!(
            out,
            "{safe} of {} option sets are safe: in no class does the median throughput \
             fall by more than 5 %, a median p99 rise by more than max(5 ms, 10 %), or a \
             flow starve on a draw where faithful's does not. The CSV and JSON output \
             carry each class's figures.\n",
            report.safety.len()
        );
        let header = ["options".to_owned(), "verdict".to_owned()];
        let rows: Vec<Vec<String>> = report
            .safety
            .iter()
            .map(|s| vec![s.options.clone(), verdict_cell(s)])
            .collect();
        out.push_str(&table(&header, &rows, md));
    }
    out.push('\n');
    if !report.per_seed.is_empty() {
        out.push_str(&h(2, "Each seed alone"));
        out.push_str("The same rule on the draws of one seed at a time.\n\n");
        out.push_str(&seed_table(&report.per_seed, md));
        out.push('\n');
    }
    out.push_str(&h(2, "Classes"));
    out.push_str("Each cell: median / p90 / worst over the class's draws.");
    let faithful = OptionSet::faithful().to_string();
    let shown: Vec<&str> = std::iter::once(faithful.as_str())
        .chain(
            report
                .safety
                .iter()
                .filter(|s| full || s.safe)
                .map(|s| s.options.as_str()),
        )
        .collect();
    if !full {
        let _ = write!(
            out,
            " With {} option sets, only faithful and the {} safe ones are shown; the CSV \
             and JSON output carry every set.",
            cfg.option_sets.len(),
            shown.len() - 1
        );
    }
    out.push_str("\n\n");
    for &class in &cfg.classes {
        out.push_str(&h(3, class.name()));
        let rows: Vec<&ClassRow> = report
            .rows
            .iter()
            .filter(|r| r.class == class && shown.contains(&r.options.as_str()))
            .collect();
        out.push_str(&class_table(&rows, md));
        out.push('\n');
    }
    out.push_str(&h(2, "Draws"));
    for d in &report.draws {
        let _ = writeln!(
            out,
            "- `{}` (seed {}): {}",
            cfg.draw_id(d),
            d.seed,
            d.describe()
        );
    }
    let errors: Vec<String> = report
        .runs
        .iter()
        .filter_map(|r| {
            let e = r.outcome.as_ref().err()?;
            Some(format!(
                "- {} {}: {e}",
                cfg.draw_id(&report.draws[r.draw]),
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

/// One row per option set, one verdict column per seed.
fn seed_table(per_seed: &[SeedSafety], md: bool) -> String {
    let mut header = vec!["options".to_owned()];
    header.extend(per_seed.iter().map(|s| format!("seed {}", s.draw_seed)));
    let sets = per_seed.first().map_or(0, |s| s.safety.len());
    let rows: Vec<Vec<String>> = (0..sets)
        .map(|i| {
            let mut c = vec![per_seed[0].safety[i].options.clone()];
            c.extend(per_seed.iter().map(|s| verdict_cell(&s.safety[i])));
            c
        })
        .collect();
    table(&header, &rows, md)
}

fn csv_rows(report: &RobustReport) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header: Vec<String> = ["class", "draw seed", "draw", "seed", "mode", "options"]
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
            d.draw_seed.to_string(),
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
            let id = cfg.draw_id(&report.draws[r.draw]);
            match &r.outcome {
                Ok(m) => json!({"draw": id, "options": r.options.to_string(), "metrics": m}),
                Err(e) => json!({"draw": id, "options": r.options.to_string(), "error": e}),
            }
        })
        .collect();
    let doc = json!({
        "draw_seed": if cfg.pooled() { None } else { cfg.draw_seeds.first() },
        "draw_seeds": cfg.draw_seeds,
        "draws_per_seed": cfg.draws,
        "draws_per_class": cfg.draws as usize * cfg.draw_seeds.len(),
        "classes": cfg.classes,
        "option_sets": cfg.option_sets.iter().map(ToString::to_string).collect::<Vec<_>>(),
        "measures": MEASURES.iter().map(|m| m.name).collect::<Vec<_>>(),
        "draws": report.draws,
        "runs": runs,
        "classes_summary": report.rows,
        "safety": report.safety,
        "safety_per_seed": report.per_seed,
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
}

#[cfg(test)]
mod tests {
    use scream::sender::Improvements;

    use super::super::aggregate::{RunRecord, class_rows, safety};
    use super::super::{RobustConfig, RunMetrics};
    use super::*;

    /// Every subset on one draw, made up: the sets with the first improvement in them
    /// add 100 ms to the frame delay, the others change nothing.
    fn subsets_report() -> RobustReport {
        let first = Improvements::names()[0];
        let mut config = RobustConfig::new(5);
        config.draws = 1;
        config.classes = vec![ConditionClass::SuddenDrop];
        config.option_sets = OptionSet::select(&["subsets"]).unwrap();
        let draws = config.draws();
        let base = RunMetrics {
            throughput_mbps: 5.0,
            utilisation: 0.5,
            sojourn_p95_ms: 10.0,
            sojourn_p99_ms: 20.0,
            frame_p95_ms: 50.0,
            frame_p99_ms: 80.0,
            late_frames: 0,
            lost_frames: 0,
            silence_s: 0.0,
            starvation_s: 0.0,
            recovery_s: Some(0.2),
            regrowth_s: Some(0.7),
            jain: None,
        };
        let runs: Vec<RunRecord> = config
            .option_sets
            .iter()
            .map(|&options| {
                let mut m = base;
                if options.enabled().contains(&first) {
                    m.frame_p99_ms += 100.0;
                }
                RunRecord {
                    draw: 0,
                    options,
                    outcome: Ok(m),
                }
            })
            .collect();
        let rows = class_rows(&runs, &draws, &config.classes, &config.option_sets);
        let safety = safety(&runs, &draws, &config.classes, &config.option_sets);
        RobustReport {
            config,
            draws,
            runs,
            rows,
            safety,
            per_seed: Vec::new(),
        }
    }

    #[test]
    fn many_sets_get_a_verdict_line_each_and_spreads_for_the_safe_ones() {
        let report = subsets_report();
        let n = Improvements::names().len();
        let sets = report.config.option_sets.len();
        assert_eq!(sets, 1 << n);
        assert!(sets > FULL_TABLES_UP_TO);
        let unsafe_sets = 1 << (n - 1);
        let safe_sets = sets - 1 - unsafe_sets;
        for md in [true, false] {
            let out = tables(&report, md);
            let (verdicts, rest) = out.split_once("Classes\n").expect("a classes part");
            let (classes, _) = rest.split_once("Draws\n").expect("a draws part");
            let table_lines = |text: &str| {
                text.lines()
                    .map(|l| l.trim_end().trim_end_matches('|').trim_end())
                    .filter(|l| l.ends_with(" safe") || l.contains("unsafe ("))
                    .count()
            };
            assert_eq!(table_lines(verdicts), sets - 1, "{verdicts}");
            assert!(
                verdicts.contains(&format!("{safe_sets} of {} option sets are safe", sets - 1))
            );
            assert_eq!(
                verdicts
                    .matches("unsafe (sudden-drop: frame delay p99 +100.0 ms)")
                    .count(),
                unsafe_sets
            );
            // Faithful and the safe sets only, each with its spreads.
            let rows = classes
                .lines()
                .filter(|l| l.contains("5.00 / 5.00 / 5.00"))
                .count();
            assert_eq!(rows, 1 + safe_sets, "{classes}");
            assert!(classes.contains(&format!("only faithful and the {safe_sets} safe ones")));
            let all = OptionSet::all().to_string();
            assert!(
                !classes
                    .lines()
                    .any(|l| l.starts_with(&format!("| {all} |"))
                        || l.starts_with(&format!("{all} "))),
                "{classes}"
            );
        }
        // CSV keeps every run.
        let csv = render(&report, Format::Csv);
        assert_eq!(csv.lines().count(), 1 + sets);
    }

    #[test]
    fn few_sets_keep_the_class_by_class_table() {
        let mut report = subsets_report();
        report.config.option_sets.truncate(3);
        let keep = &report.config.option_sets;
        report.runs.retain(|r| keep.contains(&r.options));
        report
            .rows
            .retain(|r| keep.iter().any(|o| o.to_string() == r.options));
        report
            .safety
            .retain(|s| keep.iter().any(|o| o.to_string() == s.options));
        let out = tables(&report, true);
        assert!(out.contains("| options | sudden-drop | verdict |"), "{out}");
        assert!(out.contains("+0.0 % · +0.0 · +100.0 · 0 ✗"), "{out}");
        assert!(!out.contains("option sets are safe"));
    }
}
