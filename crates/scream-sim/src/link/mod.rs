//! Links: capacity models, trace files and the link node.

pub mod capacity;
pub mod node;
pub mod trace;

pub use capacity::{Capacity, MahimahiTrace, RateSchedule, TraceEnd};
pub use node::{Link, LinkAction, Started};
pub use trace::{
    RateUnit, TableSpec, TraceError, TraceFormat, load_capacity_trace, parse_capacity_trace,
};
