//! Deterministic discrete-event network simulator for SCReAM, built on the public API
//! of the `scream` crate only.

pub mod plot;
pub mod scenario;
