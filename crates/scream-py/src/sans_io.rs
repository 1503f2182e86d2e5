//! `Sender`, `Receiver` and the RFC 8888 codec (to come).

use pyo3::prelude::*;

pub(crate) fn register(_m: &Bound<'_, PyModule>) -> PyResult<()> {
    Ok(())
}
