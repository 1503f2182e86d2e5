//! Running the matrix: one cell per case × variation × algorithm, on several threads.
//! Each finished cell leaves `cell.json` (and its figures) in its folder, so a second
//! call reuses it unless the cell's scenario text or overrides changed, or `fresh`.

use std::path::{Path, PathBuf};

use super::cases::SuiteCase;
use super::measure::{CellMetrics, measure};
use super::substitute::Layout;
use super::variation::Variation;
use scream_sim::Scenario;
use scream_sim::output::folder::RunDefinition;
use scream_sim::scenario::load::{Override, load_str};

/// The folder of the cells, under the output folder.
pub const CELLS_DIR: &str = "cells";
pub use crate::cells::CELL_JSON;
/// The figures written per cell (single figures of [`scream_plot`]).
pub const FIGURES: [&str; 2] = ["throughput", "delay"];

/// One cell of the matrix.
#[derive(Debug, Clone)]
pub struct Cell {
    /// Index of the case in the run's case list.
    pub case: usize,
    /// The variation as it applies to the case.
    pub variation: Variation,
    /// Contender of the media flows ([`super::substitute::contender`]).
    pub algorithm: String,
    /// Master seed of the run (jitter, frame phases, on-off cross traffic).
    pub seed: u64,
}

/// What became of a cell.
pub type CellOutcome = crate::cells::CellOutcome<CellMetrics>;

/// One cell's result.
#[derive(Debug, Clone)]
pub struct CellResult {
    /// The cell.
    pub cell: Cell,
    /// Its folder relative to the output folder (`cells/CASE/VARIATION/ALGORITHM/seed-N`).
    pub dir: PathBuf,
    /// Its outcome.
    pub outcome: CellOutcome,
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
    /// Seeds: every case × variation × algorithm runs once per seed.
    pub seeds: &'a [u64],
    /// Overrides applied after the variation's and the substitution's (e.g. a shorter
    /// `duration_s=...` for a quick run).
    pub extra: &'a [String],
    /// Output folder.
    pub out_dir: &'a Path,
    /// Where the cells run.
    pub executor: &'a dyn crate::Executor,
    /// Run every cell again, ignoring earlier `cell.json` files.
    pub fresh: bool,
    /// Write the figures of each cell's first seed.
    pub figures: bool,
    /// Called from the worker threads after each cell with (done, total).
    pub progress: &'a (dyn Fn(usize, usize) + Sync),
}

impl std::fmt::Debug for Options<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Options")
            .field("out_dir", &self.out_dir)
            .field("executor", &self.executor)
            .finish_non_exhaustive()
    }
}

/// What defines the matrix in its folder's manifest.json
/// ([`scream_sim::output::folder`]): what every cell shares beyond its own case, variation and
/// algorithm, the extra overrides. The selection of cases, variations and algorithms is
/// not part of it: another selection reuses or adds cells of the same matrix, each
/// checked by its own fingerprint, and loses none.
pub fn definition(extra: &[String]) -> RunDefinition {
    RunDefinition::new()
        .with("matrix", "suite rmcat")
        .with("overrides", extra)
}

/// The cells of the matrix, in case, variation, algorithm, seed order; variations that
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
                for &seed in options.seeds {
                    out.push(Cell {
                        case,
                        variation: v,
                        algorithm: a.clone(),
                        seed,
                    });
                }
            }
        }
    }
    out
}

/// Runs (or reuses) every cell; results in the order of [`cells`]. Only a failure to
/// write the output folder is an error: a cell that cannot run is an error cell.
pub fn run(options: &Options<'_>) -> Result<Vec<CellResult>, std::io::Error> {
    let all = cells(options);
    crate::cells::run_all(&all, options.executor, options.progress, |cell| {
        run_cell(cell, options)
    })
}

/// The overrides of a cell: the variation's on each bottleneck, the substitution, the
/// seed, the extra ones. An error when the case's text cannot be read at all.
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
        out.extend(cell.variation.overrides(
            prefix,
            case.facts.reverse_bottleneck,
            case.facts.jitter_split,
        ));
    }
    out.extend(layout.substitute(&cell.algorithm));
    out.push(format!("seed={}", cell.seed));
    out.extend(extra.iter().cloned());
    Ok((layout, out))
}

fn run_cell(cell: &Cell, o: &Options<'_>) -> Result<CellResult, std::io::Error> {
    let case = &o.cases[cell.case];
    let rel = Path::new(CELLS_DIR)
        .join(case.name)
        .join(cell.variation.to_string())
        .join(&cell.algorithm)
        .join(format!("seed-{}", cell.seed));
    let dir = o.out_dir.join(&rel);
    let prepared = overrides(case, cell, o.extra);
    let key = match &prepared {
        Ok((_, list)) => crate::cells::fingerprint(
            std::iter::once(case.text).chain(list.iter().map(String::as_str)),
        ),
        Err(e) => crate::cells::fingerprint([case.text, e.as_str()]),
    };
    let (outcome, reused) = crate::cells::run_or_reuse(&dir, key, o.fresh, || {
        let simulated = match simulate(case, prepared) {
            Ok(s) => s,
            Err(e) => return Ok(Err(e.split_whitespace().collect::<Vec<_>>().join(" "))),
        };
        let (scenario, result, media, without_ecn) = simulated;
        // Figures of the first seed only: the report shows one run per cell, and
        // plotting every seed would cost more than simulating it.
        if o.figures && o.seeds.first() == Some(&cell.seed) {
            let max = scenario.stream_max_bitrates();
            let input = scream_plot::PlotInput {
                scenario_name: &format!(
                    "{} {} {} seed {}",
                    case.name, cell.variation, cell.algorithm, cell.seed
                ),
                samples: &result.samples,
                footer: "",
                max_bitrate_mbps: &max,
                cdfs: &result.delay_cdfs,
            };
            scream_plot::write_figures(&input, &dir, &FIGURES)
                .map_err(|e| std::io::Error::other(e.to_string()))?;
        }
        let mut metrics = measure(&scenario, &result, &case.facts, &media);
        metrics.without_ecn = without_ecn.map(Box::new);
        Ok(Ok(metrics))
    })?;
    Ok(CellResult {
        cell: cell.clone(),
        dir: rel,
        outcome,
        reused,
    })
}

/// The run, its result, its media flows, and where the case asks for it the metrics of
/// the same run with ECN off on the media flows.
type Simulated = (
    Scenario,
    scream_sim::RunResult,
    Vec<usize>,
    Option<CellMetrics>,
);

fn simulate(
    case: &SuiteCase,
    prepared: Result<(Layout, Vec<String>), String>,
) -> Result<Simulated, String> {
    let (layout, list) = prepared?;
    let (scenario, result) = run_with(case, &list)?;
    let without_ecn = if case.facts.ecn_baseline {
        // §6.2: the algorithm's delay-based self, on the same path with the same seed.
        let mut off = list.clone();
        off.extend(
            layout
                .media
                .iter()
                .map(|i| format!("flows.{i}.ecn=\"none\"")),
        );
        let (s, r) = run_with(case, &off)?;
        Some(measure(&s, &r, &case.facts, &layout.media))
    } else {
        None
    };
    Ok((scenario, result, layout.media, without_ecn))
}

fn run_with(
    case: &SuiteCase,
    list: &[String],
) -> Result<(Scenario, scream_sim::RunResult), String> {
    let parsed: Vec<Override> = list
        .iter()
        .map(|s| s.parse::<Override>().map_err(|e| e.to_string()))
        .collect::<Result<_, _>>()?;
    let scenario: Scenario = load_str(case.text, &format!("builtin:{}", case.name), None, &parsed)
        .map_err(|e| e.to_string())?;
    scenario.validate().map_err(|e| e.to_string())?;
    let result = scream_sim::run(&scenario, scenario.seed, None).map_err(|e| e.to_string())?;
    Ok((scenario, result))
}
