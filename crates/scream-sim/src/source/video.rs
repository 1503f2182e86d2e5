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

/// Frame sizes from a trace, scaled by target / nominal rate, looping over the trace.
#[derive(Debug, Clone)]
pub struct VideoTrace {
    sizes: Vec<u32>,
    next: usize,
    nominal: Bitrate,
    rate: EncoderRate,
    key_frame_pending: bool,
}

impl VideoTrace {
    /// A trace source; `sizes` must hold a non-zero frame (see `parse_frame_sizes`).
    pub fn new(sizes: Vec<u32>, fps: f64, start: Bitrate, sluggishness_s: f64) -> Self {
        let mean = sizes.iter().map(|s| f64::from(*s)).sum::<f64>() / sizes.len().max(1) as f64;
        Self {
            nominal: Bitrate::from_bps(mean * 8.0 * fps),
            sizes,
            next: 0,
            rate: EncoderRate::new(start, fps, sluggishness_s),
            key_frame_pending: false,
        }
    }

    /// The trace's own bitrate: mean frame size x 8 x fps.
    pub fn nominal_bitrate(&self) -> Bitrate {
        self.nominal
    }

    /// The next frame.
    pub fn next_frame(&mut self) -> MediaFrame {
        let raw = self.sizes.get(self.next).copied().unwrap_or(0);
        self.next = (self.next + 1) % self.sizes.len().max(1);
        let actual = self.rate.step();
        let scale = if self.nominal.bps() > 0.0 {
            actual.bps() / self.nominal.bps()
        } else {
            0.0
        };
        let size = (f64::from(raw) * scale)
            .round()
            .clamp(1.0, f64::from(u32::MAX)) as u32;
        MediaFrame {
            size_bytes: size,
            key_frame: core::mem::take(&mut self.key_frame_pending),
        }
    }

    /// Sets the encoder's target.
    pub fn set_target(&mut self, target: Bitrate) {
        self.rate.target = target;
    }

    /// The current target.
    pub fn target(&self) -> Bitrate {
        self.rate.target
    }

    /// Flags the next frame as a key frame (its size still follows the trace).
    pub fn request_key_frame(&mut self) {
        self.key_frame_pending = true;
    }
}

/// Frames of size rate / fps.
#[derive(Debug, Clone)]
pub struct VideoConstant {
    fps: f64,
    rate: EncoderRate,
    key_frame_pending: bool,
}

impl VideoConstant {
    /// A constant-size source.
    pub fn new(fps: f64, start: Bitrate, sluggishness_s: f64) -> Self {
        Self {
            fps,
            rate: EncoderRate::new(start, fps, sluggishness_s),
            key_frame_pending: false,
        }
    }

    /// The next frame.
    pub fn next_frame(&mut self) -> MediaFrame {
        let actual = self.rate.step();
        let size = (actual.bytes_per_sec() / self.fps)
            .round()
            .clamp(1.0, f64::from(u32::MAX)) as u32;
        MediaFrame {
            size_bytes: size,
            key_frame: core::mem::take(&mut self.key_frame_pending),
        }
    }

    /// Sets the encoder's target.
    pub fn set_target(&mut self, target: Bitrate) {
        self.rate.target = target;
    }

    /// The current target.
    pub fn target(&self) -> Bitrate {
        self.rate.target
    }

    /// Flags the next frame as a key frame.
    pub fn request_key_frame(&mut self) {
        self.key_frame_pending = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trace_frames_scale_to_the_target_and_loop() {
        let mut v = VideoTrace::new(vec![1000, 3000], 50.0, Bitrate::from_kbps(1600.0), 0.0);
        // Nominal: 2000 B x 8 x 50 = 800 kbit/s; target is twice that.
        assert_eq!(v.nominal_bitrate(), Bitrate::from_kbps(800.0));
        let sizes: Vec<u32> = (0..4).map(|_| v.next_frame().size_bytes).collect();
        assert_eq!(sizes, [2000, 6000, 2000, 6000]);
    }

    #[test]
    fn sluggish_encoder_approaches_the_target_gradually() {
        let mut v = VideoConstant::new(50.0, Bitrate::from_mbps(1.0), 0.5);
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
        let mut v = VideoConstant::new(50.0, Bitrate::from_mbps(1.0), 0.0);
        v.request_key_frame();
        assert!(v.next_frame().key_frame);
        assert!(!v.next_frame().key_frame);
    }
}
