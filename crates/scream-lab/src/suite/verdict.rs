//! Pass or fail of one run against its case's criteria (docs/rmcat.md: each with its
//! source, and the numbers that are ours marked so).

use std::fmt;

use super::cases::Criterion;
use super::measure::CellMetrics;

/// How one criterion came out.
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    /// The criterion, as the report writes it (`share ≥ 0.7`).
    pub what: String,
    /// The measured value, as the report writes it.
    pub value: String,
    /// Whether it was met.
    pub passed: bool,
}

/// The verdict of one run: every criterion's check.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// One per criterion of the case, in its order.
    pub checks: Vec<Check>,
}

impl Verdict {
    /// Whether every criterion was met.
    pub fn passed(&self) -> bool {
        self.checks.iter().all(|c| c.passed)
    }

    /// The criteria missed, as `what (value)`.
    pub fn failures(&self) -> Vec<String> {
        self.checks
            .iter()
            .filter(|c| !c.passed)
            .map(|c| format!("{} ({})", c.what, c.value))
            .collect()
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.passed() { "pass" } else { "FAIL" })
    }
}

fn worst(m: &CellMetrics, g: impl Fn(&super::FlowMetrics) -> f64) -> f64 {
    m.flows.iter().map(g).fold(0.0, f64::max)
}

/// Judges `m` by `criteria`.
pub fn judge(m: &CellMetrics, criteria: &[Criterion]) -> Verdict {
    let checks = criteria
        .iter()
        .map(|c| match *c {
            Criterion::MinShare(min) => Check {
                what: format!("share ≥ {min}"),
                value: format!("{:.2}", m.share),
                passed: m.share >= min,
            },
            Criterion::MaxQueueDelayP95Ms(max) => {
                let v = worst(m, |f| f.queue_delay_p95_ms);
                Check {
                    what: format!("queue delay p95 ≤ {max} ms"),
                    value: format!("{v:.0} ms"),
                    passed: v <= max,
                }
            }
            Criterion::MaxLoss(max) => {
                let v = worst(m, |f| f.loss_ratio);
                Check {
                    what: format!("loss ≤ {} %", max * 100.0),
                    value: format!("{:.2} %", v * 100.0),
                    passed: v <= max,
                }
            }
            Criterion::MinJain(min) => Check {
                what: format!("Jain ≥ {min}"),
                value: m
                    .jain
                    .map_or_else(|| "none".to_owned(), |j| format!("{j:.2}")),
                passed: m.jain.is_some_and(|j| j >= min),
            },
            Criterion::MaxConvergenceS(max) => {
                let never = m.flows.iter().any(|f| f.convergence_s.is_none());
                let v = m
                    .flows
                    .iter()
                    .filter_map(|f| f.convergence_s)
                    .fold(0.0, f64::max);
                Check {
                    what: format!("convergence ≤ {max} s"),
                    value: if never {
                        "never".to_owned()
                    } else {
                        format!("{v:.1} s")
                    },
                    passed: !never && v <= max,
                }
            }
            Criterion::MinFlowShare(min) => {
                let v = m
                    .flows
                    .iter()
                    .map(|f| f.share)
                    .fold(f64::INFINITY, f64::min);
                smallest_at_least(format!("every flow's share ≥ {min}"), v, min)
            }
            Criterion::MinUtilisation(min) => {
                let v = m.utilisations.iter().copied().fold(f64::INFINITY, f64::min);
                smallest_at_least(format!("every bottleneck's utilisation ≥ {min}"), v, min)
            }
            Criterion::EcnShareVsDelayBased(min) => {
                let base = m.without_ecn.as_ref().map(|b| b.share);
                Check {
                    what: format!("share ≥ {min} × the share without ECN"),
                    value: base.map_or_else(
                        || "none".to_owned(),
                        |b| format!("{:.2} vs {b:.2}", m.share),
                    ),
                    passed: base.is_some_and(|b| m.share >= min * b),
                }
            }
            Criterion::EcnQueueVsDelayBased(slack) => {
                let mine = worst(m, |f| f.queue_delay_p95_ms);
                let base = m
                    .without_ecn
                    .as_ref()
                    .map(|b| worst(b, |f| f.queue_delay_p95_ms));
                Check {
                    what: format!("queue delay p95 ≤ the p95 without ECN + {slack} ms"),
                    value: base
                        .map_or_else(|| "none".to_owned(), |b| format!("{mine:.0} vs {b:.0} ms")),
                    passed: base.is_some_and(|b| mine <= b + slack),
                }
            }
            Criterion::PrioritySplit(lo, hi) => {
                let r = m.flows.first().and_then(|f| f.stream_ratio);
                Check {
                    what: format!("priority split in [{lo}, {hi}]"),
                    value: r.map_or_else(|| "none".to_owned(), |r| format!("{r:.2}")),
                    passed: r.is_some_and(|r| (lo..=hi).contains(&r)),
                }
            }
        })
        .collect();
    Verdict { checks }
}

/// A check that the smallest of several values, `v` (infinite when there were none),
/// is at least `min`; no value at all fails.
fn smallest_at_least(what: String, v: f64, min: f64) -> Check {
    Check {
        what,
        value: if v.is_finite() {
            format!("{v:.2}")
        } else {
            "none".to_owned()
        },
        passed: v.is_finite() && v >= min,
    }
}

#[cfg(test)]
mod tests {
    use super::super::FlowMetrics;
    use super::*;

    fn flow(p95: f64, loss: f64, convergence: Option<f64>) -> FlowMetrics {
        FlowMetrics {
            name: "f".into(),
            sending_mbps: 1.0,
            goodput_mbps: 1.0,
            share: 0.9,
            queue_delay_p95_ms: p95,
            queue_delay_p98_ms: p95,
            self_inflicted_ms: p95 / 2.0,
            frame_delay_p95_ms: p95,
            frame_delay_p98_ms: p95,
            loss_ratio: loss,
            convergence_s: convergence,
            stream_ratio: Some(2.1),
        }
    }

    fn metrics(flows: Vec<FlowMetrics>, share: f64, jain: Option<f64>) -> CellMetrics {
        CellMetrics {
            flows,
            share,
            link_utilisation: share,
            utilisations: vec![share],
            jain,
            without_ecn: None,
        }
    }

    const ALL: &[Criterion] = &[
        Criterion::MinShare(0.7),
        Criterion::MaxQueueDelayP95Ms(100.0),
        Criterion::MaxLoss(0.01),
        Criterion::MinJain(0.8),
        Criterion::MaxConvergenceS(10.0),
        Criterion::PrioritySplit(1.5, 2.5),
    ];

    #[test]
    fn a_run_meeting_every_criterion_passes() {
        let m = metrics(
            vec![flow(40.0, 0.001, Some(3.0)), flow(60.0, 0.0, Some(8.0))],
            0.85,
            Some(0.95),
        );
        let v = judge(&m, ALL);
        assert!(v.passed(), "{:?}", v.failures());
        assert_eq!(v.to_string(), "pass");
        assert_eq!(v.checks.len(), ALL.len());
    }

    #[test]
    fn the_worst_flow_decides_and_each_miss_is_named() {
        let m = metrics(
            vec![flow(40.0, 0.0, Some(3.0)), flow(150.0, 0.05, None)],
            0.6,
            None,
        );
        let v = judge(&m, ALL);
        assert_eq!(v.to_string(), "FAIL");
        let f = v.failures();
        assert_eq!(f.len(), 5, "{f:?}");
        assert!(f[0].starts_with("share ≥ 0.7 (0.60)"), "{f:?}");
        assert!(f[1].contains("150 ms"), "{f:?}");
        assert!(f[2].contains("5.00 %"), "{f:?}");
        assert!(f[3].starts_with("Jain ≥ 0.8 (none)"), "{f:?}");
        assert!(f[4].contains("never"), "{f:?}");
    }

    #[test]
    fn every_flow_and_every_bottleneck_is_judged_on_its_own() {
        let mut starved = flow(40.0, 0.0, Some(3.0));
        starved.share = 0.3;
        let mut m = metrics(vec![flow(40.0, 0.0, Some(3.0)), starved], 0.9, Some(0.9));
        m.utilisations = vec![0.95, 0.7];
        let v = judge(
            &m,
            &[Criterion::MinFlowShare(0.5), Criterion::MinUtilisation(0.8)],
        );
        let f = v.failures();
        assert_eq!(f.len(), 2, "{f:?}");
        assert!(f[0].contains("(0.30)"), "{f:?}");
        assert!(f[1].contains("(0.70)"), "{f:?}");
    }

    #[test]
    fn the_ecn_run_is_judged_against_its_own_delay_based_run() {
        let ecn = &[
            Criterion::EcnShareVsDelayBased(0.9),
            Criterion::EcnQueueVsDelayBased(5.0),
        ];
        let mut m = metrics(vec![flow(20.0, 0.0, Some(3.0))], 0.8, None);
        // Without its delay-based run the comparison cannot pass.
        assert_eq!(judge(&m, ecn).failures().len(), 2);
        m.without_ecn = Some(Box::new(metrics(vec![flow(18.0, 0.0, None)], 0.85, None)));
        assert!(judge(&m, ecn).passed(), "{:?}", judge(&m, ecn).failures());
        // Less than 90 % of the delay-based share, and 10 ms more queue: both missed.
        m.share = 0.7;
        m.flows[0].queue_delay_p95_ms = 28.0;
        let f = judge(&m, ecn).failures();
        assert_eq!(f.len(), 2, "{f:?}");
        assert!(f[0].contains("0.70 vs 0.85"), "{f:?}");
        assert!(f[1].contains("28 vs 18 ms"), "{f:?}");
    }
}
