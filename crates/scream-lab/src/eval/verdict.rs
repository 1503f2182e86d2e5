//! The compact summary: per option set, how many cases meet each target, and its worst
//! case against the faithful algorithm on the same link and mode.

use serde::Serialize;

use super::cases::{LinkCase, Mode};
use super::options::OptionSet;
use super::{CaseMetrics, CaseResult};

/// Longest acceptable stall, s.
pub(crate) const STALL_TARGET_S: f64 = 0.3;
/// Longest acceptable starvation, s.
pub(crate) const STARVATION_TARGET_S: f64 = 1.0;
/// Longest acceptable recovery after an outage, s.
pub(crate) const RECOVERY_TARGET_S: f64 = 1.0;
/// Lowest acceptable Jain index of two flows sharing 50 Mbit/s.
pub(crate) const JAIN_TARGET: f64 = 0.9;
/// The L4S target: at least this utilisation of constant 100 Mbit/s ...
pub(crate) const L4S_UTILISATION_TARGET: f64 = 0.85;
/// ... with a p95 sojourn of at most this, ms.
pub(crate) const L4S_SOJOURN_P95_TARGET_MS: f64 = 5.0;

/// Cases meeting a target out of the cases it applies to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// Cases that meet it.
    pub met: usize,
    /// Cases it applies to (that ran).
    pub of: usize,
}

impl Tally {
    fn add(&mut self, ok: bool) {
        self.met += usize::from(ok);
        self.of += 1;
    }
}

/// The worst change against faithful on the same link and mode.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Worst {
    /// Throughput ratio - 1 (a fraction), or sojourn p95 difference (ms).
    pub change: f64,
    /// `link/mode` of that case.
    pub case: String,
}

/// The summary line of one option set.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    /// The option set.
    pub options: String,
    /// No stall longer than `STALL_TARGET_S`.
    pub stall: Tally,
    /// No starvation longer than `STARVATION_TARGET_S`.
    pub starvation: Tally,
    /// The worst outage recovered from within `RECOVERY_TARGET_S` (cases with an outage,
    /// unless the next outage came sooner than that).
    pub recovery: Tally,
    /// Jain ≥ `JAIN_TARGET` with two flows on 50 Mbit/s (one case per mode).
    pub jain_2x50: Tally,
    /// The L4S flow on constant 100 Mbit/s meets both L4S targets.
    pub l4s_100: Tally,
    /// Lowest throughput against faithful (`None` for faithful itself, or no pair).
    pub worst_throughput: Option<Worst>,
    /// Highest sojourn p95 increase against faithful, ms.
    pub worst_sojourn_p95: Option<Worst>,
}

/// One verdict per option set present in `results`, in the order they first appear.
pub fn verdicts(results: &[CaseResult]) -> Vec<Verdict> {
    let mut order: Vec<OptionSet> = Vec::new();
    for r in results {
        if !order.contains(&r.case.options) {
            order.push(r.case.options);
        }
    }
    order
        .into_iter()
        .map(|options| verdict(results, options))
        .collect()
}

fn faithful_twin<'a>(results: &'a [CaseResult], r: &CaseResult) -> Option<&'a CaseMetrics> {
    results
        .iter()
        .find(|f| {
            f.case.options.is_faithful() && f.case.link == r.case.link && f.case.mode == r.case.mode
        })
        .and_then(CaseResult::metrics)
}

fn verdict(results: &[CaseResult], options: OptionSet) -> Verdict {
    let mut v = Verdict {
        options: options.to_string(),
        stall: Tally::default(),
        starvation: Tally::default(),
        recovery: Tally::default(),
        jain_2x50: Tally::default(),
        l4s_100: Tally::default(),
        worst_throughput: None,
        worst_sojourn_p95: None,
    };
    let mine = results.iter().filter(|r| r.case.options == options);
    for r in mine {
        let Some(m) = r.metrics() else { continue };
        v.stall.add(m.longest_stall_s <= STALL_TARGET_S);
        v.starvation
            .add(m.longest_starvation_s <= STARVATION_TARGET_S);
        match m.recovery {
            Some(rec) if rec.recovered => v.recovery.add(rec.secs <= RECOVERY_TARGET_S),
            // Not recovered from within a span longer than the target: missed.
            Some(rec) if rec.secs > RECOVERY_TARGET_S => v.recovery.add(false),
            // No outage, or the next came too soon to tell: the target does not apply.
            _ => {}
        }
        if r.case.link
            == (LinkCase::Shared {
                flows: 2,
                mbps: 50.0,
            })
        {
            v.jain_2x50.add(m.jain.is_some_and(|j| j >= JAIN_TARGET));
        }
        if r.case.link == LinkCase::Constant(100.0) && r.case.mode == Mode::L4s {
            v.l4s_100.add(
                m.utilisation >= L4S_UTILISATION_TARGET
                    && m.sojourn_p95_ms <= L4S_SOJOURN_P95_TARGET_MS,
            );
        }
        if options.is_faithful() {
            continue;
        }
        let Some(f) = faithful_twin(results, r) else {
            continue;
        };
        let where_ = format!("{}/{}", r.case.link, r.case.mode);
        if f.throughput_mbps > 0.0 {
            let change = m.throughput_mbps / f.throughput_mbps - 1.0;
            if v.worst_throughput
                .as_ref()
                .is_none_or(|w| change < w.change)
            {
                v.worst_throughput = Some(Worst {
                    change,
                    case: where_.clone(),
                });
            }
        }
        let change = m.sojourn_p95_ms - f.sojourn_p95_ms;
        if v.worst_sojourn_p95
            .as_ref()
            .is_none_or(|w| change > w.change)
        {
            v.worst_sojourn_p95 = Some(Worst {
                change,
                case: where_,
            });
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::super::{Case, CaseOutcome};
    use super::*;

    fn result(link: LinkCase, options: OptionSet, tput: f64, p95: f64) -> CaseResult {
        CaseResult {
            case: Case {
                link,
                mode: Mode::L4s,
                options,
            },
            outcome: CaseOutcome::Done(CaseMetrics {
                throughput_mbps: tput,
                utilisation: tput / 100.0,
                sojourn_p95_ms: p95,
                sojourn_p99_ms: p95,
                frame_delay_p95_ms: 0.0,
                frame_delay_p99_ms: 0.0,
                lost_frames: 0,
                longest_stall_s: 0.0,
                longest_starvation_s: 2.0,
                recovery: None,
                jain: None,
            }),
        }
    }

    #[test]
    fn worst_cases_compare_with_faithful_on_the_same_link_and_mode() {
        let one = OptionSet::parse("fresh-srtt").unwrap();
        let results = [
            result(LinkCase::Constant(100.0), OptionSet::faithful(), 90.0, 4.0),
            result(LinkCase::Constant(10.0), OptionSet::faithful(), 9.0, 4.0),
            result(LinkCase::Constant(100.0), one, 45.0, 5.0),
            result(LinkCase::Constant(10.0), one, 9.0, 10.0),
        ];
        let v = verdicts(&results);
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].worst_throughput, None);
        assert_eq!(v[0].l4s_100, Tally { met: 1, of: 1 });
        assert_eq!(v[0].starvation, Tally { met: 0, of: 2 });
        let w = v[1].worst_throughput.as_ref().unwrap();
        assert!((w.change + 0.5).abs() < 1e-12);
        assert_eq!(w.case, "const-100M/l4s");
        let d = v[1].worst_sojourn_p95.as_ref().unwrap();
        assert_eq!((d.change, d.case.as_str()), (6.0, "const-10M/l4s"));
        assert_eq!(v[1].l4s_100, Tally { met: 0, of: 1 });
    }

    #[test]
    fn a_recovery_cut_short_by_the_next_outage_does_not_count_against_the_target() {
        let with = |secs, recovered| {
            let mut r = result(LinkCase::Outage, OptionSet::faithful(), 10.0, 1.0);
            if let CaseOutcome::Done(m) = &mut r.outcome {
                m.recovery = Some(super::super::Recovery { secs, recovered });
            }
            r
        };
        let v = verdicts(&[with(0.5, true), with(2.0, false), with(0.08, false)]);
        assert_eq!(v[0].recovery, Tally { met: 1, of: 2 });
    }
}
