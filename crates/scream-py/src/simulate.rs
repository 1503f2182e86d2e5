//! `simulate`: a scenario in, a finished run out, with the GIL released while the
//! simulator runs. The run keeps the simulator's own result; the Python `Run` asks it
//! for the summary, the columns of its frames, the manifest, or a folder of files.

use std::path::PathBuf;
use std::time::Instant;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};
use scream_lab::run_folder::{self, RunRecord, WriteOptions};
use scream_records::columns::{ColumnData, Columns};
use scream_sim::manifest::Toolkit;
use scream_sim::output::folder::{self, FolderError, Requested, RunDefinition};
use scream_sim::scenario::load::{Override, load_checked, load_checked_str};
use scream_sim::{RunResult, Scenario};

use crate::errors::{Kind, error};
use crate::toml_value;

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_class::<NativeRun>()?;
    Ok(())
}

/// The build of this module, for manifest.json.
fn toolkit() -> Toolkit {
    scream_sim::toolkit_of_this_build!()
}

/// The overrides `set` stands for, as the `--set KEY=VALUE` arguments they equal: a
/// dict `{"link.capacity_mbps": 5}` or a list of `"KEY=VALUE"` strings.
pub(crate) fn overrides(set: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<Override>> {
    let Some(set) = set.filter(|s| !s.is_none()) else {
        return Ok(Vec::new());
    };
    let raw: Vec<String> = if let Ok(dict) = set.cast::<PyDict>() {
        dict.iter()
            .map(|(k, v)| {
                let key: String = k.extract().map_err(|_| {
                    PyTypeError::new_err(format!("set: keys are dotted key paths (str), not {k}"))
                })?;
                let value = toml_value::to_value(&format!("set[{key:?}]"), &v)?;
                Ok(format!("{key}={}", value.to_string().trim()))
            })
            .collect::<PyResult<_>>()?
    } else if set.is_instance_of::<PyString>() {
        vec![set.extract()?]
    } else if set.is_instance_of::<PyList>() || set.is_instance_of::<PyTuple>() {
        set.try_iter()?
            .map(|item| {
                item?.extract::<String>().map_err(|_| {
                    PyTypeError::new_err("set: a list of overrides holds \"KEY=VALUE\" strings")
                })
            })
            .collect::<PyResult<_>>()?
    } else {
        return Err(PyTypeError::new_err(
            "set: a dict {\"KEY\": value} or a list of \"KEY=VALUE\" strings",
        ));
    };
    raw.iter()
        .map(|r| {
            r.parse::<Override>()
                .map_err(|e| error(Kind::Scenario, e.to_string()))
        })
        .collect()
}

/// Loads and checks `scenario` with `set`: a built-in name, a path (str or
/// `os.PathLike`), TOML text (a str with a newline or an `=`) or a dict.
fn load(scenario: &Bound<'_, PyAny>, set: &[Override]) -> PyResult<Scenario> {
    let loaded = if let Ok(dict) = scenario.cast::<PyDict>() {
        let text = toml_value::dict_to_toml(dict)?;
        load_checked_str(&text, "<dict>", None, set)
    } else if scenario.is_instance_of::<PyString>() {
        let text: String = scenario.extract()?;
        if text.contains('\n') || text.contains('=') {
            load_checked_str(&text, "<string>", None, set)
        } else {
            load_checked(&text, set)
        }
    } else if let Ok(path) = scenario.extract::<PathBuf>() {
        load_checked(&path.to_string_lossy(), set)
    } else {
        return Err(PyTypeError::new_err(
            "scenario: a built-in name, a path, TOML text or a dict",
        ));
    };
    loaded.map_err(|e| error(Kind::Scenario, e.to_string()))
}

fn seed_of(seed: Option<&Bound<'_, PyAny>>, scenario: &Scenario) -> PyResult<u64> {
    match seed.filter(|s| !s.is_none()) {
        None => Ok(scenario.seed),
        Some(s) => s.extract::<u64>().map_err(|_| {
            crate::errors::error(
                Kind::Scenario,
                format!("seed: must be an integer in [0, 2^64 - 1] (is {s})"),
            )
        }),
    }
}

/// Runs a scenario; see `scream.simulate` for the arguments.
#[pyfunction]
#[pyo3(signature = (scenario, set = None, seed = None, call = None))]
fn simulate(
    py: Python<'_>,
    scenario: &Bound<'_, PyAny>,
    set: Option<&Bound<'_, PyAny>>,
    seed: Option<&Bound<'_, PyAny>>,
    call: Option<String>,
) -> PyResult<NativeRun> {
    let set = overrides(set)?;
    let loaded = load(scenario, &set)?;
    let seed = seed_of(seed, &loaded)?;
    let warnings = loaded.warnings();
    let started_unix_s = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64());
    // The simulator holds no Python object: other threads run Python meanwhile, and
    // two threads simulate at once.
    let (loaded, result) = py.detach(move || {
        let started = Instant::now();
        let result = scream_sim::run(&loaded, seed, None).map(|mut r| {
            r.summary.wall_time_s = started.elapsed().as_secs_f64();
            r
        });
        (loaded, result)
    });
    let result = result.map_err(|e| error(Kind::Simulation, e.to_string()))?;
    Ok(NativeRun {
        scenario: loaded,
        overrides: set.iter().map(|o| o.raw().to_owned()).collect(),
        result,
        call: call.unwrap_or_else(|| "scream._scream.simulate(...)".to_owned()),
        started_unix_s,
        warnings,
    })
}

/// A finished simulation, as the simulator returned it.
#[pyclass(module = "scream._scream", frozen)]
#[derive(Debug)]
pub(crate) struct NativeRun {
    scenario: Scenario,
    overrides: Vec<String>,
    result: RunResult,
    call: String,
    started_unix_s: f64,
    warnings: Vec<String>,
}

impl NativeRun {
    fn record(&self) -> RunRecord<'_> {
        RunRecord {
            scenario: &self.scenario,
            overrides: &self.overrides,
            result: &self.result,
            toolkit: toolkit(),
            command_line: vec!["python".to_owned(), self.call.clone()],
            started_unix_s: self.started_unix_s,
        }
    }
}

/// A column as (name, dtype, data): numbers as the bytes of a native-endian array of
/// `dtype` (numpy reads them without a copy per cell), text as a list of str or None.
fn columns_to_py<'py>(py: Python<'py>, columns: &Columns) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    for column in &columns.columns {
        let bytes = |raw: Vec<u8>| PyBytes::new(py, &raw).into_any();
        let (dtype, data) = match &column.data {
            ColumnData::F64(v) => (
                "f8",
                bytes(v.iter().flat_map(|x| x.to_ne_bytes()).collect()),
            ),
            ColumnData::U64(v) => (
                "u8",
                bytes(v.iter().flat_map(|x| x.to_ne_bytes()).collect()),
            ),
            ColumnData::I64(v) => (
                "i8",
                bytes(v.iter().flat_map(|x| x.to_ne_bytes()).collect()),
            ),
            ColumnData::Bool(v) => ("?", bytes(v.iter().map(|&b| u8::from(b)).collect())),
            ColumnData::Text(v) => {
                // One str object per distinct name: a flow's name repeats on every row.
                let mut last: Option<(&str, Bound<'py, PyString>)> = None;
                let list = PyList::empty(py);
                for cell in v {
                    match cell {
                        None => list.append(py.None())?,
                        Some(s) => {
                            let same = last.as_ref().is_some_and(|(text, _)| *text == s.as_str());
                            if !same {
                                last = Some((s.as_str(), PyString::new(py, s)));
                            }
                            if let Some((_, obj)) = &last {
                                list.append(obj)?;
                            }
                        }
                    }
                }
                ("O", list.into_any())
            }
        };
        out.append((column.name.as_str(), dtype, data))?;
    }
    Ok(out)
}

#[pymethods]
impl NativeRun {
    /// summary.json as written to disk.
    fn summary_json(&self) -> PyResult<String> {
        let bytes = scream_sim::output::summary_json(&self.result.summary)
            .map_err(|e| error(Kind::Output, e.to_string()))?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// The columns of timeseries.csv.
    fn timeseries_columns<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let columns = Columns::from_rows(&self.result.samples)
            .map_err(|e| error(Kind::Output, e.to_string()))?;
        columns_to_py(py, &columns)
    }

    /// The columns of links.csv.
    fn links_columns<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let columns = Columns::from_rows(&self.result.link_samples)
            .map_err(|e| error(Kind::Output, e.to_string()))?;
        columns_to_py(py, &columns)
    }

    /// The scenario as run (after overrides) as a scenario file's text.
    fn scenario_toml(&self) -> PyResult<String> {
        scream_sim::scenario::to_toml(&self.scenario)
            .map_err(|e| error(Kind::Scenario, e.to_string()))
    }

    /// manifest.json of the run as it stands in memory (no files yet).
    fn manifest_json(&self) -> PyResult<String> {
        let manifest = run_folder::manifest(&self.record(), &[])
            .map_err(|e| error(Kind::Output, e.to_string()))?;
        let bytes = scream_sim::manifest::manifest_json(&manifest)
            .map_err(|e| error(Kind::Output, e.to_string()))?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// What the scenario's loader warned about (unused keys of another kind, ...).
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }

    /// The scenario's name.
    #[getter]
    fn name(&self) -> String {
        self.scenario.name.clone()
    }

    /// Writes the run into `folder` as `scream sim --out folder` would; returns the
    /// paths written.
    #[pyo3(signature = (folder, force = false, plots = true))]
    fn write(
        &self,
        py: Python<'_>,
        folder: PathBuf,
        force: bool,
        plots: bool,
    ) -> PyResult<Vec<PathBuf>> {
        let definition =
            RunDefinition::of_run(&self.scenario, self.result.summary.seed, &self.overrides)
                .map_err(|e| error(Kind::Output, e.to_string()))?;
        let placed = folder::place(Requested::Given(&folder), &definition, force)
            .map_err(|e| error(Kind::Output, folder_message(&e)))?;
        let dir = placed.dir;
        py.detach(|| {
            std::fs::create_dir_all(&dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            scream_sim::output::remove_previous_outputs(&dir)
                .map_err(|e| format!("cannot clear {}: {e}", dir.display()))?;
            let options = WriteOptions {
                no_plots: !plots,
                extra_files: Vec::new(),
            };
            run_folder::write_run(&self.record(), &dir, &options)
        })
        .map_err(|e| error(Kind::Output, e))
    }
}

/// A refused folder in the words of this API (`force=True`, not `--force`).
fn folder_message(e: &FolderError) -> String {
    match e {
        FolderError::OtherRun { dir, difference } => format!(
            "{} holds another run ({difference}); its results would be overwritten: pass \
             force=True to replace them, or write this run to another folder",
            dir.display()
        ),
        FolderError::Foreign { dir, why } => format!(
            "{} {why}, so it may hold files that are not a run's: pass force=True to write \
             this run there anyway (only the files a run writes are replaced)",
            dir.display()
        ),
        FolderError::Io { .. } => e.to_string(),
    }
}
