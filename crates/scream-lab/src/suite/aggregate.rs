//! Verdicts over seeds: the runs of one case × variation × algorithm gathered into a
//! pass count ("4/5 seeds pass") and the spread of each judged metric (median, min,
//! max), and per case whether it separates the algorithms at all.

use super::cases::SuiteCase;
use super::execute::{CellOutcome, CellResult};
use super::measure::CellMetrics;
use super::variation::Variation;
use super::verdict::judge;

/// Median and range of one metric over the seeds that produced it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    /// Median (the mean of the middle two for an even count).
    pub median: f64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
    /// How many runs gave a value.
    pub count: usize,
}

impl Spread {
    /// The spread of `values`; `None` when there are none.
    pub fn of(values: &[f64]) -> Option<Self> {
        let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
        if v.is_empty() {
            return None;
        }
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        };
        Some(Self {
            median,
            min: v[0],
            max: v[n - 1],
            count: n,
        })
    }

    /// `median [min–max]` with `decimals`, or the value alone when the range is nil.
    pub fn text(&self, decimals: usize) -> String {
        let (m, lo, hi) = (
            format!("{:.decimals$}", self.median),
            format!("{:.decimals$}", self.min),
            format!("{:.decimals$}", self.max),
        );
        if lo == hi {
            m
        } else {
            format!("{m} [{lo}–{hi}]")
        }
    }
}

/// The metrics a verdict judges, one value per run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Judged {
    /// All media flows' goodput over their fair shares.
    Share,
    /// Worst media flow's queue delay p95, ms.
    QueueP95Ms,
    /// Worst media flow's loss ratio, %.
    LossPercent,
    /// Jain's index of the media flows.
    Jain,
    /// Worst convergence time, s (runs where a flow never converged give none).
    ConvergenceS,
    /// Smallest media flow's goodput / its own fair share (cases with several flows).
    WorstFlowShare,
    /// Smallest forward utilisation among the case's bottlenecks.
    Utilisation,
    /// Share of the same run with ECN off (§6.2).
    ShareWithoutEcn,
    /// Worst queue delay p95 of the same run with ECN off, ms (§6.2).
    QueueP95WithoutEcnMs,
}

impl Judged {
    /// Every judged metric, in report order.
    pub const ALL: [Self; 9] = [
        Self::Share,
        Self::QueueP95Ms,
        Self::LossPercent,
        Self::Jain,
        Self::ConvergenceS,
        Self::WorstFlowShare,
        Self::Utilisation,
        Self::ShareWithoutEcn,
        Self::QueueP95WithoutEcnMs,
    ];

    /// The value of this metric in `m`.
    pub fn of(self, m: &CellMetrics) -> Option<f64> {
        let worst = |g: fn(&super::FlowMetrics) -> f64| m.flows.iter().map(g).fold(0.0, f64::max);
        match self {
            Self::Share => Some(m.share),
            Self::QueueP95Ms => Some(worst(|f| f.queue_delay_p95_ms)),
            Self::LossPercent => Some(worst(|f| f.loss_ratio) * 100.0),
            Self::Jain => m.jain,
            Self::ConvergenceS => {
                let all: Option<Vec<f64>> = m.flows.iter().map(|f| f.convergence_s).collect();
                all.map(|v| v.into_iter().fold(0.0, f64::max))
            }
            Self::WorstFlowShare => (m.flows.len() > 1).then(|| {
                m.flows
                    .iter()
                    .map(|f| f.share)
                    .fold(f64::INFINITY, f64::min)
            }),
            Self::Utilisation => m.utilisations.iter().copied().reduce(f64::min),
            Self::ShareWithoutEcn => m.without_ecn.as_ref().map(|b| b.share),
            Self::QueueP95WithoutEcnMs => m.without_ecn.as_ref().map(|b| {
                b.flows
                    .iter()
                    .map(|f| f.queue_delay_p95_ms)
                    .fold(0.0, f64::max)
            }),
        }
    }

    /// Column name in the report.
    pub fn label(self) -> &'static str {
        match self {
            Self::Share => "share",
            Self::QueueP95Ms => "queue p95 ms",
            Self::LossPercent => "loss %",
            Self::Jain => "Jain",
            Self::ConvergenceS => "convergence s",
            Self::WorstFlowShare => "worst flow share",
            Self::Utilisation => "utilisation",
            Self::ShareWithoutEcn => "share without ECN",
            Self::QueueP95WithoutEcnMs => "queue p95 ms without ECN",
        }
    }

    /// Decimals in the report.
    pub fn decimals(self) -> usize {
        match self {
            Self::Share
            | Self::Jain
            | Self::LossPercent
            | Self::WorstFlowShare
            | Self::Utilisation
            | Self::ShareWithoutEcn => 2,
            Self::QueueP95Ms | Self::QueueP95WithoutEcnMs => 0,
            Self::ConvergenceS => 1,
        }
    }
}

/// The runs of one case × variation × algorithm over its seeds.
#[derive(Debug, Clone)]
pub struct Group {
    /// Index of the case.
    pub case: usize,
    /// The variation as it applies to the case.
    pub variation: Variation,
    /// The contender.
    pub algorithm: String,
    /// Runs (one per seed).
    pub runs: usize,
    /// Runs that met every criterion.
    pub passes: usize,
    /// Runs that could not run; the first error's text.
    pub errors: usize,
    /// The first error, if any.
    pub error: Option<String>,
    /// Spread of each judged metric, in [`Judged::ALL`] order.
    pub spreads: Vec<Option<Spread>>,
    /// Runs in which a flow never converged.
    pub never_converged: usize,
    /// Criteria missed, with the number of runs that missed each, most missed first.
    pub missed: Vec<(String, usize)>,
}

impl Group {
    /// Whether most of its runs pass.
    pub fn majority_passes(&self) -> bool {
        2 * self.passes > self.runs
    }

    /// `passes/runs` (with the errors when there are any).
    pub fn count_text(&self) -> String {
        if self.errors > 0 {
            format!("{}/{} ({} error)", self.passes, self.runs, self.errors)
        } else {
            format!("{}/{}", self.passes, self.runs)
        }
    }
}

/// Gathers `results` by case, variation and algorithm, in the order they first
/// appear.
pub fn groups(cases: &[SuiteCase], results: &[CellResult]) -> Vec<Group> {
    let mut keys: Vec<(usize, Variation, &str)> = Vec::new();
    for r in results {
        let k = (r.cell.case, r.cell.variation, r.cell.algorithm.as_str());
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys.into_iter()
        .map(|(case, variation, algorithm)| {
            let runs: Vec<&CellResult> = results
                .iter()
                .filter(|r| {
                    r.cell.case == case
                        && r.cell.variation == variation
                        && r.cell.algorithm == algorithm
                })
                .collect();
            group(&cases[case], case, variation, algorithm, &runs)
        })
        .collect()
}

fn group(
    case: &SuiteCase,
    index: usize,
    variation: Variation,
    algorithm: &str,
    runs: &[&CellResult],
) -> Group {
    let done: Vec<&CellMetrics> = runs
        .iter()
        .filter_map(|r| match &r.outcome {
            CellOutcome::Done(m) => Some(m),
            CellOutcome::Error(_) => None,
        })
        .collect();
    let error = runs.iter().find_map(|r| match &r.outcome {
        CellOutcome::Error(e) => Some(e.clone()),
        CellOutcome::Done(_) => None,
    });
    let mut missed: Vec<(String, usize)> = Vec::new();
    let mut passes = 0;
    for m in &done {
        let v = judge(m, case.facts.criteria);
        if v.passed() {
            passes += 1;
        }
        for c in v.checks.iter().filter(|c| !c.passed) {
            match missed.iter_mut().find(|(w, _)| *w == c.what) {
                Some((_, n)) => *n += 1,
                None => missed.push((c.what.clone(), 1)),
            }
        }
    }
    missed.sort_by_key(|m| std::cmp::Reverse(m.1));
    let spreads = Judged::ALL
        .iter()
        .map(|j| Spread::of(&done.iter().filter_map(|m| j.of(m)).collect::<Vec<_>>()))
        .collect();
    Group {
        case: index,
        variation,
        algorithm: algorithm.to_owned(),
        runs: runs.len(),
        passes,
        errors: runs.len() - done.len(),
        error,
        spreads,
        never_converged: done
            .iter()
            .filter(|m| Judged::ConvergenceS.of(m).is_none())
            .count(),
        missed,
    }
}

/// Whether a case tells the algorithms apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Separation {
    /// Some algorithms pass it (most of their runs) and some fail it.
    Separates,
    /// Every algorithm passes most of its runs.
    AllPass,
    /// Every algorithm fails most of its runs.
    AllFail,
    /// Fewer than two algorithms ran.
    OneAlgorithm,
}

impl Separation {
    /// As the report writes it.
    pub fn text(self) -> &'static str {
        match self {
            Self::Separates => "separates",
            Self::AllPass => "does not separate (all pass)",
            Self::AllFail => "does not separate (all fail)",
            Self::OneAlgorithm => "—",
        }
    }
}

/// One algorithm's runs of one case over all its variations and seeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CaseScore {
    /// Runs that passed.
    pub passes: usize,
    /// Runs.
    pub runs: usize,
}

impl CaseScore {
    /// Whether most runs pass.
    pub fn majority_passes(&self) -> bool {
        2 * self.passes > self.runs
    }
}

/// The score of `algorithm` in case `case` from `groups`.
pub fn case_score(groups: &[Group], case: usize, algorithm: &str) -> CaseScore {
    groups
        .iter()
        .filter(|g| g.case == case && g.algorithm == algorithm)
        .fold(CaseScore { passes: 0, runs: 0 }, |s, g| CaseScore {
            passes: s.passes + g.passes,
            runs: s.runs + g.runs,
        })
}

/// Whether case `case` separates `algorithms`: an algorithm passes the case when most
/// of its runs (over variations and seeds) pass.
pub fn separation(groups: &[Group], case: usize, algorithms: &[String]) -> Separation {
    let verdicts: Vec<bool> = algorithms
        .iter()
        .map(|a| case_score(groups, case, a))
        .filter(|s| s.runs > 0)
        .map(|s| s.majority_passes())
        .collect();
    if verdicts.len() < 2 {
        Separation::OneAlgorithm
    } else if verdicts.iter().all(|&p| p) {
        Separation::AllPass
    } else if verdicts.iter().all(|&p| !p) {
        Separation::AllFail
    } else {
        Separation::Separates
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spread_is_the_median_and_the_range() {
        let s = Spread::of(&[3.0, 1.0, 2.0, 10.0, 4.0]).expect("values");
        assert_eq!((s.median, s.min, s.max, s.count), (3.0, 1.0, 10.0, 5));
        let even = Spread::of(&[1.0, 2.0, 4.0, 8.0]).expect("values");
        assert_eq!(even.median, 3.0);
        assert_eq!(Spread::of(&[]), None);
        assert_eq!(Spread::of(&[f64::NAN]), None);
        assert_eq!(s.text(1), "3.0 [1.0–10.0]");
        assert_eq!(Spread::of(&[0.5, 0.5]).expect("values").text(2), "0.50");
    }

    fn g(case: usize, algorithm: &str, passes: usize, runs: usize) -> Group {
        Group {
            case,
            variation: Variation::DEFAULT,
            algorithm: algorithm.to_owned(),
            runs,
            passes,
            errors: 0,
            error: None,
            spreads: Vec::new(),
            never_converged: 0,
            missed: Vec::new(),
        }
    }

    #[test]
    fn a_case_separates_only_when_the_algorithms_majority_verdicts_differ() {
        let algs = ["a".to_owned(), "b".to_owned()];
        let gs = [
            g(0, "a", 5, 5),
            g(0, "b", 4, 5),
            g(1, "a", 1, 5),
            g(1, "b", 0, 5),
            g(2, "a", 5, 5),
            g(2, "b", 2, 5),
        ];
        assert_eq!(separation(&gs, 0, &algs), Separation::AllPass);
        assert_eq!(separation(&gs, 1, &algs), Separation::AllFail);
        assert_eq!(separation(&gs, 2, &algs), Separation::Separates);
        assert_eq!(separation(&gs, 2, &algs[..1]), Separation::OneAlgorithm);
        // A case's score sums its variations.
        let more = [g(3, "a", 3, 5), g(3, "a", 0, 5)];
        assert_eq!(
            case_score(&more, 3, "a"),
            CaseScore {
                passes: 3,
                runs: 10
            }
        );
        assert!(!case_score(&more, 3, "a").majority_passes());
        assert_eq!(g(0, "a", 3, 5).count_text(), "3/5");
        assert!(g(0, "a", 3, 5).majority_passes());
        assert!(!g(0, "a", 2, 4).majority_passes());
    }
}
