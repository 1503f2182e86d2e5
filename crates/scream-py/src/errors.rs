//! Raising the package's exceptions from Rust. The classes are declared in Python
//! (`scream/_errors.py`), where each can also subclass the built-in exception a caller
//! would catch for that kind of mistake (`ScenarioError` is a `ValueError`), which a
//! class made in Rust cannot.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

/// The package's exception classes, by their Python name.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Kind {
    /// A scenario that cannot run (`ValueError`).
    Scenario,
    /// An output folder that cannot be written or holds another run (`OSError`).
    Output,
    /// Bytes that are not RFC 8888 feedback (`ValueError`).
    Feedback,
    /// A sender or receiver parameter out of range (`ValueError`).
    Config,
    /// A simulation that failed while running (`RuntimeError`).
    Simulation,
    /// A row handed to a sweep that is not one of its rows (`ValueError`).
    Sweep,
}

impl Kind {
    fn class_name(self) -> &'static str {
        match self {
            Kind::Scenario => "ScenarioError",
            Kind::Output => "OutputError",
            Kind::Feedback => "FeedbackError",
            Kind::Config => "ConfigError",
            Kind::Simulation => "SimulationError",
            Kind::Sweep => "SweepError",
        }
    }
}

/// An exception of `kind` carrying `message`, the text the command line prints.
pub(crate) fn error(kind: Kind, message: impl Into<String>) -> PyErr {
    let message = message.into();
    Python::attach(|py| {
        let class = py
            .import("scream._errors")
            .and_then(|m| m.getattr(kind.class_name()));
        match class.and_then(|c| c.call1((message.clone(),))) {
            Ok(instance) => PyErr::from_value(instance),
            // Only when the package is broken; the message must survive anyway.
            Err(_) => PyRuntimeError::new_err(message),
        }
    })
}
