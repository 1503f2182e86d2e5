//! Capacity shapes drawn at random: the links an evaluation meets for the first time.
//!
//! The Markov presets imitate whole radio links; these imitate one hard event each, at
//! a place and size the caller's random stream decides, so that an evaluation can draw
//! fresh conditions on every run instead of replaying a few that an algorithm could be
//! tuned to:
//! - [`sudden_drop`]: the capacity falls by one to two decades at once and stays up
//!   (386 to 4 Mbit/s when a mmWave beam is blocked and the cell falls back), then
//!   returns;
//! - [`dead_stretch`]: the link delivers nothing, or next to nothing, for seconds
//!   (tunnels, radio link failure), then returns;
//! - [`bursty`]: delivery comes in bursts separated by silences of tens of ms, the
//!   way a cellular scheduler hands out transmission opportunities (the delivery
//!   pattern the Saturator tool of Sprout recorded on LTE: Winstein et al., NSDI 2013).
//!
//! Every shape is a list of `(start ns, bit/s)` rows starting at 0, increasing, like
//! [`SyntheticModel::rows`](super::SyntheticModel::rows). The ranges of every draw are
//! named constants below with the event they come from; none is fitted to a trace.

use crate::rng::RngStream;

/// A value drawn log-uniformly in `[lo, hi]`: rates and lengths of radio events spread
/// over decades, so each decade is as likely as the next.
pub fn log_uniform(rng: &mut RngStream, lo: f64, hi: f64) -> f64 {
    let (lo, hi) = (lo.max(1e-12), hi.max(lo.max(1e-12)));
    lo * (hi / lo).powf(rng.uniform())
}

/// A value drawn uniformly in `[lo, hi]`.
pub fn uniform(rng: &mut RngStream, lo: f64, hi: f64) -> f64 {
    lo + (hi - lo) * rng.uniform()
}

fn ns(s: f64) -> u64 {
    (s.max(0.0) * 1e9).round() as u64
}

/// Sudden drop: capacity before the drop, Mbit/s (a 5G cell from mid-band to mmWave
/// line of sight).
pub const DROP_BEFORE_MBPS: [f64; 2] = [20.0, 300.0];
/// Sudden drop: the capacity is divided by a factor in this range (one to two decades:
/// mmWave blockage or a fall back to LTE).
pub const DROP_FACTOR: [f64; 2] = [10.0, 100.0];
/// Sudden drop: never below this after the drop, Mbit/s — it is a drop, not an outage.
pub const DROP_FLOOR_MBPS: f64 = 1.0;
/// Sudden drop: when it happens, s (after the flow has reached the capacity).
pub const DROP_AT_S: [f64; 2] = [8.0, 14.0];
/// Sudden drop: how long the low capacity lasts, s.
pub const DROP_HOLD_S: [f64; 2] = [4.0, 10.0];

/// A sudden drop over `[0, span_s)`: `(rows, drop time s)`.
pub fn sudden_drop(rng: &mut RngStream, span_s: f64) -> (Vec<(u64, f64)>, f64) {
    let before = log_uniform(rng, DROP_BEFORE_MBPS[0], DROP_BEFORE_MBPS[1]);
    let after = (before / log_uniform(rng, DROP_FACTOR[0], DROP_FACTOR[1])).max(DROP_FLOOR_MBPS);
    let at = uniform(rng, DROP_AT_S[0], DROP_AT_S[1]);
    let back = at + uniform(rng, DROP_HOLD_S[0], DROP_HOLD_S[1]);
    let mut rows = vec![(0, before * 1e6), (ns(at), after * 1e6)];
    if back < span_s {
        rows.push((ns(back), before * 1e6));
    }
    (rows, at)
}

/// Dead stretch: capacity around it, Mbit/s (LTE to low 5G).
pub const DEAD_AROUND_MBPS: [f64; 2] = [2.0, 50.0];
/// Dead stretch: when it starts, s.
pub const DEAD_AT_S: [f64; 2] = [6.0, 10.0];
/// Dead stretch: its length, s (a short radio link failure to a long tunnel).
pub const DEAD_LENGTH_S: [f64; 2] = [1.0, 15.0];
/// Dead stretch: half of them still trickle at a rate in this range, Mbit/s — a cell
/// edge that schedules a few packets a second, where a deep buffer turns every packet
/// sent into seconds of delay — and the other half deliver nothing.
pub const NEAR_DEAD_MBPS: [f64; 2] = [0.02, 0.2];

/// A dead stretch over `[0, span_s)`: `(rows, [start s, end s])`.
pub fn dead_stretch(rng: &mut RngStream, span_s: f64) -> (Vec<(u64, f64)>, [f64; 2]) {
    let around = log_uniform(rng, DEAD_AROUND_MBPS[0], DEAD_AROUND_MBPS[1]);
    let at = uniform(rng, DEAD_AT_S[0], DEAD_AT_S[1]);
    let end = at + log_uniform(rng, DEAD_LENGTH_S[0], DEAD_LENGTH_S[1]);
    let trickle = if rng.chance(0.5) {
        log_uniform(rng, NEAR_DEAD_MBPS[0], NEAR_DEAD_MBPS[1])
    } else {
        0.0
    };
    let mut rows = vec![(0, around * 1e6), (ns(at), trickle * 1e6)];
    if end < span_s {
        rows.push((ns(end), around * 1e6));
    }
    (rows, [at, end])
}

/// Bursty delivery: mean rate, Mbit/s (an LTE downlink's).
pub const BURSTY_MEAN_MBPS: [f64; 2] = [2.0, 30.0];
/// Bursty delivery: every this often the mean is redrawn within a factor of two of the
/// class's, s (the scheduler's share moves with load and signal).
pub const BURSTY_REDRAW_S: f64 = 1.0;
/// Bursty delivery: length of a burst, ms (one to a few 1 ms LTE subframes).
pub const BURST_MS: [f64; 2] = [1.0, 8.0];
/// Bursty delivery: mean silence between bursts, ms (exponential; an LTE scheduler
/// serving other users, and discontinuous reception cycles of tens of ms).
pub const BURST_GAP_MEAN_MS: [f64; 2] = [5.0, 40.0];

/// Saturator-like bursty delivery over `[0, span_s)`: bursts at the rate that keeps the
/// drawn mean, separated by exponential silences.
pub fn bursty(rng: &mut RngStream, span_s: f64) -> Vec<(u64, f64)> {
    let class_mean = log_uniform(rng, BURSTY_MEAN_MBPS[0], BURSTY_MEAN_MBPS[1]);
    let gap_mean_s = uniform(rng, BURST_GAP_MEAN_MS[0], BURST_GAP_MEAN_MS[1]) * 1e-3;
    let burst_mean_s = 0.5 * (BURST_MS[0] + BURST_MS[1]) * 1e-3;
    let mut rows = Vec::new();
    let (mut t, mut next_redraw, mut mean) = (0.0, 0.0, class_mean);
    while t < span_s {
        if t >= next_redraw {
            mean = log_uniform(rng, class_mean / 2.0, class_mean * 2.0);
            next_redraw += BURSTY_REDRAW_S;
        }
        // The burst rate that delivers `mean` over a mean burst and a mean silence.
        let peak = mean * (burst_mean_s + gap_mean_s) / burst_mean_s;
        rows.push((ns(t), peak * 1e6));
        t += uniform(rng, BURST_MS[0], BURST_MS[1]) * 1e-3;
        if t >= span_s {
            break;
        }
        rows.push((ns(t), 0.0));
        // 1 - u lies in (0, 1], so the logarithm is finite.
        t += -gap_mean_s * (1.0 - rng.uniform()).ln();
    }
    rows.dedup_by_key(|r| r.0);
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    fn increasing_from_zero(rows: &[(u64, f64)]) {
        assert_eq!(rows[0].0, 0);
        assert!(rows.windows(2).all(|w| w[0].0 < w[1].0), "{rows:?}");
        assert!(rows.iter().all(|r| r.1 >= 0.0 && r.1.is_finite()));
    }

    #[test]
    fn a_drop_divides_by_one_to_two_decades_and_never_reaches_zero() {
        for seed in 0..200 {
            let (rows, at) = sudden_drop(&mut RngStream::new(seed, "t"), 30.0);
            increasing_from_zero(&rows);
            let (before, after) = (rows[0].1, rows[1].1);
            assert!(after >= DROP_FLOOR_MBPS * 1e6);
            assert!(before / after <= DROP_FACTOR[1] * (1.0 + 1e-9));
            assert!(before / after >= DROP_FACTOR[0] - 1e-9 || after == DROP_FLOOR_MBPS * 1e6);
            assert!((DROP_AT_S[0]..=DROP_AT_S[1]).contains(&at));
        }
    }

    #[test]
    fn a_dead_stretch_is_dead_or_trickles_for_one_to_fifteen_seconds() {
        let (mut dead, mut trickle) = (0, 0);
        for seed in 0..200 {
            let (rows, [from, to]) = dead_stretch(&mut RngStream::new(seed, "t"), 40.0);
            increasing_from_zero(&rows);
            let len = to - from;
            assert!((DEAD_LENGTH_S[0]..=DEAD_LENGTH_S[1] + 1e-9).contains(&len));
            if rows[1].1 == 0.0 {
                dead += 1;
            } else {
                assert!(rows[1].1 <= NEAR_DEAD_MBPS[1] * 1e6);
                trickle += 1;
            }
        }
        assert!(
            dead > 50 && trickle > 50,
            "{dead} dead, {trickle} trickling"
        );
    }

    #[test]
    fn bursty_delivery_alternates_bursts_and_silences_around_its_mean() {
        let span = 30.0;
        let rows = bursty(&mut RngStream::new(7, "t"), span);
        increasing_from_zero(&rows);
        let silences = rows.iter().filter(|r| r.1 == 0.0).count();
        assert!(silences > 300, "{silences} silences in {span} s");
        // The delivered bits over the span, from the rows.
        let mut bits = 0.0;
        for (i, r) in rows.iter().enumerate() {
            let end = rows.get(i + 1).map_or(span, |n| n.0 as f64 * 1e-9);
            bits += r.1 * (end - r.0 as f64 * 1e-9);
        }
        let mean = bits / span * 1e-6;
        // Within the class's range, widened by the factor-of-two wander.
        assert!(mean > BURSTY_MEAN_MBPS[0] / 4.0 && mean < BURSTY_MEAN_MBPS[1] * 4.0);
    }

    #[test]
    fn the_same_stream_draws_the_same_shape() {
        let a = bursty(&mut RngStream::new(3, "x"), 10.0);
        let b = bursty(&mut RngStream::new(3, "x"), 10.0);
        let c = bursty(&mut RngStream::new(4, "x"), 10.0);
        assert_eq!(a, b);
        assert_ne!(a, c);
    }
}
