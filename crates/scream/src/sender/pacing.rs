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

/// `l4s-pacing` caps the pacing rate only while `l4s_alpha`, the averaged CE fraction,
/// is at least this (one mark in a thousand packets).
pub(crate) const L4S_PACING_MIN_ALPHA: f64 = 0.001;
/// `l4s-pacing`: the pacing rate never falls below this factor over the total target,
/// or the RTP queue would grow; it is also how the cap climbs when capacity grows
/// (the target rises, pacing at 1.1 times it delivers faster, the peak follows).
const TARGET_FLOOR: f64 = 1.1;

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
pub(crate) fn cap_to_delivery(rate: Bitrate, total_target: Bitrate, peak: Bitrate) -> Bitrate {
    rate.min(peak.max(total_target.scale(TARGET_FLOOR)))
}

/// When the next packet may leave.
///
/// Slots are `size / rate` apart. A caller that polls late (a coarse timer, a busy
/// event loop) may still use the slots that passed since the instant it was told to
/// come back, back to at most `catch_up` before `now`; their packets leave
/// back-to-back. Without that, a caller waking once per millisecond could send at most
/// one packet per millisecond, whatever the pacing rate. An idle period (nothing to
/// send, or the send window full) earns no credit.
#[derive(Debug, Clone, Default)]
pub(crate) struct Pacer {
    next_send: Instant,
    /// A packet has been waiting for `next_send` since the last poll (it answered
    /// `Transmit::At`), so slots between then and a late poll are owed.
    waiting: bool,
}

impl Pacer {
    /// Earliest instant of the next transmission.
    pub(crate) fn next_send(&self) -> Instant {
        self.next_send
    }

    /// A packet is ready but must wait for [`Pacer::next_send`].
    pub(crate) fn on_wait(&mut self) {
        self.waiting = true;
    }

    /// Nothing can be sent (empty queues or a full window): no slot is owed until a
    /// packet has left again.
    pub(crate) fn on_idle(&mut self) {
        self.waiting = false;
    }

    /// A packet of `size_bytes` left at `now` under pacing rate `rate`.
    pub(crate) fn on_sent(
        &mut self,
        now: Instant,
        size_bytes: u32,
        rate: Bitrate,
        catch_up: Duration,
    ) {
        let gap = rate
            .transmit_time(u64::from(size_bytes))
            .unwrap_or(Duration::ZERO);
        let start = if self.waiting {
            self.next_send.max(now.saturating_sub(catch_up))
        } else {
            self.next_send.max(now)
        };
        self.next_send = start + gap;
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

    const CATCH_UP: Duration = Duration::from_millis(10);

    #[test]
    fn packets_are_spaced_by_size_over_rate() {
        let mut p = Pacer::default();
        let t0 = Instant::from_millis(100);
        p.on_sent(t0, 1000, Bitrate::from_mbps(8.0), CATCH_UP);
        assert_eq!(p.next_send(), t0 + Duration::from_millis(1));
        p.on_wait();
        p.on_sent(p.next_send(), 1000, Bitrate::from_mbps(8.0), CATCH_UP);
        assert_eq!(p.next_send(), t0 + Duration::from_millis(2));
    }

    #[test]
    fn a_late_poll_may_use_the_slots_it_missed_up_to_the_bound() {
        let rate = Bitrate::from_mbps(8.0); // 1 ms per 1000 bytes
        let mut p = Pacer::default();
        let t0 = Instant::from_millis(100);
        p.on_sent(t0, 1000, rate, CATCH_UP);
        p.on_wait();
        // Polled 3.5 ms late: the slots at 101, 102, 103 and 104 ms are still usable.
        let now = t0 + Duration::from_micros(4500);
        let mut sent = 0;
        while p.next_send() <= now {
            p.on_sent(now, 1000, rate, CATCH_UP);
            sent += 1;
        }
        assert_eq!(sent, 4);
        // Polled a second late: only the last `CATCH_UP` of slots.
        p.on_wait();
        let now = now + Duration::from_secs(1);
        let mut sent = 0;
        while p.next_send() <= now {
            p.on_sent(now, 1000, rate, CATCH_UP);
            sent += 1;
        }
        assert_eq!(sent, 11);
    }

    #[test]
    fn an_idle_period_earns_no_credit() {
        let rate = Bitrate::from_mbps(8.0);
        let mut p = Pacer::default();
        let t0 = Instant::from_millis(100);
        p.on_sent(t0, 1000, rate, CATCH_UP);
        p.on_idle();
        let now = t0 + Duration::from_millis(50);
        p.on_sent(now, 1000, rate, CATCH_UP);
        assert_eq!(p.next_send(), now + Duration::from_millis(1));
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
