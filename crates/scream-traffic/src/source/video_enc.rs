//! The frame-size model of Ericsson's test application (`code/VideoEnc.cpp`,
//! `VideoEnc::VideoEnc` and `VideoEnc::encode`, at ac89024 and 0924c0b).
//!
//! A frame is the trace's next size scaled by target / nominal bitrate, truncated to
//! whole bytes; the nominal bitrate starts at the trace's mean rate and, at ac89024,
//! follows an EWMA of each frame's own rate (`0.95 * nominal + 0.05 * size * fps * 8`,
//! updated after the frame is sized; the line is commented out at 0924c0b). The index
//! starts at an offset (`ixOffset`, one per stream in the test application) and loops.
//! The encoder then cuts the frame into RTP packets of at most `kMaxRtpSize` (1200)
//! payload bytes plus a 12-byte header; the SCReAM sender cuts a frame the same way
//! with `mss_bytes = 1200` and `rtp_overhead_bytes = 12`, so this model hands it the
//! payload and leaves the packets to it.

use scream::Bitrate;
use scream::sender::MediaFrame;

/// The test application's video encoder: trace frames scaled by target / nominal.
#[derive(Debug, Clone)]
pub struct VideoEnc {
    sizes: Vec<u32>,
    next: usize,
    fps: f64,
    /// Bit/s the trace's sizes stand for.
    nominal_bps: f64,
    /// Weight of a frame's own rate in the nominal bitrate's EWMA (0: fixed).
    nominal_gain: f64,
    target: Bitrate,
    key_frame_pending: bool,
}

impl VideoEnc {
    /// The model over `sizes` (which must hold a non-zero frame, see
    /// `parse_frame_sizes`) at `fps`, from frame `offset` (modulo the trace's length),
    /// its nominal bitrate following frames with weight `nominal_gain` (0.05 at
    /// ac89024, 0 at 0924c0b).
    pub fn new(
        sizes: Vec<u32>,
        fps: f64,
        start: Bitrate,
        offset: usize,
        nominal_gain: f64,
    ) -> Self {
        let frames = sizes.len().max(1);
        let sum: f64 = sizes.iter().map(|s| f64::from(*s)).sum();
        // `VideoEnc::VideoEnc`: nominalBitrate = sum * 8 / (nFrames / frameRate).
        let nominal_bps = sum * 8.0 * fps / frames as f64;
        Self {
            sizes,
            next: offset % frames,
            fps,
            nominal_bps,
            nominal_gain,
            target: start,
            key_frame_pending: false,
        }
    }

    /// The next frame's payload (`VideoEnc::encode` before packetisation).
    pub fn next_frame(&mut self) -> MediaFrame {
        let raw = f64::from(self.sizes.get(self.next).copied().unwrap_or(0));
        let bytes = if self.nominal_bps > 0.0 {
            (raw / self.nominal_bps * self.target.bps()).trunc()
        } else {
            0.0
        };
        let g = self.nominal_gain;
        self.nominal_bps = (1.0 - g) * self.nominal_bps + g * raw * self.fps * 8.0;
        self.next = (self.next + 1) % self.sizes.len().max(1);
        // The code sends no packet for a frame under one byte; the sender takes at
        // least one byte per frame, which only a target below 8 bit/frame reaches.
        MediaFrame::new(bytes.clamp(1.0, f64::from(u32::MAX)) as u32)
            .with_key_frame(core::mem::take(&mut self.key_frame_pending))
    }

    /// Sets the target (`VideoEnc::setTargetBitrate`).
    pub fn set_target(&mut self, target: Bitrate) {
        self.target = target;
    }

    /// The current target.
    pub fn target(&self) -> Bitrate {
        self.target
    }

    /// The nominal bitrate the next frame is scaled by.
    pub fn nominal_bitrate(&self) -> Bitrate {
        Bitrate::from_bps(self.nominal_bps)
    }

    /// Flags the next frame as a key frame; its size still follows the trace (the
    /// test application's encoder has no key-frame request).
    pub fn request_key_frame(&mut self) {
        self.key_frame_pending = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_scale_by_target_over_nominal_truncated_from_the_offset() {
        // Mean 2000 B at 50 fps: 800 kbit/s nominal. Target 1 Mbit/s: x 1.25.
        let mut v = VideoEnc::new(
            vec![1001, 2999, 2000],
            50.0,
            Bitrate::from_kbps(1000.0),
            1,
            0.0,
        );
        assert_eq!(v.nominal_bitrate(), Bitrate::from_kbps(800.0));
        let sizes: Vec<u32> = (0..4).map(|_| v.next_frame().size_bytes).collect();
        // 2999 x 1.25 = 3748.75 -> 3748; 1001 x 1.25 = 1251.25 -> 1251.
        assert_eq!(sizes, [3748, 2500, 1251, 3748]);
    }

    #[test]
    fn the_nominal_bitrate_follows_each_frame_after_sizing_it() {
        let mut v = VideoEnc::new(vec![1000, 3000], 50.0, Bitrate::from_kbps(800.0), 0, 0.05);
        // First frame sized with the mean rate (800 kbit/s): 1000 B.
        assert_eq!(v.next_frame().size_bytes, 1000);
        // Then nominal = 0.95 x 800k + 0.05 x 1000 x 50 x 8 = 780 kbit/s.
        let nominal = v.nominal_bitrate().bps();
        assert!((nominal - 780e3).abs() < 1e-6, "{nominal}");
        assert_eq!(v.next_frame().size_bytes, (3000.0 * 800.0 / 780.0) as u32);
    }
}
