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
//! A set is made in one go ([`run`]: each seed simulated and written at once, as the
//! command does) or from runs already in memory ([`write()`], for the Python package's
//! `Runs.write`); both write each seed through the same steps, so the folders are the
//! same. Choosing and claiming the folder is the caller's (the rule of
//! `scream_sim::output::folder`, with [`definition`]); this module writes inside it.

mod list;
mod summary;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use scream_sim::manifest::Toolkit;
use scream_sim::output::folder::RunDefinition;
use scream_sim::{RunResult, Scenario};

pub use list::{check_seeds, describe, parse_seeds};
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
    /// Where the runs run (and are written).
    pub executor: &'a dyn Executor,
    /// Skip each run's PNG and SVG figures.
    pub no_plots: bool,
    /// The wall clock, for each run's wall time and start ([`run`]; [`write()`] takes
    /// both from the runs it is given).
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

/// What defines a seed set, for its folder's manifest.json: the seeds, the overrides
/// and the scenario as run (short keys first: the first that differs is named when the
/// folder is refused).
pub fn definition(
    scenario: &Scenario,
    overrides: &[String],
    seeds: &[u64],
) -> std::io::Result<RunDefinition> {
    let scenario_toml = scream_sim::manifest::Manifest::scenario_text(scenario)?;
    Ok(RunDefinition::new()
        .with("matrix", "sim seeds")
        .with("seeds", seeds)
        .with("overrides", overrides)
        .with("scenario_toml", scenario_toml))
}

/// Runs the scenario once per seed, writes each run into `s<seed>/` of the folder and
/// the statistics into seeds.csv and seeds.json beside them.
///
/// A run that fails (a simulator error, or a panic: a bug some seed reaches) stops the
/// set, naming its seed: statistics without it would quietly describe other seeds.
pub fn run(options: &Options<'_>) -> Result<SeedSet, String> {
    clear_statistics(options.out_dir)?;
    let done = AtomicUsize::new(0);
    let tallies = options.executor.run_batch(options.seeds, |&seed| {
        let tally = simulate_seed(options.scenario, seed, options.clock)
            .and_then(|(result, started)| write_seed(options, &result, started))
            .map_err(|e| format!("seed {seed}: {e}"))?;
        (options.progress)(
            done.fetch_add(1, Ordering::Relaxed) + 1,
            options.seeds.len(),
        );
        Ok::<_, String>(tally)
    })?;
    finish(options, &tallies)
}

/// Writes runs made before — `runs[i]` is the run of `options.seeds[i]` with the Unix
/// time it started — into the folder exactly as [`run`] writes the runs it makes.
pub fn write(options: &Options<'_>, runs: &[(&RunResult, f64)]) -> Result<SeedSet, String> {
    let given: Vec<u64> = runs.iter().map(|(r, _)| r.summary.seed).collect();
    if given != options.seeds {
        return Err(format!(
            "the runs are of seeds {}, the set of seeds {}",
            describe(&given),
            describe(options.seeds)
        ));
    }
    clear_statistics(options.out_dir)?;
    let done = AtomicUsize::new(0);
    let tallies = options.executor.run_batch(runs, |&(result, started)| {
        let tally = write_seed(options, result, started)
            .map_err(|e| format!("seed {}: {e}", result.summary.seed))?;
        (options.progress)(done.fetch_add(1, Ordering::Relaxed) + 1, runs.len());
        Ok::<_, String>(tally)
    })?;
    finish(options, &tallies)
}

/// Runs `scenario` with `seed`, its wall time stamped by `clock`; returns the run and
/// the Unix time it started. A panic is an error naming it, not a crash of the set.
pub fn simulate_seed(
    scenario: &Scenario,
    seed: u64,
    clock: &dyn Clock,
) -> Result<(RunResult, f64), String> {
    let started_unix_s = clock.now_unix_s();
    let mut result = catch_unwind(AssertUnwindSafe(|| scream_sim::run(scenario, seed, None)))
        .map_err(|_| "the simulator panicked".to_owned())?
        .map_err(|e| e.to_string())?;
    result.summary.wall_time_s = clock.now_unix_s() - started_unix_s;
    Ok((result, started_unix_s))
}

/// The value of each of the set's [`measurements`] in one run of `scenario`.
pub fn values(scenario: &Scenario, result: &RunResult) -> Vec<Option<f64>> {
    let measure = Measured::new(scenario, result);
    measurements(scenario.flows.len())
        .iter()
        .map(|m| measure.value(m.metric, m.flow.unwrap_or(0)))
        .collect()
}

/// The statistics of `per_seed` (for each of `seeds`, its [`values`]).
pub fn summarise(scenario: &Scenario, seeds: &[u64], per_seed: &[Vec<Option<f64>>]) -> SeedSummary {
    let flow_names: Vec<String> = scenario.flows.iter().map(|f| f.name.clone()).collect();
    SeedSummary::new(
        &scenario.name,
        seeds,
        &flow_names,
        &measurements(scenario.flows.len()),
        per_seed,
    )
}

/// Removes the statistics of an earlier set: a set cut short must not leave them
/// beside its own runs.
fn clear_statistics(out_dir: &Path) -> Result<(), String> {
    for name in [SEEDS_CSV, SEEDS_JSON] {
        match std::fs::remove_file(out_dir.join(name)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(format!("cannot clear {}: {e}", out_dir.display()));
            }
            _ => {}
        }
    }
    Ok(())
}

/// One seed's run as the set needs it once written.
struct Tally {
    values: Vec<Option<f64>>,
    duration_s: f64,
    wall_time_s: f64,
}

/// Writes one seed's run into its folder `s<seed>/`, as `scream sim` writes a run.
fn write_seed(
    options: &Options<'_>,
    result: &RunResult,
    started_unix_s: f64,
) -> Result<Tally, String> {
    let scenario = options.scenario;
    let dir = options.out_dir.join(seed_dir(result.summary.seed));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    // The set's folder is claimed as a whole; what a run of this seed left in its own
    // folder goes, anything else stays.
    scream_sim::output::remove_previous_outputs(&dir)
        .map_err(|e| format!("cannot clear {}: {e}", dir.display()))?;
    let record = RunRecord {
        scenario,
        overrides: options.overrides,
        result,
        toolkit: options.toolkit.clone(),
        command_line: options.command_line.clone(),
        started_unix_s,
    };
    let write = WriteOptions {
        no_plots: options.no_plots,
        extra_files: Vec::new(),
    };
    write_run(&record, &dir, &write)?;
    Ok(Tally {
        values: values(scenario, result),
        duration_s: result.summary.duration_s,
        wall_time_s: result.summary.wall_time_s,
    })
}

/// The statistics of the written runs, into seeds.csv and seeds.json.
fn finish(options: &Options<'_>, tallies: &[Tally]) -> Result<SeedSet, String> {
    let per_seed: Vec<Vec<Option<f64>>> = tallies.iter().map(|t| t.values.clone()).collect();
    let summary = summarise(options.scenario, options.seeds, &per_seed);
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
        duration_s: tallies.first().map_or(0.0, |t| t.duration_s),
        run_time_s: tallies.iter().map(|t| t.wall_time_s).sum(),
        files,
    })
}
