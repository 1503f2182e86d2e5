//! report.md of a suite run: the verdict matrix, then per case its criteria, a table of
//! every cell, the algorithms side by side and the figures of each cell.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::cases::SuiteCase;
use super::execute::{CellOutcome, CellResult, FIGURES};
use super::measure::CellMetrics;
use super::verdict::judge;

/// The report's file name in the output folder.
pub const REPORT_MD: &str = "report.md";

/// The verdict of a cell as the tables write it.
pub fn verdict_text(case: &SuiteCase, outcome: &CellOutcome) -> String {
    match outcome {
        CellOutcome::Done(m) => judge(m, case.facts.criteria).to_string(),
        CellOutcome::Error(_) => "error".to_owned(),
    }
}

fn description(case: &SuiteCase) -> String {
    case.text
        .parse::<toml_edit::DocumentMut>()
        .ok()
        .and_then(|d| d.get("description")?.as_str().map(str::to_owned))
        .unwrap_or_default()
}

fn num(v: f64, decimals: usize) -> String {
    format!("{v:.decimals$}")
}

fn flows_list(m: &CellMetrics, g: impl Fn(&super::FlowMetrics) -> String) -> String {
    m.flows.iter().map(g).collect::<Vec<_>>().join(" / ")
}

/// The Markdown report of `results` over `cases` and `algorithms`.
pub fn render(cases: &[SuiteCase], algorithms: &[String], results: &[CellResult]) -> String {
    let mut out = String::from("# RMCAT evaluation suite\n\n");
    out.push_str(
        "Cases of RFC 8867 with the metrics of RFC 8868, sampled every 200 ms; the criteria \
         and their sources are in docs/rmcat.md. `error`: the cell could not run (the \
         reason is in its case's table).\n\n## Verdicts\n\n",
    );
    let _ = writeln!(out, "| case | variation | {} |", algorithms.join(" | "));
    let _ = writeln!(out, "|---|---|{}", "---|".repeat(algorithms.len()));
    for (ci, case) in cases.iter().enumerate() {
        let mut variations: Vec<String> = Vec::new();
        for r in results.iter().filter(|r| r.cell.case == ci) {
            let v = r.cell.variation.to_string();
            if !variations.contains(&v) {
                variations.push(v);
            }
        }
        for v in &variations {
            let cells: Vec<String> = algorithms
                .iter()
                .map(|a| {
                    results
                        .iter()
                        .find(|r| {
                            r.cell.case == ci
                                && &r.cell.variation.to_string() == v
                                && &r.cell.algorithm == a
                        })
                        .map_or_else(|| "—".to_owned(), |r| verdict_text(case, &r.outcome))
                })
                .collect();
            let _ = writeln!(out, "| {} | {v} | {} |", case.name, cells.join(" | "));
        }
    }
    for (ci, case) in cases.iter().enumerate() {
        case_section(&mut out, ci, case, algorithms, results);
    }
    out
}

fn case_section(
    out: &mut String,
    ci: usize,
    case: &SuiteCase,
    algorithms: &[String],
    results: &[CellResult],
) {
    let mine: Vec<&CellResult> = results.iter().filter(|r| r.cell.case == ci).collect();
    let _ = write!(
        out,
        "\n## {}\n\n{}\n\nCriteria: ",
        case.name,
        description(case)
    );
    let criteria: Vec<String> = match mine.iter().find_map(|r| match &r.outcome {
        CellOutcome::Done(m) => Some(m),
        CellOutcome::Error(_) => None,
    }) {
        Some(m) => judge(m, case.facts.criteria)
            .checks
            .into_iter()
            .map(|c| c.what)
            .collect(),
        None => vec![format!("{:?}", case.facts.criteria)],
    };
    let _ = writeln!(out, "{}.\n", criteria.join("; "));
    out.push_str(
        "| variation | algorithm | verdict | share | goodput Mbit/s | sending Mbit/s | queue p95/p98 ms | \
         frame p95/p98 ms | self-inflicted ms | loss % | Jain | convergence s | link util | missed |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in &mine {
        let v = r.cell.variation.to_string();
        match &r.outcome {
            CellOutcome::Error(e) => {
                let _ = writeln!(
                    out,
                    "| {v} | {} | error | | | | | | | | | | | {} |",
                    r.cell.algorithm,
                    e.replace('|', "\\|")
                );
            }
            CellOutcome::Done(m) => {
                let verdict = judge(m, case.facts.criteria);
                let _ = writeln!(
                    out,
                    "| {v} | {} | {verdict} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                    r.cell.algorithm,
                    num(m.share, 2),
                    flows_list(m, |f| num(f.goodput_mbps, 2)),
                    flows_list(m, |f| num(f.sending_mbps, 2)),
                    flows_list(m, |f| format!(
                        "{:.0}/{:.0}",
                        f.queue_delay_p95_ms, f.queue_delay_p98_ms
                    )),
                    flows_list(m, |f| format!(
                        "{:.0}/{:.0}",
                        f.frame_delay_p95_ms, f.frame_delay_p98_ms
                    )),
                    flows_list(m, |f| num(f.self_inflicted_ms, 0)),
                    flows_list(m, |f| num(f.loss_ratio * 100.0, 2)),
                    m.jain.map_or_else(String::new, |j| num(j, 2)),
                    flows_list(m, |f| f
                        .convergence_s
                        .map_or_else(|| "never".to_owned(), |c| num(c, 1))),
                    num(m.link_utilisation, 2),
                    verdict.failures().join("; "),
                );
            }
        }
    }
    side_by_side(out, ci, algorithms, &mine);
    figures(out, algorithms, &mine);
}

/// The algorithms side by side in the first variation of the case.
fn side_by_side(out: &mut String, _ci: usize, algorithms: &[String], mine: &[&CellResult]) {
    let Some(first) = mine.first().map(|r| r.cell.variation) else {
        return;
    };
    let cells: Vec<Option<&CellMetrics>> = algorithms
        .iter()
        .map(|a| {
            mine.iter()
                .find(|r| r.cell.variation == first && &r.cell.algorithm == a)
                .and_then(|r| match &r.outcome {
                    CellOutcome::Done(m) => Some(m),
                    CellOutcome::Error(_) => None,
                })
        })
        .collect();
    let _ = write!(
        out,
        "\nSide by side ({first}):\n\n| metric | {} |\n|---|{}\n",
        algorithms.join(" | "),
        "---|".repeat(algorithms.len())
    );
    type Row = (&'static str, fn(&CellMetrics) -> String);
    let rows: [Row; 7] = [
        ("share of fair share", |m| num(m.share, 2)),
        ("goodput, sum Mbit/s", |m| {
            num(m.flows.iter().map(|f| f.goodput_mbps).sum(), 2)
        }),
        ("worst queue delay p95 ms", |m| {
            num(
                m.flows
                    .iter()
                    .map(|f| f.queue_delay_p95_ms)
                    .fold(0.0, f64::max),
                0,
            )
        }),
        ("worst frame delay p95 ms", |m| {
            num(
                m.flows
                    .iter()
                    .map(|f| f.frame_delay_p95_ms)
                    .fold(0.0, f64::max),
                0,
            )
        }),
        ("worst loss %", |m| {
            num(
                m.flows.iter().map(|f| f.loss_ratio).fold(0.0, f64::max) * 100.0,
                2,
            )
        }),
        ("Jain", |m| {
            m.jain.map_or_else(|| "—".to_owned(), |j| num(j, 2))
        }),
        ("link utilisation", |m| num(m.link_utilisation, 2)),
    ];
    for (name, g) in rows {
        let values: Vec<String> = cells
            .iter()
            .map(|c| c.map_or_else(|| "error".to_owned(), g))
            .collect();
        let _ = writeln!(out, "| {name} | {} |", values.join(" | "));
    }
}

fn figures(out: &mut String, algorithms: &[String], mine: &[&CellResult]) {
    let Some(first) = mine.first().map(|r| r.cell.variation) else {
        return;
    };
    out.push('\n');
    for a in algorithms {
        let Some(r) = mine
            .iter()
            .find(|r| r.cell.variation == first && &r.cell.algorithm == a)
        else {
            continue;
        };
        if let CellOutcome::Done(_) = r.outcome {
            for f in FIGURES {
                let path = r.dir.join(format!("{f}.png"));
                let _ = writeln!(out, "![{a} {f}]({})", path.display());
            }
        }
    }
}

/// Writes report.md into `dir`; returns its path.
pub fn write(dir: &Path, text: &str) -> std::io::Result<PathBuf> {
    let path = dir.join(REPORT_MD);
    scream_sim::output::write_atomic(&path, text)?;
    Ok(path)
}
