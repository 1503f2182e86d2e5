//! Running the matrix: one cell per case × variation × algorithm, on several threads.
//! Each finished cell leaves `cell.json` (and its figures) in its folder, so a second
//! call reuses it unless the cell's scenario text or overrides changed, or `fresh`.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::{Deserialize, Serialize};

use super::cases::SuiteCase;
use super::measure::{CellMetrics, measure};
use super::substitute::Layout;
use super::variation::Variation;
use crate::Scenario;
use crate::scenario::load::{Override, load_str};

/// The folder of the cells, under the output folder.
pub const CELLS_DIR: &str = "cells";
/// A finished cell's record.
pub const CELL_JSON: &str = "cell.json";
/// The figures written per cell (single figures of [`crate::plot`]).
pub const FIGURES: [&str; 2] = ["throughput", "delay"];

/// One cell of the matrix.
#[derive(Debug, Clone)]
pub struct Cell {
    /// Index of the case in the run's case list.
    pub case: usize,
    /// The variation as it applies to the case.
    pub variation: Variation,
    /// Algorithm of the media flows.
    pub algorithm: String,
}

/// What became of a cell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// It ran.
    Done(CellMetrics),
    /// It could not be loaded or run: why.
    Error(String),
}

#[derive(Debug, Serialize, Deserialize)]
struct Record {
    key: String,
    outcome: Outcome,
}

/// One cell's result.
#[derive(Debug, Clone)]
pub struct CellResult {
    /// The cell.
    pub cell: Cell,
    /// Its folder relative to the output folder (`cells/CASE/VARIATION/ALGORITHM`).
    pub dir: PathBuf,
    /// Its outcome.
    pub outcome: Outcome,
    /// Taken from an earlier call's `cell.json`.
    pub reused: bool,
}

/// How to run the matrix.
pub struct Options<'a> {
    /// The cases.
    pub cases: &'a [SuiteCase],
    /// Algorithms put in place of the media flows' own.
    pub algorithms: &'a [String],
    /// Variations, before each case drops the axes it fixes.
    pub variations: &'a [Variation],
    /// Overrides applied after the variation's and the substitution's (e.g. a shorter
    /// `duration_s=...` for a quick run).
    pub extra: &'a [String],
    /// Output folder.
    pub out_dir: &'a Path,
    /// Threads.
    pub jobs: usize,
    /// Run every cell again, ignoring earlier `cell.json` files.
    pub fresh: bool,
    /// Write the figures of each cell.
    pub figures: bool,
    /// Called from the worker threads after each cell with (done, total).
    pub progress: &'a (dyn Fn(usize, usize) + Sync),
}

impl std::fmt::Debug for Options<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Options")
            .field("out_dir", &self.out_dir)
            .field("jobs", &self.jobs)
            .finish_non_exhaustive()
    }
}

/// The cells of the matrix, in case, variation, algorithm order; variations that
/// coincide once a case drops the axes it fixes are one cell.
pub fn cells(options: &Options<'_>) -> Vec<Cell> {
    let mut out: Vec<Cell> = Vec::new();
    for (case, c) in options.cases.iter().enumerate() {
        let mut seen: Vec<Variation> = Vec::new();
        for v in options.variations {
            let v = v.for_case(c.facts.delay_axis, c.facts.queue_axis);
            if seen.contains(&v) {
                continue;
            }
            seen.push(v);
            for a in options.algorithms {
                out.push(Cell {
                    case,
                    variation: v,
                    algorithm: a.clone(),
                });
            }
        }
    }
    out
}

/// Runs (or reuses) every cell; results in the order of [`cells`]. Only a failure to
/// write the output folder is an error: a cell that cannot run is an error cell.
pub fn run(options: &Options<'_>) -> Result<Vec<CellResult>, std::io::Error> {
    let all = cells(options);
    let slots: Mutex<Vec<Option<CellResult>>> = Mutex::new(vec![None; all.len()]);
    let done = AtomicUsize::new(0);
    crate::parallel::for_each(&all, options.jobs, |i, cell| {
        let result = run_cell(cell, options)?;
        if let Ok(mut s) = slots.lock() {
            s[i] = Some(result);
        }
        (options.progress)(done.fetch_add(1, Ordering::Relaxed) + 1, all.len());
        Ok::<(), std::io::Error>(())
    })?;
    Ok(slots
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .into_iter()
        .flatten()
        .collect())
}

/// The overrides of a cell: the variation's on each bottleneck, the substitution, the
/// extra ones. An error when the case's text cannot be read at all.
pub fn overrides(
    case: &SuiteCase,
    cell: &Cell,
    extra: &[String],
) -> Result<(Layout, Vec<String>), String> {
    let layout = Layout::read(case.text)?;
    let mut out = Vec::new();
    for name in case.facts.bottlenecks {
        let prefix = layout
            .link_prefix(name)
            .ok_or_else(|| format!("names no link `{name}` for the variations to act on"))?;
        out.extend(cell.variation.overrides(prefix));
    }
    out.extend(layout.substitute(&cell.algorithm));
    out.extend(extra.iter().cloned());
    Ok((layout, out))
}

fn run_cell(cell: &Cell, o: &Options<'_>) -> Result<CellResult, std::io::Error> {
    let case = &o.cases[cell.case];
    let rel = Path::new(CELLS_DIR)
        .join(case.name)
        .join(cell.variation.to_string())
        .join(&cell.algorithm);
    let dir = o.out_dir.join(&rel);
    let prepared = overrides(case, cell, o.extra);
    let key = match &prepared {
        Ok((_, list)) => fingerprint(case.text, list),
        Err(e) => fingerprint(case.text, std::slice::from_ref(e)),
    };
    let record_path = dir.join(CELL_JSON);
    if !o.fresh {
        if let Some(r) = std::fs::read_to_string(&record_path)
            .ok()
            .and_then(|t| serde_json::from_str::<Record>(&t).ok())
            .filter(|r| r.key == key)
        {
            return Ok(CellResult {
                cell: cell.clone(),
                dir: rel,
                outcome: r.outcome,
                reused: true,
            });
        }
    }
    std::fs::create_dir_all(&dir)?;
    // A panic is a simulator bug that some case reaches; it becomes this cell's error.
    let simulated = catch_unwind(AssertUnwindSafe(|| simulate(case, prepared)))
        .unwrap_or_else(|_| Err("the simulator panicked".to_owned()));
    let outcome = match simulated {
        Ok((scenario, result, media)) => {
            if o.figures {
                let max = crate::plot::stream_max_bitrates(&scenario);
                let input = crate::plot::PlotInput {
                    scenario_name: &format!("{} {} {}", case.name, cell.variation, cell.algorithm),
                    samples: &result.samples,
                    footer: "",
                    max_bitrate_mbps: &max,
                    cdfs: &result.delay_cdfs,
                };
                crate::plot::write_figures(&input, &dir, &FIGURES)
                    .map_err(|e| std::io::Error::other(e.to_string()))?;
            }
            Outcome::Done(measure(&scenario, &result, &case.facts, &media))
        }
        Err(e) => Outcome::Error(e.split_whitespace().collect::<Vec<_>>().join(" ")),
    };
    let record = Record { key, outcome };
    let mut text = serde_json::to_string_pretty(&record).map_err(std::io::Error::other)?;
    text.push('\n');
    std::fs::write(&record_path, text)?;
    Ok(CellResult {
        cell: cell.clone(),
        dir: rel,
        outcome: record.outcome,
        reused: false,
    })
}

type Simulated = (Scenario, crate::RunResult, Vec<usize>);

fn simulate(
    case: &SuiteCase,
    prepared: Result<(Layout, Vec<String>), String>,
) -> Result<Simulated, String> {
    let (layout, list) = prepared?;
    let parsed: Vec<Override> = list
        .iter()
        .map(|s| s.parse::<Override>().map_err(|e| e.to_string()))
        .collect::<Result<_, _>>()?;
    let scenario: Scenario = load_str(case.text, &format!("builtin:{}", case.name), None, &parsed)
        .map_err(|e| e.to_string())?;
    scenario.validate().map_err(|e| e.to_string())?;
    let result = crate::run(&scenario, scenario.seed, None).map_err(|e| e.to_string())?;
    Ok((scenario, result, layout.media))
}

/// FNV-1a of the case text and the overrides: what a reused cell must match.
fn fingerprint(text: &str, overrides: &[String]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in std::iter::once(text).chain(overrides.iter().map(String::as_str)) {
        for b in part.bytes().chain([0u8]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}
