//! `scream study lte`: an LTE-style comparison of video congestion controllers in the
//! spirit of the system-simulator tables of draft-johansson-rmcat-scream-cc-00 (2014):
//! N video users (1–16) share one trace-driven cellular bottleneck with FTP-like
//! background load of 500 kB objects, and each (load, algorithm, users) cell reports
//! the video frame delay and IP packet delay (98th percentile per user, 95th
//! percentile over users), loss and bitrate. docs/lte-comparison.md says how this
//! differs from the draft's system simulator.
//!
//! [`scenario::build`] turns the built-in template `lte-comparison` into the scenario
//! of one cell, [`stats`] reduces a run's summary to the cell's numbers,
//! [`execute::run`] runs the cells on several threads (reusing finished ones), and
//! [`report::write`] writes report.md and its figures.

pub mod execute;
pub mod report;
pub mod scenario;
pub mod stats;

pub use execute::{Cell, CellOutcome, CellResult, Options};
pub use scenario::{Setup, TEMPLATE};
pub use stats::{CellMetrics, UserMetrics};
