//! A flow's delay distributions as cumulative curves, as a run hands them to the plots.

/// One flow's delay distributions as cumulative curves: (delay in ms, fraction at or
/// below it), from the same per-packet and per-frame histograms as the summary.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowCdf {
    /// Flow name.
    pub flow: String,
    /// Frame delay: from entering the RTP queue to the last packet's arrival.
    pub frame_delay_ms: Vec<(f64, f64)>,
    /// Path queue delay of each media packet.
    pub queue_delay_ms: Vec<(f64, f64)>,
}
