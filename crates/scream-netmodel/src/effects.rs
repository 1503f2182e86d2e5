//! Path effects after a link's serializer: propagation delay, jitter and loss.

use crate::rng::RngStream;
use scream::{Duration, Instant};

/// A probability that changes over time: `base` from time zero, then each `(from,
/// probability)` step in increasing time.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ProbabilitySchedule {
    /// `(start, probability)`, starts strictly increasing, the first at time zero.
    steps: Vec<(Instant, f64)>,
}

impl ProbabilitySchedule {
    /// `base` from time zero, then the `steps` (sorted by time; an unsorted or
    /// out-of-range entry is the caller's error and is clamped to `[0, 1]`, NaN to 0).
    pub fn new(base: f64, steps: &[(Instant, f64)]) -> Self {
        let clamp = |p: f64| if p.is_nan() { 0.0 } else { p.clamp(0.0, 1.0) };
        let mut all = vec![(Instant::ZERO, clamp(base))];
        all.extend(steps.iter().map(|(t, p)| (*t, clamp(*p))));
        Self { steps: all }
    }

    /// The probability in force at `t`.
    pub fn at(&self, t: Instant) -> f64 {
        let i = self.steps.partition_point(|(s, _)| *s <= t);
        self.steps.get(i.wrapping_sub(1)).map_or(0.0, |(_, p)| *p)
    }

    /// Whether the probability is zero at all times.
    pub fn is_zero(&self) -> bool {
        self.steps.iter().all(|(_, p)| *p == 0.0)
    }
}

/// How packets are lost on a path.
#[derive(Debug, Clone, PartialEq)]
pub struct LossModel {
    /// Mean loss probability over time.
    pub probability: ProbabilitySchedule,
    /// Mean length of a loss burst in packets. At most 1: every packet is lost
    /// independently (Bernoulli). Above 1: a two-state Gilbert model whose bad state
    /// loses every packet and lasts this many packets on average, entered so often that
    /// the long-run loss ratio is the scheduled probability (bursts grow longer when
    /// the probability is too high for this mean length).
    pub mean_burst_packets: f64,
}

impl LossModel {
    /// No loss.
    pub fn none() -> Self {
        Self {
            probability: ProbabilitySchedule::default(),
            mean_burst_packets: 1.0,
        }
    }

    /// Independent loss with constant probability `p`.
    pub fn bernoulli(p: f64) -> Self {
        Self {
            probability: ProbabilitySchedule::new(p, &[]),
            mean_burst_packets: 1.0,
        }
    }
}

/// Jitter: a truncated Gaussian added to the propagation delay (RFC 8868 §4.2).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Jitter {
    /// Standard deviation.
    pub sigma: Duration,
    /// Truncation bound: no sample is further than this from zero.
    pub bound: Duration,
    /// Whether a packet may overtake the one before it. RFC 8868 §4.2 allows both; with
    /// order keeping a packet never arrives before its predecessor.
    pub keep_order: bool,
}

/// What happens to a packet between the serializer and the far end of a link.
#[derive(Debug, Clone)]
pub struct PathEffects {
    delay: Duration,
    jitter_sigma_ns: f64,
    jitter_bound_ns: f64,
    keep_order: bool,
    loss: LossModel,
    in_loss_burst: bool,
    jitter_rng: RngStream,
    loss_rng: RngStream,
    last_arrival: Instant,
}

impl PathEffects {
    /// Path effects whose random streams are named `<id>/jitter` and `<id>/loss` under
    /// `seed`.
    pub fn new(delay: Duration, jitter: Jitter, loss: LossModel, seed: u64, id: &str) -> Self {
        Self {
            delay,
            jitter_sigma_ns: jitter.sigma.as_nanos() as f64,
            jitter_bound_ns: jitter.bound.as_nanos() as f64,
            keep_order: jitter.keep_order,
            loss,
            in_loss_burst: false,
            jitter_rng: RngStream::new(seed, &format!("{id}/jitter")),
            loss_rng: RngStream::new(seed, &format!("{id}/loss")),
            last_arrival: Instant::ZERO,
        }
    }

    /// A path with only a propagation delay.
    pub fn delay_only(delay: Duration) -> Self {
        Self::new(delay, Jitter::default(), LossModel::none(), 0, "")
    }

    /// The propagation delay.
    pub fn delay(&self) -> Duration {
        self.delay
    }

    fn lost(&mut self, now: Instant) -> bool {
        let p = self.loss.probability.at(now);
        if p <= 0.0 {
            self.in_loss_burst = false;
            return false;
        }
        let burst = self.loss.mean_burst_packets;
        if burst <= 1.0 || p >= 1.0 {
            return self.loss_rng.chance(p);
        }
        // Gilbert model: leave the bad state with 1/burst per packet; enter it with the
        // rate that makes the stationary share of the bad state equal to p. Past
        // p = burst / (burst + 1) even entering at every good packet is too rare, so the
        // bursts grow longer instead.
        let mut leave = 1.0 / burst;
        let mut enter = p * leave / (1.0 - p);
        if enter > 1.0 {
            enter = 1.0;
            leave = (1.0 - p) / p;
        }
        let flip = if self.in_loss_burst { leave } else { enter };
        if self.loss_rng.chance(flip) {
            self.in_loss_burst = !self.in_loss_burst;
        }
        self.in_loss_burst
    }

    /// When a packet whose last bit left the serializer at `now` reaches the far end,
    /// or `None` if it is lost on the way.
    pub fn transit(&mut self, now: Instant) -> Option<Instant> {
        if self.lost(now) {
            return None;
        }
        let base = now + self.delay;
        let arrival = if self.jitter_sigma_ns > 0.0 {
            let j = self
                .jitter_rng
                .truncated_normal(self.jitter_sigma_ns, self.jitter_bound_ns)
                .round();
            // Jitter cannot make a packet arrive before it was sent.
            if j >= 0.0 {
                base + Duration::from_nanos(j as u64)
            } else {
                base.saturating_sub(Duration::from_nanos((-j) as u64))
                    .max(now)
            }
        } else {
            base
        };
        let arrival = if self.keep_order {
            arrival.max(self.last_arrival)
        } else {
            arrival
        };
        self.last_arrival = self.last_arrival.max(arrival);
        Some(arrival)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    fn jitter(sigma: u64, bound: u64, keep_order: bool) -> Jitter {
        Jitter {
            sigma: ms(sigma),
            bound: ms(bound),
            keep_order,
        }
    }

    #[test]
    fn ordered_jitter_never_reorders_and_stays_within_bound() {
        let mut p = PathEffects::new(ms(20), jitter(5, 15, true), LossModel::none(), 1, "l");
        let mut last = Instant::ZERO;
        for i in 0..2000u64 {
            let now = Instant::from_micros(i * 500);
            let a = p.transit(now).unwrap();
            assert!(a >= last);
            assert!(a >= now + ms(5));
            last = a;
        }
    }

    #[test]
    fn unordered_jitter_reorders_some_packets() {
        let mut p = PathEffects::new(ms(20), jitter(5, 15, false), LossModel::none(), 1, "l");
        let arrivals: Vec<Instant> = (0..2000u64)
            .map(|i| p.transit(Instant::from_micros(i * 500)).unwrap())
            .collect();
        assert!(arrivals.windows(2).any(|w| w[1] < w[0]));
        for (i, a) in arrivals.iter().enumerate() {
            let sent = Instant::from_micros(i as u64 * 500);
            assert!(*a >= sent + ms(5) && *a <= sent + ms(35));
        }
    }

    #[test]
    fn random_loss_matches_its_probability() {
        let mut p = PathEffects::new(ms(0), Jitter::default(), LossModel::bernoulli(0.1), 9, "l");
        let lost = (0..50_000)
            .filter(|_| p.transit(Instant::ZERO).is_none())
            .count();
        assert!((4_500..5_500).contains(&lost), "{lost}");
    }

    #[test]
    fn scheduled_loss_applies_only_in_its_interval() {
        // 100 % loss from 1 s to 2 s, none otherwise: a dead path for one second.
        let loss = LossModel {
            probability: ProbabilitySchedule::new(
                0.0,
                &[
                    (Instant::from_millis(1000), 1.0),
                    (Instant::from_millis(2000), 0.0),
                ],
            ),
            mean_burst_packets: 1.0,
        };
        let mut p = PathEffects::new(ms(0), Jitter::default(), loss, 1, "l");
        for t in (0..3000).step_by(10) {
            let lost = p.transit(Instant::from_millis(t)).is_none();
            assert_eq!(lost, (1000..2000).contains(&t), "t = {t} ms");
        }
    }

    #[test]
    fn bursty_loss_keeps_its_mean_and_lengthens_bursts() {
        let model = |burst| LossModel {
            probability: ProbabilitySchedule::new(0.05, &[]),
            mean_burst_packets: burst,
        };
        let runs = |burst: f64| {
            let mut p = PathEffects::new(ms(0), Jitter::default(), model(burst), 3, "l");
            let lost: Vec<bool> = (0..200_000)
                .map(|_| p.transit(Instant::ZERO).is_none())
                .collect();
            let total = lost.iter().filter(|l| **l).count();
            let bursts = lost.windows(2).filter(|w| !w[0] && w[1]).count().max(1);
            (
                total as f64 / lost.len() as f64,
                total as f64 / bursts as f64,
            )
        };
        let (ratio_1, burst_1) = runs(1.0);
        let (ratio_8, burst_8) = runs(8.0);
        assert!((ratio_1 - 0.05).abs() < 0.005, "{ratio_1}");
        assert!((ratio_8 - 0.05).abs() < 0.01, "{ratio_8}");
        assert!(burst_1 < 1.2, "independent losses come alone: {burst_1}");
        assert!((6.0..10.0).contains(&burst_8), "mean burst {burst_8}");
    }

    #[test]
    fn bursty_loss_reaches_a_high_mean_with_longer_bursts() {
        let loss = LossModel {
            probability: ProbabilitySchedule::new(0.8, &[]),
            mean_burst_packets: 2.0,
        };
        let mut p = PathEffects::new(ms(0), Jitter::default(), loss, 5, "l");
        let lost = (0..100_000)
            .filter(|_| p.transit(Instant::ZERO).is_none())
            .count();
        assert!((78_000..82_000).contains(&lost), "{lost}");
    }
}
