//! The types of summary.json. Fields may be added; existing names never change.

use serde::Serialize;

/// Summary of one run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// Scenario name.
    pub scenario: String,
    /// Master seed of the run.
    pub seed: u64,
    /// Simulated time, s.
    pub duration_s: f64,
    /// Wall-clock time of the run, s. The simulator never reads a clock: it writes 0
    /// and the caller that measured the run fills it in.
    pub wall_time_s: f64,
    /// Per link.
    pub links: Vec<LinkSummary>,
    /// Per flow.
    pub flows: Vec<FlowSummary>,
}

/// Summary of one link.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LinkSummary {
    /// Link name.
    pub name: String,
    /// Mean forward capacity over the run, Mbit/s.
    pub capacity_mean_mbps: f64,
    /// Bytes serialised / bytes the capacity allowed (0 when it allowed none).
    pub utilization: f64,
}

/// A mean.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Mean {
    /// Arithmetic mean.
    pub mean: f64,
}

/// Mean and nearest-rank percentiles of a distribution (all 0 when empty).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Distribution {
    /// Arithmetic mean.
    pub mean: f64,
    /// Median.
    pub p50: f64,
    /// 95th percentile.
    pub p95: f64,
    /// 98th percentile.
    pub p98: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Maximum.
    pub max: f64,
    /// Number of values.
    pub count: u64,
}

/// Summary of one flow.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FlowSummary {
    /// Flow name.
    pub name: String,
    /// Controller name (`scream-v2`, `fixed-rate`).
    pub algorithm: String,
    /// Bytes of this flow that left its last link's serializer, per active second, Mbit/s.
    pub throughput_mbps: f64,
    /// Target bitrate over the samples of the active period, Mbit/s.
    pub target_bitrate_mbps: Mean,
    /// True queueing delay of its packets (sum of sojourns on its path), ms.
    pub queue_delay_ms: Distribution,
    /// The sender's queue-delay estimate over samples, ms.
    pub estimated_queue_delay_ms: Distribution,
    /// Smoothed RTT over samples, ms.
    pub srtt_ms: Distribution,
    /// RTP queue delay over samples, ms.
    pub rtp_queue_delay_ms: Distribution,
    /// Frame enqueued at the sender -> its last (marker) packet received, ms.
    pub frame_delay_ms: Distribution,
    /// Packets dropped by queues or lost on links / packets sent.
    pub loss_ratio: f64,
    /// CE-marked packets received / packets received.
    pub ce_ratio: f64,
    /// Reference window over samples, bytes.
    pub ref_window_bytes: Mean,
    /// Bytes in flight over samples.
    pub bytes_in_flight: Mean,
    /// Packets the sender released.
    pub packets_sent: u64,
    /// Packets the receiver got.
    pub packets_received: u64,
    /// Packets dropped by queues (tail drop and AQM).
    pub packets_dropped: u64,
    /// Packets lost to random loss.
    pub packets_lost: u64,
    /// Packets received CE-marked.
    pub packets_ce: u64,
    /// The report window, when the scenario sets `report_window_s`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window: Option<WindowSummary>,
}

/// Summary of a flow over the report window.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WindowSummary {
    /// Window start, s.
    pub from_s: f64,
    /// Window end, s.
    pub to_s: f64,
    /// Throughput in the window, Mbit/s.
    pub throughput_mbps: f64,
    /// Queueing delay of packets leaving the queue in the window, ms.
    pub queue_delay_ms: Distribution,
}
