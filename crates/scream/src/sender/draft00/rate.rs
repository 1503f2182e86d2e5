//! draft-00 media rate control: each stream's target is its share of the window's rate
//! `8 · cwnd / sRTT`, times a scale factor that falls as the stream's RTP queue ages.
//!
//! The age is the largest one seen over the last [`AGE_HISTORY_RTTS`] smoothed RTTs
//! (draft-00: the RTP-queue delay history of the last few RTTs), sampled when a frame
//! arrives. A single old queue thus keeps the rate down for a few RTTs while it drains,
//! instead of letting it back up at the next frame.

use crate::time::{Duration, Instant};

/// Smoothed RTTs the RTP-queue age history spans (draft-00: the last ~5 RTTs).
pub(crate) const AGE_HISTORY_RTTS: usize = 5;
/// Shortest span of one history slot, so that a tiny sRTT (a few ms on a LAN) does not
/// shrink the history to less than the time between two frames of a 50 fps stream.
const MIN_SLOT: Duration = Duration::from_millis(20);

/// The RTP-queue age history of one stream: the largest age seen in each of the last
/// [`AGE_HISTORY_RTTS`] slots of one sRTT each.
#[derive(Debug, Clone, Default)]
pub(crate) struct AgeHistory {
    slots: [Duration; AGE_HISTORY_RTTS],
    current: usize,
    slot_start: Option<Instant>,
}

impl AgeHistory {
    /// The stream's RTP queue was `age` old at `now`.
    pub(crate) fn record(&mut self, now: Instant, age: Duration, srtt: Duration) {
        let span = srtt.max(MIN_SLOT);
        let start = *self.slot_start.get_or_insert(now);
        let elapsed = now.saturating_duration_since(start);
        if elapsed >= span {
            // Slots that passed without a sample held nothing; more than the whole
            // history clears it all.
            let passed = (elapsed.as_nanos() / span.as_nanos().max(1)) as usize;
            for _ in 0..passed.min(AGE_HISTORY_RTTS) {
                self.current = (self.current + 1) % AGE_HISTORY_RTTS;
                self.slots[self.current] = Duration::ZERO;
            }
            self.slot_start = Some(now);
        }
        let slot = &mut self.slots[self.current];
        *slot = (*slot).max(age);
    }

    /// The largest age of the history.
    pub(crate) fn max(&self) -> Duration {
        self.slots.iter().copied().max().unwrap_or(Duration::ZERO)
    }

    /// The queue was discarded: the ages it reached no longer describe it.
    pub(crate) fn clear(&mut self) {
        self.slots = [Duration::ZERO; AGE_HISTORY_RTTS];
    }
}

/// The scale factor for an RTP-queue age: 1 at an empty queue, falling linearly to
/// `min` at `skip_age` (where frames start to be skipped) and staying there beyond.
pub(crate) fn scale_factor(age: Duration, skip_age: Duration, min: f64) -> f64 {
    let x = (age.as_secs_f64() / skip_age.as_secs_f64().max(1e-9)).clamp(0.0, 1.0);
    1.0 - (1.0 - min) * x
}

/// The window's rate, bit/s: a window of `cwnd_bytes` per `srtt` (at least 1 ms).
pub(crate) fn window_rate_bps(cwnd_bytes: u64, srtt: Duration) -> f64 {
    let rtt = srtt.max(Duration::from_millis(1)).as_secs_f64();
    8.0 * cwnd_bytes as f64 / rtt
}

#[cfg(test)]
mod tests {
    use super::*;

    const fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    fn at(v: u64) -> Instant {
        Instant::from_millis(v)
    }

    #[test]
    fn the_scale_factor_falls_linearly_to_its_floor_at_the_skip_age() {
        assert_eq!(scale_factor(ms(0), ms(100), 0.5), 1.0);
        assert!((scale_factor(ms(50), ms(100), 0.5) - 0.75).abs() < 1e-12);
        assert_eq!(scale_factor(ms(100), ms(100), 0.5), 0.5);
        assert_eq!(scale_factor(ms(900), ms(100), 0.5), 0.5);
        assert_eq!(scale_factor(ms(900), ms(100), 0.0), 0.0);
    }

    #[test]
    fn an_old_queue_is_remembered_for_five_rtts() {
        let mut h = AgeHistory::default();
        let srtt = ms(40);
        h.record(at(0), ms(70), srtt);
        for t in (20..200).step_by(20) {
            h.record(at(t), ms(0), srtt);
            assert_eq!(h.max(), ms(70), "at {t} ms");
        }
        h.record(at(200), ms(0), srtt);
        assert_eq!(h.max(), ms(0));
    }

    #[test]
    fn a_long_silence_clears_the_history_and_a_discard_too() {
        let mut h = AgeHistory::default();
        h.record(at(0), ms(70), ms(40));
        h.record(at(10_000), ms(5), ms(40));
        assert_eq!(h.max(), ms(5));
        h.clear();
        assert_eq!(h.max(), ms(0));
    }

    #[test]
    fn the_window_rate_is_the_window_per_srtt() {
        assert_eq!(window_rate_bps(10_000, ms(50)), 1.6e6);
        assert_eq!(window_rate_bps(1000, Duration::ZERO), 8e6);
    }
}
