//! The recent peak delivery rate, for the `l4s-pacing` improvement.
//!
//! Packets that leave faster than the bottleneck forwards them queue there and reach
//! the receiver at the bottleneck's rate; the receiver's feedback, sent every few
//! packets, then reaches us at that rate too. The acknowledged bytes of one feedback
//! over the time since the previous one thus measure how fast the path delivered a
//! burst. Their peak over the last half second approaches the bottleneck's capacity
//! when bursts exceed it, and the pacing rate when they do not. Feedback that arrives
//! bunched (reverse-path jitter) overestimates it, which only makes the pacing cap
//! looser; an idle gap between frames underestimates one sample, which the peak
//! ignores.

use crate::time::{Duration, Instant};
use crate::units::Bitrate;

/// The peak is the larger of the current and the previous bucket of this length.
const BUCKET: Duration = Duration::from_millis(250);
/// A feedback acknowledging fewer packets says little about a rate.
const MIN_PACKETS: u64 = 4;

/// The recent peak delivery rate, bits per second.
#[derive(Debug, Clone, Default)]
pub(crate) struct DeliveryPeak {
    last_feedback: Option<Instant>,
    bucket_start: Option<Instant>,
    current: f64,
    previous: f64,
}

impl DeliveryPeak {
    /// A feedback at `now` newly acknowledged `packets` packets of `bytes` bytes.
    pub(crate) fn on_feedback(&mut self, now: Instant, bytes: u64, packets: u64) {
        let start = *self.bucket_start.get_or_insert(now);
        if now.saturating_duration_since(start) >= BUCKET {
            self.previous = self.current;
            self.current = 0.0;
            self.bucket_start = Some(now);
        }
        if packets == 0 {
            return;
        }
        if let Some(last) = self.last_feedback {
            let dt = now.saturating_duration_since(last).as_secs_f64();
            if packets >= MIN_PACKETS && dt > 0.0 {
                self.current = self.current.max(8.0 * bytes as f64 / dt);
            }
        }
        self.last_feedback = Some(now);
    }

    /// The peak of the last 250 to 500 ms, if any was measured.
    pub(crate) fn peak(&self) -> Option<Bitrate> {
        let peak = self.current.max(self.previous);
        (peak > 0.0).then(|| Bitrate::from_bps(peak))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_peak_is_the_fastest_recent_feedback_and_ages_out() {
        let mut d = DeliveryPeak::default();
        let t = Instant::from_millis;
        d.on_feedback(t(1000), 16_000, 16);
        assert_eq!(d.peak(), None, "one feedback has no interval");
        // 16 kB in 2 ms: 64 Mbit/s; then 16 kB in 20 ms: 6.4 Mbit/s.
        d.on_feedback(t(1002), 16_000, 16);
        d.on_feedback(t(1022), 16_000, 16);
        assert!((d.peak().unwrap().mbps() - 64.0).abs() < 1e-9);
        // Two packets say nothing.
        d.on_feedback(t(1023), 2_000, 2);
        assert!((d.peak().unwrap().mbps() - 64.0).abs() < 1e-9);
        // Half a second on, the old peak is gone.
        d.on_feedback(t(1300), 16_000, 16);
        d.on_feedback(t(1560), 16_000, 16);
        d.on_feedback(t(1580), 16_000, 16);
        assert!((d.peak().unwrap().mbps() - 6.4).abs() < 1e-9);
    }
}
