//! The measures of one run of a drawn link: those of `scream eval v2` plus the ones the
//! drawn troubles call for — late frames, silence, starvation against the fair share,
//! and recovery after the class's event. docs/eval-robust.md defines each; the
//! thresholds are named here.

use serde::Serialize;

use scream::Duration;
use scream_records::stats::mean;
use scream_sim::{RunResult, Sample, Scenario};

use super::classes::{Draw, Event};
use crate::eval::measure;
use crate::eval::metrics::{OUTAGE_BELOW_MBPS, RECOVERED_SHARE, RECOVERY_AVERAGE_S};

/// A frame delivered this long after it entered the sender's queue is late: far past
/// any conversational budget (ITU-T G.114 puts the limit for interactive use at
/// 400 ms one way); a player has long skipped or frozen it.
pub(crate) const LATE_FRAME: Duration = Duration::from_secs(1);
/// Starvation: a flow gets less than this share of its fair share of the capacity ...
pub(crate) const STARVED_SHARE: f64 = 0.1;
/// ... both averaged over this long, s (several RTTs of any drawn path) ...
pub(crate) const STARVED_AVERAGE_S: f64 = 1.0;
/// ... while its fair share is at least this, Mbit/s (10 % of less is the flows'
/// minimum bitrate, which no flow goes below).
pub(crate) const STARVED_MIN_SHARE_MBPS: f64 = 1.0;
/// A flow's first seconds are its start-up, not starvation.
pub(crate) const STARTUP_S: f64 = 5.0;
/// A run starves a flow when the starvation lasts at least this long, s.
pub(crate) const STARVED_FOR_S: f64 = 2.0;
/// Regrowth after a sudden drop: the received rate is averaged over this long, s. A
/// second spans many RTTs of any drawn path, so the measure tells a sender that is
/// back near the new capacity from one that only trickles, whatever the queue did in
/// the first round trips.
pub(crate) const REGROWTH_AVERAGE_S: f64 = 1.0;

/// What one run measured.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RunMetrics {
    /// All flows' received rate over the run, Mbit/s.
    pub throughput_mbps: f64,
    /// Received / usable (as `scream eval v2`).
    pub utilisation: f64,
    /// Bottleneck sojourn of media packets, p95 and p99, ms (worst flow).
    pub sojourn_p95_ms: f64,
    /// p99 of the same.
    pub sojourn_p99_ms: f64,
    /// Frame delay p95, ms (worst flow).
    pub frame_p95_ms: f64,
    /// Frame delay p99, ms (worst flow).
    pub frame_p99_ms: f64,
    /// Frames delivered more than `LATE_FRAME` (1 s) after they entered the sender's queue.
    pub late_frames: u64,
    /// Frames lost or discarded (all flows).
    pub lost_frames: u64,
    /// Longest time a flow received nothing while the link carried at least 1 Mbit/s.
    pub silence_s: f64,
    /// Longest starvation of a flow (below `STARVED_SHARE`, 10 %, of its fair share), s.
    pub starvation_s: f64,
    /// After the class's event, how long the flows took to be back at half the usable
    /// rate (see `drop_recovery` and the outage recovery of `scream eval v2`); for an
    /// outage never recovered from, the time until the run ended.
    pub recovery_s: Option<f64>,
    /// After a sudden drop, how long until the flows' received rate over the last
    /// second (counting nothing from before the drop) first reaches half the usable
    /// rate after the drop (see `drop_regrowth`).
    pub regrowth_s: Option<f64>,
    /// Jain's index over the second half of the run (several flows).
    pub jain: Option<f64>,
}

impl RunMetrics {
    /// Whether a flow starved for at least `STARVED_FOR_S` (2 s).
    pub fn starved(&self) -> bool {
        self.starvation_s >= STARVED_FOR_S
    }
}

/// Measures a finished run of `draw`'s `scenario`.
pub fn measure_run(draw: &Draw, scenario: &Scenario, run: &RunResult) -> RunMetrics {
    let jain_window =
        (scenario.flows.len() > 1).then_some([scenario.duration_s / 2.0, scenario.duration_s]);
    let base = measure(scenario, run, jain_window);
    let period_s = scenario.sample_interval_ms * 1e-3;
    let flows: Vec<Vec<&Sample>> = (0..scenario.flows.len() as u32)
        .map(|i| run.samples.iter().filter(|s| s.flow_index == i).collect())
        .collect();
    let silence = flows
        .iter()
        .map(|rows| longest_silence(rows))
        .max()
        .unwrap_or(0);
    let starvation = starvation_periods(scenario, &flows, period_s);
    let recovery_s = match draw.event {
        Event::None => None,
        Event::Drop { at_s, until_s } => Some(drop_recovery(scenario, &flows, at_s, until_s)),
        Event::Dead { .. } => base.recovery.map(|r| r.secs),
    };
    let regrowth_s = match draw.event {
        Event::Drop { at_s, until_s } => Some(drop_regrowth(scenario, &flows, at_s, until_s)),
        Event::None | Event::Dead { .. } => None,
    };
    RunMetrics {
        throughput_mbps: base.throughput_mbps,
        utilisation: base.utilisation,
        sojourn_p95_ms: base.sojourn_p95_ms,
        sojourn_p99_ms: base.sojourn_p99_ms,
        frame_p95_ms: base.frame_delay_p95_ms,
        frame_p99_ms: base.frame_delay_p99_ms,
        late_frames: run
            .frame_delays
            .iter()
            .map(|h| h.count_above(LATE_FRAME))
            .sum(),
        lost_frames: base.lost_frames,
        silence_s: silence as f64 * period_s,
        starvation_s: starvation as f64 * period_s,
        recovery_s,
        regrowth_s,
        jain: base.jain,
    }
}

/// Longest run of periods without a received byte, counting only the periods whose
/// link could carry at least [`OUTAGE_BELOW_MBPS`] (a dead link excuses the silence;
/// a period with media received ends the run).
fn longest_silence(rows: &[&Sample]) -> usize {
    let (mut best, mut now) = (0, 0);
    for r in rows.iter().filter(|r| r.target_mbps.is_some()) {
        if r.rx_mbps > 0.0 {
            now = 0;
        } else if r.capacity_mbps >= OUTAGE_BELOW_MBPS {
            now += 1;
            best = best.max(now);
        }
    }
    best
}

/// Longest run of periods, over the flows, in which a flow past its start-up received
/// less than [`STARVED_SHARE`] of its fair share, both averaged over
/// [`STARVED_AVERAGE_S`]. The fair share of a period is the capacity divided among the
/// flows active then, capped at the flow's maximum bitrate.
fn starvation_periods(scenario: &Scenario, flows: &[Vec<&Sample>], period_s: f64) -> usize {
    let window = (STARVED_AVERAGE_S / period_s).round().max(1.0) as usize;
    // Rows of every flow are sampled at the same instants; the number active at each.
    let len = flows.iter().map(Vec::len).max().unwrap_or(0);
    let active: Vec<usize> = (0..len)
        .map(|k| {
            flows
                .iter()
                .filter(|rows| rows.get(k).is_some_and(|r| r.target_mbps.is_some()))
                .count()
        })
        .collect();
    let mut best = 0;
    for (i, rows) in flows.iter().enumerate() {
        let cfg = &scenario.flows[i];
        let share: Vec<f64> = rows
            .iter()
            .enumerate()
            .map(|(k, r)| {
                let n = active.get(k).copied().unwrap_or(1).max(1) as f64;
                (r.capacity_mbps / n).min(cfg.max_bitrate_mbps)
            })
            .collect();
        let mut now = 0;
        for k in 0..rows.len() {
            let from = (k + 1).saturating_sub(window);
            let past_startup = rows[k].target_mbps.is_some()
                && rows[from].t_s > cfg.start_s + STARTUP_S - period_s / 2.0;
            let got = mean(rows[from..=k].iter().map(|r| r.rx_mbps)).unwrap_or(0.0);
            let fair = mean(share[from..=k].iter().copied()).unwrap_or(0.0);
            let starved =
                past_startup && fair >= STARVED_MIN_SHARE_MBPS && got < STARVED_SHARE * fair;
            now = if starved { now + 1 } else { 0 };
            best = best.max(now);
        }
    }
    best
}

/// After a capacity drop at `at_s` (lasting until `until_s`): the first time the
/// flows' received rate, averaged over the last 200 ms, falls below half the usable
/// rate, how long until it is back at or above it, s. 0 when it never falls below
/// (the sender slowed down in time); a dip not recovered from before `until_s` counts
/// until then.
pub(crate) fn drop_recovery(
    scenario: &Scenario,
    flows: &[Vec<&Sample>],
    at_s: f64,
    until_s: f64,
) -> f64 {
    let period_s = scenario.sample_interval_ms * 1e-3;
    let avg = (RECOVERY_AVERAGE_S / period_s).round().max(1.0) as usize;
    let (t, received, usable) = received_and_usable(scenario, flows);
    let low = |k: usize| {
        let from = (k + 1).saturating_sub(avg);
        mean(received[from..=k].iter().copied()).unwrap_or(0.0) < RECOVERED_SHARE * usable[k]
    };
    let span: Vec<usize> = (0..t.len())
        .filter(|&k| t[k] > at_s && t[k] <= until_s)
        .collect();
    let Some(dip) = span.iter().position(|&k| low(k)) else {
        return 0.0;
    };
    let back = span[dip..].iter().position(|&k| !low(k));
    let periods = back.unwrap_or(span.len() - dip);
    periods as f64 * period_s
}

/// After a capacity drop at `at_s` (lasting until `until_s`): how long until the
/// flows' received rate over the last [`REGROWTH_AVERAGE_S`] (1 s) first reaches half
/// of the usable rate, s. Only periods that start at or after the drop count, each at
/// most at the usable rate: what arrives faster left the bottleneck before the drop
/// (the old rate still on its way to the receiver). A sender at the new capacity from
/// the drop on takes half a second; one that leaves the link idle or regrows slowly
/// takes longer. Not reached before `until_s`: the time until then.
pub(crate) fn drop_regrowth(
    scenario: &Scenario,
    flows: &[Vec<&Sample>],
    at_s: f64,
    until_s: f64,
) -> f64 {
    let period_s = scenario.sample_interval_ms * 1e-3;
    let avg = (REGROWTH_AVERAGE_S / period_s).round().max(1.0) as usize;
    let (t, received, usable) = received_and_usable(scenario, flows);
    // A period ends at its sample's time.
    let span: Vec<usize> = (0..t.len())
        .filter(|&k| t[k] - period_s >= at_s - 1e-9 && t[k] <= until_s)
        .collect();
    let reached = span.iter().enumerate().find(|&(i, &k)| {
        // The periods since the drop, at most a second of them, over a full second.
        let since_drop = &span[(i + 1).saturating_sub(avg)..=i];
        let got: f64 = since_drop
            .iter()
            .map(|&j| received[j].min(usable[j]))
            .sum::<f64>()
            / avg as f64;
        got >= RECOVERED_SHARE * usable[k]
    });
    match reached {
        Some((_, &k)) => t[k] - at_s,
        None => until_s - at_s,
    }
}

/// Per sampling period: its time, the flows' received rate, and the usable rate (the
/// capacity, capped at the active flows' maximum bitrates), Mbit/s.
fn received_and_usable(
    scenario: &Scenario,
    flows: &[Vec<&Sample>],
) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let len = flows.iter().map(Vec::len).max().unwrap_or(0);
    let t = (0..len)
        .map(|k| flows.iter().find_map(|f| f.get(k)).map_or(0.0, |r| r.t_s))
        .collect();
    let received = (0..len)
        .map(|k| {
            flows
                .iter()
                .filter_map(|f| f.get(k))
                .map(|r| r.rx_mbps)
                .sum()
        })
        .collect();
    let usable = (0..len)
        .map(|k| {
            let rows: Vec<&&Sample> = flows.iter().filter_map(|f| f.get(k)).collect();
            let cap = rows.first().map_or(0.0, |r| r.capacity_mbps);
            let ceiling: f64 = rows
                .iter()
                .filter(|r| r.target_mbps.is_some())
                .map(|r| scenario.flows[r.flow_index as usize].max_bitrate_mbps)
                .sum();
            cap.min(ceiling)
        })
        .collect();
    (t, received, usable)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(t_s: f64, rx: f64, cap: f64) -> Sample {
        Sample {
            target_mbps: Some(1.0),
            rx_mbps: rx,
            tx_mbps: rx,
            capacity_mbps: cap,
            ..Sample::empty(t_s, "f".into(), "f".into(), 0)
        }
    }

    #[test]
    fn silence_counts_only_periods_a_live_link_could_have_filled() {
        let rows = [
            row(0.02, 1.0, 10.0),
            row(0.04, 0.0, 0.0),
            row(0.06, 0.0, 0.0),
            row(0.08, 0.0, 10.0),
            row(0.10, 0.0, 10.0),
            row(0.12, 1.0, 10.0),
            row(0.14, 0.0, 10.0),
        ];
        let refs: Vec<&Sample> = rows.iter().collect();
        assert_eq!(longest_silence(&refs), 2);
    }

    #[test]
    fn a_drop_recovery_runs_from_the_first_dip_below_half_to_the_return() {
        let scenario = Scenario {
            flows: vec![scream_sim::scenario::FlowConfig::default()],
            ..Scenario::default()
        };
        // Capacity 10, dropping to 2 at 1 s: the queue drains at 2 for 0.2 s, nothing
        // for 0.4 s, then 2 again.
        let mut rows = Vec::new();
        for k in 1..=150 {
            let t = k as f64 * 0.02;
            let (rx, cap) = match t {
                t if t <= 1.0 => (10.0, 10.0),
                t if t <= 1.2 => (2.0, 2.0),
                t if t <= 1.6 => (0.0, 2.0),
                _ => (2.0, 2.0),
            };
            rows.push(row(t, rx, cap));
        }
        let flows = vec![rows.iter().collect::<Vec<_>>()];
        let r = drop_recovery(&scenario, &flows, 1.0, 3.0);
        // The 10-period average falls below 1 with the sixth silent period in it
        // (1.32 s) and is back with the fifth full one (1.70 s): 19 periods.
        assert!((r - 0.38).abs() < 1e-9, "{r}");
        assert_eq!(drop_recovery(&scenario, &flows, 2.0, 3.0), 0.0);
        // From 1 s on: 0.2 s at 2, 0.4 s of nothing, then 2 again. Half of 2 over a
        // second is 1 Mbit/s x 1 s: the drained 0.4 Mbit/s s plus 0.3 s more at 2
        // (0.6), reached at 1.9 s.
        let r = drop_regrowth(&scenario, &flows, 1.0, 3.0);
        assert!((r - 0.9).abs() < 1e-9, "{r}");
        // The old rate still arriving after the drop counts only up to the new one.
        rows[50].rx_mbps = 100.0;
        let flows = vec![rows.iter().collect::<Vec<_>>()];
        let r = drop_regrowth(&scenario, &flows, 1.0, 3.0);
        assert!((r - 0.9).abs() < 1e-9, "{r}");
        // Never reached before the end of the drop: the whole drop.
        let r = drop_regrowth(&scenario, &flows, 1.0, 1.5);
        assert!((r - 0.5).abs() < 1e-9, "{r}");
    }
}
