//! Sweeps for an executor written in Python (Dask): `run_job`, what a worker calls on
//! one job, and `open_sweep`, the client's handle on the sweep's folder (open, pending
//! jobs, append each row, close). The folder, its lock, its checks and results.csv are
//! the `scream sweep` command's own (`scream_lab::sweep::Session`), so a folder started
//! by one resumes in the other.
//!
//! Every method that touches the folder takes the handle's lock only with the GIL
//! released: a thread holding the GIL never waits for a thread that needs it back.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use pyo3::exceptions::PyKeyError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use scream_lab::sweep::{self, Appended, Clock, RunJob, Session, SessionOptions, SweepError};

use crate::errors::{Kind, error};
use crate::folder::WallClock;

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run_job, m)?)?;
    m.add_function(wrap_pyfunction!(open_sweep, m)?)?;
    m.add_class::<NativeSweep>()?;
    Ok(())
}

/// A sweep error as the exception a caller catches for it: the spec and the jobs are
/// values (`ScenarioError`, a `ValueError`), the folder is output (`OutputError`, an
/// `OSError`), a row that is not the sweep's is a `SweepError` (a `ValueError`).
fn raise(e: SweepError) -> PyErr {
    match e {
        SweepError::Toml(_) | SweepError::Spec { .. } | SweepError::Job(_) => {
            error(Kind::Scenario, e.to_string())
        }
        SweepError::Io { .. } | SweepError::Resume(_) | SweepError::Busy { .. } => {
            error(Kind::Output, e.to_string())
        }
        SweepError::Row(_) => error(Kind::Sweep, e.to_string()),
    }
}

/// Runs one job (JSON, as `NativeSweep.job` gives it) and returns its row of
/// results.csv; the GIL is released while it runs.
#[pyfunction]
fn run_job(py: Python<'_>, job: &str) -> PyResult<Vec<String>> {
    py.detach(|| {
        let job = RunJob::from_json(job)?;
        sweep::run_job(
            &job,
            &WallClock::new(),
            &scream_sim::toolkit_of_this_build!(),
        )
    })
    .map_err(raise)
}

/// Opens the folder of the sweep `spec` (a spec file or a built-in study's name):
/// `out` or `out/sweep-<name>`; see `scream.sweep`.
#[pyfunction]
#[pyo3(signature = (spec, out = None, fresh = false, keep_runs = false, command_line = None))]
fn open_sweep(
    py: Python<'_>,
    spec: PathBuf,
    out: Option<PathBuf>,
    fresh: bool,
    keep_runs: bool,
    command_line: Option<Vec<String>>,
) -> PyResult<NativeSweep> {
    py.detach(|| {
        let plan = sweep::builtin::plan_of(&spec).map_err(|e| error(Kind::Scenario, e))?;
        let out_dir = out.unwrap_or_else(|| plan.default_out_dir());
        let options = SessionOptions {
            out_dir,
            fresh,
            keep_runs,
            toolkit: scream_sim::toolkit_of_this_build!(),
            command_line: command_line.unwrap_or_else(|| vec!["scream.sweep(...)".to_owned()]),
        };
        let clock = WallClock::new();
        let hash = plan.hash();
        let session = Session::open(plan, &options, clock.now_unix_s()).map_err(raise)?;
        Ok(NativeSweep {
            name: session.plan().name.clone(),
            plan_hash: hash,
            results: session.results().to_path_buf(),
            out_dir: session.dir().to_path_buf(),
            columns: session.columns().to_vec(),
            runs: session.plan().runs().len(),
            already_done: session.already_done(),
            clock,
            session: Mutex::new(Some(session)),
        })
    })
}

/// An open sweep folder, locked until `close` (or until the handle is dropped).
#[pyclass(module = "scream._scream", frozen)]
pub(crate) struct NativeSweep {
    name: String,
    plan_hash: String,
    results: PathBuf,
    out_dir: PathBuf,
    columns: Vec<String>,
    runs: usize,
    already_done: usize,
    clock: WallClock,
    session: Mutex<Option<Session<'static>>>,
}

impl std::fmt::Debug for NativeSweep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NativeSweep")
            .field("name", &self.name)
            .field("out_dir", &self.out_dir)
            .finish_non_exhaustive()
    }
}

impl NativeSweep {
    /// `f` on the open session, without the GIL.
    fn with<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&Session<'static>) -> PyResult<T> + Send,
    ) -> PyResult<T> {
        py.detach(|| {
            let guard = self.session.lock().unwrap_or_else(PoisonError::into_inner);
            match guard.as_ref() {
                Some(session) => f(session),
                None => Err(error(
                    Kind::Output,
                    format!(
                        "the sweep into {} is closed; open it again to go on",
                        self.out_dir.display()
                    ),
                )),
            }
        })
    }
}

#[pymethods]
impl NativeSweep {
    /// The spec's name.
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// The hash sweep.json holds: it names this plan (other values, seeds or bases
    /// make another).
    #[getter]
    fn plan_hash(&self) -> &str {
        &self.plan_hash
    }

    /// The sweep's folder.
    #[getter]
    fn out_dir(&self) -> &Path {
        &self.out_dir
    }

    /// results.csv in the folder.
    #[getter]
    fn results(&self) -> &Path {
        &self.results
    }

    /// The header of results.csv.
    #[getter]
    fn columns(&self) -> Vec<String> {
        self.columns.clone()
    }

    /// Runs in the plan.
    #[getter]
    fn runs(&self) -> usize {
        self.runs
    }

    /// Runs results.csv held when the folder was opened.
    #[getter]
    fn already_done(&self) -> usize {
        self.already_done
    }

    /// Whether `close` was called.
    #[getter]
    fn closed(&self, py: Python<'_>) -> bool {
        py.detach(|| {
            self.session
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .is_none()
        })
    }

    /// The run ids whose row results.csv lacks, in the plan's order.
    fn pending(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        self.with(py, |s| {
            Ok(s.pending()
                .into_iter()
                .map(|r| s.plan().run_id(r))
                .collect())
        })
    }

    /// The job of run `run_id` as JSON, its folders made absolute for a worker that
    /// runs elsewhere.
    fn job(&self, py: Python<'_>, run_id: &str) -> PyResult<String> {
        self.with(py, |s| {
            let mut job = s
                .job_of(run_id)
                .ok_or_else(|| PyKeyError::new_err(format!("no run {run_id} in this sweep")))?;
            job.anchor_paths()
                .map_err(|e| error(Kind::Output, format!("{}: {e}", self.out_dir.display())))?;
            job.to_json().map_err(raise)
        })
    }

    /// Appends a finished run's row (as `run_job` returns it) to results.csv and
    /// flushes it; `False` when results.csv already holds that run (nothing written).
    fn append(&self, py: Python<'_>, row: Vec<String>) -> PyResult<bool> {
        self.with(py, |s| match s.append(&row).map_err(raise)? {
            Appended::Written(_) => Ok(true),
            Appended::AlreadyThere => Ok(false),
        })
    }

    /// Releases the folder and returns what this handle did: runs, already_done, ran,
    /// errors, first_errors [(run id, reason)], results, set_aside (None, or the file
    /// and [(line, reason)] of damaged lines moved there), wall_time_s, run_time_s.
    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let session = py.detach(|| {
            self.session
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take()
        });
        let Some(session) = session else {
            return Err(error(
                Kind::Output,
                format!(
                    "the sweep into {} is already closed",
                    self.out_dir.display()
                ),
            ));
        };
        let tally = session.close(self.clock.now_unix_s());
        let out = PyDict::new(py);
        out.set_item("runs", tally.runs)?;
        out.set_item("already_done", tally.already_done)?;
        out.set_item("ran", tally.ran)?;
        out.set_item("errors", tally.errors)?;
        out.set_item("first_errors", tally.first_errors)?;
        out.set_item("results", tally.results)?;
        let set_aside = tally.set_aside.map(|a| (a.file, a.lines));
        out.set_item("set_aside", set_aside)?;
        out.set_item("wall_time_s", tally.wall_time_s)?;
        out.set_item("run_time_s", tally.run_time_s)?;
        Ok(out)
    }
}
