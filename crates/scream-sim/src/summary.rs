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

/// Summary of one direction of one link.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LinkSummary {
    /// Link name.
    pub name: String,
    /// `forward` or `reverse`.
    pub direction: &'static str,
    /// Mean capacity over the run, Mbit/s (`null`: unlimited).
    pub capacity_mean_mbps: f64,
    /// Bytes serialised / bytes the capacity allowed (0 when it allowed none or is
    /// unlimited).
    pub utilization: f64,
    /// Packets that left the serializer.
    pub packets_out: u64,
    /// Packets the queue dropped (full or AQM).
    pub packets_dropped: u64,
    /// Packets lost on the path.
    pub packets_lost: u64,
    /// Packets the AQM marked CE.
    pub packets_ce_marked: u64,
}

/// A mean.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Mean {
    /// Arithmetic mean.
    pub mean: f64,
}

/// What the values of a [`Distribution`] are, written beside `count` so that a reader
/// of summary.json cannot mistake a per-sample figure for a per-packet one: the mean of
/// 20 ms samples weights every period alike, the mean over packets weights busy
/// periods more.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CountOf {
    /// One value per sampling instant (every `sample_interval_ms`) of the active period.
    #[default]
    Samples,
    /// One value per delivered packet.
    Packets,
    /// One value per frame delivered whole.
    Frames,
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
    /// What one value is.
    pub count_of: CountOf,
}

/// What became of a stream's (or a flow's) frames. Every frame is counted once, when
/// its fate is known; a frame the sender never sent at all counts as discarded once a
/// later frame of its stream leaves.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct FrameCounts {
    /// Frames whose every packet reached the receiver; only these have a frame delay.
    pub delivered: u64,
    /// Frames with a packet dropped or lost in the network.
    pub lost: u64,
    /// Frames the sender discarded before sending them whole (RTP-queue discard, or
    /// skipped before they were queued: `scream-draft00` frame skipping).
    pub discarded: u64,
    /// Frames still on their way when the run ended.
    pub unfinished: u64,
    /// (lost + discarded) / (delivered + lost + discarded); 0 when there is none.
    pub loss_ratio: f64,
}

/// What became of a flow's feedback packets.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct FeedbackSummary {
    /// Feedback packets the receiver sent.
    pub sent: u64,
    /// Feedback packets that reached the sender.
    pub delivered: u64,
    /// Feedback packets dropped or lost on the way back.
    pub lost: u64,
}

/// Summary of one flow (all its streams together).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FlowSummary {
    /// Flow name.
    pub name: String,
    /// Controller name (`scream-v2`, `scream-v1`, `cbr`).
    pub algorithm: String,
    /// Bytes of this flow that left the last link of its route, per active second,
    /// Mbit/s.
    pub throughput_mbps: f64,
    /// Sum of its streams' targets over the samples of the active period, Mbit/s.
    pub target_bitrate_mbps: Mean,
    /// True path queueing delay of its packets (sum of their times at each link), ms.
    pub queue_delay_ms: Distribution,
    /// The sender's queue-delay estimate over samples, ms.
    pub estimated_queue_delay_ms: Distribution,
    /// Smoothed RTT over samples, ms.
    pub srtt_ms: Distribution,
    /// RTP queue delay of its streams over samples, ms.
    pub rtp_queue_delay_ms: Distribution,
    /// Frame enqueued at the sender -> its last packet received, ms, over the frames
    /// delivered whole (`frames` counts the others).
    pub frame_delay_ms: Distribution,
    /// What became of its frames.
    pub frames: FrameCounts,
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
    /// Packets lost on links after the serializer.
    pub packets_lost: u64,
    /// Packets received CE-marked.
    pub packets_ce: u64,
    /// Its feedback.
    pub feedback: FeedbackSummary,
    /// The report window, when the scenario sets `report_window_s`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window: Option<WindowSummary>,
    /// Per stream, in the flow's order (one entry for a single-stream flow).
    pub streams: Vec<StreamSummary>,
}

/// Summary of one stream of a flow.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StreamSummary {
    /// Stream name.
    pub name: String,
    /// Its bytes that left the last link of the route, per active second, Mbit/s.
    pub throughput_mbps: f64,
    /// Its target over the samples of the active period, Mbit/s.
    pub target_bitrate_mbps: Mean,
    /// True path queueing delay of its packets, ms.
    pub queue_delay_ms: Distribution,
    /// Its RTP queue delay over samples, ms.
    pub rtp_queue_delay_ms: Distribution,
    /// Frame delay of its frames delivered whole, ms.
    pub frame_delay_ms: Distribution,
    /// What became of its frames.
    pub frames: FrameCounts,
    /// Packets dropped or lost / packets sent.
    pub loss_ratio: f64,
    /// CE-marked packets received / packets received.
    pub ce_ratio: f64,
    /// Packets the sender released.
    pub packets_sent: u64,
    /// Packets the receiver got.
    pub packets_received: u64,
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
