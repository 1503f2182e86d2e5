//! `scream eval v2`: a fixed, re-runnable evaluation matrix of SCReAM V2 — links × ECN
//! modes × improvement sets — measured the same way every time, so that a change to the
//! algorithm shows up as a diff of one table (docs/eval-v2.md).
//!
//! [`matrix`] lists the cases, [`run_cases`] runs them on several threads (each case is
//! a pure function of its scenario, so the results do not depend on the thread count),
//! [`verdicts`] compares the option sets and [`render`] prints it all.

mod cases;
mod metrics;
mod options;
pub mod robust;
mod table;
mod verdict;

use std::sync::atomic::{AtomicUsize, Ordering};

use scream_data::DataPath;

use crate::Executor;

pub use cases::{Case, LinkCase, Mode, matrix};
pub use metrics::{CaseMetrics, Recovery, measure};
pub use options::OptionSet;
pub use table::{Format, REGENERATE, markdown_row, render};
pub use verdict::{Verdict, verdicts};

/// What became of one case.
#[derive(Debug, Clone, PartialEq)]
pub enum CaseOutcome {
    /// It ran.
    Done(CaseMetrics),
    /// It did not run; why (a missing trace file, or the simulator's error).
    Skipped(String),
}

/// One row of the table.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseResult {
    /// The case.
    pub case: Case,
    /// Its measures, or why there are none.
    pub outcome: CaseOutcome,
}

impl CaseResult {
    /// The measures, if the case ran.
    pub fn metrics(&self) -> Option<&CaseMetrics> {
        match &self.outcome {
            CaseOutcome::Done(m) => Some(m),
            CaseOutcome::Skipped(_) => None,
        }
    }
}

/// The cases whose id contains every one of `filters` (all cases without filters).
pub fn select(cases: Vec<Case>, filters: &[String]) -> Vec<Case> {
    cases
        .into_iter()
        .filter(|c| {
            let id = c.id();
            filters.iter().all(|f| id.contains(f.as_str()))
        })
        .collect()
}

/// Runs and measures one case.
pub fn run_case(case: &Case, data: &DataPath) -> CaseResult {
    let outcome = match case.scenario(data) {
        Err(missing) => CaseOutcome::Skipped(missing.to_string()),
        Ok(scenario) => match scream_sim::run(&scenario, scenario.seed, None) {
            Ok(run) => CaseOutcome::Done(measure(&scenario, &run, case.jain_window_s())),
            Err(e) => CaseOutcome::Skipped(e.to_string()),
        },
    };
    CaseResult {
        case: *case,
        outcome,
    }
}

/// Runs `cases` through `executor` and returns their results in the order of `cases`.
/// `on_done` is called from the executor's threads after each case with the number
/// finished so far.
pub fn run_cases(
    cases: &[Case],
    data: &DataPath,
    executor: &dyn Executor,
    on_done: &(dyn Fn(usize) + Sync),
) -> Vec<CaseResult> {
    let finished = AtomicUsize::new(0);
    let results = executor.run_batch(cases, |case| {
        let result = run_case(case, data);
        on_done(finished.fetch_add(1, Ordering::Relaxed) + 1);
        Ok::<CaseResult, std::convert::Infallible>(result)
    });
    let Ok(results) = results;
    results
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_must_all_match_the_id() {
        let all = matrix();
        let some = select(all.clone(), &["const-10M/".into(), "/faithful".into()]);
        assert_eq!(some.len(), Mode::ALL.len());
        assert!(some.iter().all(|c| c.link == LinkCase::Constant(10.0)));
        assert_eq!(select(all.clone(), &[]).len(), all.len());
        assert!(select(all, &["no such case".into()]).is_empty());
    }

    #[test]
    fn missing_data_skips_the_case_with_the_path() {
        let case = Case {
            link: LinkCase::Lumos5g(32),
            mode: Mode::L4s,
            options: OptionSet::faithful(),
        };
        let r = run_cases(
            &[case],
            &DataPath::new(vec!["/nowhere".into()]),
            &crate::LocalExecutor::new(2),
            &|_| {},
        );
        match &r[0].outcome {
            CaseOutcome::Skipped(why) => {
                assert!(why.contains("links/lumos5g-5g_trace_32"), "{why}");
                assert!(why.contains("/nowhere"), "{why}");
                assert!(why.contains("scream data fetch lumos5g"), "{why}");
            }
            CaseOutcome::Done(_) => panic!("ran without its trace"),
        }
    }
}
