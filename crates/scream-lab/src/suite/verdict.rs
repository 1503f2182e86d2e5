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
            jain,
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
}
