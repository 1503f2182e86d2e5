//! The receive rate over a sliding window of arrival times (GCC's R_hat, NADA's r_recv).

use std::collections::VecDeque;

use scream::{Bitrate, Duration, RemoteInstant};

/// Most arrivals the window keeps: at 1 Gbit/s of 1 kB packets a 1 s window holds about
/// 125 000; beyond this the oldest go first, so hostile feedback cannot grow it.
const MAX_ENTRIES: usize = 1 << 18;

/// Received bytes by arrival time on the receiver's clock.
#[derive(Debug, Clone)]
pub(crate) struct ArrivalRate {
    window: Duration,
    entries: VecDeque<(RemoteInstant, u32)>,
    bytes: u64,
    first: Option<RemoteInstant>,
    latest: Option<RemoteInstant>,
}

impl ArrivalRate {
    pub(crate) fn new(window: Duration) -> Self {
        Self {
            window,
            entries: VecDeque::new(),
            bytes: 0,
            first: None,
            latest: None,
        }
    }

    /// A packet of `bytes` arrived at `at`. Arrivals out of order count at the newest
    /// time seen, so the window only moves forward.
    pub(crate) fn add(&mut self, at: RemoteInstant, bytes: u32) {
        let at = self.latest.map_or(at, |l| l.max(at));
        self.latest = Some(at);
        self.first.get_or_insert(at);
        if self.entries.len() >= MAX_ENTRIES {
            self.pop_front();
        }
        self.entries.push_back((at, bytes));
        self.bytes += u64::from(bytes);
        while self
            .entries
            .front()
            .is_some_and(|(t, _)| at.saturating_duration_since(*t) > self.window)
        {
            self.pop_front();
        }
    }

    fn pop_front(&mut self) {
        if let Some((_, b)) = self.entries.pop_front() {
            self.bytes -= u64::from(b);
        }
    }

    /// Bytes over the window, once arrivals have spanned at least a fifth of it
    /// (before, the rate of the first packets says little).
    pub(crate) fn rate(&self) -> Option<Bitrate> {
        let (first, latest) = (self.first?, self.latest?);
        let span = latest.saturating_duration_since(first).min(self.window);
        if span < self.window / 5 {
            return None;
        }
        Some(Bitrate::from_bps(
            self.bytes as f64 * 8.0 / span.as_secs_f64(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_is_bytes_over_the_window_once_it_has_filled() {
        let mut w = ArrivalRate::new(Duration::from_millis(500));
        // 1000 bytes every 10 ms = 800 kbit/s.
        for i in 0..100u64 {
            w.add(RemoteInstant::from_millis(i * 10), 1000);
            if i == 5 {
                assert_eq!(w.rate(), None, "50 ms of arrivals is too little");
            }
        }
        let r = w.rate().unwrap().kbps();
        assert!((r - 816.0).abs() < 20.0, "{r}");
    }
}
