//! What the simulator measures, where it is true: packets and frames per stream, feedback
//! per flow, the periodic [`Sample`] rows and the distributions of the summary.

mod frames;
mod histogram;
mod sample;

pub use frames::FrameTracker;
pub use histogram::DelayHistogram;
pub use sample::rows_by_flow;
pub use sample::{LinkSample, Sample};

use crate::packet::Packet;
use crate::summary::{CountOf, Distribution};
use scream::{Duration, Ecn, Instant};

/// Totals of one sampling period of a stream.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Period {
    /// Bytes the sender released.
    pub tx_bytes: u64,
    /// Bytes the receiver got.
    pub rx_bytes: u64,
    /// Packets the receiver got.
    pub rx_packets: u64,
    /// Largest path queueing delay of a packet that left its last link.
    pub max_queue_delay: Option<Duration>,
    /// Bytes of the frames the source produced.
    pub frame_bytes: u64,
    /// Frames the source produced.
    pub frames: u64,
    /// Packets received CE-marked.
    pub ce: u64,
    /// Packets dropped or lost in the network.
    pub lost: u64,
}

/// What happened to one stream's packets and frames.
#[derive(Debug, Clone, Default)]
pub struct StreamMetrics {
    /// Packets released by the sender.
    pub packets_sent: u64,
    /// Packets received.
    pub packets_received: u64,
    /// Packets received with CE.
    pub packets_ce: u64,
    /// Packets dropped by queues (tail drop or AQM).
    pub packets_dropped: u64,
    /// Packets lost on a path after a serializer.
    pub packets_lost: u64,
    /// Bytes that left the last link of the route and reached its far end.
    pub delivered_bytes: u64,
    /// The same, within the report window.
    pub window_delivered_bytes: u64,
    /// Path queueing delay (sum of the times at each link) of every delivered packet.
    pub queue_delay: DelayHistogram,
    /// The same, within the report window.
    pub window_queue_delay: DelayHistogram,
    /// Frame fates and delays.
    pub frames: FrameTracker,
    period: Period,
}

impl StreamMetrics {
    /// The sender released `pkt` (media or TCP data; only media has frames).
    pub fn on_sent(&mut self, pkt: &Packet) {
        self.packets_sent += 1;
        self.period.tx_bytes += u64::from(pkt.size_bytes);
        if let Some(media) = pkt.media()
            && let Some(frame) = media.frame
        {
            self.frames
                .on_sent(frame, media.frame_enqueued_at, media.marker);
        }
    }

    /// The sender skipped `frame` instead of queueing it.
    pub fn on_skipped(&mut self, frame: u64) {
        self.frames.on_skipped(frame);
    }

    /// The source produced a frame of `bytes`.
    pub fn on_frame(&mut self, bytes: u32) {
        self.period.frame_bytes += u64::from(bytes);
        self.period.frames += 1;
    }

    /// `pkt` left the last link of its route and will reach the receiver.
    pub fn on_path_exit(&mut self, pkt: &Packet, in_window: bool) {
        let bytes = u64::from(pkt.size_bytes);
        self.delivered_bytes += bytes;
        self.queue_delay.record(pkt.queue_delay);
        if in_window {
            self.window_delivered_bytes += bytes;
            self.window_queue_delay.record(pkt.queue_delay);
        }
        let max = self.period.max_queue_delay.get_or_insert(Duration::ZERO);
        *max = (*max).max(pkt.queue_delay);
    }

    /// `pkt` was dropped by a queue (`lost_on_path` false) or lost after a serializer.
    pub fn on_dropped(&mut self, pkt: &Packet, lost_on_path: bool) {
        if lost_on_path {
            self.packets_lost += 1;
        } else {
            self.packets_dropped += 1;
        }
        self.period.lost += 1;
        if let Some(frame) = pkt.media().and_then(|m| m.frame) {
            self.frames.on_dropped(frame);
        }
    }

    /// `pkt` reached the receiver at `now`.
    pub fn on_received(&mut self, now: Instant, pkt: &Packet) {
        self.packets_received += 1;
        self.period.rx_bytes += u64::from(pkt.size_bytes);
        self.period.rx_packets += 1;
        if pkt.ecn == Ecn::Ce {
            self.packets_ce += 1;
            self.period.ce += 1;
        }
        if let Some(frame) = pkt.media().and_then(|m| m.frame) {
            self.frames.on_received(frame, now);
        }
    }

    /// Drops plus losses.
    pub fn loss_count(&self) -> u64 {
        self.packets_dropped + self.packets_lost
    }

    /// Ends a sampling period: its totals, and a new period begins.
    pub fn take_period(&mut self) -> Period {
        core::mem::take(&mut self.period)
    }
}

/// What happened to one flow's feedback.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FeedbackMetrics {
    /// Feedback packets the receiver sent.
    pub sent: u64,
    /// Feedback packets that reached the sender.
    pub delivered: u64,
    /// Feedback packets dropped by queues or lost on the way.
    pub lost: u64,
}

/// Nearest-rank percentile of sorted values (`p` in percent).
fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (p / 100.0 * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// The exact distribution of `values` (sorted in place); for per-sample quantities,
/// whose number is bounded by the run's length (hence `count_of` is always samples).
pub fn distribution(values: &mut [f64]) -> Distribution {
    if values.is_empty() {
        return Distribution::default();
    }
    values.sort_unstable_by(f64::total_cmp);
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    Distribution {
        mean,
        p50: percentile(values, 50.0),
        p95: percentile(values, 95.0),
        p98: percentile(values, 98.0),
        p99: percentile(values, 99.0),
        max: values[values.len() - 1],
        count: values.len() as u64,
        count_of: CountOf::Samples,
    }
}

/// Mean of `values` (0 when empty).
pub fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = values.fold((0.0, 0u64), |(s, n), v| (s + v, n + 1));
    if n == 0 { 0.0 } else { sum / n as f64 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let mut v: Vec<f64> = (1..=100).rev().map(f64::from).collect();
        let d = distribution(&mut v);
        assert_eq!((d.p50, d.p95, d.p99, d.max), (50.0, 95.0, 99.0, 100.0));
        assert!((d.mean - 50.5).abs() < 1e-12);
        assert_eq!(distribution(&mut []), Distribution::default());
    }
}
