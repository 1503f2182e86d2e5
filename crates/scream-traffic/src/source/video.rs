//! Video encoder models: trace-driven and constant frame size.

use scream::Bitrate;
use scream::sender::MediaFrame;

/// Encoder rate dynamics shared by the video models: the rate it actually produces
/// follows the target through an EWMA with time constant `sluggishness_s` (0: at once).
#[derive(Debug, Clone)]
struct EncoderRate {
    target: Bitrate,
    actual: Bitrate,
    /// Per-frame EWMA gain, 1 when the encoder follows at once.
    gain: f64,
}

impl EncoderRate {
    fn new(start: Bitrate, fps: f64, sluggishness_s: f64) -> Self {
        let gain = if sluggishness_s > 0.0 {
            1.0 - (-1.0 / (fps * sluggishness_s)).exp()
        } else {
            1.0
        };
        Self {
            target: start,
            actual: start,
            gain,
        }
    }

    fn step(&mut self) -> Bitrate {
        let a = self.actual.bps();
        self.actual = Bitrate::from_bps(a + self.gain * (self.target.bps() - a));
        self.actual
    }
}

/// Where frame sizes come from.
#[derive(Debug, Clone)]
enum FrameSizes {
    /// A trace, scaled by the encoder rate / the trace's nominal rate, looping.
    Trace {
        sizes: Vec<u32>,
        next: usize,
        nominal: Bitrate,
    },
    /// Every frame is encoder rate / fps.
    Constant,
}

/// A video encoder model: frame sizes from a trace or constant, at the rate the encoder
/// actually produces (see `EncoderRate`), with key frames on request.
#[derive(Debug, Clone)]
pub struct Video {
    sizes: FrameSizes,
    fps: f64,
    rate: EncoderRate,
    key_frame_pending: bool,
}

impl Video {
    /// Frame sizes from a trace; `sizes` must hold a non-zero frame (see
    /// `parse_frame_sizes`). Its nominal rate is the mean frame size × 8 × fps.
    pub fn from_trace(sizes: Vec<u32>, fps: f64, start: Bitrate, sluggishness_s: f64) -> Self {
        let mean = sizes.iter().map(|s| f64::from(*s)).sum::<f64>() / sizes.len().max(1) as f64;
        let nominal = Bitrate::from_bps(mean * 8.0 * fps);
        Self::new(
            FrameSizes::Trace {
                sizes,
                next: 0,
                nominal,
            },
            fps,
            start,
            sluggishness_s,
        )
    }

    /// Frames of size rate / fps.
    pub fn constant(fps: f64, start: Bitrate, sluggishness_s: f64) -> Self {
        Self::new(FrameSizes::Constant, fps, start, sluggishness_s)
    }

    fn new(sizes: FrameSizes, fps: f64, start: Bitrate, sluggishness_s: f64) -> Self {
        Self {
            sizes,
            fps,
            rate: EncoderRate::new(start, fps, sluggishness_s),
            key_frame_pending: false,
        }
    }

    /// The trace's own bitrate (`None` for constant frames).
    pub fn nominal_bitrate(&self) -> Option<Bitrate> {
        match &self.sizes {
            FrameSizes::Trace { nominal, .. } => Some(*nominal),
            FrameSizes::Constant => None,
        }
    }

    /// The next frame.
    pub fn next_frame(&mut self) -> MediaFrame {
        let actual = self.rate.step();
        let bytes = match &mut self.sizes {
            FrameSizes::Trace {
                sizes,
                next,
                nominal,
            } => {
                let raw = sizes.get(*next).copied().unwrap_or(0);
                *next = (*next + 1) % sizes.len().max(1);
                let scale = if nominal.bps() > 0.0 {
                    actual.bps() / nominal.bps()
                } else {
                    0.0
                };
                f64::from(raw) * scale
            }
            FrameSizes::Constant => actual.bytes_per_sec() / self.fps,
        };
        MediaFrame::new(bytes.round().clamp(1.0, f64::from(u32::MAX)) as u32)
            .with_key_frame(core::mem::take(&mut self.key_frame_pending))
    }

    /// Sets the encoder's target.
    pub fn set_target(&mut self, target: Bitrate) {
        self.rate.target = target;
    }

    /// The current target.
    pub fn target(&self) -> Bitrate {
        self.rate.target
    }

    /// Flags the next frame as a key frame (a trace frame's size still follows the
    /// trace).
    pub fn request_key_frame(&mut self) {
        self.key_frame_pending = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trace_frames_scale_to_the_target_and_loop() {
        let mut v = Video::from_trace(vec![1000, 3000], 50.0, Bitrate::from_kbps(1600.0), 0.0);
        // Nominal: 2000 B x 8 x 50 = 800 kbit/s; target is twice that.
        assert_eq!(v.nominal_bitrate(), Some(Bitrate::from_kbps(800.0)));
        let sizes: Vec<u32> = (0..4).map(|_| v.next_frame().size_bytes).collect();
        assert_eq!(sizes, [2000, 6000, 2000, 6000]);
    }

    #[test]
    fn sluggish_encoder_approaches_the_target_gradually() {
        let mut v = Video::constant(50.0, Bitrate::from_mbps(1.0), 0.5);
        v.set_target(Bitrate::from_mbps(2.0));
        let first = v.next_frame().size_bytes;
        assert!(first > 2500 && first < 2600, "{first}");
        for _ in 0..250 {
            v.next_frame();
        }
        let late = v.next_frame().size_bytes;
        assert!((late as i64 - 5000).abs() <= 1, "{late}");
    }

    #[test]
    fn key_frame_request_flags_exactly_the_next_frame() {
        let mut v = Video::constant(50.0, Bitrate::from_mbps(1.0), 0.0);
        v.request_key_frame();
        assert!(v.next_frame().key_frame);
        assert!(!v.next_frame().key_frame);
    }
}
