//! SCReAM V2 pacing rate (draft §"Packet Pacing"): the target bitrate with headroom,
//! raised for large frames, relaxed near the streams' maximum, and capped at the
//! path's delivery rate by `l4s-pacing`.

use super::V2Settings;
use super::streams::V2Stream;
use crate::sender::config::EcnMode;
use crate::sender::stream::Stream;
use crate::units::Bitrate;

/// Pacing relaxes from this fraction of the streams' total maximum bitrate (reference
/// `kRelaxedPacingLimitLow`)...
const RELAXED_PACING_LOW: f64 = 0.8;
/// ...and is fully relaxed at this fraction (reference `kRelaxedPacingLimitHigh`).
const RELAXED_PACING_HIGH: f64 = 1.0;

/// `l4s-pacing` caps the pacing rate only while `l4s_alpha`, the averaged CE fraction,
/// is at least this (one mark in a thousand packets).
const L4S_PACING_MIN_ALPHA: f64 = 0.001;
/// `l4s-pacing`: the pacing rate never falls below this factor over the total target,
/// or the RTP queue would grow; it is also how the cap climbs when capacity grows
/// (the target rises, pacing at 1.1 times it delivers faster, the peak follows).
const TARGET_FLOOR: f64 = 1.1;

/// Inputs of the pacing rate.
#[derive(Clone, Copy, Debug)]
struct PacingInput {
    /// Sum of the streams' targets.
    total_target: Bitrate,
    /// Measured rate of media entering the RTP queues.
    media_rate: Bitrate,
    /// Sum of the streams' maximum bitrates.
    total_max: Bitrate,
    /// Factor by which the last frame or the RTP queue backlog exceeds the nominal frame
    /// size (≥ 1).
    frame_scale: f64,
}

/// The pacing rate for the current targets, media rate and frame sizes, with the
/// `l4s-pacing` cap at `delivery_peak` while the marker is at work.
///
/// The sender recomputes it when feedback arrives (and, before the first feedback,
/// when a frame arrives), not on every frame: the reference computes its pacing
/// interval in `updateCwnd`, once per feedback, and a pacing rate that jumps with each
/// large frame spreads a frame over less time and pushes it into the bottleneck as a
/// burst (at 100 ms one way the L4S queue p95 was 27 % above the reference's).
pub(crate) fn pacing_rate(
    cfg: &V2Settings,
    streams: &[Stream],
    v2: &[V2Stream],
    media_rate: Bitrate,
    l4s_alpha: f64,
    delivery_peak: Option<Bitrate>,
) -> Bitrate {
    let total_target = streams.iter().fold(Bitrate::ZERO, |a, s| a + s.target);
    let total_max = streams
        .iter()
        .fold(Bitrate::ZERO, |a, s| a + s.config.max_bitrate);
    let weighted: f64 = streams
        .iter()
        .zip(v2)
        .map(|(s, v)| v.frame_scale * s.target.bps())
        .sum();
    let frame_scale = if total_target.bps() > 0.0 {
        weighted / total_target.bps()
    } else {
        1.0
    };
    let rate = base_rate(
        cfg,
        PacingInput {
            total_target,
            media_rate,
            total_max,
            frame_scale,
        },
    );
    // Only while the marker is at work: without marks there is no burst to spare the
    // bottleneck, and after an outage the faithful pacing drains the RTP queue's
    // backlog faster.
    let marking = l4s_alpha >= L4S_PACING_MIN_ALPHA;
    match delivery_peak {
        Some(peak) if cfg.improvements.l4s_pacing && cfg.ecn == EcnMode::L4s && marking => {
            cap_to_delivery(rate, total_target, peak)
        }
        _ => rate,
    }
}

/// `max(RATE_PACE_MIN, PACKET_PACING_HEADROOM · target)`, raised for large frames, and
/// relaxed as the target nears the streams' maximum (then there is no congestion to
/// protect and pacing would only add delay).
fn base_rate(cfg: &V2Settings, input: PacingInput) -> Bitrate {
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

/// `l4s-pacing`: the pacing `rate` capped at the recent peak delivery rate `peak`, but
/// not below [`TARGET_FLOOR`] times the total target.
///
/// A shallow L4S marker (a ramp from 2 ms) marks any frame that is paced out faster
/// than the bottleneck forwards it, even when the average rate is well below capacity:
/// at 1.5 times the target and more (frame-size and relaxed pacing), one flow held
/// itself near 57 % of a 100 Mbit/s link with the 2 -> 6 ms ramp. Pacing at the rate
/// the path delivers avoids those marks without pacing slower than the path can take;
/// frames then take longer to leave the sender (about 12 ms more at the 95th
/// percentile in that case), the price of the 90 % utilisation.
fn cap_to_delivery(rate: Bitrate, total_target: Bitrate, peak: Bitrate) -> Bitrate {
    rate.min(peak.max(total_target.scale(TARGET_FLOOR)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sender::config::SenderConfig;

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
        let cfg = V2Settings::of(&SenderConfig::default());
        let r = base_rate(&cfg, input(4.0, 20.0));
        assert!((r.mbps() - 6.0).abs() < 1e-9);
        let r = base_rate(&cfg, input(0.0, 20.0));
        assert_eq!(r, cfg.rate_pace_min);
        let r = base_rate(&cfg, input(20.0, 20.0));
        assert!((r.mbps() - 150.0).abs() < 1e-6, "fully relaxed: x5");
    }

    #[test]
    fn l4s_pacing_caps_at_the_delivery_peak_but_not_below_the_target() {
        let mbps = Bitrate::from_mbps;
        // Faithful 150 Mbit/s, the path delivered 100: paced at 100.
        assert_eq!(
            cap_to_delivery(mbps(150.0), mbps(60.0), mbps(100.0)),
            mbps(100.0)
        );
        // Never below 1.1 times the 60 Mbit/s target.
        let r = cap_to_delivery(mbps(150.0), mbps(60.0), mbps(40.0));
        assert!((r.mbps() - 66.0).abs() < 1e-9, "{r}");
        // A faithful rate below the cap is kept.
        assert_eq!(
            cap_to_delivery(mbps(80.0), mbps(60.0), mbps(100.0)),
            mbps(80.0)
        );
    }
}
