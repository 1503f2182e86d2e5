//! The per-flow sample row of the simulator's metrics, as the shared contract defines it.

/// One flow's state at one sample instant.
#[derive(Debug, Clone, Default, PartialEq)]
#[expect(
    missing_docs,
    reason = "field meanings are given in the simulator contract"
)]
pub struct Sample {
    pub t_s: f64,
    pub flow: usize,
    pub target_mbps: f64,
    pub tx_mbps: f64,
    pub acked_mbps: f64,
    pub ref_window_bytes: f64,
    pub bytes_in_flight: f64,
    pub srtt_ms: f64,
    pub est_queue_delay_ms: f64,
    pub sojourn_ms: f64,
    pub rtp_queue_delay_ms: f64,
    pub frame_size_bytes: f64,
    pub ce_count: u64,
    pub loss_count: u64,
    pub capacity_mbps: f64,
}
