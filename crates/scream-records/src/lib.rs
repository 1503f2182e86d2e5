//! What a SCReAM run records and how it is written, shared by the simulator, the
//! plots, the experiment runners and the real-network commands, so that a simulated
//! and a real run produce the same files.
//!
//! - [`Sample`] (a row of timeseries.csv) and [`LinkSample`] (a row of links.csv): the
//!   serde field names are the CSV header; [`FlowCdf`]: a flow's delay distributions
//!   as cumulative curves.
//! - [`csv_text`], [`timeseries_csv`], [`write_csv`] and [`json_fixed`]: rows and
//!   values as text with every float at [`DECIMALS`] decimals, so equal runs give
//!   equal bytes.
//! - [`write_atomic`] and [`write_atomic_with`]: every output file is replaced whole
//!   or not at all.
//! - [`columns`]: rows as typed columns, for data frames built without a file.
//! - [`stats`]: the one place for percentiles, means, Jain's fairness index and
//!   confidence intervals.
//! - [`read`]: the files read back (timeseries.csv as rows, any CSV by column name).

#![warn(missing_docs)]

mod atomic;
mod cdf;
pub mod columns;
pub mod read;
mod sample;
pub mod stats;
mod text;

pub use atomic::{write_atomic, write_atomic_with};
pub use cdf::FlowCdf;
pub use sample::{LinkSample, Sample, rows_by_flow};
pub use text::{DECIMALS, csv_text, json_fixed, timeseries_csv, write_csv};
