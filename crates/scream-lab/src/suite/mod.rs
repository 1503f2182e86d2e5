//! `scream suite rmcat`: the RMCAT evaluation suite. The test cases of RFC 8867 (built-in
//! scenarios `rmcat-*`, [`scream_sim::scenario::builtin::RMCAT`]) run with the media flows'
//! algorithm substituted, under named variations of delay, jitter and queue, measured
//! with the metrics of RFC 8868 and judged by the criteria of docs/rmcat.md.
//!
//! [`cases::all`] lists the cases with what the suite knows of each, [`Variation`] the
//! variations, [`execute::run`] runs the matrix on several threads (resuming from the
//! cells an earlier call left), once per seed, [`aggregate`] gathers the seeds of each
//! case × variation × algorithm into a pass count and the metrics' spread, and
//! [`report::render`] writes report.md.

pub mod aggregate;
pub mod cases;
pub mod execute;
pub mod measure;
pub mod report;
pub mod share;
pub mod substitute;
pub mod variation;
pub mod verdict;

pub use cases::{CaseFacts, Criterion, SuiteCase};
pub use execute::{Cell, CellOutcome, CellResult, Options};
pub use measure::{CellMetrics, FlowMetrics};
pub use variation::Variation;
pub use verdict::{Verdict, judge};

/// The cases named in `filters` (`rmcat-5.1`, or `5.1` for short); all cases without
/// filters.
pub fn select(cases: Vec<SuiteCase>, filters: &[String]) -> Vec<SuiteCase> {
    if filters.is_empty() {
        return cases;
    }
    cases
        .into_iter()
        .filter(|c| {
            filters
                .iter()
                .any(|f| c.name == f || c.name == format!("rmcat-{f}"))
        })
        .collect()
}
