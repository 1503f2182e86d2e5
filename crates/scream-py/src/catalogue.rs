//! What can be run and tuned: the built-in scenarios and the sender parameters, from
//! the same declarations as `scream scenarios` and `scream params`.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use scream::sender::{GENERATION_NAMES, ParamInfo, SenderConfig};
use scream_sim::scenario::builtin::{self, BUILTINS, RMCAT};

use crate::errors::{Kind, error};

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(scenarios, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_text, m)?)?;
    m.add_function(wrap_pyfunction!(params, m)?)?;
    m.add("GENERATIONS", GENERATION_NAMES.to_vec())?;
    Ok(())
}

/// Built-in scenario name -> one-line description, the RMCAT cases last.
#[pyfunction]
fn scenarios(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let out = PyDict::new(py);
    for b in BUILTINS.iter().chain(RMCAT) {
        out.set_item(b.name, b.description())?;
    }
    Ok(out)
}

/// A built-in scenario's file text as shipped, comments included.
#[pyfunction]
fn scenario_text(name: &str) -> PyResult<String> {
    builtin::find(name).map(|b| b.text.to_owned()).ok_or_else(|| {
        error(
            Kind::Scenario,
            format!(
                "unknown built-in scenario \"{name}\" (built-in scenarios: {}; RMCAT cases: {})",
                builtin::names().join(", "),
                builtin::rmcat_names().join(", ")
            ),
        )
    })
}

/// The default configuration of `generation`, or the error naming the known ones.
pub(crate) fn sender_config(generation: &str) -> PyResult<SenderConfig> {
    SenderConfig::for_generation(generation).ok_or_else(|| {
        error(
            Kind::Config,
            format!(
                "unknown generation \"{generation}\" (known: {})",
                GENERATION_NAMES.join(", ")
            ),
        )
    })
}

fn info<'py>(py: Python<'py>, p: &ParamInfo, shared: bool) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("summary", p.summary)?;
    d.set_item("unit", p.unit)?;
    d.set_item("default", p.default)?;
    d.set_item("min", p.min)?;
    d.set_item("min_exclusive", p.min_exclusive)?;
    d.set_item("max", p.max)?;
    d.set_item("source", p.source)?;
    d.set_item("shared", shared)?;
    Ok(d)
}

/// Every parameter a flow of `generation` takes in `[flows.params]`: name -> unit,
/// default, range, source, and whether every generation shares it.
#[pyfunction]
#[pyo3(signature = (generation = "scream-v2"))]
fn params<'py>(py: Python<'py>, generation: &str) -> PyResult<Bound<'py, PyDict>> {
    let config = sender_config(generation)?;
    let out = PyDict::new(py);
    for p in SenderConfig::shared_params() {
        out.set_item(p.name, info(py, &p, true)?)?;
    }
    for p in config.generation_params() {
        out.set_item(p.name, info(py, &p, false)?)?;
    }
    Ok(out)
}
