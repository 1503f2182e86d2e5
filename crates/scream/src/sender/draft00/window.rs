//! The draft-00 congestion window: LEDBAT's delay-based law (RFC 6817 §2.4.2) with
//! separate gains up and down, a back-off by `beta_loss` on loss at most once per RTT,
//! and a send window `cwnd_headroom` times the congestion window.

use super::config::Draft00Config;
use crate::sender::generation::contract::{AckSummary, BackOffCause, Measurements};
use crate::time::{Duration, Instant};

/// The window may grow to at most this many packets beyond the largest recent bytes in
/// flight (RFC 6817 §2.4.2 `ALLOWED_INCREASE`, 1), so that a sender that does not fill
/// its window does not grow it for nothing.
const ALLOWED_INCREASE_PACKETS: f64 = 1.0;

/// Congestion window state.
#[derive(Debug, Clone)]
pub(crate) struct Cwnd {
    cwnd: f64,
    /// When the window last backed off for loss or CE.
    last_backoff: Option<Instant>,
    /// Largest bytes in flight in the current sRTT period, and in the previous one.
    max_bif: u64,
    max_bif_prev: u64,
    bif_period_start: Option<Instant>,
    /// The latest normalised distance to the OWD target (`off_target`).
    off_target: f64,
    /// The smallest window for the packet size of the moment.
    min_wnd: f64,
    /// Whether CE marks count as congestion (the packets are sent ECN-capable).
    react_to_ce: bool,
}

impl Cwnd {
    pub(crate) fn new(cfg: &Draft00Config, react_to_ce: bool) -> Self {
        let min_wnd = f64::from(cfg.min_cwnd_bytes);
        Self {
            cwnd: f64::from(cfg.initial_cwnd_bytes).max(min_wnd),
            last_backoff: None,
            max_bif: 0,
            max_bif_prev: 0,
            bif_period_start: None,
            off_target: 0.0,
            min_wnd,
            react_to_ce,
        }
    }

    pub(crate) fn cwnd_bytes(&self) -> u64 {
        self.cwnd.round() as u64
    }

    /// The normalised distance of the latest queue delay to the OWD target: 1 at an
    /// empty queue, 0 at the target, negative above it.
    pub(crate) fn off_target(&self) -> f64 {
        self.off_target
    }

    /// Bytes in flight may exceed the window by the headroom, and no further.
    pub(crate) fn send_limit_bytes(&self, cfg: &Draft00Config) -> u64 {
        (self.cwnd * cfg.cwnd_headroom).round() as u64
    }

    pub(crate) fn on_sent(&mut self, bytes_in_flight: u64) {
        self.max_bif = self.max_bif.max(bytes_in_flight);
    }

    /// Updates the window for one feedback; returns the back-off it made, if any, with
    /// the window before and after it, bytes.
    pub(crate) fn on_feedback(
        &mut self,
        cfg: &Draft00Config,
        ack: &AckSummary,
        m: &Measurements,
    ) -> Option<(BackOffCause, u64, u64)> {
        let now = m.now;
        let mss = m.mss_bytes.max(1) as f64;
        self.min_wnd = f64::from(cfg.min_cwnd_bytes).max(2.0 * mss);
        self.roll_bytes_in_flight(now, m.srtt, m.bytes_in_flight);

        // Loss, and CE taken as loss (RFC 3168 §5): one back-off per smoothed RTT, since
        // the losses of one RTT are one congestion event.
        let congested = ack.packets_lost > 0 || (self.react_to_ce && ack.packets_ce > 0);
        let rested = self
            .last_backoff
            .is_none_or(|t| now.saturating_duration_since(t) >= m.srtt);
        if congested && rested && cfg.beta_loss < 1.0 {
            let before = self.cwnd_bytes();
            self.cwnd = (self.cwnd * cfg.beta_loss).max(self.min_wnd);
            self.last_backoff = Some(now);
            let cause = if ack.packets_lost > 0 {
                BackOffCause::Loss
            } else {
                BackOffCause::Ce
            };
            return Some((cause, before, self.cwnd_bytes()));
        }

        // LEDBAT: each acknowledged byte moves the window by gain · off_target · MSS /
        // cwnd, so a whole window of acknowledgements moves it by gain · off_target
        // packets.
        let target = cfg.owd_target.as_secs_f64();
        self.off_target = (target - m.queue_delay.as_secs_f64()) / target;
        let acked = ack.bytes_acked as f64;
        if acked > 0.0 {
            let gain = if self.off_target > 0.0 {
                cfg.gain_up
            } else {
                cfg.gain_down
            };
            let change = gain * self.off_target * acked * mss / self.cwnd;
            if change > 0.0 {
                let flight = self.max_bif.max(self.max_bif_prev) as f64;
                let allowed = flight + ALLOWED_INCREASE_PACKETS * mss;
                if self.cwnd < allowed {
                    self.cwnd = (self.cwnd + change).min(allowed);
                }
            } else {
                self.cwnd += change;
            }
        }
        self.cwnd = self.cwnd.max(self.min_wnd);
        None
    }

    /// Bytes-in-flight maxima per smoothed RTT.
    fn roll_bytes_in_flight(&mut self, now: Instant, srtt: Duration, bif: u64) {
        let start = *self.bif_period_start.get_or_insert(now);
        if now.saturating_duration_since(start) >= srtt {
            self.max_bif_prev = self.max_bif;
            self.max_bif = bif;
            self.bif_period_start = Some(now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sender::config::SenderConfig;
    use crate::units::Bitrate;

    fn settings() -> Draft00Config {
        let cfg = SenderConfig::for_generation("scream-draft00").expect("known");
        cfg.draft00().expect("a draft-00 configuration").clone()
    }

    fn measurements(now_ms: u64, qdelay_ms: u64, bif: u64) -> Measurements {
        Measurements {
            now: Instant::from_millis(now_ms),
            srtt: Duration::from_millis(50),
            qdelay_avg: Duration::ZERO,
            queue_delay: Duration::from_millis(qdelay_ms),
            rtt_falling: false,
            rate_acked: Bitrate::ZERO,
            bytes_in_flight: bif,
            steadiness: 1.0,
            total_target: Bitrate::ZERO,
            total_max: Bitrate::from_mbps(100.0),
            mss_bytes: 1000,
            newest_acked_sent_at: None,
        }
    }

    fn acked(bytes: u64) -> AckSummary {
        AckSummary {
            bytes_acked: bytes,
            packets_acked: bytes / 1000,
            ..AckSummary::default()
        }
    }

    #[test]
    fn a_window_of_acks_at_an_empty_queue_adds_gain_up_packets() {
        let cfg = settings();
        let mut w = Cwnd::new(&cfg, true);
        w.on_sent(20_000);
        let before = w.cwnd;
        // Ten feedbacks acknowledging a tenth of the window each.
        for i in 0..10 {
            let chunk = (before / 10.0) as u64;
            w.on_feedback(&cfg, &acked(chunk), &measurements(1000 + i, 0, 20_000));
        }
        let grown = w.cwnd - before;
        assert!((grown - 1000.0).abs() < 60.0, "{grown}");
        assert!((w.off_target() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn the_window_does_not_grow_past_the_flight_plus_one_packet() {
        let cfg = settings();
        let mut w = Cwnd::new(&cfg, true);
        w.on_sent(2000);
        for i in 0..100 {
            w.on_feedback(&cfg, &acked(2000), &measurements(1000 + i, 0, 2000));
        }
        assert_eq!(
            w.cwnd_bytes(),
            10_000,
            "an unused window stays where it was"
        );
    }

    #[test]
    fn at_twice_the_target_a_window_of_acks_removes_gain_down_packets() {
        let cfg = settings();
        let mut w = Cwnd::new(&cfg, true);
        let before = w.cwnd;
        for i in 0..10 {
            let chunk = (before / 10.0) as u64;
            w.on_feedback(&cfg, &acked(chunk), &measurements(1000 + i, 160, 0));
        }
        let shrunk = before - w.cwnd;
        assert!((shrunk - 1000.0).abs() < 60.0, "{shrunk}");
    }

    #[test]
    fn loss_backs_off_once_per_srtt_and_never_below_two_packets() {
        let cfg = settings();
        let mut w = Cwnd::new(&cfg, true);
        let lost = AckSummary {
            packets_lost: 1,
            ..AckSummary::default()
        };
        let r = w.on_feedback(&cfg, &lost, &measurements(1000, 0, 0));
        assert_eq!(r, Some((BackOffCause::Loss, 10_000, 8000)));
        assert_eq!(w.on_feedback(&cfg, &lost, &measurements(1049, 0, 0)), None);
        assert!(
            w.on_feedback(&cfg, &lost, &measurements(1050, 0, 0))
                .is_some()
        );
        for i in 0..100 {
            w.on_feedback(&cfg, &lost, &measurements(2000 + 50 * i, 0, 0));
        }
        assert_eq!(w.cwnd_bytes(), 3000);
    }

    #[test]
    fn ce_is_a_loss_only_for_a_sender_that_asked_for_ecn() {
        let cfg = settings();
        let marked = AckSummary {
            bytes_acked: 1000,
            packets_acked: 1,
            packets_ce: 1,
            ..AckSummary::default()
        };
        let mut w = Cwnd::new(&cfg, true);
        let r = w.on_feedback(&cfg, &marked, &measurements(1000, 0, 0));
        assert_eq!(r, Some((BackOffCause::Ce, 10_000, 8000)));
        let mut w = Cwnd::new(&cfg, false);
        assert_eq!(
            w.on_feedback(&cfg, &marked, &measurements(1000, 0, 0)),
            None
        );
    }
}
