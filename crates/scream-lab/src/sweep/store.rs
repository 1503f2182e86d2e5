//! The sweep's folder: results.csv, appended one flushed row per finished run, and
//! sweep.json, which ties the folder to one plan so that a resumed sweep never mixes
//! the rows of two different specs.

use std::collections::BTreeSet;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::lock::FolderLock;
use super::resume::{self, REJECTED_CSV, SetAside};
use super::{Plan, SweepError};
use scream_sim::manifest::Toolkit;

/// The results file, one row per run.
pub const RESULTS_CSV: &str = "results.csv";
/// What the folder belongs to: the plan's hash, its columns, who started it.
pub const SWEEP_JSON: &str = "sweep.json";
/// With `keep_runs`, each run's output folder goes under this one.
pub const RUNS_DIR: &str = "runs";

/// Version of sweep.json's layout.
const STATE_FORMAT: u32 = 1;

/// sweep.json as written.
#[derive(Debug, Serialize)]
struct StateOut<'a> {
    format: u32,
    name: &'a str,
    design: &'a str,
    plan_hash: String,
    runs: usize,
    columns: Vec<String>,
    toolkit: &'a Toolkit,
    started_unix_s: f64,
}

/// The part of sweep.json a resume checks.
#[derive(Debug, Deserialize)]
struct StateIn {
    plan_hash: String,
    columns: Vec<String>,
}

/// An open results file and the runs it already holds.
pub(super) struct Store {
    pub(super) done: BTreeSet<String>,
    pub(super) writer: csv::Writer<File>,
    /// Lines of an earlier call that were moved aside.
    pub(super) set_aside: Option<SetAside>,
    /// Held until the sweep ends.
    pub(super) lock: FolderLock,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("done", &self.done.len())
            .finish_non_exhaustive()
    }
}

fn io_error(path: &Path) -> impl Fn(std::io::Error) -> SweepError + '_ {
    move |source| SweepError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Opens `dir` for `plan`: takes its lock, then starts it (or, with `fresh`, starts it
/// over), or checks that it belongs to the same plan and reads which runs are done.
pub(super) fn open(
    dir: &Path,
    plan: &Plan,
    fresh: bool,
    toolkit: &Toolkit,
    now_unix_s: f64,
) -> Result<Store, SweepError> {
    std::fs::create_dir_all(dir).map_err(io_error(dir))?;
    // Before anything is read or removed: another sweep may be writing here.
    let lock = FolderLock::take(dir)?;
    let state_path = dir.join(SWEEP_JSON);
    let results_path = dir.join(RESULTS_CSV);
    if fresh {
        // Only what a sweep writes: the folder may hold the user's own files. The lock
        // file stays (see `lock`).
        let rejected = dir.join(REJECTED_CSV);
        for path in [&results_path, &state_path, &rejected] {
            remove_if_present(path, |p| std::fs::remove_file(p))?;
        }
        remove_if_present(&dir.join(RUNS_DIR), |p| std::fs::remove_dir_all(p))?;
    }
    let columns = plan.columns();
    let hash = plan.hash();
    if state_path.exists() {
        let text = std::fs::read_to_string(&state_path).map_err(io_error(&state_path))?;
        let state: StateIn = serde_json::from_str(&text).map_err(|e| {
            SweepError::Resume(format!(
                "{} is not a sweep state file ({e}); pass --fresh to start the sweep over",
                state_path.display()
            ))
        })?;
        if state.plan_hash != hash || state.columns != columns {
            return Err(SweepError::Resume(format!(
                "the spec differs from the one whose results are in {} (plan {} there, {hash} \
                 now): pass --fresh to discard those results and start over, or give another \
                 --out folder",
                dir.display(),
                state.plan_hash
            )));
        }
    } else {
        if results_path.exists() {
            return Err(SweepError::Resume(format!(
                "{} exists but {SWEEP_JSON} does not, so it cannot be told to belong to this \
                 spec: pass --fresh to replace it, or give another --out folder",
                results_path.display()
            )));
        }
        let state = StateOut {
            format: STATE_FORMAT,
            name: &plan.name,
            design: plan.design.name(),
            plan_hash: hash,
            runs: plan.runs().len(),
            columns: columns.clone(),
            toolkit,
            started_unix_s: now_unix_s,
        };
        let mut text = serde_json::to_string_pretty(&state)
            .map_err(|e| io_error(&state_path)(std::io::Error::other(e)))?;
        text.push('\n');
        scream_sim::output::write_atomic(&state_path, text).map_err(io_error(&state_path))?;
    }
    let (done, set_aside) = if results_path.exists() {
        read_done(&results_path, plan, &columns)?
    } else {
        let mut w =
            csv::Writer::from_path(&results_path).map_err(|e| io_error(&results_path)(e.into()))?;
        w.write_record(&columns)
            .and_then(|()| w.flush().map_err(csv::Error::from))
            .map_err(|e| io_error(&results_path)(e.into()))?;
        (BTreeSet::new(), None)
    };
    let file = OpenOptions::new()
        .append(true)
        .open(&results_path)
        .map_err(io_error(&results_path))?;
    let writer = csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(file);
    Ok(Store {
        done,
        writer,
        set_aside,
        lock,
    })
}

fn remove_if_present(
    path: &Path,
    remove: fn(&Path) -> std::io::Result<()>,
) -> Result<(), SweepError> {
    match remove(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io_error(path)(e)),
        _ => Ok(()),
    }
}

/// The run ids of the complete rows of an existing results file, after moving its bad
/// rows aside ([`resume::verify`]). A last line without its newline is what a killed
/// sweep leaves mid-write: it is cut off, and its run runs again.
fn read_done(
    path: &Path,
    plan: &Plan,
    columns: &[String],
) -> Result<(BTreeSet<String>, Option<SetAside>), SweepError> {
    let fail = io_error(path);
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .map_err(&fail)?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).map_err(&fail)?;
    let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    if complete < bytes.len() {
        file.set_len(complete as u64).map_err(&fail)?;
        file.seek(SeekFrom::End(0)).map_err(&fail)?;
        bytes.truncate(complete);
    }
    if bytes.is_empty() {
        // Killed before even the header was written: start the file again.
        let mut w = csv::Writer::from_writer(&mut file);
        w.write_record(columns)
            .and_then(|()| w.flush().map_err(csv::Error::from))
            .map_err(|e| fail(e.into()))?;
        return Ok((BTreeSet::new(), None));
    }
    drop(file);
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(bytes.as_slice());
    let header: Vec<String> = reader
        .headers()
        .map_err(|e| fail(e.into()))?
        .iter()
        .map(str::to_owned)
        .collect();
    if header != columns {
        return Err(SweepError::Resume(format!(
            "{} has other columns than this sweep writes: pass --fresh to replace it, or give \
             another --out folder",
            path.display()
        )));
    }
    let existing = resume::verify(path, &bytes, plan, columns)?;
    Ok((existing.done.into_keys().collect(), existing.set_aside))
}
