//! The measures of one case, computed from a finished run's samples and summary. Each
//! definition is spelled out in docs/evaluation.md; the thresholds are named here.

use serde::Serialize;

use scream_records::stats::{jain, mean};
use scream_sim::{RunResult, Sample, Scenario};

/// Below this capacity a sample period counts as an outage, Mbit/s; stalls are only
/// counted at or above it (a sender that cannot send on a dead link is not stalled).
pub(crate) const OUTAGE_BELOW_MBPS: f64 = 1.0;
/// An outage counts for the recovery time when it lasts at least this long, s.
pub(crate) const MIN_OUTAGE_S: f64 = 0.2;
/// Length of the received-rate average that must recover, s.
pub(crate) const RECOVERY_AVERAGE_S: f64 = 0.2;
/// Share of min(capacity, max bitrate) that counts as recovered.
pub(crate) const RECOVERED_SHARE: f64 = 0.5;
/// A flow is starved while its target is at most this many times its minimum ...
pub(crate) const STARVED_TARGET_FACTOR: f64 = 2.0;
/// ... and the capacity is at least this many times its target.
pub(crate) const STARVED_CAPACITY_FACTOR: f64 = 5.0;

/// The worst recovery after an outage.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Recovery {
    /// From the capacity's return to the recovered received rate, s; for an outage never
    /// recovered from, the time until the next outage or the end of the run.
    pub secs: f64,
    /// Whether the rate recovered at all.
    pub recovered: bool,
}

/// What one case measured.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CaseMetrics {
    /// All flows' received rate over the run, Mbit/s.
    pub throughput_mbps: f64,
    /// Received / the mean of min(capacity, the active flows' max bitrates).
    pub utilisation: f64,
    /// Bottleneck queueing delay of media packets, p95, ms (worst flow).
    pub sojourn_p95_ms: f64,
    /// The same, p99, ms.
    pub sojourn_p99_ms: f64,
    /// Frame delay of the frames delivered whole, p95, ms (worst flow).
    pub frame_delay_p95_ms: f64,
    /// The same, p99, ms.
    pub frame_delay_p99_ms: f64,
    /// Frames lost in the network or discarded by the sender, all flows.
    pub lost_frames: u64,
    /// Longest stall of any flow, s.
    pub longest_stall_s: f64,
    /// Longest starvation of any flow, s.
    pub longest_starvation_s: f64,
    /// The worst recovery after an outage (`None`: no outage).
    pub recovery: Option<Recovery>,
    /// Jain's fairness index of the flows' throughput in the window (several flows).
    pub jain: Option<f64>,
}

/// One sampling instant of the whole case: the flows' rows side by side.
struct Instant<'a> {
    t_s: f64,
    rows: Vec<&'a Sample>,
}

/// The samples grouped by instant (they are ordered by time, then flow).
fn instants(samples: &[Sample]) -> Vec<Instant<'_>> {
    let mut out: Vec<Instant<'_>> = Vec::new();
    for s in samples {
        match out.last_mut() {
            Some(i) if i.t_s == s.t_s => i.rows.push(s),
            _ => out.push(Instant {
                t_s: s.t_s,
                rows: vec![s],
            }),
        }
    }
    out
}

/// Measures a finished run of `scenario`; `jain_window_s` is where fairness is taken.
pub fn measure(
    scenario: &Scenario,
    run: &RunResult,
    jain_window_s: Option<[f64; 2]>,
) -> CaseMetrics {
    let period_s = scenario.sample_interval_ms * 1e-3;
    let max_of = |flow: u32| {
        scenario
            .flows
            .get(flow as usize)
            .map_or(0.0, |f| f.max_bitrate_mbps)
    };
    let min_of = |flow: u32| {
        scenario
            .flows
            .get(flow as usize)
            .map_or(0.0, |f| f.min_bitrate_mbps)
    };
    let all = instants(&run.samples);
    // The rate the flows could use at each instant: the capacity, or less when the
    // flows that are on could not fill it even at their highest bitrate.
    let usable: Vec<f64> = all
        .iter()
        .map(|i| {
            let cap = i.rows.first().map_or(0.0, |r| r.capacity_mbps);
            let ceiling: f64 = i
                .rows
                .iter()
                .filter(|r| r.target_mbps.is_some())
                .map(|r| max_of(r.flow_index))
                .sum();
            cap.min(ceiling)
        })
        .collect();
    let received: Vec<f64> = all
        .iter()
        .map(|i| i.rows.iter().map(|r| r.rx_mbps).sum())
        .collect();
    let throughput = mean(received.iter().copied()).unwrap_or(0.0);
    let usable_mean = mean(usable.iter().copied()).unwrap_or(0.0);
    let capacity: Vec<f64> = all
        .iter()
        .map(|i| i.rows.first().map_or(0.0, |r| r.capacity_mbps))
        .collect();

    let flows = &run.summary.flows;
    let worst =
        |g: fn(&scream_sim::summary::FlowSummary) -> f64| flows.iter().map(g).fold(0.0, f64::max);
    let per_flow = |flow: u32| -> Vec<&Sample> {
        run.samples
            .iter()
            .filter(|s| s.flow_index == flow)
            .collect()
    };
    let flow_count = scenario.flows.len() as u32;
    let longest = |f: &dyn Fn(u32, &[&Sample]) -> usize| {
        (0..flow_count)
            .map(|i| f(i, &per_flow(i)) as f64 * period_s)
            .fold(0.0, f64::max)
    };
    CaseMetrics {
        throughput_mbps: throughput,
        utilisation: if usable_mean > 0.0 {
            throughput / usable_mean
        } else {
            0.0
        },
        sojourn_p95_ms: worst(|f| f.queue_delay_ms.p95),
        sojourn_p99_ms: worst(|f| f.queue_delay_ms.p99),
        frame_delay_p95_ms: worst(|f| f.frame_delay_ms.p95),
        frame_delay_p99_ms: worst(|f| f.frame_delay_ms.p99),
        lost_frames: flows
            .iter()
            .map(|f| f.frames.lost + f.frames.discarded)
            .sum(),
        longest_stall_s: longest(&|_, rows| longest_run(rows, stalled)),
        longest_starvation_s: longest(&|i, rows| longest_run(rows, |r| starved(r, min_of(i)))),
        recovery: worst_recovery(&capacity, &received, &usable, period_s),
        jain: jain_window_s.and_then(|[from, to]| {
            let shares: Vec<f64> = (0..flow_count)
                .map(|i| {
                    let rows: Vec<f64> = per_flow(i)
                        .iter()
                        .filter(|r| r.t_s > from && r.t_s <= to)
                        .map(|r| r.rx_mbps)
                        .collect();
                    mean(rows.iter().copied()).unwrap_or(0.0)
                })
                .collect();
            jain(&shares)
        }),
    }
}

/// Most consecutive rows for which `pred` holds.
fn longest_run<'a>(rows: &[&'a Sample], pred: impl Fn(&'a Sample) -> bool) -> usize {
    let (mut best, mut now) = (0, 0);
    for r in rows {
        now = if pred(r) { now + 1 } else { 0 };
        best = best.max(now);
    }
    best
}

/// The sender released nothing in the period although media waited in its RTP queue at
/// the period's end and the link could carry it.
fn stalled(r: &Sample) -> bool {
    r.target_mbps.is_some()
        && r.tx_mbps == 0.0
        && r.rtp_queue_delay_ms.is_some_and(|d| d > 0.0)
        && r.capacity_mbps >= OUTAGE_BELOW_MBPS
}

/// The target sits near the floor while the link offers many times more.
fn starved(r: &Sample, min_mbps: f64) -> bool {
    r.target_mbps.is_some_and(|t| {
        t <= STARVED_TARGET_FACTOR * min_mbps && r.capacity_mbps >= STARVED_CAPACITY_FACTOR * t
    })
}

/// The outages of a capacity series: `(first period down, first period back)` of each
/// run of at least `min_len` periods below [`OUTAGE_BELOW_MBPS`] that ends before the
/// series does.
fn outages(capacity: &[f64], min_len: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < capacity.len() {
        if capacity[i] >= OUTAGE_BELOW_MBPS {
            i += 1;
            continue;
        }
        let start = i;
        while i < capacity.len() && capacity[i] < OUTAGE_BELOW_MBPS {
            i += 1;
        }
        if i - start >= min_len && i < capacity.len() {
            out.push((start, i));
        }
    }
    out
}

/// The worst recovery over every outage of the capacity series (`None` without one).
/// `received` and `usable` are per sample period, like `capacity`. After an outage the
/// rate is looked at until the next outage begins: shorter dips on the way (common in
/// LTE traces) neither end the search nor count as recovered.
fn worst_recovery(
    capacity: &[f64],
    received: &[f64],
    usable: &[f64],
    period_s: f64,
) -> Option<Recovery> {
    let min_len = (MIN_OUTAGE_S / period_s).round().max(1.0) as usize;
    let avg_len = (RECOVERY_AVERAGE_S / period_s).round().max(1.0) as usize;
    let found = outages(capacity, min_len);
    let mut worst: Option<Recovery> = None;
    for (k, &(_, back)) in found.iter().enumerate() {
        let until = found.get(k + 1).map_or(capacity.len(), |&(next, _)| next);
        let recovered_at = (back..until).find(|&j| {
            let from = (j + 1).saturating_sub(avg_len);
            capacity[j] >= OUTAGE_BELOW_MBPS
                && mean(received[from..=j].iter().copied()).unwrap_or(0.0)
                    >= RECOVERED_SHARE * usable[j]
        });
        let r = Recovery {
            secs: (recovered_at.unwrap_or(until) - back) as f64 * period_s,
            recovered: recovered_at.is_some(),
        };
        // The longest wins; at equal length, one not recovered from (whose real length
        // is longer still) beats one recovered from.
        let worse = worst
            .is_none_or(|w| r.secs > w.secs || (r.secs == w.secs && !r.recovered && w.recovered));
        if worse {
            worst = Some(r);
        }
    }
    worst
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(t_s: f64, tx: f64, rtp_ms: f64, target: f64, cap: f64) -> Sample {
        Sample {
            target_mbps: Some(target),
            tx_mbps: tx,
            rx_mbps: tx,
            rtp_queue_delay_ms: Some(rtp_ms),
            capacity_mbps: cap,
            ..Sample::empty(t_s, "f".into(), "f".into(), 0)
        }
    }

    #[test]
    fn a_stall_needs_waiting_media_and_a_usable_link() {
        let rows = [
            row(0.02, 0.0, 5.0, 1.0, 10.0),
            row(0.04, 0.0, 25.0, 1.0, 10.0),
            row(0.06, 0.0, 45.0, 1.0, 10.0),
            row(0.08, 2.0, 0.0, 1.0, 10.0),
            // Nothing to send: idle, not stalled.
            row(0.10, 0.0, 0.0, 1.0, 10.0),
            // Dead link: the sender cannot be blamed.
            row(0.12, 0.0, 5.0, 1.0, 0.0),
            row(0.14, 0.0, 25.0, 1.0, 0.0),
        ];
        let refs: Vec<&Sample> = rows.iter().collect();
        assert_eq!(longest_run(&refs, stalled), 3);
    }

    #[test]
    fn starvation_is_a_floor_target_beside_plenty_of_capacity() {
        let min = 0.1;
        assert!(starved(&row(1.0, 0.2, 0.0, 0.2, 1.0), min));
        assert!(!starved(&row(1.0, 0.2, 0.0, 0.2, 0.9), min));
        assert!(!starved(&row(1.0, 0.3, 0.0, 0.3, 100.0), min));
    }

    #[test]
    fn recovery_runs_from_capacity_return_to_half_the_usable_rate() {
        // 20 ms periods: 10 up, 15 down (300 ms), then up with the rate back after 4.
        let period = 0.02;
        let mut cap = vec![10.0; 10];
        cap.extend([0.0; 15]);
        cap.extend([10.0; 30]);
        let mut rx = vec![10.0; 10];
        rx.extend([0.0; 15]);
        rx.extend([0.0; 4]);
        rx.extend([10.0; 26]);
        let usable = cap.clone();
        let r = worst_recovery(&cap, &rx, &usable, period).expect("one outage");
        assert!(r.recovered);
        // The 10-period average reaches 5 once 5 periods at 10 are in it: 4 + 4 more.
        assert!((r.secs - 8.0 * period).abs() < 1e-9, "{r:?}");
    }

    #[test]
    fn a_short_dip_after_an_outage_neither_ends_nor_completes_the_recovery() {
        let period = 0.02;
        let mut cap = vec![0.0; 15];
        cap.extend([10.0; 2]);
        cap.extend([0.0; 2]);
        cap.extend([10.0; 30]);
        let mut rx = vec![0.0; 19];
        rx.extend([10.0; 30]);
        let r = worst_recovery(&cap, &rx, &cap, period).expect("one outage");
        assert!(r.recovered, "{r:?}");
        // Back at period 15; the average reaches 5 at period 23 (5 periods at 10).
        assert!((r.secs - 8.0 * period).abs() < 1e-9, "{r:?}");
    }

    #[test]
    fn short_dips_are_not_outages_and_a_rate_that_never_returns_is_not_recovered() {
        let period = 0.02;
        let mut cap = vec![10.0; 10];
        cap.extend([0.0; 5]);
        cap.extend([10.0; 10]);
        let rx = vec![0.0; cap.len()];
        assert_eq!(worst_recovery(&cap, &rx, &cap, period), None);
        cap.extend([0.0; 20]);
        cap.extend([10.0; 10]);
        let rx = vec![0.0; cap.len()];
        let r = worst_recovery(&cap, &rx, &cap, period).expect("one outage");
        assert!(!r.recovered);
        assert!((r.secs - 10.0 * period).abs() < 1e-9, "{r:?}");
    }
}
