//! What `scream.tune` needs of a sweep spec: its bases, seeds, axes and metrics, and the
//! job of one trial (`scream_lab::sweep::Trial`), which a worker runs with `run_job`
//! as it runs a sweep's. A trial at a design point's values is that point's run.

use std::path::PathBuf;

use pyo3::prelude::*;
use scream_lab::sweep::{self, JobMetric, Plan, SweepError, Trial};

use crate::errors::{Kind, error};

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(open_tune, m)?)?;
    m.add_function(wrap_pyfunction!(metric_registry, m)?)?;
    m.add_function(wrap_pyfunction!(override_texts, m)?)?;
    m.add_function(wrap_pyfunction!(toml_text, m)?)?;
    m.add_class::<NativeTune>()?;
    Ok(())
}

/// Every spec, base and job error here is about values the caller gave.
fn raise(e: &SweepError) -> PyErr {
    error(Kind::Scenario, e.to_string())
}

/// Reads the sweep `spec` (a spec file or a built-in study's name) for tuning.
#[pyfunction]
fn open_tune(py: Python<'_>, spec: PathBuf) -> PyResult<NativeTune> {
    py.detach(|| {
        let plan = sweep::builtin::plan_of(&spec).map_err(|e| error(Kind::Scenario, e))?;
        Ok(NativeTune { plan })
    })
}

/// Every metric a sweep can record: name -> (unit, better), `better` being
/// `"higher"`, `"lower"` or `"neither"`.
#[pyfunction]
fn metric_registry() -> Vec<(&'static str, &'static str, &'static str)> {
    sweep::METRICS
        .iter()
        .map(|m| {
            let better = match m.better {
                sweep::Better::Higher => "higher",
                sweep::Better::Lower => "lower",
                sweep::Better::Neither => "neither",
            };
            (m.name, m.unit, better)
        })
        .collect()
}

/// `set` as `simulate` takes it (a dict or a list of `"KEY=VALUE"`), as the
/// `--set` texts it stands for, each checked to be an override.
#[pyfunction]
#[pyo3(signature = (set = None))]
fn override_texts(set: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<String>> {
    Ok(crate::simulate::overrides(set)?
        .iter()
        .map(|o| o.raw().to_owned())
        .collect())
}

/// A Python value as `--set KEY=VALUE` writes VALUE; `key` names it in errors.
#[pyfunction]
fn toml_text(key: &str, value: &Bound<'_, PyAny>) -> PyResult<String> {
    Ok(crate::toml_value::to_value(key, value)?
        .to_string()
        .trim()
        .to_owned())
}

/// A checked sweep spec, from which trials are made.
#[pyclass(module = "scream._scream", frozen)]
pub(crate) struct NativeTune {
    plan: Plan,
}

impl std::fmt::Debug for NativeTune {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NativeTune")
            .field("name", &self.plan.name)
            .finish_non_exhaustive()
    }
}

#[pymethods]
impl NativeTune {
    /// The spec's name.
    #[getter]
    fn name(&self) -> &str {
        &self.plan.name
    }

    /// The bases' names, in the spec's order.
    #[getter]
    fn bases(&self) -> Vec<String> {
        self.plan.bases().iter().map(|b| b.name.clone()).collect()
    }

    /// The seeds every point of the spec runs with.
    #[getter]
    fn seeds(&self) -> Vec<u64> {
        self.plan
            .bases()
            .first()
            .map(|b| b.seeds.clone())
            .unwrap_or_default()
    }

    /// The spec's varied keys, each with its distinct values over the design (as
    /// `--set` takes them).
    #[getter]
    fn axes(&self) -> Vec<(String, Vec<String>)> {
        self.plan.param_values()
    }

    /// The metric columns a trial records: the spec's, then those of `extra` it lacks.
    fn metrics(&self, extra: Vec<String>) -> PyResult<Vec<String>> {
        let metrics = self.plan.trial_metrics(&extra).map_err(|e| raise(&e))?;
        Ok(metrics.into_iter().map(|(c, _)| c).collect())
    }

    /// Raises `ScenarioError` unless base `base` loads with `overrides` after its own.
    fn check(&self, py: Python<'_>, base: &str, overrides: Vec<String>) -> PyResult<()> {
        py.detach(|| {
            self.plan
                .check_overrides(base, &overrides)
                .map_err(|e| raise(&e))
        })
    }

    /// The job of a trial (JSON, for `run_job`) and the header of its row.
    #[pyo3(signature = (base, number, set, params, seed, extra_metrics))]
    fn job(
        &self,
        base: &str,
        number: usize,
        set: Vec<String>,
        params: Vec<(String, String)>,
        seed: u64,
        extra_metrics: Vec<String>,
    ) -> PyResult<(String, Vec<String>)> {
        let metrics: Vec<(String, JobMetric)> = self
            .plan
            .trial_metrics(&extra_metrics)
            .map_err(|e| raise(&e))?;
        let trial = Trial {
            base,
            number,
            set: &set,
            params: &params,
            seed,
        };
        let (mut job, columns) = self
            .plan
            .trial_job(&trial, &metrics)
            .map_err(|e| raise(&e))?;
        job.anchor_paths()
            .map_err(|e| error(Kind::Output, format!("the current folder: {e}")))?;
        Ok((job.to_json().map_err(|e| raise(&e))?, columns))
    }
}
