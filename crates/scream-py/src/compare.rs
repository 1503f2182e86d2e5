//! `compare`: several runs on one set of axes, through the lab's comparison
//! (`scream_lab::compare`), the one `scream compare` calls, in the same steps: labels,
//! every folder read before anything is written, the folder claimed, the files.
//!
//! A run is a folder, as for the command. A `Run` of the package is compared from the
//! folder it was last written into when that still holds it; one never written is
//! written first into `out/runs/<label>` (without its figures: the comparison draws its
//! own), so that every comparison reads folders and the output folder records where
//! each run came from.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use scream_lab::compare::{self as lab, ComparedRun};

use crate::errors::{Kind, error};
use crate::folder::claim_set;
use crate::simulate::NativeRun;

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(compare, m)?)?;
    Ok(())
}

/// The folder inside the output folder where runs never written go.
const RUNS_DIR: &str = "runs";

/// One run to compare.
enum Input {
    /// A folder, read as it is.
    Folder(PathBuf),
    /// A run in memory, to be written into the folder first.
    Unwritten(Py<NativeRun>),
}

/// The label of each unwritten run when none are given: its scenario's name, with its
/// seed where two runs share a name, and its position where they share both.
fn default_labels(inputs: &[Input]) -> Vec<Option<String>> {
    let unique = |labels: &[Option<String>]| {
        let mut count: HashMap<&str, usize> = HashMap::new();
        for l in labels.iter().flatten() {
            *count.entry(l).or_default() += 1;
        }
        count.values().all(|&n| n == 1)
    };
    let named: Vec<Option<(String, u64)>> = inputs
        .iter()
        .map(|input| match input {
            Input::Folder(_) => None,
            Input::Unwritten(run) => {
                let result = run.get().result();
                // A name is a folder's name here: no separators.
                let name = result.scenario_name.replace(['/', '\\'], "_");
                Some((name, result.summary.seed))
            }
        })
        .collect();
    let names: Vec<Option<String>> = named
        .iter()
        .map(|n| n.as_ref().map(|(n, _)| n.clone()))
        .collect();
    if unique(&names) {
        return names;
    }
    let seeded: Vec<Option<String>> = named
        .iter()
        .map(|n| n.as_ref().map(|(n, s)| format!("{n}-s{s}")))
        .collect();
    if unique(&seeded) {
        return seeded;
    }
    seeded
        .into_iter()
        .enumerate()
        .map(|(i, l)| l.map(|l| format!("{l}-{}", i + 1)))
        .collect()
}

/// A label used as the name of a folder: one path component.
fn folder_name(label: &str) -> PyResult<&str> {
    let one = Path::new(label).components().count() == 1
        && !label.contains(['/', '\\'])
        && label != "."
        && label != "..";
    if one {
        Ok(label)
    } else {
        Err(PyValueError::new_err(format!(
            "labels: `{label}` names a run that is written into <out>/{RUNS_DIR}/<label>, so \
             it must be a folder name (no `/`, not `.` or `..`)"
        )))
    }
}

/// Compares `runs` (folders or `NativeRun`s) into `out`; see `scream.compare`.
/// Returns the files written (manifest.json first), the run folders compared and
/// compare.csv's text.
#[pyfunction]
#[pyo3(signature = (runs, out, labels = None, force = false, call = None))]
fn compare(
    py: Python<'_>,
    runs: Vec<Bound<'_, PyAny>>,
    out: PathBuf,
    labels: Option<Vec<String>>,
    force: bool,
    call: Option<String>,
) -> PyResult<(Vec<PathBuf>, Vec<PathBuf>, String)> {
    if runs.is_empty() {
        return Err(PyValueError::new_err(
            "compare: no run given; give run folders or Run objects",
        ));
    }
    let inputs = runs
        .iter()
        .map(|r| {
            if let Ok(run) = r.cast::<NativeRun>() {
                let run = run.clone().unbind();
                return Ok(match run.get().folder() {
                    Some(dir) => Input::Folder(dir),
                    None => Input::Unwritten(run),
                });
            }
            r.extract::<PathBuf>().map(Input::Folder).map_err(|_| {
                PyTypeError::new_err(format!(
                    "compare: a run is a run folder (str or os.PathLike) or a Run, not {r}"
                ))
            })
        })
        .collect::<PyResult<Vec<_>>>()?;
    let given = labels.unwrap_or_default();
    let wanted = if given.is_empty() {
        default_labels(&inputs)
    } else {
        given.iter().cloned().map(Some).collect()
    };
    let dirs = inputs
        .iter()
        .enumerate()
        .map(
            |(i, input)| match (input, wanted.get(i).and_then(Option::as_deref)) {
                (Input::Folder(dir), _) => Ok(dir.clone()),
                (Input::Unwritten(_), Some(label)) => {
                    Ok(out.join(RUNS_DIR).join(folder_name(label)?))
                }
                // Fewer labels than runs: the lab names both counts below.
                (Input::Unwritten(_), None) => Ok(out.join(RUNS_DIR)),
            },
        )
        .collect::<PyResult<Vec<_>>>()?;
    let labels = lab::labels(&dirs, &given, "labels").map_err(PyValueError::new_err)?;
    // Every folder there is read before anything is written, as the command does.
    let mut read: Vec<Option<ComparedRun>> = py
        .detach(|| {
            inputs
                .iter()
                .zip(&dirs)
                .zip(&labels)
                .map(|((input, dir), label)| match input {
                    Input::Folder(_) => lab::read_run(dir, label.clone()).map(Some),
                    Input::Unwritten(_) => Ok(None),
                })
                .collect::<Result<Vec<_>, String>>()
        })
        .map_err(|e| error(Kind::Output, e))?;
    let call = call.unwrap_or_else(|| "scream._scream.compare(...)".to_owned());
    let manifest = claim_set(&out, lab::definition(&dirs, &labels), force, &call)?;
    for (i, input) in inputs.iter().enumerate() {
        if let Input::Unwritten(run) = input {
            let (dir, label) = (&dirs[i], labels[i].clone());
            run.get().write_to(py, dir, force, false)?;
            read[i] = Some(
                py.detach(|| lab::read_run(dir, label))
                    .map_err(|e| error(Kind::Output, e))?,
            );
        }
    }
    let runs: Vec<ComparedRun> = read.into_iter().flatten().collect();
    let written = py
        .detach(|| lab::write(&runs, &out))
        .map_err(|e| error(Kind::Output, e))?;
    let csv = lab::csv(&written.rows).map_err(|e| error(Kind::Output, e))?;
    let files = std::iter::once(manifest).chain(written.files).collect();
    Ok((files, dirs, csv))
}
