//! `stats()` of the sender and the receiver as dicts. Keys carry their unit as a
//! suffix (`_ns` integer nanoseconds, `_bps` bit/s, `_bytes`), as the library's
//! `SenderStats` and `ReceiverStats` document the values.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use scream::receiver::ReceiverStats;
use scream::sender::{GenerationStats, SenderStats};
use scream::time::Duration;

/// A duration as integer nanoseconds (saturating: no duration the library keeps comes
/// near 584 years).
fn ns(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// `generation_name` is the name of the generation the sender runs.
pub(crate) fn sender<'py>(
    py: Python<'py>,
    s: &SenderStats,
    generation_name: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("window_bytes", s.window_bytes)?;
    d.set_item("bytes_in_flight", s.bytes_in_flight)?;
    d.set_item("srtt_ns", ns(s.srtt))?;
    d.set_item("queue_delay_ns", ns(s.queue_delay))?;
    d.set_item("queue_delay_avg_ns", ns(s.queue_delay_avg))?;
    d.set_item("l4s_alpha", s.l4s_alpha)?;
    d.set_item("rate_transmitted_bps", s.rate_transmitted.bps())?;
    d.set_item("rate_acked_bps", s.rate_acked.bps())?;
    d.set_item("rate_lost_bps", s.rate_lost.bps())?;
    d.set_item("rate_ce_bps", s.rate_ce.bps())?;
    d.set_item("packets_sent", s.packets_sent)?;
    d.set_item("packets_acked", s.packets_acked)?;
    d.set_item("packets_lost", s.packets_lost)?;
    d.set_item("packets_ce", s.packets_ce)?;
    d.set_item("feedback_ignored", s.feedback_ignored)?;
    d.set_item("feedback_unproven", s.feedback_unproven)?;
    d.set_item("time_steps", s.time_steps)?;
    d.set_item("target_bitrate_bps", s.target_bitrate.bps())?;
    d.set_item("pacing_rate_bps", s.pacing_rate.bps())?;
    let streams = PyList::empty(py);
    for st in &s.streams {
        let e = PyDict::new(py);
        e.set_item("ssrc", st.ssrc)?;
        e.set_item("target_bitrate_bps", st.target_bitrate.bps())?;
        e.set_item("rtp_queue_delay_ns", ns(st.rtp_queue_delay))?;
        e.set_item("rtp_queue_bytes", st.rtp_queue_bytes)?;
        e.set_item("rtp_queue_packets", st.rtp_queue_packets)?;
        e.set_item("queue_discards", st.queue_discards)?;
        e.set_item("frames_skipped", st.frames_skipped)?;
        streams.append(e)?;
    }
    d.set_item("streams", streams)?;
    d.set_item(
        "generation",
        generation(py, generation_name, &s.generation)?,
    )?;
    Ok(d)
}

/// The running generation's own state, under its `name`.
fn generation<'py>(
    py: Python<'py>,
    name: &str,
    g: &GenerationStats,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", name)?;
    match g {
        GenerationStats::V2(v2) => {
            d.set_item("window_headroom", v2.window_headroom)?;
        }
        GenerationStats::V1(v1) => {
            d.set_item("qdelay_target_ns", ns(v1.qdelay_target))?;
            d.set_item("qdelay_trend", v1.qdelay_trend)?;
            d.set_item("qdelay_fraction_avg", v1.qdelay_fraction_avg)?;
            d.set_item("in_fast_start", v1.in_fast_start)?;
            d.set_item("cwnd_validated", v1.cwnd_validated)?;
            d.set_item("max_bytes_in_flight", v1.max_bytes_in_flight)?;
            d.set_item("post_congestion_scale", v1.post_congestion_scale)?;
            d.set_item("l4s_active", v1.l4s_active)?;
            d.set_item("mss_bytes", v1.mss_bytes)?;
            d.set_item("pacing_scale", v1.pacing_scale)?;
        }
        GenerationStats::Draft00(d0) => {
            d.set_item("owd_target_ns", ns(d0.owd_target))?;
            d.set_item("off_target", d0.off_target)?;
            d.set_item("cwnd_headroom", d0.cwnd_headroom)?;
            d.set_item("scale_factors", d0.scale_factors.clone())?;
            d.set_item("frames_skipped", d0.frames_skipped)?;
        }
        // A generation this binding does not know yet: its name is all it can say.
        _ => {}
    }
    Ok(d)
}

pub(crate) fn receiver<'py>(py: Python<'py>, s: &ReceiverStats) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("packets_received", s.packets_received)?;
    d.set_item("bytes_received", s.bytes_received)?;
    d.set_item("duplicates", s.duplicates)?;
    d.set_item("too_old", s.too_old)?;
    d.set_item("restarts", s.restarts)?;
    d.set_item("ce_marked", s.ce_marked)?;
    d.set_item("reports", s.reports)?;
    d.set_item("ssrcs_tracked", s.ssrcs_tracked)?;
    d.set_item("ssrcs_evicted", s.ssrcs_evicted)?;
    d.set_item("clock_steps_back", s.clock_steps_back)?;
    Ok(d)
}
