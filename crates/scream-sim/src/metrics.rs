//! Per-flow measurements: counters, the periodic [`Sample`] rows and the statistics of
//! the summary.

use crate::packet::Packet;
use crate::summary::Distribution;
use scream::{Duration, Ecn, Instant};

/// One row of timeseries.csv: one flow at one sampling instant. Rates are averages over
/// the sampling period that ends at `t_s`.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// Time, s.
    pub t_s: f64,
    /// Flow index.
    pub flow: usize,
    /// Target bitrate of the encoder, Mbit/s.
    pub target_mbps: f64,
    /// Rate released by the sender in the period, Mbit/s.
    pub tx_mbps: f64,
    /// Rate acknowledged in the period, Mbit/s.
    pub acked_mbps: f64,
    /// Reference window, bytes.
    pub ref_window_bytes: f64,
    /// Bytes in flight.
    pub bytes_in_flight: f64,
    /// Smoothed RTT, ms.
    pub srtt_ms: f64,
    /// The sender's queue-delay estimate, ms.
    pub est_queue_delay_ms: f64,
    /// Largest queueing delay of this flow's packets that left their last queue in
    /// the period, ms (0 if none).
    pub sojourn_ms: f64,
    /// RTP queue delay, ms.
    pub rtp_queue_delay_ms: f64,
    /// Mean size of the frames produced in the period, bytes (0 if none).
    pub frame_size_bytes: f64,
    /// CE-marked packets received so far.
    pub ce_count: u64,
    /// Packets dropped or lost so far.
    pub loss_count: u64,
    /// Capacity of the flow's first link at `t_s`, Mbit/s.
    pub capacity_mbps: f64,
}

/// The CSV header, in column order.
pub const SAMPLE_COLUMNS: [&str; 15] = [
    "t_s",
    "flow",
    "target_mbps",
    "tx_mbps",
    "acked_mbps",
    "ref_window_bytes",
    "bytes_in_flight",
    "srtt_ms",
    "est_queue_delay_ms",
    "sojourn_ms",
    "rtp_queue_delay_ms",
    "frame_size_bytes",
    "ce_count",
    "loss_count",
    "capacity_mbps",
];

/// What the simulator measured for one flow.
#[derive(Debug, Clone, Default)]
pub struct FlowMetrics {
    /// Packets released by the sender.
    pub packets_sent: u64,
    /// Packets dropped by queues.
    pub packets_dropped: u64,
    /// Packets lost on links.
    pub packets_lost: u64,
    /// Packets received.
    pub packets_received: u64,
    /// Packets received with CE.
    pub packets_ce: u64,
    /// Bytes that left the flow's last link's serializer.
    pub delivered_bytes: u64,
    /// The same, within the report window.
    pub window_delivered_bytes: u64,
    /// Queueing delay of every packet that left its last queue, ns.
    pub queue_delays_ns: Vec<u64>,
    /// The same, within the report window.
    pub window_queue_delays_ns: Vec<u64>,
    /// Frame delays, ns.
    pub frame_delays_ns: Vec<u64>,
    period_tx_bytes: u64,
    period_rx_bytes: u64,
    period_max_queue_delay: Duration,
    period_frame_bytes: u64,
    period_frames: u64,
}

impl FlowMetrics {
    /// The sender released `pkt`.
    pub fn on_sent(&mut self, pkt: &Packet) {
        self.packets_sent += 1;
        self.period_tx_bytes += u64::from(pkt.size_bytes);
    }

    /// The source produced a frame of `bytes`.
    pub fn on_frame(&mut self, bytes: u32) {
        self.period_frame_bytes += u64::from(bytes);
        self.period_frames += 1;
    }

    /// `pkt` left the last queue of its path at `now`.
    pub fn on_queue_exit(&mut self, pkt: &Packet, in_window: bool) {
        let d = pkt.queue_delay;
        let ns = u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
        self.queue_delays_ns.push(ns);
        if in_window {
            self.window_queue_delays_ns.push(ns);
        }
        self.period_max_queue_delay = self.period_max_queue_delay.max(d);
    }

    /// `pkt` left the last serializer of its path.
    pub fn on_delivered_by_path(&mut self, pkt: &Packet, in_window: bool) {
        self.delivered_bytes += u64::from(pkt.size_bytes);
        if in_window {
            self.window_delivered_bytes += u64::from(pkt.size_bytes);
        }
    }

    /// `pkt` reached the receiver at `now`.
    pub fn on_received(&mut self, now: Instant, pkt: &Packet) {
        self.packets_received += 1;
        self.period_rx_bytes += u64::from(pkt.size_bytes);
        if pkt.ecn == Ecn::Ce {
            self.packets_ce += 1;
        }
        if pkt.marker {
            let d = now - pkt.frame_enqueued_at;
            self.frame_delays_ns
                .push(u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
        }
    }

    /// Drops plus losses.
    pub fn loss_count(&self) -> u64 {
        self.packets_dropped + self.packets_lost
    }

    /// Ends a sampling period: returns (tx bytes, rx bytes, max queue delay, mean frame
    /// size) of the period and starts the next one.
    pub fn take_period(&mut self) -> (u64, u64, Duration, f64) {
        let frame = if self.period_frames > 0 {
            self.period_frame_bytes as f64 / self.period_frames as f64
        } else {
            0.0
        };
        let out = (
            self.period_tx_bytes,
            self.period_rx_bytes,
            self.period_max_queue_delay,
            frame,
        );
        self.period_tx_bytes = 0;
        self.period_rx_bytes = 0;
        self.period_max_queue_delay = Duration::ZERO;
        self.period_frame_bytes = 0;
        self.period_frames = 0;
        out
    }
}

/// Nearest-rank percentile of sorted values (`p` in percent).
fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (p / 100.0 * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// The distribution of `values` (sorted in place).
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
    }
}

/// The distribution of nanosecond values, in ms.
pub fn distribution_ns_as_ms(values: &[u64]) -> Distribution {
    let mut ms: Vec<f64> = values.iter().map(|v| *v as f64 * 1e-6).collect();
    distribution(&mut ms)
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
