//! Running the cells: one per load × algorithm × users, on several threads. A finished
//! cell leaves `cell.json` in `cells/load-<L>/<ALGORITHM>/users-<N>/`; a second call
//! reuses it when the cell's scenario is the same (a fingerprint of its TOML), unless
//! `fresh`.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::{Deserialize, Serialize};

use super::scenario::{Setup, build, template};
use super::stats::{CellMetrics, measure};
use crate::Scenario;

/// The folder of the cells, under the output folder.
pub const CELLS_DIR: &str = "cells";
/// A finished cell's record.
pub const CELL_JSON: &str = "cell.json";

/// One cell.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// Offered FTP load, Mbit/s.
    pub load_mbps: f64,
    /// Algorithm of the video users.
    pub algorithm: String,
    /// Video users.
    pub users: usize,
}

impl Cell {
    /// Its folder relative to the output folder.
    pub fn dir(&self) -> PathBuf {
        Path::new(CELLS_DIR)
            .join(format!("load-{}", self.load_mbps))
            .join(&self.algorithm)
            .join(format!("users-{}", self.users))
    }
}

/// What became of a cell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// It ran.
    Done(CellMetrics),
    /// It could not be built or run: why.
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
    /// Its outcome.
    pub outcome: Outcome,
    /// Taken from an earlier call's `cell.json`.
    pub reused: bool,
}

/// How to run the cells.
pub struct Options<'a> {
    /// What the cells share.
    pub setup: &'a Setup,
    /// Output folder.
    pub out_dir: &'a Path,
    /// Threads.
    pub jobs: usize,
    /// Run every cell again, ignoring earlier `cell.json` files.
    pub fresh: bool,
    /// Called from the worker threads after each cell with (done, total).
    pub progress: &'a (dyn Fn(usize, usize) + Sync),
}

impl std::fmt::Debug for Options<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Options")
            .field("setup", &self.setup)
            .field("out_dir", &self.out_dir)
            .field("jobs", &self.jobs)
            .finish_non_exhaustive()
    }
}

/// The cells in load, algorithm, users order.
pub fn cells(setup: &Setup) -> Vec<Cell> {
    let mut out = Vec::new();
    for &load_mbps in &setup.loads_mbps {
        for algorithm in &setup.algorithms {
            for &users in &setup.users {
                out.push(Cell {
                    load_mbps,
                    algorithm: algorithm.clone(),
                    users,
                });
            }
        }
    }
    out
}

/// Runs (or reuses) every cell; results in the order of [`cells`]. An error when the
/// template cannot be made (the setup is refused) or the output folder cannot be
/// written; a cell that cannot run is an error cell.
pub fn run(options: &Options<'_>) -> Result<Vec<CellResult>, String> {
    super::scenario::check(options.setup)?;
    let base = template(options.setup)?;
    let all = cells(options.setup);
    let slots: Mutex<Vec<Option<CellResult>>> = Mutex::new(vec![None; all.len()]);
    let done = AtomicUsize::new(0);
    crate::parallel::for_each(&all, options.jobs, |i, cell| {
        let result = run_cell(&base, cell, options)?;
        if let Ok(mut s) = slots.lock() {
            s[i] = Some(result);
        }
        (options.progress)(done.fetch_add(1, Ordering::Relaxed) + 1, all.len());
        Ok::<(), std::io::Error>(())
    })
    .map_err(|e| format!("{}: {e}", options.out_dir.display()))?;
    Ok(slots
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .into_iter()
        .flatten()
        .collect())
}

fn run_cell(base: &Scenario, cell: &Cell, o: &Options<'_>) -> Result<CellResult, std::io::Error> {
    let dir = o.out_dir.join(cell.dir());
    let built = build(base, cell.users, cell.load_mbps, &cell.algorithm);
    let key = match &built {
        Ok(s) => fingerprint(&crate::scenario::to_toml(s).unwrap_or_default()),
        Err(e) => fingerprint(e),
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
                outcome: r.outcome,
                reused: true,
            });
        }
    }
    std::fs::create_dir_all(&dir)?;
    // A panic is a simulator bug that some cell reaches; it becomes this cell's error.
    let outcome = catch_unwind(AssertUnwindSafe(|| simulate(built)))
        .unwrap_or_else(|_| Err("the simulator panicked".to_owned()))
        .map_or_else(Outcome::Error, Outcome::Done);
    let record = Record { key, outcome };
    let mut text = serde_json::to_string_pretty(&record).map_err(std::io::Error::other)?;
    text.push('\n');
    std::fs::write(&record_path, text)?;
    Ok(CellResult {
        cell: cell.clone(),
        outcome: record.outcome,
        reused: false,
    })
}

fn simulate(built: Result<Scenario, String>) -> Result<CellMetrics, String> {
    let scenario = built?;
    scenario.validate().map_err(|e| e.to_string())?;
    let result = crate::run(&scenario, scenario.seed, None).map_err(|e| e.to_string())?;
    let propagation_ms = scenario
        .link_configs()
        .iter()
        .map(crate::scenario::LinkConfig::forward_delay_ms)
        .sum();
    let start_s = |name: &str| {
        scenario
            .flows
            .iter()
            .find(|f| f.name == name)
            .map_or(0.0, |f| f.start_s)
    };
    Ok(measure(&result.summary, propagation_ms, &start_s))
}

/// FNV-1a of a cell's scenario: what a reused cell must match.
fn fingerprint(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}
