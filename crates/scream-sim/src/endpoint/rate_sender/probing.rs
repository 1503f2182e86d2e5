//! The sender's side of GCC's bandwidth probing: the cluster being sent (its packets
//! paced at the probe rate, media when there is some, padding otherwise) and the media
//! rate of the last moments, which tells the controller whether the sender is
//! application-limited.

use std::collections::VecDeque;

use scream::{Bitrate, Duration, Instant};
use scream_traffic::rate_control::gcc::ProbeCluster;

/// Window of the media sending rate (libwebrtc's ALR detector judges the pacer's
/// budget over a few hundred milliseconds; 500 ms is the controller's own rate window).
pub(crate) const SENDING_WINDOW: Duration = Duration::from_millis(500);

/// A cluster in progress and what of it has left.
#[derive(Debug, Clone, Copy)]
struct Active {
    cluster: ProbeCluster,
    packets: u32,
    bytes: u64,
}

/// Probing state of one rate-based sender.
#[derive(Debug, Default)]
pub(crate) struct Probing {
    active: Option<Active>,
    /// Media packets sent within the last [`SENDING_WINDOW`]: (when, bytes).
    media: VecDeque<(Instant, u32)>,
    media_bytes: u64,
}

impl Probing {
    /// Starts `cluster` (a cluster still in progress gives way to the newer one).
    pub(crate) fn start(&mut self, cluster: ProbeCluster) {
        self.active = Some(Active {
            cluster,
            packets: 0,
            bytes: 0,
        });
    }

    /// The cluster in progress: its tag and pacing rate.
    pub(crate) fn active(&self) -> Option<(u32, Bitrate)> {
        self.active.map(|a| (a.cluster.id, a.cluster.rate))
    }

    /// A packet of `bytes` left; `media` unless it was padding.
    pub(crate) fn on_sent(&mut self, now: Instant, bytes: u32, media: bool) {
        if media {
            self.media.push_back((now, bytes));
            self.media_bytes += u64::from(bytes);
        }
        if let Some(a) = &mut self.active {
            a.packets += 1;
            a.bytes += u64::from(bytes);
            if a.packets >= a.cluster.min_packets && a.bytes >= a.cluster.min_bytes {
                self.active = None;
            }
        }
    }

    /// The media rate over the last [`SENDING_WINDOW`] (`None` before one has passed
    /// since the flow `started`).
    pub(crate) fn sending_rate(&mut self, now: Instant, started: Instant) -> Option<Bitrate> {
        while let Some(&(t, b)) = self.media.front() {
            if now.saturating_duration_since(t) <= SENDING_WINDOW {
                break;
            }
            self.media.pop_front();
            self.media_bytes -= u64::from(b);
        }
        (now.saturating_duration_since(started) >= SENDING_WINDOW)
            .then(|| Bitrate::from_bytes_per(self.media_bytes, SENDING_WINDOW))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cluster_ends_once_both_its_packet_and_byte_minimums_are_sent() {
        let mut p = Probing::default();
        p.start(ProbeCluster {
            id: 4,
            rate: Bitrate::from_mbps(6.0),
            min_packets: 5,
            min_bytes: 8000,
        });
        let t = Instant::from_millis(10);
        // Five packets of 1000 bytes meet the packet count but not the bytes.
        for _ in 0..5 {
            assert_eq!(p.active().map(|a| a.0), Some(4));
            p.on_sent(t, 1000, false);
        }
        for _ in 0..3 {
            assert!(p.active().is_some());
            p.on_sent(t, 1000, true);
        }
        assert_eq!(p.active(), None);
    }

    #[test]
    fn the_sending_rate_counts_media_only_over_the_last_half_second() {
        let mut p = Probing::default();
        let start = Instant::from_millis(1000);
        // 1000 bytes of media every 10 ms (800 kbit/s) and as much padding.
        for ms in 0..1000u64 {
            if ms % 10 == 0 {
                let t = start + Duration::from_millis(ms);
                p.on_sent(t, 1000, true);
                p.on_sent(t, 1000, false);
            }
        }
        let early = start + Duration::from_millis(400);
        assert_eq!(p.sending_rate(early, start), None, "less than a window yet");
        let r = p
            .sending_rate(start + Duration::from_millis(999), start)
            .unwrap();
        assert!((r.kbps() - 800.0).abs() < 20.0, "{r:?}");
        // Silence: the rate falls to zero once the window has passed.
        let later = start + Duration::from_millis(2000);
        assert_eq!(p.sending_rate(later, start), Some(Bitrate::ZERO));
    }
}
