//! Packet pacing (draft §"Packet Pacing"): packets leave no faster than the pacing rate, which is
//! the target bitrate with headroom, so frames are spread over the frame period instead
//! of hitting the bottleneck as a burst.

use super::config::SenderConfig;
use crate::time::{Duration, Instant};
use crate::units::Bitrate;

/// Pacing relaxes from this fraction of the streams' total maximum bitrate (reference
/// `kRelaxedPacingLimitLow`)...
const RELAXED_PACING_LOW: f64 = 0.8;
/// ...and is fully relaxed at this fraction (reference `kRelaxedPacingLimitHigh`).
const RELAXED_PACING_HIGH: f64 = 1.0;

/// Inputs of the pacing rate.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PacingInput {
    /// Sum of the streams' targets.
    pub(crate) total_target: Bitrate,
    /// Measured rate of media entering the RTP queues.
    pub(crate) media_rate: Bitrate,
    /// Sum of the streams' maximum bitrates.
    pub(crate) total_max: Bitrate,
    /// Factor by which the last frame or the RTP queue backlog exceeds the nominal frame
    /// size (≥ 1).
    pub(crate) frame_scale: f64,
}

/// The pacing rate: `max(RATE_PACE_MIN, PACKET_PACING_HEADROOM · target)`, raised for
/// large frames, and relaxed as the target nears the streams' maximum (then there is no
/// congestion to protect and pacing would only add delay).
pub(crate) fn pacing_rate(cfg: &SenderConfig, input: PacingInput) -> Bitrate {
    let base = input.total_target.max(input.media_rate);
    let scale = input.frame_scale.clamp(1.0, cfg.max_adaptive_pacing_scale);
    let mut rate = base
        .scale(cfg.packet_pacing_headroom * scale)
        .max(cfg.rate_pace_min);
    let max = input.total_max.bps();
    if max > 0.0 && cfg.relaxed_pacing_max_factor > 1.0 {
        let nominal = input.total_target.bps() / max;
        if nominal > RELAXED_PACING_LOW {
            let s = ((nominal - RELAXED_PACING_LOW) / (RELAXED_PACING_HIGH - RELAXED_PACING_LOW))
                .min(1.0);
            let divisor = (1.0 - s).clamp(1.0 / cfg.relaxed_pacing_max_factor, 1.0);
            rate = rate.scale(1.0 / divisor);
        }
    }
    rate
}

/// When the next packet may leave.
#[derive(Debug, Clone, Default)]
pub(crate) struct Pacer {
    next_send: Instant,
}

impl Pacer {
    /// Earliest instant of the next transmission.
    pub(crate) fn next_send(&self) -> Instant {
        self.next_send
    }

    /// A packet of `size_bytes` left at `now` under pacing rate `rate`.
    pub(crate) fn on_sent(&mut self, now: Instant, size_bytes: u32, rate: Bitrate) {
        let gap = rate
            .transmit_time(u64::from(size_bytes))
            .unwrap_or(Duration::ZERO);
        // An idle period earns no credit: the next packet is a full gap after this one.
        self.next_send = self.next_send.max(now) + gap;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(target: f64, max: f64) -> PacingInput {
        PacingInput {
            total_target: Bitrate::from_mbps(target),
            media_rate: Bitrate::ZERO,
            total_max: Bitrate::from_mbps(max),
            frame_scale: 1.0,
        }
    }

    #[test]
    fn pacing_rate_has_headroom_a_floor_and_relaxes_near_max() {
        let cfg = SenderConfig::default();
        let r = pacing_rate(&cfg, input(4.0, 20.0));
        assert!((r.mbps() - 6.0).abs() < 1e-9);
        let r = pacing_rate(&cfg, input(0.0, 20.0));
        assert_eq!(r, cfg.rate_pace_min);
        let r = pacing_rate(&cfg, input(20.0, 20.0));
        assert!((r.mbps() - 150.0).abs() < 1e-6, "fully relaxed: x5");
    }

    #[test]
    fn packets_are_spaced_by_size_over_rate() {
        let mut p = Pacer::default();
        let t0 = Instant::from_millis(100);
        p.on_sent(t0, 1000, Bitrate::from_mbps(8.0));
        assert_eq!(p.next_send(), t0 + Duration::from_millis(1));
        p.on_sent(p.next_send(), 1000, Bitrate::from_mbps(8.0));
        assert_eq!(p.next_send(), t0 + Duration::from_millis(2));
    }
}
