//! `[flows.source]`: the media source of a flow or stream.

use serde::{Deserialize, Serialize};

/// Kind of media source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SourceKind {
    /// Frame sizes from a trace file scaled to the target bitrate.
    #[default]
    VideoTrace,
    /// Frames of size target / fps.
    VideoConstant,
    /// Constant-bitrate audio packets.
    Audio,
    /// Ericsson's test application's encoder (`VideoEnc.cpp`): trace frames scaled by
    /// target / nominal, truncated, the nominal rate following the frames
    /// (`nominal_gain`), from frame `trace_offset_frames`. Packets of at most
    /// `mss_bytes` as for every source (1200 in the test application).
    VideoEnc,
}

/// The media source of a flow.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SourceConfig {
    /// Kind. Default video-trace.
    pub kind: SourceKind,
    /// Frame-size trace (`builtin:<name>` or a path). Default `builtin:trace_no_key`.
    pub trace: String,
    /// Frame rate, frames/s. Default 50.
    pub fps: f64,
    /// Time constant of the encoder's EWMA towards the target, s; 0 = follows at once.
    #[serde(alias = "sluggishness")]
    pub sluggishness_s: f64,
    /// Audio bitrate, kbit/s. Default 64.
    pub audio_bitrate_kbps: f64,
    /// Audio packet interval, ms. Default 20.
    pub audio_packet_interval_ms: f64,
    /// Offset of the first frame (or audio packet) after the flow starts, ms. Default:
    /// drawn uniformly within one frame period from the stream's own random stream, so
    /// that flows are not phase-locked as real encoders are not; 0 aligns the frame
    /// clock with the start time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase_ms: Option<f64>,
    /// `video-enc`: the trace frame the encoder starts at (its `ixOffset`; the test
    /// application gives stream `i` 50 x `i`). Default 0.
    #[serde(skip_serializing_if = "is_zero_u64")]
    pub trace_offset_frames: u64,
    /// `video-enc`: weight of each frame's own rate in the EWMA of the nominal
    /// bitrate frames are scaled by; 0.05 at ac89024, 0 (fixed at the trace's mean)
    /// at 0924c0b. Default 0.05.
    #[serde(skip_serializing_if = "is_default_nominal_gain")]
    pub nominal_gain: f64,
}

/// The `video-enc` nominal-rate EWMA weight of `VideoEnc::encode` at ac89024.
pub const DEFAULT_NOMINAL_GAIN: f64 = 0.05;

fn is_zero_u64(v: &u64) -> bool {
    *v == 0
}

fn is_default_nominal_gain(v: &f64) -> bool {
    *v == DEFAULT_NOMINAL_GAIN
}

impl Default for SourceConfig {
    fn default() -> Self {
        Self {
            kind: SourceKind::VideoTrace,
            trace: "builtin:trace_no_key".to_owned(),
            fps: 50.0,
            sluggishness_s: 0.0,
            audio_bitrate_kbps: 64.0,
            audio_packet_interval_ms: 20.0,
            phase_ms: None,
            trace_offset_frames: 0,
            nominal_gain: DEFAULT_NOMINAL_GAIN,
        }
    }
}
