//! From runs to what a reader compares: the spread of each measure over the draws of a
//! class (median, p90, worst), and whether an option set is safe against the faithful
//! algorithm on the same draws.

use serde::Serialize;

use super::classes::{ConditionClass, Draw};
use super::measures::RunMetrics;
use crate::eval::OptionSet;

/// An option set is unsafe when its class median throughput is below faithful's by
/// more than this fraction ...
pub(crate) const SAFE_THROUGHPUT_LOSS: f64 = 0.05;
/// ... or its class median p99 (sojourn or frame delay) is above faithful's by more
/// than this many ms and ...
pub(crate) const SAFE_DELAY_MS: f64 = 5.0;
/// ... this fraction of faithful's, or when it starves a flow on a draw where faithful
/// does not.
pub(crate) const SAFE_DELAY_SHARE: f64 = 0.10;

/// One run: a draw (its index in the draw list) under one option set.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRecord {
    /// Index of the draw.
    pub draw: usize,
    /// The option set.
    pub options: OptionSet,
    /// The measures, or the simulator's error.
    pub outcome: Result<RunMetrics, String>,
}

/// A measure of the report.
#[derive(Debug, Clone, Copy)]
pub struct Measure {
    /// Column name.
    pub name: &'static str,
    /// Higher is better (throughput), else lower is.
    pub higher_is_better: bool,
    get: fn(&RunMetrics) -> Option<f64>,
}

impl Measure {
    /// The value in `m` (`None` where the measure does not apply).
    pub fn of(&self, m: &RunMetrics) -> Option<f64> {
        (self.get)(m)
    }
}

/// Every measure, in report order.
pub const MEASURES: &[Measure] = &[
    Measure {
        name: "tput Mbit/s",
        higher_is_better: true,
        get: |m| Some(m.throughput_mbps),
    },
    Measure {
        name: "util %",
        higher_is_better: true,
        get: |m| Some(m.utilisation * 100.0),
    },
    Measure {
        name: "sojourn p95 ms",
        higher_is_better: false,
        get: |m| Some(m.sojourn_p95_ms),
    },
    Measure {
        name: "sojourn p99 ms",
        higher_is_better: false,
        get: |m| Some(m.sojourn_p99_ms),
    },
    Measure {
        name: "frame p95 ms",
        higher_is_better: false,
        get: |m| Some(m.frame_p95_ms),
    },
    Measure {
        name: "frame p99 ms",
        higher_is_better: false,
        get: |m| Some(m.frame_p99_ms),
    },
    Measure {
        name: "late frames",
        higher_is_better: false,
        get: |m| Some(m.late_frames as f64),
    },
    Measure {
        name: "silence s",
        higher_is_better: false,
        get: |m| Some(m.silence_s),
    },
    Measure {
        name: "starve s",
        higher_is_better: false,
        get: |m| Some(m.starvation_s),
    },
    Measure {
        name: "recovery s",
        higher_is_better: false,
        get: |m| m.recovery_s,
    },
    Measure {
        name: "regrowth s",
        higher_is_better: false,
        get: |m| m.regrowth_s,
    },
    Measure {
        name: "Jain",
        higher_is_better: true,
        get: |m| m.jain,
    },
];

/// Median, 90th percentile and worst of a measure over draws; the percentile and the
/// worst on the bad side (low throughput, high delay).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Spread {
    /// Median (nearest rank).
    pub median: f64,
    /// 90 % of the draws are at least this good.
    pub p90: f64,
    /// The worst draw.
    pub worst: f64,
}

/// Spread of `values` (`None` when empty): the median (of an even count, the mean of
/// the two middle values, so that it does not depend on which side is better: the
/// safety rule compares the same medians the tables show), and p90 by nearest rank
/// from the best side.
pub fn spread(mut values: Vec<f64>, higher_is_better: bool) -> Option<Spread> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    if higher_is_better {
        values.reverse();
    }
    let n = values.len();
    // Sorted from best to worst: rank ceil(q n) from the best side.
    let at = |q: f64| values[((q * n as f64).ceil() as usize).clamp(1, n) - 1];
    let median = if n % 2 == 0 {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    } else {
        values[n / 2]
    };
    Some(Spread {
        median,
        p90: at(0.9),
        worst: values[n - 1],
    })
}

/// The spreads of one option set on one class.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClassRow {
    /// The class.
    pub class: ConditionClass,
    /// The option set.
    pub options: String,
    /// Runs that finished.
    pub runs: usize,
    /// Of those, runs that starved a flow.
    pub starved_runs: usize,
    /// One spread per [`MEASURES`] entry (`None`: it never applied).
    pub spreads: Vec<Option<Spread>>,
}

fn runs_of<'a>(
    runs: &'a [RunRecord],
    draws: &'a [Draw],
    class: ConditionClass,
    options: OptionSet,
) -> impl Iterator<Item = (usize, &'a RunMetrics)> + 'a {
    runs.iter().filter_map(move |r| {
        let m = r.outcome.as_ref().ok()?;
        (r.options == options && draws[r.draw].class == class).then_some((r.draw, m))
    })
}

/// One row per class and option set, classes in `classes` order.
pub fn class_rows(
    runs: &[RunRecord],
    draws: &[Draw],
    classes: &[ConditionClass],
    option_sets: &[OptionSet],
) -> Vec<ClassRow> {
    let mut out = Vec::new();
    for &class in classes {
        for &options in option_sets {
            let mine: Vec<&RunMetrics> = runs_of(runs, draws, class, options)
                .map(|(_, m)| m)
                .collect();
            out.push(ClassRow {
                class,
                options: options.to_string(),
                runs: mine.len(),
                starved_runs: mine.iter().filter(|m| m.starved()).count(),
                spreads: MEASURES
                    .iter()
                    .map(|x| {
                        spread(
                            mine.iter().filter_map(|m| x.of(m)).collect(),
                            x.higher_is_better,
                        )
                    })
                    .collect(),
            });
        }
    }
    out
}

/// An option set against faithful on one class.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClassDelta {
    /// The class.
    pub class: ConditionClass,
    /// Median throughput / faithful's - 1.
    pub throughput_change: f64,
    /// Median sojourn p99 - faithful's, ms.
    pub sojourn_p99_change_ms: f64,
    /// Median frame p99 - faithful's, ms.
    pub frame_p99_change_ms: f64,
    /// Draws where it starved a flow and faithful did not.
    pub new_starvations: usize,
    /// What broke the safety rule here (empty: nothing).
    pub unsafe_because: Vec<String>,
}

/// An option set's safety verdict over every class.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Safety {
    /// The option set.
    pub options: String,
    /// Whether no class broke the rule.
    pub safe: bool,
    /// Per class.
    pub classes: Vec<ClassDelta>,
}

fn median_of(
    runs: &[RunRecord],
    draws: &[Draw],
    class: ConditionClass,
    options: OptionSet,
    get: fn(&RunMetrics) -> f64,
) -> Option<f64> {
    spread(
        runs_of(runs, draws, class, options)
            .map(|(_, m)| get(m))
            .collect(),
        false,
    )
    .map(|s| s.median)
}

/// Every option set but faithful against faithful, class by class.
pub fn safety(
    runs: &[RunRecord],
    draws: &[Draw],
    classes: &[ConditionClass],
    option_sets: &[OptionSet],
) -> Vec<Safety> {
    option_sets
        .iter()
        .filter(|o| !o.is_faithful())
        .map(|&options| {
            let deltas: Vec<ClassDelta> = classes
                .iter()
                .map(|&class| class_delta(runs, draws, class, options))
                .collect();
            Safety {
                options: options.to_string(),
                safe: deltas.iter().all(|d| d.unsafe_because.is_empty()),
                classes: deltas,
            }
        })
        .collect()
}

/// The safety verdicts on one draw seed's draws alone.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SeedSafety {
    /// The draw seed.
    pub draw_seed: u64,
    /// Each option set but faithful, as [`safety`] gives them.
    pub safety: Vec<Safety>,
}

/// [`safety`] on the draws of each of `draw_seeds` alone.
pub fn seed_safety(
    runs: &[RunRecord],
    draws: &[Draw],
    classes: &[ConditionClass],
    option_sets: &[OptionSet],
    draw_seeds: &[u64],
) -> Vec<SeedSafety> {
    draw_seeds
        .iter()
        .map(|&draw_seed| {
            let mine: Vec<RunRecord> = runs
                .iter()
                .filter(|r| draws[r.draw].draw_seed == draw_seed)
                .cloned()
                .collect();
            SeedSafety {
                draw_seed,
                safety: safety(&mine, draws, classes, option_sets),
            }
        })
        .collect()
}

fn class_delta(
    runs: &[RunRecord],
    draws: &[Draw],
    class: ConditionClass,
    options: OptionSet,
) -> ClassDelta {
    let faithful = OptionSet::faithful();
    let med = |o, g| median_of(runs, draws, class, o, g);
    let pair = |g: fn(&RunMetrics) -> f64| med(options, g).zip(med(faithful, g));
    let tput = pair(|m| m.throughput_mbps);
    let sojourn = pair(|m| m.sojourn_p99_ms);
    let frame = pair(|m| m.frame_p99_ms);
    let faithful_starved: Vec<usize> = runs_of(runs, draws, class, faithful)
        .filter(|(_, m)| m.starved())
        .map(|(d, _)| d)
        .collect();
    let new_starvations = runs_of(runs, draws, class, options)
        .filter(|(d, m)| m.starved() && !faithful_starved.contains(d))
        .count();
    let mut why = Vec::new();
    let throughput_change = tput.map_or(0.0, |(o, f)| if f > 0.0 { o / f - 1.0 } else { 0.0 });
    if throughput_change < -SAFE_THROUGHPUT_LOSS {
        why.push(format!("throughput {:+.1} %", throughput_change * 100.0));
    }
    let worse = |p: Option<(f64, f64)>, what: &str, why: &mut Vec<String>| {
        let (o, f) = p.unwrap_or((0.0, 0.0));
        if o - f > SAFE_DELAY_MS.max(SAFE_DELAY_SHARE * f) {
            why.push(format!("{what} p99 {:+.1} ms", o - f));
        }
        o - f
    };
    let sojourn_p99_change_ms = worse(sojourn, "sojourn", &mut why);
    let frame_p99_change_ms = worse(frame, "frame delay", &mut why);
    if new_starvations > 0 {
        why.push(format!("{new_starvations} new starvation(s)"));
    }
    ClassDelta {
        class,
        throughput_change,
        sojourn_p99_change_ms,
        frame_p99_change_ms,
        new_starvations,
        unsafe_because: why,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spreads_take_the_bad_side() {
        let v: Vec<f64> = (1..=10).map(f64::from).collect();
        let low_good = spread(v.clone(), false).unwrap();
        assert_eq!(
            (low_good.median, low_good.p90, low_good.worst),
            (5.5, 9.0, 10.0)
        );
        let high_good = spread(v, true).unwrap();
        assert_eq!(
            (high_good.median, high_good.p90, high_good.worst),
            (5.5, 2.0, 1.0)
        );
        let odd = spread(vec![3.0, 1.0, 2.0], true).unwrap();
        assert_eq!(odd.median, 2.0);
        assert_eq!(spread(Vec::new(), true), None);
    }
}
