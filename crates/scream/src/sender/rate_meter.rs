//! Byte rate over a short sliding interval, kept in fixed time buckets (no allocation).

use crate::time::{Duration, Instant};
use crate::units::Bitrate;

/// Number of buckets; the interval is `BUCKETS * bucket`.
const BUCKETS: usize = 10;
/// Bucket length: 10 buckets of 20 ms make the 200 ms measuring interval.
const BUCKET: Duration = Duration::from_millis(20);

/// Sliding-window byte counter.
#[derive(Debug, Clone, Default)]
pub(crate) struct RateMeter {
    bytes: [u64; BUCKETS],
    /// Index of the bucket `current_start` belongs to, counted from the epoch.
    current: u64,
    started: bool,
}

impl RateMeter {
    fn bucket_of(t: Instant) -> u64 {
        t.as_nanos() / BUCKET.as_nanos() as u64
    }

    /// Moves the window so that it ends at `now`, zeroing buckets that fell out.
    pub(crate) fn advance(&mut self, now: Instant) {
        let b = Self::bucket_of(now);
        if !self.started {
            self.started = true;
            self.current = b;
            return;
        }
        if b <= self.current {
            return;
        }
        let steps = (b - self.current).min(BUCKETS as u64);
        for i in 1..=steps {
            let idx = ((self.current + i) % BUCKETS as u64) as usize;
            self.bytes[idx] = 0;
        }
        self.current = b;
    }

    /// Counts `bytes` at `now`.
    pub(crate) fn add(&mut self, now: Instant, bytes: u64) {
        self.advance(now);
        let idx = (self.current % BUCKETS as u64) as usize;
        self.bytes[idx] += bytes;
    }

    /// Rate over the full interval ending at the last advance.
    pub(crate) fn rate(&self) -> Bitrate {
        let total: u64 = self.bytes.iter().sum();
        Bitrate::from_bytes_per(total, BUCKET * BUCKETS as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steady_input_gives_its_rate_and_old_input_ages_out() {
        let mut m = RateMeter::default();
        // 1250 bytes every 1 ms = 10 Mbit/s.
        for ms in 0..1000 {
            m.add(Instant::from_millis(ms), 1250);
        }
        let r = m.rate().mbps();
        assert!((r - 10.0).abs() < 0.6, "{r}");
        m.advance(Instant::from_millis(2000));
        assert_eq!(m.rate(), Bitrate::ZERO);
    }
}
