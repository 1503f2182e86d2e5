//! A sweep's folder as steps any executor can drive: open it, list the pending runs as
//! jobs, append each finished row, close it.
//!
//! The local sweep ([`super::run`]) drives these steps from this machine's threads; a
//! foreign executor (Dask, from the Python package) drives the same steps from its
//! client while its workers run the jobs with [`super::run_job`]. Either way one
//! process holds the folder's lock and is the only writer of results.csv, and a row
//! reaches the file only through [`Session::append`], which checks it as a resume
//! would and writes each run at most once: a run that an executor ran twice (a worker
//! lost after it finished, say) still has one row.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use csv::StringRecord;
use scream_sim::manifest::Toolkit;

use super::job::RunJob;
use super::lock::FolderLock;
use super::plan::{Plan, PlannedRun};
use super::resume::{SetAside, check_row};
use super::rows::Layout;
use super::{FIRST_ERRORS, Progress, SweepError, SweepTally, store};

/// How to open a sweep's folder.
#[derive(Debug, Clone)]
pub struct SessionOptions {
    /// The folder of results.csv and sweep.json.
    pub out_dir: PathBuf,
    /// Discard earlier results in `out_dir` instead of resuming them.
    pub fresh: bool,
    /// Make every job also write its run's folder under `<out_dir>/runs/`.
    pub keep_runs: bool,
    /// The build running the sweep, for sweep.json.
    pub toolkit: Toolkit,
    /// The command that started the sweep, for the kept runs' manifests.
    pub command_line: Vec<String>,
}

/// What [`Session::append`] did with a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Appended {
    /// The row is now in results.csv; how far the sweep has come.
    Written(Progress),
    /// results.csv already held a row of this run; nothing was written.
    AlreadyThere,
}

/// An open sweep folder: its lock held, its earlier rows checked, results.csv open for
/// appending. Dropping it releases the lock; [`Session::close`] also says what ran.
pub struct Session<'p> {
    plan: Cow<'p, Plan>,
    dir: PathBuf,
    results: PathBuf,
    columns: Vec<String>,
    layout: Layout,
    /// Each run id's index in the plan's runs, for [`Session::job_of`].
    index: HashMap<String, usize>,
    keep: Option<(PathBuf, Vec<String>)>,
    started_unix_s: f64,
    already_done: usize,
    set_aside: Option<SetAside>,
    /// Appends come from several threads (the local executor) or from a client's
    /// callbacks: the file and the counts move together under one lock.
    state: Mutex<State>,
    _lock: FolderLock,
}

struct State {
    writer: csv::Writer<std::fs::File>,
    done: BTreeSet<String>,
    ran: usize,
    errors: usize,
    first_errors: Vec<(String, String)>,
    run_time_s: f64,
}

impl std::fmt::Debug for Session<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("plan", &self.plan.name)
            .field("dir", &self.dir)
            .field("already_done", &self.already_done)
            .finish_non_exhaustive()
    }
}

impl<'p> Session<'p> {
    /// Opens `options.out_dir` for `plan`: takes its lock, then starts it (or, with
    /// `fresh`, starts it over), or checks that it belongs to the same plan, repairs
    /// damaged rows and reads which runs are done. `now_unix_s` is the start time
    /// recorded in a new sweep.json and the start of [`SweepTally::wall_time_s`].
    pub fn open(
        plan: impl Into<Cow<'p, Plan>>,
        options: &SessionOptions,
        now_unix_s: f64,
    ) -> Result<Self, SweepError> {
        let plan = plan.into();
        let dir = options.out_dir.clone();
        let store = store::open(&dir, &plan, options.fresh, &options.toolkit, now_unix_s)?;
        let columns = plan.columns();
        let layout = Layout::of(&columns).map_err(SweepError::Resume)?;
        let index = plan
            .runs()
            .iter()
            .enumerate()
            .map(|(i, r)| (plan.run_id(r), i))
            .collect();
        let already_done = plan
            .runs()
            .iter()
            .filter(|r| store.done.contains(&plan.run_id(r)))
            .count();
        Ok(Self {
            results: dir.join(store::RESULTS_CSV),
            keep: options
                .keep_runs
                .then(|| (dir.join(store::RUNS_DIR), options.command_line.clone())),
            dir,
            columns,
            layout,
            index,
            started_unix_s: now_unix_s,
            already_done,
            set_aside: store.set_aside,
            state: Mutex::new(State {
                writer: store.writer,
                done: store.done,
                ran: 0,
                errors: 0,
                first_errors: Vec::new(),
                run_time_s: 0.0,
            }),
            _lock: store.lock,
            plan,
        })
    }

    /// The plan this folder belongs to.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// results.csv in the folder.
    pub fn results(&self) -> &Path {
        &self.results
    }

    /// The header of results.csv.
    pub fn columns(&self) -> &[String] {
        &self.columns
    }

    /// Runs that results.csv held when the folder was opened.
    pub fn already_done(&self) -> usize {
        self.already_done
    }

    /// Lines of results.csv that opening found damaged and moved aside.
    pub fn set_aside(&self) -> Option<&SetAside> {
        self.set_aside.as_ref()
    }

    /// The plan's runs whose row results.csv does not hold yet, in plan order.
    pub fn pending(&self) -> Vec<&PlannedRun> {
        let state = self.state();
        self.plan
            .runs()
            .iter()
            .filter(|r| !state.done.contains(&self.plan.run_id(r)))
            .collect()
    }

    /// The job of `run`, a run of this session's plan.
    pub fn job(&self, run: &PlannedRun) -> RunJob {
        let keep = self
            .keep
            .as_ref()
            .map(|(dir, command)| (dir.as_path(), command.as_slice()));
        self.plan.job(run, keep)
    }

    /// The job of the run called `run_id`, or `None` if the plan has no such run.
    pub fn job_of(&self, run_id: &str) -> Option<RunJob> {
        let run = &self.plan.runs()[*self.index.get(run_id)?];
        Some(self.job(run))
    }

    /// Appends `row` (a finished run's cells, as [`super::run_job`] returns them) to
    /// results.csv and flushes it, unless results.csv already holds that run.
    ///
    /// A row that is not one this sweep writes for one of its runs (a cell too many,
    /// another plan's run, a parameter its point does not set) is refused with
    /// [`SweepError::Row`], and nothing is written.
    pub fn append(&self, row: &[String]) -> Result<Appended, SweepError> {
        let record = StringRecord::from(row.to_vec());
        let id = check_row(&self.layout, &self.columns, &self.plan, &record).map_err(|why| {
            SweepError::Row(format!(
                "a row for {} that this sweep does not write ({why}): {}",
                self.results.display(),
                row.join(",")
            ))
        })?;
        let mut state = self.state();
        if state.done.contains(&id) {
            return Ok(Appended::AlreadyThere);
        }
        let fail = |source: std::io::Error| SweepError::Io {
            path: self.results.clone(),
            source,
        };
        state.writer.write_record(row).map_err(|e| fail(e.into()))?;
        // Flushed per row: a killed sweep loses only the runs in progress.
        state.writer.flush().map_err(fail)?;
        state.ran += 1;
        state.run_time_s += record[self.layout.wall_time].trim().parse().unwrap_or(0.0);
        if record[self.layout.status].trim() == "error" {
            state.errors += 1;
            if state.first_errors.len() < FIRST_ERRORS {
                let message = record[self.layout.error].trim().to_owned();
                state.first_errors.push((id.clone(), message));
            }
        }
        state.done.insert(id);
        Ok(Appended::Written(Progress {
            done: state.ran,
            to_do: self.plan.runs().len() - self.already_done,
            errors: state.errors,
        }))
    }

    /// Closes the folder (its lock is released) and says what this session did;
    /// `now_unix_s` ends [`SweepTally::wall_time_s`].
    pub fn close(self, now_unix_s: f64) -> SweepTally {
        let state = self
            .state
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        SweepTally {
            runs: self.plan.runs().len(),
            already_done: self.already_done,
            ran: state.ran,
            errors: state.errors,
            first_errors: state.first_errors,
            results: self.results,
            set_aside: self.set_aside,
            wall_time_s: now_unix_s - self.started_unix_s,
            run_time_s: state.run_time_s,
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        // A thread that panicked while appending left at worst a row half-written,
        // which the next resume cuts off; the counts are still worth reporting.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl<'p> From<&'p Plan> for Cow<'p, Plan> {
    fn from(plan: &'p Plan) -> Self {
        Cow::Borrowed(plan)
    }
}

impl From<Plan> for Cow<'_, Plan> {
    fn from(plan: Plan) -> Self {
        Cow::Owned(plan)
    }
}
