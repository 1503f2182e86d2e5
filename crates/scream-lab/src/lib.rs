//! Experiments on the SCReAM simulator: many runs of `scream-sim`, measured and
//! compared.
//!
//! - [`sweep`]: parameter sweeps from a spec, resumable, into one results.csv;
//! - [`eval`]: the fixed evaluation matrix of SCReAM V2 (`scream eval v2`);
//! - [`suite`]: the RMCAT test cases of RFC 8867 judged by RFC 8868 metrics;
//! - [`study`]: fixed comparison studies (`scream study lte`);
//! - [`report`]: tables and figures from a sweep's results (`scream report`);
//! - [`seeds`]: one scenario over many seeds, with the spread of its metrics
//!   (`scream sim --seeds`);
//! - [`compare`]: several runs' folders on one set of axes (`scream compare`);
//! - [`run_folder`]: one simulation written as a folder (outputs, plots, manifest).
//!
//! Every run is a pure function of its scenario text, overrides and seed, so the lab
//! hands batches of independent runs to an [`Executor`]: [`LocalExecutor`] runs them
//! on this machine's threads. A sweep's runs also exist as data
//! ([`sweep::RunJob`]), so that a cluster (Dask, from the Python package) runs them on
//! other machines while one [`sweep::Session`] collects their rows.
//! [`progress::Progress`] shows how far a batch has come on stderr; stdout carries only
//! results.

mod cells;
pub mod compare;
pub mod eval;
mod executor;
pub mod progress;
pub mod report;
pub mod run_folder;
pub mod seeds;
pub mod study;
pub mod suite;
pub mod sweep;

pub use cells::{CELL_JSON, CellOutcome};
pub use executor::{Executor, LocalExecutor};
