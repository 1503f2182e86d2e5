//! Running the cells: one per load × algorithm × users, on several threads. A finished
//! cell leaves `cell.json` in `cells/load-<L>/<ALGORITHM>/users-<N>/`; a second call
//! reuses it when the cell's scenario is the same (a fingerprint of its TOML), unless
//! `fresh`.

use std::path::{Path, PathBuf};

use super::scenario::{Setup, build, template};
use super::stats::{CellMetrics, measure};
use scream_sim::Scenario;
use scream_sim::output::folder::RunDefinition;

/// The folder of the cells, under the output folder.
pub const CELLS_DIR: &str = "cells";
pub use crate::cells::CELL_JSON;

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
pub type CellOutcome = crate::cells::CellOutcome<CellMetrics>;

/// One cell's result.
#[derive(Debug, Clone)]
pub struct CellResult {
    /// The cell.
    pub cell: Cell,
    /// Its outcome.
    pub outcome: CellOutcome,
    /// Taken from an earlier call's `cell.json`.
    pub reused: bool,
}

/// How to run the cells.
pub struct Options<'a> {
    /// What the cells share.
    pub setup: &'a Setup,
    /// Output folder.
    pub out_dir: &'a Path,
    /// Where the cells run.
    pub executor: &'a dyn crate::Executor,
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
            .field("executor", &self.executor)
            .finish_non_exhaustive()
    }
}

/// What defines the study in its folder's manifest.json ([`scream_sim::output::folder`]):
/// what every cell's scenario shares, the trace, the duration and the seed. The users,
/// loads and algorithms only select cells: another selection reuses or adds cells of
/// the same study, each checked by its own fingerprint, and loses none.
pub fn definition(setup: &Setup) -> RunDefinition {
    RunDefinition::new()
        .with("matrix", "study lte")
        .with("trace", &setup.trace)
        .with("duration_s", setup.duration_s)
        .with("seed", setup.seed)
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
    crate::cells::run_all(&all, options.executor, options.progress, |cell| {
        run_cell(&base, cell, options)
    })
    .map_err(|e| format!("{}: {e}", options.out_dir.display()))
}

fn run_cell(base: &Scenario, cell: &Cell, o: &Options<'_>) -> Result<CellResult, std::io::Error> {
    let dir = o.out_dir.join(cell.dir());
    let built = build(base, cell.users, cell.load_mbps, &cell.algorithm);
    let key = match &built {
        Ok(s) => crate::cells::fingerprint([scream_sim::scenario::to_toml(s)
            .unwrap_or_default()
            .as_str()]),
        Err(e) => crate::cells::fingerprint([e.as_str()]),
    };
    let (outcome, reused) = crate::cells::run_or_reuse(&dir, key, o.fresh, || Ok(simulate(built)))?;
    Ok(CellResult {
        cell: cell.clone(),
        outcome,
        reused,
    })
}

fn simulate(built: Result<Scenario, String>) -> Result<CellMetrics, String> {
    let scenario = built?;
    scenario.validate().map_err(|e| e.to_string())?;
    let result = scream_sim::run(&scenario, scenario.seed, None).map_err(|e| e.to_string())?;
    let propagation_ms = scenario
        .link_configs()
        .iter()
        .map(scream_sim::scenario::LinkConfig::forward_delay_ms)
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
