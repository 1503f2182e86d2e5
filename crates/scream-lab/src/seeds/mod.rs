//! One scenario over a set of seeds (`scream sim SCENARIO --seeds 1..10`): every seed's
//! run in its own folder, and the spread of each metric over the seeds.
//!
//! A single run's throughput or delay is one draw: the seed decides the frame phases,
//! jitter and losses, and two seeds of one scenario can differ by more than two
//! configurations do. A seed set runs the scenario once per seed on an [`Executor`],
//! writes each run exactly as `scream sim` writes one (`s<seed>/`), and summarises
//! every flow's metrics — the sweep's, measured the same way — as mean, standard
//! deviation, 95 % confidence interval of the mean, minimum, maximum and count
//! ([`SeedSummary`], seeds.csv and seeds.json).
//!
//! Choosing and claiming the folder is the caller's (the rule of
//! `scream_sim::output::folder`); this module writes inside it.

mod summary;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use scream_sim::Scenario;
use scream_sim::manifest::Toolkit;

pub use summary::{CONFIDENCE, Measurement, SeedStats, SeedSummary, measurements};

use crate::Executor;
use crate::run_folder::{RunRecord, WriteOptions, write_run};
use crate::sweep::Clock;
use crate::sweep::measure::Measured;

/// The statistics as CSV, in the seed set's folder.
pub const SEEDS_CSV: &str = "seeds.csv";
/// The statistics and every seed's value as JSON, in the seed set's folder.
pub const SEEDS_JSON: &str = "seeds.json";
/// Most seeds in one set: enough for any confidence interval (at 10,000 seeds the
/// interval is 1 % of the spread), and a bound on the folders one command creates.
pub const MAX_SEEDS: usize = 10_000;

/// The folder of seed `seed` inside a seed set's folder.
pub fn seed_dir(seed: u64) -> String {
    format!("s{seed}")
}

/// What to run, and where.
pub struct Options<'a> {
    /// The scenario after overrides.
    pub scenario: &'a Scenario,
    /// The overrides as given (`key=value`), for each run's manifest.
    pub overrides: &'a [String],
    /// The seeds, each at most once, at most [`MAX_SEEDS`].
    pub seeds: &'a [u64],
    /// The seed set's folder, already claimed by the caller.
    pub out_dir: &'a Path,
    /// Where the runs run.
    pub executor: &'a dyn Executor,
    /// Skip each run's PNG and SVG figures.
    pub no_plots: bool,
    /// The wall clock, for each run's wall time and start.
    pub clock: &'a dyn Clock,
    /// The build, for each run's manifest.
    pub toolkit: Toolkit,
    /// The process's arguments, for each run's manifest.
    pub command_line: Vec<String>,
    /// Called after each run with (runs done, runs in all).
    pub progress: &'a (dyn Fn(usize, usize) + Sync),
}

impl std::fmt::Debug for Options<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Options")
            .field("scenario", &self.scenario.name)
            .field("seeds", &self.seeds.len())
            .field("out_dir", &self.out_dir)
            .finish_non_exhaustive()
    }
}

/// What a seed set came to.
#[derive(Debug, Clone, PartialEq)]
pub struct SeedSet {
    /// The statistics.
    pub summary: SeedSummary,
    /// Simulated time of each run, s.
    pub duration_s: f64,
    /// Sum of the runs' wall times, s.
    pub run_time_s: f64,
    /// The files written into the set's folder (seeds.csv, seeds.json).
    pub files: Vec<PathBuf>,
}

/// Runs the scenario once per seed, writes each run into `s<seed>/` of the folder and
/// the statistics into seeds.csv and seeds.json beside them.
///
/// A run that fails (a simulator error, or a panic: a bug some seed reaches) stops the
/// set, naming its seed: statistics without it would quietly describe other seeds.
pub fn run(options: &Options<'_>) -> Result<SeedSet, String> {
    let scenario = options.scenario;
    let measured = measurements(scenario.flows.len());
    for name in [SEEDS_CSV, SEEDS_JSON] {
        // A set cut short must not leave the statistics of an earlier one beside it.
        match std::fs::remove_file(options.out_dir.join(name)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(format!("cannot clear {}: {e}", options.out_dir.display()));
            }
            _ => {}
        }
    }
    let done = AtomicUsize::new(0);
    let runs = options.executor.run_batch(options.seeds, |&seed| {
        let run = run_seed(options, seed, &measured).map_err(|e| format!("seed {seed}: {e}"))?;
        (options.progress)(
            done.fetch_add(1, Ordering::Relaxed) + 1,
            options.seeds.len(),
        );
        Ok::<_, String>(run)
    })?;
    let flow_names: Vec<String> = scenario.flows.iter().map(|f| f.name.clone()).collect();
    let values: Vec<Vec<Option<f64>>> = runs.iter().map(|r| r.values.clone()).collect();
    let summary = SeedSummary::new(
        &scenario.name,
        options.seeds,
        &flow_names,
        &measured,
        &values,
    );
    let write = |name: &str, bytes: Vec<u8>| {
        let path = options.out_dir.join(name);
        scream_sim::output::write_atomic(&path, bytes)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        Ok::<_, String>(path)
    };
    let csv = summary.csv().map_err(|e| e.to_string())?;
    let json = summary.json().map_err(|e| e.to_string())?;
    let files = vec![
        write(SEEDS_CSV, csv.into_bytes())?,
        write(SEEDS_JSON, json)?,
    ];
    Ok(SeedSet {
        summary,
        duration_s: runs.first().map_or(0.0, |r| r.duration_s),
        run_time_s: runs.iter().map(|r| r.wall_time_s).sum(),
        files,
    })
}

/// One seed's run as the set needs it.
struct SeedRun {
    values: Vec<Option<f64>>,
    duration_s: f64,
    wall_time_s: f64,
}

fn run_seed(options: &Options<'_>, seed: u64, measured: &[Measurement]) -> Result<SeedRun, String> {
    let scenario = options.scenario;
    let dir = options.out_dir.join(seed_dir(seed));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    // The set's folder is claimed as a whole; what a run of this seed left in its own
    // folder goes, anything else stays.
    scream_sim::output::remove_previous_outputs(&dir)
        .map_err(|e| format!("cannot clear {}: {e}", dir.display()))?;
    let started_unix_s = options.clock.now_unix_s();
    let mut result = catch_unwind(AssertUnwindSafe(|| scream_sim::run(scenario, seed, None)))
        .map_err(|_| "the simulator panicked".to_owned())?
        .map_err(|e| e.to_string())?;
    result.summary.wall_time_s = options.clock.now_unix_s() - started_unix_s;
    let measure = Measured::new(scenario, &result);
    let values = measured
        .iter()
        .map(|m| measure.value(m.metric, m.flow.unwrap_or(0)))
        .collect();
    let record = RunRecord {
        scenario,
        overrides: options.overrides,
        result: &result,
        toolkit: options.toolkit.clone(),
        command_line: options.command_line.clone(),
        started_unix_s,
    };
    let write = WriteOptions {
        no_plots: options.no_plots,
        extra_files: Vec::new(),
    };
    write_run(&record, &dir, &write)?;
    Ok(SeedRun {
        values,
        duration_s: result.summary.duration_s,
        wall_time_s: result.summary.wall_time_s,
    })
}
