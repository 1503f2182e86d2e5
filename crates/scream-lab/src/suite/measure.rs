//! The RFC 8868 metrics of one run, from its 200 ms samples (the case files set
//! `sample_interval_ms = 200`, RFC 8868 §2) and its per-packet summary. The fair share
//! (max-min over the case's links, `super::share`) and the convergence time are our
//! definitions (docs/rmcat.md).

use serde::{Deserialize, Serialize};

use super::cases::CaseFacts;
use super::share::{FairShares, active};
use scream_records::stats::jain;
use scream_sim::{RunResult, Sample, Scenario};

/// The rate counts as converged when its average over this long ...
pub const CONVERGENCE_AVERAGE_S: f64 = 1.0;
/// ... is within this fraction of the fair share ...
pub const CONVERGENCE_BAND: f64 = 0.2;
/// ... and stays there this long (or until the fair share changes, if sooner), s.
pub const CONVERGENCE_HOLD_S: f64 = 5.0;

/// One media flow's metrics.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FlowMetrics {
    /// Flow name.
    pub name: String,
    /// Mean sending rate over its active samples, Mbit/s.
    pub sending_mbps: f64,
    /// Mean received rate (goodput) over its active samples, Mbit/s.
    pub goodput_mbps: f64,
    /// Goodput / fair share over its active samples.
    pub share: f64,
    /// Path queueing delay of its packets, p95 and p98, ms.
    pub queue_delay_p95_ms: f64,
    /// See `queue_delay_p95_ms`.
    pub queue_delay_p98_ms: f64,
    /// Self-inflicted delay: the mean path queueing delay of its packets, ms.
    pub self_inflicted_ms: f64,
    /// Frame delay (enqueued at the sender to the last packet received), p95, ms.
    pub frame_delay_p95_ms: f64,
    /// See `frame_delay_p95_ms`.
    pub frame_delay_p98_ms: f64,
    /// Packets dropped or lost / packets sent.
    pub loss_ratio: f64,
    /// Longest convergence after its start and each resume, s; `None`: never converged
    /// within a hold period.
    pub convergence_s: Option<f64>,
    /// Rate of its first stream over its second (flows with two streams), else `None`.
    pub stream_ratio: Option<f64>,
}

/// One run's metrics.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellMetrics {
    /// Per media flow, in file order.
    pub flows: Vec<FlowMetrics>,
    /// All media flows' goodput / their fair shares.
    pub share: f64,
    /// Utilisation of the first bottleneck's forward direction by all traffic.
    pub link_utilisation: f64,
    /// Utilisation of each bottleneck's forward direction (the case's
    /// `CaseFacts::bottlenecks`, in order) by all traffic.
    #[serde(default)]
    pub utilisations: Vec<f64>,
    /// Jain's index of the media flows' goodput over the window they are all active
    /// (from the last start plus `CONVERGENCE_HOLD_S` to the first stop); `None` for
    /// one media flow or flows that do not compete.
    pub jain: Option<f64>,
    /// The same run with ECN off on the media flows (cases judged against their
    /// delay-based run, RFC 8867 §6.2); `None` elsewhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub without_ecn: Option<Box<CellMetrics>>,
}

/// Measures a finished run; `media` are the indexes of the media flows.
pub fn measure(s: &Scenario, run: &RunResult, facts: &CaseFacts, media: &[usize]) -> CellMetrics {
    let period = s.sample_interval_ms * 1e-3;
    let rows = |f: usize| -> Vec<&Sample> {
        // A flow's rows, its streams' rates summed at each instant.
        run.samples
            .iter()
            .filter(|x| x.flow_index as usize == f)
            .collect()
    };
    let shares = FairShares::of(s, run, media);
    let mut flows = Vec::new();
    let (mut got, mut owed) = (0.0, 0.0);
    for &f in media {
        let by_t = per_instant(&rows(f));
        let on: Vec<&(f64, f64, f64, f64)> = by_t.iter().filter(|r| active(s, f, r.0)).collect();
        let n = on.len().max(1) as f64;
        let goodput: f64 = on.iter().map(|r| r.2).sum::<f64>();
        let owed_f: f64 = on.iter().map(|r| shares.at(f, r.0)).sum::<f64>();
        got += goodput;
        owed += owed_f;
        let summary = &run.summary.flows[f];
        let starts =
            std::iter::once(s.flows[f].start_s).chain(s.flows[f].pauses.iter().map(|p| p[1]));
        let mut convergence = Some(0.0_f64);
        for from in starts {
            let series: Vec<(f64, f64, f64)> = by_t
                .iter()
                .filter(|r| r.0 > from && active(s, f, r.0))
                .map(|r| (r.0, r.2, shares.at(f, r.0)))
                .collect();
            convergence = match (convergence, converged_after(&series, from, period)) {
                (Some(worst), Some(t)) => Some(worst.max(t)),
                _ => None,
            };
        }
        let stream_ratio = match summary.streams.as_slice() {
            [a, b] if b.throughput_mbps > 0.0 => Some(a.throughput_mbps / b.throughput_mbps),
            _ => None,
        };
        flows.push(FlowMetrics {
            name: summary.name.clone(),
            sending_mbps: on.iter().map(|r| r.1).sum::<f64>() / n,
            goodput_mbps: goodput / n,
            share: if owed_f > 0.0 { goodput / owed_f } else { 0.0 },
            queue_delay_p95_ms: summary.queue_delay_ms.p95,
            queue_delay_p98_ms: summary.queue_delay_ms.p98,
            self_inflicted_ms: summary.queue_delay_ms.mean,
            frame_delay_p95_ms: summary.frame_delay_ms.p95,
            frame_delay_p98_ms: summary.frame_delay_ms.p98,
            loss_ratio: summary.loss_ratio,
            convergence_s: convergence,
            stream_ratio,
        });
    }
    let utilisation = |name: &str| {
        run.summary
            .links
            .iter()
            .find(|l| l.name == name && l.direction == "forward")
            .map_or(0.0, |l| l.utilization)
    };
    let first = facts.bottlenecks.first().copied().unwrap_or("bottleneck");
    CellMetrics {
        share: if owed > 0.0 { got / owed } else { 0.0 },
        link_utilisation: utilisation(first),
        utilisations: facts.bottlenecks.iter().map(|b| utilisation(b)).collect(),
        jain: if facts.shared && media.len() > 1 {
            jain_window(s, run, media, &shares)
        } else {
            None
        },
        flows,
        without_ecn: None,
    }
}

/// `(t, sent, received, capacity)` of one flow per instant, its streams summed.
fn per_instant(rows: &[&Sample]) -> Vec<(f64, f64, f64, f64)> {
    let mut out: Vec<(f64, f64, f64, f64)> = Vec::new();
    for r in rows {
        match out.last_mut() {
            Some(last) if last.0 == r.t_s => {
                last.1 += r.tx_mbps;
                last.2 += r.rx_mbps;
            }
            _ => out.push((r.t_s, r.tx_mbps, r.rx_mbps, r.capacity_mbps)),
        }
    }
    out
}

/// How long after `from` the `(t, rate, fair share)` series first converges: the rate
/// averaged over `CONVERGENCE_AVERAGE_S` within `CONVERGENCE_BAND` of the fair share,
/// staying so for `CONVERGENCE_HOLD_S` or until the fair share changes. `None`: never;
/// an empty series (nothing to converge to) converges at once.
pub fn converged_after(series: &[(f64, f64, f64)], from: f64, period_s: f64) -> Option<f64> {
    if series.is_empty() {
        return Some(0.0);
    }
    let avg_len = ((CONVERGENCE_AVERAGE_S / period_s).round() as usize).max(1);
    let hold = ((CONVERGENCE_HOLD_S / period_s).round() as usize).max(1);
    let avg: Vec<f64> = (0..series.len())
        .map(|j| {
            let from = (j + 1).saturating_sub(avg_len);
            let w = &series[from..=j];
            w.iter().map(|x| x.1).sum::<f64>() / w.len() as f64
        })
        .collect();
    let inside = |j: usize| {
        let fair = series[j].2;
        fair > 0.0 && (avg[j] - fair).abs() <= CONVERGENCE_BAND * fair
    };
    (0..series.len())
        .find(|&j| {
            let end = (j + hold).min(series.len());
            // A change of the fair share ends the hold early: what follows is a new
            // convergence, measured only after starts and resumes.
            let same = (j..end).take_while(|&k| series[k].2 == series[j].2).count();
            same > 0 && (j..j + same).all(inside) && (same == hold || j + same < series.len())
        })
        .map(|j| (series[j].0 - from).max(0.0))
}

/// Jain's index of the media flows' mean goodput, each over its mean fair share (Jain's
/// normalised throughput, so flows whose max-min shares differ, §6.3, count as fair
/// when each gets the same fraction of its own; with equal shares it is Jain's index
/// of the goodputs), from the last start plus the hold time to the first stop.
fn jain_window(s: &Scenario, run: &RunResult, media: &[usize], shares: &FairShares) -> Option<f64> {
    let last_start = media
        .iter()
        .map(|&f| s.flows[f].start_s)
        .fold(0.0, f64::max);
    let first_stop = media
        .iter()
        .map(|&f| match s.flows[f].stop_s {
            x if x > 0.0 => x.min(s.duration_s),
            _ => s.duration_s,
        })
        .fold(f64::INFINITY, f64::min);
    let (from, to) = (last_start + CONVERGENCE_HOLD_S, first_stop);
    let rates: Vec<f64> = media
        .iter()
        .map(|&f| {
            let v: Vec<(f64, f64)> = per_instant(
                &run.samples
                    .iter()
                    .filter(|x| x.flow_index as usize == f && x.t_s > from && x.t_s <= to)
                    .collect::<Vec<_>>(),
            )
            .iter()
            .filter(|r| active(s, f, r.0))
            .map(|r| (r.2, shares.at(f, r.0)))
            .collect();
            let owed: f64 = v.iter().map(|x| x.1).sum();
            if owed > 0.0 {
                v.iter().map(|x| x.0).sum::<f64>() / owed
            } else {
                0.0
            }
        })
        .collect();
    jain(&rates)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn convergence_needs_the_average_inside_the_band_for_the_hold_time() {
        let p = 0.2;
        // Fair share 1; the rate ramps 0.1 per sample to 1 and stays there.
        let series: Vec<(f64, f64, f64)> = (1..=100)
            .map(|k| (k as f64 * p, (k as f64 * 0.1).min(1.0), 1.0))
            .collect();
        let t = converged_after(&series, 0.0, p).expect("converges");
        // The 5-sample average first reaches 0.8 at k = 10 (0.6..1.0 averages 0.8).
        assert!((t - 10.0 * p).abs() < 1e-9, "{t}");
    }

    #[test]
    fn a_rate_that_leaves_the_band_within_the_hold_has_not_converged() {
        let p = 0.2;
        let mut series: Vec<(f64, f64, f64)> = (1..=20).map(|k| (k as f64 * p, 1.0, 1.0)).collect();
        // Half the rate from sample 21 on, for good.
        series.extend((21..=100).map(|k| (k as f64 * p, 0.5, 1.0)));
        assert_eq!(converged_after(&series[10..], 2.0, p), None);
        assert!(converged_after(&series, 0.0, p).is_none());
        assert_eq!(converged_after(&[], 0.0, p), Some(0.0));
    }
}
