//! `scream eval robust`: SCReAM V2 on links drawn afresh from classes of trouble.
//!
//! `scream eval v2` replays a fixed matrix; an algorithm changed until that matrix looks
//! good may only have learnt the matrix. Here each class (deep and shallow buffers,
//! sudden drops, dead stretches, bursty delivery, several flows) is a generator, and the
//! links come from a draw seed the caller gives: a judge picks a seed no one tuned on.
//! Every option set runs on the same draws, so option sets are compared draw by draw,
//! and each measure is reported as its spread over the draws (median, p90, worst).
//! Draws of several seeds are pooled per class, each draw the same as from its seed
//! alone; the verdict of each seed alone is reported beside the pooled one.
//!
//! [`draws`] lists the links, [`run_robust`] runs every draw under every option set
//! on an executor (each run a pure function of its scenario: the output does not depend
//! on the thread count), [`render`] prints it (docs/eval-robust.md).

mod aggregate;
mod classes;
mod measures;
mod render;

use std::sync::atomic::{AtomicUsize, Ordering};

pub use aggregate::{
    ClassDelta, ClassRow, MEASURES, Measure, RunRecord, Safety, SeedSafety, Spread, class_rows,
    safety, seed_safety, spread,
};
pub use classes::{Buffer, ConditionClass, Draw, Event, draw, draws, pooled_draws};
pub use measures::{RunMetrics, measure_run};
pub use render::{FULL_TABLES_UP_TO, REGENERATE, render};

use super::OptionSet;
use crate::Executor;

/// Draws per class when the caller does not say.
pub const DEFAULT_DRAWS: u32 = 20;
/// Draw seed of the committed snapshot (docs/eval-robust.md).
pub const SNAPSHOT_SEED: u64 = 1;

/// What to evaluate.
#[derive(Debug, Clone, PartialEq)]
pub struct RobustConfig {
    /// Seeds of the draws, each at most once: the draws of every seed are pooled per
    /// class.
    pub draw_seeds: Vec<u64>,
    /// Draws per class and seed.
    pub draws: u32,
    /// Classes, in report order.
    pub classes: Vec<ConditionClass>,
    /// Option sets, faithful first.
    pub option_sets: Vec<OptionSet>,
}

impl RobustConfig {
    /// Every class and every option set, [`DEFAULT_DRAWS`] draws from `draw_seed`.
    pub fn new(draw_seed: u64) -> Self {
        Self {
            draw_seeds: vec![draw_seed],
            draws: DEFAULT_DRAWS,
            classes: ConditionClass::ALL.to_vec(),
            option_sets: OptionSet::every(),
        }
    }

    /// Whether draws of several seeds are pooled.
    pub fn pooled(&self) -> bool {
        self.draw_seeds.len() > 1
    }

    /// The links drawn: class by class, in a class seed by seed.
    pub fn draws(&self) -> Vec<Draw> {
        pooled_draws(&self.classes, &self.draw_seeds, self.draws)
    }

    /// The id of `draw` in this evaluation: `class/index` from one seed,
    /// `class/sSEED/index` from several.
    pub fn draw_id(&self, draw: &Draw) -> String {
        if self.pooled() {
            draw.seeded_id()
        } else {
            draw.id()
        }
    }
}

/// Everything one evaluation found.
#[derive(Debug, Clone, PartialEq)]
pub struct RobustReport {
    /// What was asked.
    pub config: RobustConfig,
    /// The links drawn.
    pub draws: Vec<Draw>,
    /// Every run, draw by draw, option sets in config order.
    pub runs: Vec<RunRecord>,
    /// Spreads per class and option set.
    pub rows: Vec<ClassRow>,
    /// Each option set against faithful, over the pooled draws.
    pub safety: Vec<Safety>,
    /// The same on each seed's draws alone, seeds in config order (empty from one seed).
    pub per_seed: Vec<SeedSafety>,
}

/// Runs one draw under one option set.
pub fn run_one(draw: &Draw, options: OptionSet) -> Result<RunMetrics, String> {
    let scenario = draw.scenario(options);
    let run = scream_sim::run(&scenario, scenario.seed, None).map_err(|e| e.to_string())?;
    Ok(measure_run(draw, &scenario, &run))
}

/// Runs `config` on `executor`; `on_done(finished, total)` after each run, from the
/// executor's threads.
pub fn run_robust(
    config: &RobustConfig,
    executor: &dyn Executor,
    on_done: &(dyn Fn(usize, usize) + Sync),
) -> RobustReport {
    let drawn = config.draws();
    let jobs: Vec<(usize, OptionSet)> = (0..drawn.len())
        .flat_map(|d| config.option_sets.iter().map(move |&o| (d, o)))
        .collect();
    let finished = AtomicUsize::new(0);
    let total = jobs.len();
    let results = executor.run_batch(&jobs, |&(d, options)| {
        let outcome = run_one(&drawn[d], options);
        on_done(finished.fetch_add(1, Ordering::Relaxed) + 1, total);
        Ok::<RunRecord, std::convert::Infallible>(RunRecord {
            draw: d,
            options,
            outcome,
        })
    });
    let Ok(runs) = results;
    let rows = class_rows(&runs, &drawn, &config.classes, &config.option_sets);
    let safety = safety(&runs, &drawn, &config.classes, &config.option_sets);
    let per_seed = if config.pooled() {
        seed_safety(
            &runs,
            &drawn,
            &config.classes,
            &config.option_sets,
            &config.draw_seeds,
        )
    } else {
        Vec::new()
    };
    RobustReport {
        config: config.clone(),
        draws: drawn,
        runs,
        rows,
        safety,
        per_seed,
    }
}
