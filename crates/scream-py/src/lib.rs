//! `scream._scream`, the native module of the `scream` Python package: a thin layer
//! over the front doors of the toolkit's crates, so that Python sees the same
//! scenarios, results, errors and state machines as the `scream` command.
//!
//! - `simulate`: a scenario in, a run out (`Run` on the Python side builds the data
//!   frames from its columns); the simulation runs without the GIL.
//! - `seeds`: a scenario over a set of seeds, as `scream sim --seeds`.
//! - `compare`: runs side by side, as `scream compare`.
//! - `catalogue`: the built-in scenarios and the sender parameters.
//! - `sans_io`: `Sender`, `Receiver` and the RFC 8888 codec, times as integer ns.
//! - `sweep`, `tune`: jobs of sweeps and of tuning trials for an executor in Python.
//!
//! Errors cross as Python exceptions carrying the text the command prints; nothing a
//! caller passes can panic across the boundary (PyO3 turns a panic into
//! `PanicException`, which the tests treat as a failure).

use pyo3::prelude::*;

mod catalogue;
mod compare;
mod errors;
mod folder;
mod sans_io;
mod seeds;
mod simulate;
mod sweep;
mod toml_value;
mod tune;

/// The module `scream._scream`.
#[pymodule]
fn _scream(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("__commit__", env!("SCREAM_GIT_COMMIT"))?;
    simulate::register(m)?;
    catalogue::register(m)?;
    sans_io::register(m)?;
    sweep::register(m)?;
    seeds::register(m)?;
    compare::register(m)?;
    tune::register(m)?;
    m.add_function(wrap_pyfunction!(toml_value::toml_to_dict, m)?)?;
    Ok(())
}
