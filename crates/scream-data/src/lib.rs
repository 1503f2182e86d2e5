//! Data files of the SCReAM toolkit: where they are found, what each one is, and how a
//! fetched one is checked.
//!
//! A data file is named by its path relative to a data folder, such as
//! `links/lumos5g-5g_trace_54_walking.tsv`; scenario files write it as
//! `data:links/lumos5g-5g_trace_54_walking.tsv`. [`DataPath`] is the one place that turns
//! such a name into a file: it searches, in order,
//!
//! 1. the folders of the `SCREAM_DATA_PATH` environment variable (separated like `PATH`),
//!    which, when set, replace the two defaults below;
//! 2. the repository's own `data/` (what the licences let the repository ship);
//! 3. `shared/data` in the folder that holds the repository (a team's shared folder, if
//!    there is one).
//!
//! The [`catalogue`] lists every file the toolkit knows, whether the repository ships it,
//! and for those it does not, where it is published and its SHA-256, so that
//! `scream data fetch` can get it and a missing file can name the line that gets it.

pub mod catalogue;
mod path;
mod verify;

pub use catalogue::{DATASETS, DataFile, Dataset, dataset, file};
pub use path::{
    DATA_PATH_ENV, DataPath, Missing, REFERENCE_PREFIX, ReadError, find, for_test, for_test_part,
    read_to_string,
};
pub use verify::{Mismatch, install, sha256_hex};
