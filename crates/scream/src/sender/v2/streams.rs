//! SCReAM V2's per-stream state: the RTP-queue-driven rate adjustment and the
//! frame-size scale of the pacing rate (reference implementation; the draft mentions
//! both without detail).

use crate::sender::stream::Stream;
use crate::time::Duration;

/// Gains of the RTP-queue-driven rate adjustment (reference `kRateAdjustGain1/2`).
const RATE_ADJUST_GAIN1: f64 = 0.2;
const RATE_ADJUST_GAIN2: f64 = 1.0 / 8.0;
/// Largest RTP-queue-driven reduction: the target is divided by at most 1.5.
const RATE_ADJUST_MAX: f64 = 0.5;
/// Frames smaller than this nominal size do not drive adaptive pacing (reference).
const ADAPTIVE_PACING_MIN_FRAME: f64 = 500.0;

#[derive(Debug, Clone)]
pub(crate) struct V2Stream {
    /// RTP-queue-driven reduction: the share is divided by `1 + rate_adjust`.
    pub(crate) rate_adjust: f64,
    /// The larger of the last frame and the RTP queue backlog, relative to the nominal
    /// frame size (≥ 1), for pacing.
    pub(crate) frame_scale: f64,
}

impl Default for V2Stream {
    fn default() -> Self {
        Self {
            rate_adjust: 0.0,
            frame_scale: 1.0,
        }
    }
}

impl V2Stream {
    /// A frame of `payload_bytes` was queued on `stream`, whose RTP queue was
    /// `queue_delay` old just before.
    pub(crate) fn on_frame(&mut self, stream: &Stream, payload_bytes: u32, queue_delay: Duration) {
        // The queue should be empty by the time the next frame comes; a queue older
        // than half a frame period means the target is slightly too high for what the
        // window lets through, so shave it (reference rate adjustment).
        let period = stream.frame_period.max(1e-3);
        let err = RATE_ADJUST_GAIN1 * (queue_delay.as_secs_f64() - period / 2.0) / period;
        self.rate_adjust = (self.rate_adjust + err * RATE_ADJUST_GAIN2).clamp(0.0, RATE_ADJUST_MAX);

        // Sizing pacing by the backlog too (as the reference does) drains a queue that
        // grew while the window shrank at close to the path's rate, instead of at the
        // pacing headroom over an already reduced target.
        let nominal = stream.target.bytes_per_sec() * period;
        let backlog = (stream.queue.bytes() as f64).max(f64::from(payload_bytes));
        self.frame_scale = if nominal > ADAPTIVE_PACING_MIN_FRAME {
            (backlog / nominal).max(1.0)
        } else {
            1.0
        };
    }

    /// The RTP queue was discarded: what made it grow no longer applies.
    pub(crate) fn on_discard(&mut self) {
        self.rate_adjust = 0.0;
    }
}
