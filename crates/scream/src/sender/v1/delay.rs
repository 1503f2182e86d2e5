//! SCReAM V1's own queue-delay estimate, as the Ericsson code keeps it.
//!
//! The queue delay is the one-way delay of the newest acknowledged packet minus the
//! base delay, without filtering. The base delay is the minimum over 50 slots of 10 s
//! (about 8 minutes) and the running minimum of the current slot; the window law may
//! throw the whole history away (the "base OWD reset", see `window`). The queue delay
//! trend is the lag-1 autocorrelation of the last second of queue-delay fractions,
//! sampled every 50 ms, times their smoothed value (RFC 8298 §4.1.2.1).
//!
//! The chassis keeps its own estimate (10 slots of a minute, clock-step checks); this
//! one is fed with the samples the chassis accepted, so V1 reacts to exactly the
//! samples its reference reacts to.

use crate::time::{Duration, Instant};

/// Slots of the base delay history (reference `kBaseOwdHistSize`).
const BASE_SLOTS: usize = 50;
/// Length of one base delay slot (reference `kBaseDelayUpdateInterval`).
const BASE_SLOT_LEN: Duration = Duration::from_secs(10);
/// Samples of the queue-delay fraction history (reference `kQueueDelayFractionHistSize`).
pub(crate) const FRACTION_SLOTS: usize = 20;

/// Queue delay and base delay of a V1 sender.
#[derive(Debug, Clone)]
pub(crate) struct OwdEstimator {
    /// Minimum one-way delay per completed slot, nanoseconds (`i64::MAX`: empty).
    slots: [i64; BASE_SLOTS],
    slot_idx: usize,
    /// Minimum of the slot being filled.
    current: i64,
    /// Minimum over `slots`.
    history_min: i64,
    last_slot_at: Option<Instant>,
    queue_delay: Duration,
}

impl Default for OwdEstimator {
    fn default() -> Self {
        Self {
            slots: [i64::MAX; BASE_SLOTS],
            slot_idx: 0,
            current: i64::MAX,
            history_min: i64::MAX,
            last_slot_at: None,
            queue_delay: Duration::ZERO,
        }
    }
}

impl OwdEstimator {
    /// A packet acknowledged at `now` had one-way delay `owd_nanos` (receiver clock
    /// minus sender clock, any offset).
    pub(crate) fn on_sample(&mut self, now: Instant, owd_nanos: i64) {
        self.current = self.current.min(owd_nanos);
        let last = *self.last_slot_at.get_or_insert(now);
        if now.saturating_duration_since(last) >= BASE_SLOT_LEN {
            self.slot_idx = (self.slot_idx + 1) % BASE_SLOTS;
            self.slots[self.slot_idx] = self.current;
            self.current = i64::MAX;
            self.history_min = self.slots.iter().copied().min().unwrap_or(i64::MAX);
            self.last_slot_at = Some(now);
        }
        let base = self.current.min(self.history_min);
        let q = owd_nanos.saturating_sub(base);
        self.queue_delay = Duration::from_nanos(u64::try_from(q).unwrap_or(0));
    }

    /// Forgets the base delay: the next sample is the new base (queue delay 0).
    pub(crate) fn reset(&mut self) {
        self.slots = [i64::MAX; BASE_SLOTS];
        self.current = i64::MAX;
        self.history_min = i64::MAX;
        self.queue_delay = Duration::ZERO;
    }

    /// Queue delay of the newest acknowledged packet.
    pub(crate) fn queue_delay(&self) -> Duration {
        self.queue_delay
    }
}

/// Lag-1 autocorrelation of `hist` (oldest first), times `fraction_avg`, in [0, 1].
pub(crate) fn trend(hist: &[f64], fraction_avg: f64) -> f64 {
    let n = hist.len();
    if n == 0 {
        return 0.0;
    }
    let mean = hist.iter().sum::<f64>() / n as f64;
    let a0: f64 = hist.iter().map(|h| (h - mean) * (h - mean)).sum();
    let a1: f64 = hist.windows(2).map(|w| (w[1] - mean) * (w[0] - mean)).sum();
    if a0 > 0.0 {
        (a1 / a0 * fraction_avg).clamp(0.0, 1.0)
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queue_delay_is_the_excess_over_the_smallest_delay_seen() {
        let mut e = OwdEstimator::default();
        let t = Instant::from_millis(1000);
        e.on_sample(t, 30_000_000);
        assert_eq!(e.queue_delay(), Duration::ZERO);
        e.on_sample(t + Duration::from_millis(20), 45_000_000);
        assert_eq!(e.queue_delay(), Duration::from_millis(15));
        e.reset();
        e.on_sample(t + Duration::from_millis(40), 45_000_000);
        assert_eq!(e.queue_delay(), Duration::ZERO);
    }

    #[test]
    fn the_base_delay_outlives_its_slot() {
        let mut e = OwdEstimator::default();
        let t = Instant::from_millis(1000);
        e.on_sample(t, 30_000_000);
        for k in 1..=30u64 {
            e.on_sample(t + Duration::from_secs(k), 40_000_000);
        }
        assert_eq!(e.queue_delay(), Duration::from_millis(10));
    }

    #[test]
    fn a_steadily_rising_delay_has_a_high_trend_and_noise_a_low_one() {
        let rising: Vec<f64> = (0..20).map(|i| f64::from(i) / 20.0).collect();
        assert!(trend(&rising, 1.0) > 0.8);
        let noise: Vec<f64> = (0..20).map(|i| f64::from(i % 2)).collect();
        assert_eq!(trend(&noise, 1.0), 0.0);
    }
}
