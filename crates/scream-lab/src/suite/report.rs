//! report.md of a suite run: per case and algorithm the runs passing over variations
//! and seeds and whether the case separates the algorithms, the verdicts per variation,
//! then per case its criteria, the spread of each judged metric over the seeds, and the
//! figures of one run per algorithm.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::aggregate::{self, Group, Judged};
use super::cases::SuiteCase;
use super::execute::{CellOutcome, CellResult, FIGURES};
use super::substitute::contender;
use super::variation::Variation;
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

/// The Markdown report of `results` over `cases` and `algorithms`.
pub fn render(cases: &[SuiteCase], algorithms: &[String], results: &[CellResult]) -> String {
    let groups = aggregate::groups(cases, results);
    let mut seeds: Vec<u64> = results.iter().map(|r| r.cell.seed).collect();
    seeds.sort_unstable();
    seeds.dedup();
    let mut out = String::from("# RMCAT evaluation suite\n\n");
    let _ = write!(
        out,
        "Cases of RFC 8867 with the metrics of RFC 8868, sampled every 200 ms; the criteria \
         and their sources are in docs/rmcat.md. Every case × variation × algorithm ran \
         with {} seed(s) ({}); a verdict is the number of seeds whose run met every \
         criterion, and each metric is given as median [min–max] over the seeds. \
         `error`: the run could not run (the reason is in its case's table).\n\n",
        seeds.len(),
        seeds
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    );
    out.push_str("Algorithms:\n\n");
    for a in algorithms {
        let about = contender(a).map_or(
            "the simulator's algorithm of this name, its defaults",
            |c| c.about,
        );
        let _ = writeln!(out, "- `{a}`: {about}");
    }
    summary(&mut out, cases, algorithms, &groups);
    out.push_str("\n## Verdicts per variation (seeds passing)\n\n");
    let _ = writeln!(out, "| case | variation | {} |", algorithms.join(" | "));
    let _ = writeln!(out, "|---|---|{}", "---|".repeat(algorithms.len()));
    for (ci, case) in cases.iter().enumerate() {
        let mut variations: Vec<Variation> = Vec::new();
        for g in groups.iter().filter(|g| g.case == ci) {
            if !variations.contains(&g.variation) {
                variations.push(g.variation);
            }
        }
        for v in &variations {
            let row: Vec<String> = algorithms
                .iter()
                .map(|a| {
                    groups
                        .iter()
                        .find(|g| g.case == ci && g.variation == *v && &g.algorithm == a)
                        .map_or_else(|| "—".to_owned(), Group::count_text)
                })
                .collect();
            let _ = writeln!(out, "| {} | {v} | {} |", case.name, row.join(" | "));
        }
    }
    for (ci, case) in cases.iter().enumerate() {
        case_section(&mut out, ci, case, algorithms, &groups, results);
    }
    out
}

/// Per case and algorithm: runs passing over all variations and seeds, and whether
/// the case separates the algorithms.
fn summary(out: &mut String, cases: &[SuiteCase], algorithms: &[String], groups: &[Group]) {
    out.push_str(
        "\n## Summary\n\nRuns passing out of runs (variations × seeds) per case; an \
         algorithm passes a case when most of its runs pass, and a case separates the \
         algorithms when some pass it and some do not.\n\n",
    );
    let _ = writeln!(out, "| case | {} | separates? |", algorithms.join(" | "));
    let _ = writeln!(out, "|---|{}---|", "---|".repeat(algorithms.len()));
    for (ci, case) in cases.iter().enumerate() {
        let row: Vec<String> = algorithms
            .iter()
            .map(|a| {
                let s = aggregate::case_score(groups, ci, a);
                if s.runs == 0 {
                    "—".to_owned()
                } else if s.majority_passes() {
                    format!("**{}/{}**", s.passes, s.runs)
                } else {
                    format!("{}/{}", s.passes, s.runs)
                }
            })
            .collect();
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            case.name,
            row.join(" | "),
            aggregate::separation(groups, ci, algorithms).text()
        );
    }
}

fn case_section(
    out: &mut String,
    ci: usize,
    case: &SuiteCase,
    algorithms: &[String],
    groups: &[Group],
    results: &[CellResult],
) {
    let _ = write!(
        out,
        "\n## {}\n\n{}\n\nCriteria: {}.\n\n",
        case.name,
        description(case),
        criteria_text(case)
    );
    // The columns some run of the case has a value for (a one-flow case has no Jain,
    // only §6.2 has a run without ECN).
    let columns: Vec<(usize, Judged)> = Judged::ALL
        .iter()
        .copied()
        .enumerate()
        .filter(|&(k, j)| {
            groups.iter().filter(|g| g.case == ci).any(|g| {
                g.spreads.get(k).is_some_and(Option::is_some)
                    || (j == Judged::ConvergenceS && g.never_converged > 0)
            })
        })
        .collect();
    let labels: Vec<&str> = columns.iter().map(|(_, j)| j.label()).collect();
    let _ = write!(
        out,
        "| variation | algorithm | seeds pass | {} | missed (runs) |\n|---|---|---|{}---|\n",
        labels.join(" | "),
        "---|".repeat(columns.len())
    );
    for g in groups.iter().filter(|g| g.case == ci) {
        let metrics: Vec<String> = columns
            .iter()
            .map(|&(k, j)| (j, g.spreads.get(k).copied().flatten()))
            .map(|(j, s)| {
                let text = s.map_or_else(String::new, |s| s.text(j.decimals()));
                if j == Judged::ConvergenceS && g.never_converged > 0 {
                    format!("{text} (never in {})", g.never_converged)
                } else {
                    text
                }
            })
            .collect();
        let mut missed: Vec<String> = g.missed.iter().map(|(w, n)| format!("{w} ({n})")).collect();
        if let Some(e) = &g.error {
            missed.push(format!("error: {}", e.replace('|', "\\|")));
        }
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            g.variation,
            g.algorithm,
            g.count_text(),
            metrics.join(" | "),
            missed.join("; ")
        );
    }
    figures(out, ci, algorithms, results);
}

/// The criteria of `case` as the report writes them.
fn criteria_text(case: &SuiteCase) -> String {
    let blank = super::measure::CellMetrics {
        flows: Vec::new(),
        share: 0.0,
        link_utilisation: 0.0,
        utilisations: Vec::new(),
        jain: None,
        without_ecn: None,
    };
    judge(&blank, case.facts.criteria)
        .checks
        .into_iter()
        .map(|c| c.what)
        .collect::<Vec<_>>()
        .join("; ")
}

/// The figures of each algorithm's first run in the case's first variation.
fn figures(out: &mut String, ci: usize, algorithms: &[String], results: &[CellResult]) {
    let mine: Vec<&CellResult> = results.iter().filter(|r| r.cell.case == ci).collect();
    let Some(first) = mine.first().map(|r| (r.cell.variation, r.cell.seed)) else {
        return;
    };
    let _ = write!(out, "\nFigures ({}, seed {}):\n\n", first.0, first.1);
    for a in algorithms {
        let Some(r) = mine
            .iter()
            .find(|r| (r.cell.variation, r.cell.seed) == first && &r.cell.algorithm == a)
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
