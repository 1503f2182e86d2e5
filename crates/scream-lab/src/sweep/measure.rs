//! The metric values of one run.
//!
//! The published SCReAM studies define a run's throughput, delay and RTT as the mean of
//! the 20 ms samples, so those come from [`RunResult::samples`] over the flow's active
//! period. summary.json's estimate and sRTT means are the same means; its throughput is
//! bytes over active seconds, which differs from the sample mean by the partial last
//! period, so it is not used. The true queue delay stays per packet (summary.json's
//! distribution): a sample holds only the largest sojourn of its period, whose mean
//! would depend on the sampling period and overstate the delay.

use super::columns::{Measure, Metric};
use scream_records::stats::mean;
use scream_records::{Sample, rows_by_flow};
use scream_sim::summary::{CountOf, Distribution, FlowSummary};
use scream_sim::{RunResult, Scenario};

/// A finished run, ready to be measured: its sample rows split by flow once, so that
/// measuring every flow of a run of thousands costs one pass over the series.
pub(crate) struct Measured<'a> {
    scenario: &'a Scenario,
    run: &'a RunResult,
    rows: Vec<Vec<&'a Sample>>,
}

impl<'a> Measured<'a> {
    pub(crate) fn new(scenario: &'a Scenario, run: &'a RunResult) -> Self {
        Self {
            scenario,
            run,
            rows: rows_by_flow(&run.samples, scenario.flows.len()),
        }
    }

    /// The value of `metric` for flow `flow`; `None` when the run has no such value (a
    /// flow without a controller estimate, no frame delivered, no flow `flow`).
    pub(crate) fn value(&self, metric: &Metric, flow: usize) -> Option<f64> {
        if metric.measure == Measure::Utilization {
            return bottleneck_utilization(self.run);
        }
        let summary = self.run.summary.flows.get(flow)?;
        let samples = || self.active_samples(flow);
        match metric.measure {
            Measure::Throughput => mean(per_instant(samples(), |rows| {
                Some(rows.iter().map(|s| s.rx_mbps).sum())
            })),
            Measure::Target => mean(per_instant(samples(), |rows| {
                rows.iter()
                    .filter_map(|s| s.target_mbps)
                    .reduce(|a, b| a + b)
            })),
            // Flow-level columns repeat in every stream's row: the first row of an
            // instant speaks for the flow.
            Measure::EstQueueDelay => mean(per_instant(samples(), |rows| {
                rows.first().and_then(|s| s.est_queue_delay_ms)
            })),
            Measure::Srtt => mean(per_instant(samples(), |rows| {
                rows.first().and_then(|s| s.srtt_ms)
            })),
            Measure::QueueDelayMean => counted(&summary.queue_delay_ms).map(|d| d.mean),
            Measure::QueueDelayP50 => counted(&summary.queue_delay_ms).map(|d| d.p50),
            Measure::QueueDelayP95 => counted(&summary.queue_delay_ms).map(|d| d.p95),
            Measure::FrameDelayP95 => counted(&summary.frame_delay_ms).map(|d| d.p95),
            Measure::LossRatio => Some(summary.loss_ratio),
            Measure::CeRatio => ce_ratio(summary),
            Measure::Utilization => None,
        }
    }

    /// The rows of flow `flow` inside its active period `(start, stop]`, as the summary
    /// takes them.
    fn active_samples(&self, flow: usize) -> impl Iterator<Item = &'a Sample> + '_ {
        let cfg = self.scenario.flows.get(flow);
        let start = cfg.map_or(0.0, |f| f.start_s);
        let end = self.run.summary.duration_s;
        let stop = cfg
            .map(|f| f.stop_s)
            .filter(|&s| s > 0.0)
            .map_or(end, |s| s.min(end));
        self.rows
            .get(flow)
            .into_iter()
            .flatten()
            .copied()
            .filter(move |s| s.t_s > start && s.t_s <= stop)
    }
}

/// A distribution's figures, or `None` when it counted nothing (its zeros would read as
/// a measured zero delay).
fn counted(d: &Distribution) -> Option<&Distribution> {
    debug_assert!(matches!(d.count_of, CountOf::Packets | CountOf::Frames));
    (d.count > 0).then_some(d)
}

fn ce_ratio(summary: &FlowSummary) -> Option<f64> {
    (summary.packets_received > 0).then_some(summary.ce_ratio)
}

/// One value per sampling instant, from the rows (one per stream) of that instant.
/// Rows come ordered by time, so an instant's rows are adjacent.
fn per_instant<'a>(
    rows: impl Iterator<Item = &'a Sample>,
    value: impl Fn(&[&'a Sample]) -> Option<f64>,
) -> Vec<f64> {
    let mut out = Vec::new();
    let mut group: Vec<&Sample> = Vec::new();
    for row in rows {
        if group.first().is_some_and(|g| g.t_s != row.t_s) {
            out.extend(value(&group));
            group.clear();
        }
        group.push(row);
    }
    if !group.is_empty() {
        out.extend(value(&group));
    }
    out
}

/// Utilisation of the forward direction with the lowest mean capacity: the link that
/// limits a single-path scenario. Unlimited directions do not count.
fn bottleneck_utilization(run: &RunResult) -> Option<f64> {
    run.summary
        .links
        .iter()
        .filter(|l| l.direction == "forward")
        .filter(|l| l.capacity_mean_mbps.is_finite() && l.capacity_mean_mbps > 0.0)
        .min_by(|a, b| a.capacity_mean_mbps.total_cmp(&b.capacity_mean_mbps))
        .map(|l| l.utilization)
}
