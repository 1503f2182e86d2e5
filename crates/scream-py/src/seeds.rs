//! `simulate(..., seeds=...)`: one scenario over a set of seeds, as `scream sim --seeds`
//! runs it. The runs are made on this machine's threads without the GIL and kept in
//! memory; their statistics and the set's folder come from the lab's seeds code
//! (`scream_lab::seeds`), the command's own, so the numbers and files are the same.

use std::path::PathBuf;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyString;
use scream_lab::seeds::{self, MAX_SEEDS, SeedSummary};
use scream_lab::{Executor, LocalExecutor};
use scream_sim::{RunResult, Scenario};

use crate::errors::{Kind, error};
use crate::folder::{WallClock, claim_set, toolkit};
use crate::simulate::{NativeRun, load, overrides};

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(simulate_seeds, m)?)?;
    m.add_class::<NativeSeeds>()?;
    Ok(())
}

/// The threads a batch gets: one per available core.
fn executor() -> LocalExecutor {
    LocalExecutor::new(std::thread::available_parallelism().map_or(1, usize::from))
}

/// The seeds `seeds` names: text as `--seeds` takes it (`"1..10"`, `"1,4,9"`), or an
/// iterable of integers (a list, a `range`); each once, at most [`MAX_SEEDS`].
fn seed_list(seeds: &Bound<'_, PyAny>) -> PyResult<Vec<u64>> {
    if seeds.is_instance_of::<PyString>() {
        let text: String = seeds.extract()?;
        return seeds::parse_seeds(&text).map_err(|e| error(Kind::Scenario, format!("seeds: {e}")));
    }
    // A sized iterable is counted first: range(10**12) must not be listed.
    if let Ok(n) = seeds.len() {
        if n > MAX_SEEDS {
            return Err(error(
                Kind::Scenario,
                format!("seeds: {n} seeds; at most {MAX_SEEDS} run in one set"),
            ));
        }
    }
    let items = seeds.try_iter().map_err(|_| {
        PyTypeError::new_err(format!(
            "seeds: an iterable of integers, a range or a str such as \"1..10\" (is {})",
            seeds
                .get_type()
                .name()
                .map_or_else(|_| "?".to_owned(), |n| n.to_string())
        ))
    })?;
    let mut list = Vec::new();
    for item in items {
        let item = item?;
        let seed = item.extract::<u64>().map_err(|_| {
            error(
                Kind::Scenario,
                format!(
                    "seeds: {item} is not a seed (a whole number from 0 to {})",
                    u64::MAX
                ),
            )
        })?;
        list.push(seed);
        if list.len() > MAX_SEEDS {
            return Err(error(
                Kind::Scenario,
                format!("seeds: more than {MAX_SEEDS} seeds; at most {MAX_SEEDS} run in one set"),
            ));
        }
    }
    seeds::check_seeds(&list, "seeds").map_err(|e| error(Kind::Scenario, e))?;
    Ok(list)
}

/// Runs a scenario once per seed; see `scream.simulate` for the arguments.
#[pyfunction]
#[pyo3(signature = (scenario, set, seeds, call = None))]
fn simulate_seeds(
    py: Python<'_>,
    scenario: &Bound<'_, PyAny>,
    set: Option<&Bound<'_, PyAny>>,
    seeds: &Bound<'_, PyAny>,
    call: Option<String>,
) -> PyResult<NativeSeeds> {
    let list = seed_list(seeds)?;
    let set = overrides(set)?;
    let loaded = load(scenario, &set)?;
    let overrides: Vec<String> = set.iter().map(|o| o.raw().to_owned()).collect();
    let call = call.unwrap_or_else(|| "scream._scream.simulate_seeds(...)".to_owned());
    let mut warnings = loaded.warnings();
    if !loaded.has_random_element() && list.len() > 1 {
        warnings.push(format!(
            "scenario {} has no random element (no jitter, loss, random AQM or random frame \
             phase): every seed gives the same result",
            loaded.name
        ));
    }
    let clock = WallClock::new();
    // The runs hold no Python object: the whole set runs without the GIL, one run per
    // core at a time.
    let made = py.detach(|| {
        let exec: &dyn Executor = &executor();
        exec.run_batch(&list, |&seed| {
            seeds::simulate_seed(&loaded, seed, &clock).map_err(|e| format!("seed {seed}: {e}"))
        })
    });
    let made = made.map_err(|e| error(Kind::Simulation, e))?;
    let per_seed: Vec<Vec<Option<f64>>> = made
        .iter()
        .map(|(result, _)| seeds::values(&loaded, result))
        .collect();
    let summary = seeds::summarise(&loaded, &list, &per_seed);
    let loader_warnings = loaded.warnings();
    let runs = made
        .into_iter()
        .map(|(result, started)| {
            let run = NativeRun::new(
                loaded.clone(),
                overrides.clone(),
                result,
                call.clone(),
                started,
                loader_warnings.clone(),
            );
            Py::new(py, run)
        })
        .collect::<PyResult<Vec<_>>>()?;
    Ok(NativeSeeds {
        scenario: loaded,
        overrides,
        seeds: list,
        runs,
        summary,
        call,
        warnings,
    })
}

/// A finished seed set: every seed's run, and their statistics.
#[pyclass(module = "scream._scream", frozen)]
#[derive(Debug)]
pub(crate) struct NativeSeeds {
    scenario: Scenario,
    overrides: Vec<String>,
    seeds: Vec<u64>,
    runs: Vec<Py<NativeRun>>,
    summary: SeedSummary,
    call: String,
    warnings: Vec<String>,
}

#[pymethods]
impl NativeSeeds {
    /// The scenario's name.
    #[getter]
    fn name(&self) -> &str {
        &self.scenario.name
    }

    /// The seeds, in the order given.
    #[getter]
    fn seeds(&self) -> Vec<u64> {
        self.seeds.clone()
    }

    /// Each seed's run, in the order of `seeds`.
    #[getter]
    fn runs(&self, py: Python<'_>) -> Vec<Py<NativeRun>> {
        self.runs.iter().map(|r| r.clone_ref(py)).collect()
    }

    /// The loader's warnings, and a note when no seed can change the outcome.
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }

    /// The name of each statistics row as a column of one row per seed.
    fn columns(&self) -> Vec<String> {
        let flows = self.scenario.flows.len();
        seeds::measurements(flows)
            .iter()
            .map(|m| m.column(flows))
            .collect()
    }

    /// seeds.json of the set, as written.
    fn seeds_json(&self) -> PyResult<String> {
        let bytes = self
            .summary
            .json()
            .map_err(|e| error(Kind::Output, e.to_string()))?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// seeds.csv of the set, as written.
    fn seeds_csv(&self) -> PyResult<String> {
        self.summary
            .csv()
            .map_err(|e| error(Kind::Output, e.to_string()))
    }

    /// Writes the set into `folder` as `scream sim --seeds ... --out folder` would:
    /// manifest.json, each run in `s<seed>/`, seeds.csv and seeds.json. Returns the
    /// set's own files (manifest.json, seeds.csv, seeds.json).
    #[pyo3(signature = (folder, force = false, plots = true))]
    fn write(
        &self,
        py: Python<'_>,
        folder: PathBuf,
        force: bool,
        plots: bool,
    ) -> PyResult<Vec<PathBuf>> {
        let definition = seeds::definition(&self.scenario, &self.overrides, &self.seeds)
            .map_err(|e| error(Kind::Output, e.to_string()))?;
        let manifest = claim_set(&folder, definition, force, &self.call)?;
        let runs: Vec<(&RunResult, f64)> = self
            .runs
            .iter()
            .map(|r| (r.get().result(), r.get().started_unix_s()))
            .collect();
        let set = py.detach(|| {
            let options = seeds::Options {
                scenario: &self.scenario,
                overrides: &self.overrides,
                seeds: &self.seeds,
                out_dir: &folder,
                executor: &executor(),
                no_plots: !plots,
                clock: &WallClock::new(),
                toolkit: toolkit(),
                command_line: vec!["python".to_owned(), self.call.clone()],
                progress: &|_, _| {},
            };
            seeds::write(&options, &runs)
        });
        let set = set.map_err(|e| error(Kind::Output, e))?;
        Ok(std::iter::once(manifest).chain(set.files).collect())
    }
}
