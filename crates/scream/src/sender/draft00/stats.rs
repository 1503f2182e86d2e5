//! The draft-00 generation's own part of the sender's statistics.

use crate::time::Duration;

/// The draft-00 generation's own state.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct Draft00Stats {
    /// The one-way queueing delay the window steers to.
    pub owd_target: Duration,
    /// Distance of the latest queue delay to the OWD target, relative to the target:
    /// 1 at an empty queue, 0 at the target, negative above it.
    pub off_target: f64,
    /// The latest growth headroom (draft-00 §9.1.4 `cwndHeadroom`): the window may
    /// grow only while bytes in flight times this exceed it; 2 at an empty queue, 1 at
    /// the OWD target and above.
    pub cwnd_headroom: f64,
    /// Each stream's media-rate scale factor (§9.1.5 `scaleFactor`, the target over
    /// the stream's `max_bitrate`), in the order streams were added.
    pub scale_factors: Vec<f64>,
    /// Frames skipped because their stream's RTP queue was too old, all streams.
    pub frames_skipped: u64,
}
