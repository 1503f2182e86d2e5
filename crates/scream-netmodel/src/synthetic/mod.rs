//! Synthetic capacity traces: seeded Markov-modulated rate processes.
//!
//! Recorded link traces are data collected by others and cannot always be shipped, so a
//! scenario that must run anywhere needs capacity that is generated instead. A
//! [`SyntheticModel`] describes a continuous-time Markov chain over radio conditions
//! (line of sight, blocked, cell edge, ...). Each state holds a band of rates; while the
//! chain stays in a state the rate is redrawn, log-uniformly within the band, every
//! `redraw_s` (fast fading and scheduling at a finer grain than the state). On top of the
//! chain, short capacity gaps (handover interruptions, scheduling stalls) may arrive as
//! a Poisson process in any state.
//!
//! The result is an ordinary looping [`RateSchedule`], so the serializer treats it
//! exactly like a time/rate table. Generation draws from two seeded [`RngStream`]s
//! named after the link direction (`<id>/capacity/states` and `<id>/capacity/gaps`),
//! so the master seed reproduces a trace and a new random element elsewhere never
//! changes it. Both streams are consumed in time order: the first `T` seconds of a
//! trace do not depend on how long a span was generated, so a shorter run sees the
//! beginning of a longer one.

mod presets;
pub mod shapes;
#[cfg(test)]
mod tests;

pub use presets::PRESETS;

use scream::{Bitrate, Duration};

use crate::capacity::RateSchedule;
use crate::rng::RngStream;

/// Longest span generated; a longer run sees the trace repeat. One hour keeps the
/// schedule to tens of thousands of rows while staying far longer than a typical run.
pub const MAX_SPAN: Duration = Duration::from_secs(3600);

/// Shortest dwell in any state, so that an exponential draw of (almost) zero cannot
/// create empty segments.
const MIN_DWELL_NS: u64 = 1_000_000;

/// One state of the modulating chain.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MarkovState {
    /// Short name used in the documentation.
    pub name: &'static str,
    /// Lowest rate of the band, Mbit/s (0 together with `max_mbps` = 0: an outage).
    pub min_mbps: f64,
    /// Highest rate of the band, Mbit/s.
    pub max_mbps: f64,
    /// Least time spent in the state per visit, s.
    pub min_dwell_s: f64,
    /// Mean time spent in the state per visit, s (at least `min_dwell_s`). The time
    /// beyond `min_dwell_s` is exponential, so the chain is Markov once the minimum
    /// has passed.
    pub mean_dwell_s: f64,
    /// Relative weights of the next state, one per state of the model (its own is 0).
    pub next: &'static [f64],
}

/// Short capacity gaps that may strike in any state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gaps {
    /// Mean number of gaps per second (0: none).
    pub per_s: f64,
    /// Shortest gap, ms.
    pub min_ms: f64,
    /// Longest gap, ms; lengths are uniform in `[min_ms, max_ms]`.
    pub max_ms: f64,
}

/// A generator of synthetic capacity traces (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SyntheticModel {
    /// Name after `synthetic:` in a scenario.
    pub name: &'static str,
    /// One line on what it imitates.
    pub summary: &'static str,
    /// The states of the chain.
    pub states: &'static [MarkovState],
    /// Index of the state the trace starts in.
    pub start: usize,
    /// Within a state, the rate is redrawn this often, s.
    pub redraw_s: f64,
    /// Gaps on top of the chain.
    pub gaps: Gaps,
}

/// The preset called `name`.
pub fn preset(name: &str) -> Option<&'static SyntheticModel> {
    PRESETS.iter().find(|m| m.name == name)
}

/// Names of all presets.
pub fn preset_names() -> Vec<&'static str> {
    PRESETS.iter().map(|m| m.name).collect()
}

fn secs_to_ns(s: f64) -> u64 {
    (s.max(0.0) * 1e9).round() as u64
}

/// An exponential draw with the given mean, s, in ns.
fn exponential_ns(rng: &mut RngStream, mean_s: f64) -> u64 {
    // 1 - u lies in (0, 1], so the logarithm is finite.
    secs_to_ns(-mean_s * (1.0 - rng.uniform()).ln())
}

impl MarkovState {
    /// A rate from the band, log-uniform: fading moves a rate by factors, not by
    /// fixed amounts, so a band spanning a decade spends as long in each octave.
    fn draw_bps(&self, rng: &mut RngStream) -> f64 {
        if self.max_mbps <= 0.0 {
            return 0.0;
        }
        let (lo, hi) = (self.min_mbps.max(1e-6), self.max_mbps.max(self.min_mbps));
        lo * (hi / lo).powf(rng.uniform()) * 1e6
    }

    fn draw_dwell_ns(&self, rng: &mut RngStream) -> u64 {
        let extra = (self.mean_dwell_s - self.min_dwell_s).max(0.0);
        (secs_to_ns(self.min_dwell_s) + exponential_ns(rng, extra)).max(MIN_DWELL_NS)
    }
}

impl SyntheticModel {
    /// The state after `from`, drawn by the weights of `from.next`.
    fn next_state(&self, from: usize, rng: &mut RngStream) -> usize {
        let weights = self.states[from].next;
        let total: f64 = weights.iter().sum();
        let mut x = rng.uniform() * total;
        for (i, w) in weights.iter().enumerate() {
            if x < *w {
                return i;
            }
            x -= w;
        }
        // Rounding left `x` just above the last weight: take the last positive one.
        weights.iter().rposition(|w| *w > 0.0).unwrap_or(from)
    }

    /// The chain's rows `(start ns, bit/s)` over `[0, span_ns)`.
    fn chain_rows(&self, rng: &mut RngStream, span_ns: u64) -> Vec<(u64, f64)> {
        let redraw = secs_to_ns(self.redraw_s).max(MIN_DWELL_NS);
        let mut rows = Vec::new();
        let (mut t, mut state) = (0u64, self.start);
        while t < span_ns {
            let s = &self.states[state];
            let end = t.saturating_add(s.draw_dwell_ns(rng)).min(span_ns);
            let mut at = t;
            while at < end {
                rows.push((at, s.draw_bps(rng)));
                at = at.saturating_add(redraw);
            }
            t = end;
            state = self.next_state(state, rng);
        }
        rows
    }

    /// The gaps `[from, to)` over `[0, span_ns)`, in order and disjoint.
    fn gap_spans(&self, rng: &mut RngStream, span_ns: u64) -> Vec<(u64, u64)> {
        let g = &self.gaps;
        let mut out = Vec::new();
        if g.per_s <= 0.0 {
            return out;
        }
        let mut t = 0u64;
        loop {
            t = t.saturating_add(exponential_ns(rng, 1.0 / g.per_s));
            if t >= span_ns {
                return out;
            }
            let len_ms = g.min_ms + (g.max_ms - g.min_ms).max(0.0) * rng.uniform();
            let end = t.saturating_add(secs_to_ns(len_ms * 1e-3)).min(span_ns);
            out.push((t, end));
            t = end;
        }
    }

    /// The rate rows of a trace spanning `span` (at most [`MAX_SPAN`], at least 1 ms),
    /// as `(start ns, bit/s)`, drawn from the streams of element `id` under `seed`.
    pub fn rows(&self, seed: u64, id: &str, span: Duration) -> Vec<(u64, f64)> {
        let span_ns = u64::try_from(span.min(MAX_SPAN).as_nanos())
            .unwrap_or(u64::MAX)
            .max(MIN_DWELL_NS);
        let chain = self.chain_rows(
            &mut RngStream::new(seed, &format!("{id}/capacity/states")),
            span_ns,
        );
        let gaps = self.gap_spans(
            &mut RngStream::new(seed, &format!("{id}/capacity/gaps")),
            span_ns,
        );
        overlay_gaps(&chain, &gaps, span_ns)
    }

    /// A looping schedule of span `span` (see [`SyntheticModel::rows`]); it repeats
    /// only after [`MAX_SPAN`] or the span asked for, whichever is shorter.
    pub fn schedule(&self, seed: u64, id: &str, span: Duration) -> RateSchedule {
        let rows: Vec<(u64, Bitrate)> = self
            .rows(seed, id, span)
            .into_iter()
            .map(|(t, bps)| (t, Bitrate::from_bps(bps)))
            .collect();
        let period = u64::try_from(span.min(MAX_SPAN).as_nanos())
            .unwrap_or(u64::MAX)
            .max(MIN_DWELL_NS);
        // Rows start at 0 and increase, and the last starts before the span ends, so
        // the schedule always exists.
        RateSchedule::new(&rows, Some(period)).expect("generated rows are ordered")
    }
}

/// `rows` with the rate forced to 0 during each gap; after a gap the rate in force
/// under `rows` resumes (unless the gap runs to the end of the span).
fn overlay_gaps(rows: &[(u64, f64)], gaps: &[(u64, u64)], span_ns: u64) -> Vec<(u64, f64)> {
    if gaps.is_empty() {
        return rows.to_vec();
    }
    let rate_at = |t: u64| rows[rows.partition_point(|r| r.0 <= t).saturating_sub(1)].1;
    let in_gap = |t: u64| {
        let i = gaps.partition_point(|g| g.0 <= t);
        i > 0 && t < gaps[i - 1].1
    };
    let mut out: Vec<(u64, f64)> = rows.iter().copied().filter(|r| !in_gap(r.0)).collect();
    for &(from, to) in gaps {
        out.push((from, 0.0));
        if to < span_ns && !in_gap(to) {
            out.push((to, rate_at(to)));
        }
    }
    // A row restored at a gap's end may coincide with a chain row of the same rate.
    out.sort_by_key(|r| r.0);
    out.dedup_by_key(|r| r.0);
    out
}
