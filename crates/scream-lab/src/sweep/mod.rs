//! Parameter sweeps: many runs of base scenarios with scenario keys varied by a design,
//! measured into one results.csv (docs/sweeps.md).
//!
//! [`Plan::from_file`] reads a spec (TOML) and expands it: base scenarios × design
//! points × seeds. A point is a list of overrides on the same dotted keys that
//! `scream sim --set` takes, so every run is a pure function of (scenario text,
//! overrides, seed) and may run on any thread or machine: [`RunJob`] is that run as
//! data (JSON), and [`run_job`] turns it into its row. [`run`] runs the plan's runs on
//! several threads, appending one flushed row per finished run, and on a second call
//! skips the runs whose row is there: a killed sweep resumes, losing only the runs
//! that were in progress. One sweep at a time writes into a folder (`lock`), and a
//! resume checks the rows it finds, moving damaged ones aside (`resume`).
//!
//! [`run`] is one driver of a [`Session`] (open the folder, list the pending jobs,
//! append each row, close); an executor on other machines drives the same steps.
//!
//! The simulator reads no clock; the caller passes one ([`Clock`]) for the wall time
//! of each run.

pub mod builtin;
mod columns;
mod design;
mod execute;
mod job;
mod lock;
pub(crate) mod measure;
mod plan;
mod resume;
pub(crate) mod rows;
mod session;
mod spec;
mod store;
mod trial;

use std::path::{Path, PathBuf};

pub use columns::{
    Better, Column, ID_COLUMNS, METRICS, Metric, RUN_COLUMNS, Scope, TIMING_COLUMNS,
    metric_of_column,
};
pub use execute::run_job;
pub use job::{JOB_FORMAT, JobMetric, JobScenario, KeepRun, RunJob};
pub use lock::LOCK_FILE;
pub use plan::{Base, DesignKind, MAX_RUNS, Plan, PlannedRun, Point};
pub use resume::{REJECTED_CSV, SetAside};
pub use session::{Appended, Session, SessionOptions};
pub use store::{RESULTS_CSV, RUNS_DIR, SWEEP_JSON};
pub use trial::Trial;

use scream_sim::manifest::Toolkit;
use scream_sim::scenario::load::{Location, ScenarioError};

/// Why a sweep could not start or go on. Each variant displays as one line.
#[derive(Debug, thiserror::Error)]
pub enum SweepError {
    /// The spec is not valid TOML or does not fit the spec's schema.
    #[error(transparent)]
    Toml(#[from] ScenarioError),
    /// The spec is well-formed but asks for something impossible.
    #[error("{location}: {message}")]
    Spec {
        /// Where in the spec.
        location: Location,
        /// The key at fault and what is wrong.
        message: String,
    },
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The output folder holds results that this spec must not be mixed with.
    #[error("{0}")]
    Resume(String),
    /// A run job that this build cannot run (another layout, an unknown metric).
    #[error("{0}")]
    Job(String),
    /// A row handed to [`Session::append`] that is not one of this sweep's rows.
    #[error("{0}")]
    Row(String),
    /// Another sweep is writing into the output folder.
    #[error(
        "{} is in use by another sweep, which holds the lock {}: wait for it to finish, or \
         give another --out folder",
        dir.display(),
        lock.display()
    )]
    Busy {
        /// The output folder.
        dir: PathBuf,
        /// Its lock file.
        lock: PathBuf,
    },
}

/// Wall-clock time, supplied by the caller (the simulator never reads a clock).
pub trait Clock: Sync {
    /// Seconds since the Unix epoch; only differences and the start time are used.
    fn now_unix_s(&self) -> f64;
}

/// How far a sweep has come, passed to [`Options::progress`] after each run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Runs finished in this call.
    pub done: usize,
    /// Runs this call has to do (the plan's runs less those already in results.csv).
    pub to_do: usize,
    /// Of `done`, those recorded as `error`.
    pub errors: usize,
}

/// How to run a sweep.
pub struct Options<'a> {
    /// The folder of results.csv and sweep.json.
    pub out_dir: &'a Path,
    /// Where the runs run.
    pub executor: &'a dyn crate::Executor,
    /// Discard earlier results in `out_dir` instead of resuming them.
    pub fresh: bool,
    /// Also write each run's output folder (summary, time series, manifest; no plots)
    /// under `runs/`.
    pub keep_runs: bool,
    /// The wall clock.
    pub clock: &'a dyn Clock,
    /// The build running the sweep, for sweep.json and the kept runs' manifests.
    pub toolkit: Toolkit,
    /// The process's arguments, for the kept runs' manifests.
    pub command_line: Vec<String>,
    /// Called from the worker threads after each run.
    pub progress: &'a (dyn Fn(Progress) + Sync),
}

impl std::fmt::Debug for Options<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Options")
            .field("out_dir", &self.out_dir)
            .field("executor", &self.executor)
            .field("fresh", &self.fresh)
            .field("keep_runs", &self.keep_runs)
            .finish_non_exhaustive()
    }
}

/// What a call of [`run`] did.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepTally {
    /// Runs in the plan.
    pub runs: usize,
    /// Runs skipped because results.csv already held them.
    pub already_done: usize,
    /// Runs done in this call.
    pub ran: usize,
    /// Of `ran`, those recorded as `error`.
    pub errors: usize,
    /// The first error rows' run ids and messages (at most [`FIRST_ERRORS`]).
    pub first_errors: Vec<(String, String)>,
    /// The results file.
    pub results: PathBuf,
    /// Lines of results.csv that this call found damaged and moved aside before it
    /// resumed (their runs were run again).
    pub set_aside: Option<SetAside>,
    /// Wall time of this call, s.
    pub wall_time_s: f64,
    /// Sum of the wall times of the runs done, s (on `jobs` threads, about
    /// `jobs` times `wall_time_s`).
    pub run_time_s: f64,
}

/// How many error messages an [`SweepTally`] keeps.
pub const FIRST_ERRORS: usize = 5;

/// Runs the runs of `plan` that results.csv in `options.out_dir` does not hold yet.
///
/// A run that fails (a value the scenario refuses, a simulator error or panic) is a
/// row with status `error`; the sweep goes on. An I/O error on the results file stops
/// it: the runs in progress finish, and the rows written so far stay.
pub fn run(plan: &Plan, options: &Options<'_>) -> Result<SweepTally, SweepError> {
    execute::run(plan, options)
}
