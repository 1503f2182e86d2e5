//! The rows of the time series: one type per file, whose serde field names are the CSV
//! header, so the CSV, the plots and any other reader share one declaration.

use std::sync::Arc;

use serde::{Serialize, Serializer};

/// Decimals kept in the CSV: equal runs give equal bytes, and diffs stay readable.
const DECIMALS: f64 = 1e6;

fn round(v: f64) -> f64 {
    if !v.is_finite() {
        return v;
    }
    let r = (v * DECIMALS).round() / DECIMALS;
    // -0 and 0 must print alike.
    if r == 0.0 { 0.0 } else { r }
}

fn fixed<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(round(*v))
}

fn fixed_opt<S: Serializer>(v: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(v) => s.serialize_some(&round(*v)),
        None => s.serialize_none(),
    }
}

/// One stream of one flow at one sampling instant (a row of timeseries.csv). Rates are
/// averages and counts are totals over the sampling period that ends at `t_s`; an empty
/// cell (`None`) means "no value": the flow is not active, or nothing happened that the
/// column measures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sample {
    /// Time, s.
    #[serde(serialize_with = "fixed")]
    pub t_s: f64,
    /// Flow name.
    pub flow: Arc<str>,
    /// Stream name (the flow's name for a single-stream flow).
    pub stream: Arc<str>,
    /// Flow index, for grouping without comparing names.
    #[serde(skip)]
    pub flow_index: u32,
    /// Global stream index.
    #[serde(skip)]
    pub stream_index: u32,
    /// Target bitrate of the stream's encoder, Mbit/s.
    #[serde(serialize_with = "fixed_opt")]
    pub target_mbps: Option<f64>,
    /// Rate the sender released for this stream, Mbit/s.
    #[serde(serialize_with = "fixed")]
    pub tx_mbps: f64,
    /// Rate that reached the receiver for this stream, Mbit/s.
    #[serde(serialize_with = "fixed")]
    pub rx_mbps: f64,
    /// Rate the flow's sender saw acknowledged (all its streams), Mbit/s.
    #[serde(serialize_with = "fixed_opt")]
    pub acked_mbps: Option<f64>,
    /// The flow's reference (congestion) window, bytes.
    #[serde(serialize_with = "fixed_opt")]
    pub ref_window_bytes: Option<f64>,
    /// The flow's bytes in flight.
    #[serde(serialize_with = "fixed_opt")]
    pub bytes_in_flight: Option<f64>,
    /// The flow's smoothed RTT, ms.
    #[serde(serialize_with = "fixed_opt")]
    pub srtt_ms: Option<f64>,
    /// The flow's own estimate of the network queue delay, ms.
    #[serde(serialize_with = "fixed_opt")]
    pub est_queue_delay_ms: Option<f64>,
    /// Largest true path queueing delay of this stream's packets that left their last
    /// link in the period, ms (empty if none did).
    #[serde(serialize_with = "fixed_opt")]
    pub sojourn_ms: Option<f64>,
    /// Age of the oldest packet in the stream's RTP queue, ms.
    #[serde(serialize_with = "fixed_opt")]
    pub rtp_queue_delay_ms: Option<f64>,
    /// Mean size of the frames produced in the period, bytes (empty if none).
    #[serde(serialize_with = "fixed_opt")]
    pub frame_size_bytes: Option<f64>,
    /// Packets received in the period (the base of the CE and loss percentages).
    pub rx_packets: u64,
    /// Packets received CE-marked in the period.
    pub ce_packets: u64,
    /// Packets received CE-marked since the start.
    pub ce_packets_total: u64,
    /// Packets dropped or lost in the network in the period.
    pub lost_packets: u64,
    /// Packets dropped or lost in the network since the start.
    pub lost_packets_total: u64,
    /// Capacity of the route's bottleneck (the smallest on the way) at `t_s`, Mbit/s;
    /// `inf` when no link on the way limits it.
    #[serde(serialize_with = "fixed")]
    pub capacity_mbps: f64,
}

impl Sample {
    /// A row with nothing measured yet: every optional column empty, the rates and
    /// counts 0, the capacity unlimited. Stream `index` is both its flow and stream
    /// index (one stream per flow).
    pub fn empty(t_s: f64, flow: Arc<str>, stream: Arc<str>, index: u32) -> Self {
        Self {
            t_s,
            flow,
            stream,
            flow_index: index,
            stream_index: index,
            target_mbps: None,
            tx_mbps: 0.0,
            rx_mbps: 0.0,
            acked_mbps: None,
            ref_window_bytes: None,
            bytes_in_flight: None,
            srtt_ms: None,
            est_queue_delay_ms: None,
            sojourn_ms: None,
            rtp_queue_delay_ms: None,
            frame_size_bytes: None,
            rx_packets: 0,
            ce_packets: 0,
            ce_packets_total: 0,
            lost_packets: 0,
            lost_packets_total: 0,
            capacity_mbps: f64::INFINITY,
        }
    }
}

/// The rows of `samples` split by flow (`flows` lists, in time order), in one pass.
///
/// The rows of one sampling instant hold every flow, so a flow's rows are spread over
/// the whole series: a reader that filtered the series once per flow would cost
/// flows x rows, which for thousands of flows is minutes.
pub fn rows_by_flow(samples: &[Sample], flows: usize) -> Vec<Vec<&Sample>> {
    let mut out: Vec<Vec<&Sample>> = vec![Vec::new(); flows];
    for s in samples {
        if let Some(rows) = out.get_mut(s.flow_index as usize) {
            rows.push(s);
        }
    }
    out
}

/// One direction of one link at one sampling instant (a row of links.csv).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LinkSample {
    /// Time, s.
    #[serde(serialize_with = "fixed")]
    pub t_s: f64,
    /// Link name.
    pub link: Arc<str>,
    /// `forward` or `reverse`.
    pub direction: &'static str,
    /// Capacity at `t_s`, Mbit/s (`inf`: unlimited).
    #[serde(serialize_with = "fixed")]
    pub capacity_mbps: f64,
    /// Rate that left the serializer in the period, Mbit/s.
    #[serde(serialize_with = "fixed")]
    pub tx_mbps: f64,
    /// Bytes waiting in the queue at `t_s`.
    pub queue_bytes: u64,
    /// Packets waiting in the queue at `t_s`.
    pub queue_packets: u64,
    /// Longest time a packet spent at the link among those that left in the period,
    /// ms (empty if none left).
    #[serde(serialize_with = "fixed_opt")]
    pub sojourn_max_ms: Option<f64>,
    /// Packets dropped by the queue (full or AQM) in the period.
    pub dropped_packets: u64,
    /// Packets lost on the path in the period.
    pub lost_packets: u64,
    /// Packets the AQM marked CE in the period.
    pub ce_marked_packets: u64,
}
