//! The draft-00 congestion window (draft-johansson-rmcat-scream-cc-00 §9.1.2-§9.1.4):
//! LEDBAT's law on the one-way queue delay, which grows only while the pipe is filled
//! enough (the headroom), shrinks up to twice as fast while the delay does not fall on
//! long RTTs, and backs off by `beta` on a loss event, at most once per RTT.

use super::config::Draft00Config;
use crate::sender::generation::contract::{AckSummary, BackOffCause, Measurements};
use crate::time::{Duration, Instant};

/// Packet size assumed before the first packet (§9.1.2 `MSS_INIT` = 1200 bytes).
pub(crate) const MSS_INIT: u64 = 1200;
/// The loss back-off never goes below this many packets (§9.1.2 `cwndMin = 2*mss`).
const CWND_MIN_PACKETS: f64 = 2.0;
/// The window never goes below this many packets after an update (§9.1.4
/// `cwnd = max(3*mtuMax, cwnd)`; `mtuMax` is taken as the largest packet sent, the
/// draft's `mss`).
const CWND_FLOOR_PACKETS: f64 = 3.0;
/// `offTarget` is clamped at this value on decrease (§9.1.4 `max(-3.0, offTarget)`),
/// so a queue four times the target shrinks the window no faster than one at that.
const OFF_TARGET_FLOOR: f64 = -3.0;
/// RTT at which the fast decrease starts to count (§9.1.4 `max(0.1, getRtt())/0.1`):
/// the RTT factor is 1 up to 100 ms and grows with the RTT above.
const RTT_FACTOR_REF: Duration = Duration::from_millis(100);
/// Largest RTT factor of the fast decrease (§9.1.4 `Math.min(2.0, ...)`).
const RTT_FACTOR_MAX: f64 = 2.0;

/// Congestion window state.
#[derive(Debug, Clone)]
pub(crate) struct Cwnd {
    cwnd: f64,
    /// When the window last backed off for a loss event (§9.1.3 `lastLossEvent`).
    last_loss_event: Option<Instant>,
    /// Largest packet sent so far, at least `MSS_INIT` (§9.1.2 `mss`).
    mss: u64,
    /// The queue delay of the previous feedback (§9.1.4 `lastOwd`).
    last_owd: Duration,
    /// The queue delay of the latest feedback (§9.1.3 `owd`).
    owd: Duration,
    /// The latest normalised distance to the OWD target (§9.1.4 `offTarget`).
    off_target: f64,
    /// The latest growth headroom (§9.1.4 `cwndHeadroom`).
    headroom: f64,
    /// Whether CE marks count as congestion (the packets are sent ECN-capable).
    react_to_ce: bool,
}

impl Cwnd {
    pub(crate) fn new(cfg: &Draft00Config, react_to_ce: bool) -> Self {
        let mut w = Self {
            cwnd: f64::from(cfg.initial_cwnd_bytes),
            last_loss_event: None,
            mss: MSS_INIT,
            last_owd: Duration::ZERO,
            owd: Duration::ZERO,
            off_target: 0.0,
            headroom: cfg.cwnd_headroom_max,
            react_to_ce,
        };
        w.cwnd = w.cwnd.max(w.floor());
        w
    }

    pub(crate) fn cwnd_bytes(&self) -> u64 {
        self.cwnd.round() as u64
    }

    /// The draft's `mss`: the largest packet sent so far, at least `MSS_INIT`.
    pub(crate) fn mss(&self) -> u64 {
        self.mss
    }

    /// The queue delay of the latest feedback (the draft's `owd`).
    pub(crate) fn owd(&self) -> Duration {
        self.owd
    }

    /// The normalised distance of the latest queue delay to the OWD target: 1 at an
    /// empty queue, 0 at the target, negative above it.
    pub(crate) fn off_target(&self) -> f64 {
        self.off_target
    }

    /// The latest growth headroom (§9.1.4 `cwndHeadroom`).
    pub(crate) fn headroom(&self) -> f64 {
        self.headroom
    }

    /// §9.1.2: a packet may leave only while `bytesInFlight + size < cwnd`, so the
    /// largest flight allowed is one byte below the window.
    pub(crate) fn send_limit_bytes(&self) -> u64 {
        (self.cwnd.ceil() as u64).saturating_sub(1)
    }

    /// A packet of `size` bytes left (§9.1.2: `mss = max(mss, size)`).
    pub(crate) fn on_sent(&mut self, size: u32) {
        self.mss = self.mss.max(u64::from(size));
    }

    fn floor(&self) -> f64 {
        CWND_FLOOR_PACKETS * self.mss as f64
    }

    /// Updates the window for one feedback (§9.1.3 then §9.1.4); returns the back-off
    /// it made, if any, with the window before and after it, bytes.
    pub(crate) fn on_feedback(
        &mut self,
        cfg: &Draft00Config,
        ack: &AckSummary,
        m: &Measurements,
    ) -> Option<(BackOffCause, u64, u64)> {
        let now = m.now;
        let mss = self.mss as f64;
        self.owd = m.queue_delay;

        // §9.1.3: a loss event counts only if more than an RTT passed since the last
        // one. CE counts as a loss for a sender that asked for ECN (chosen).
        let congested = ack.packets_lost > 0 || (self.react_to_ce && ack.packets_ce > 0);
        let rested = self
            .last_loss_event
            .is_none_or(|t| now.saturating_duration_since(t) > m.srtt);
        let mut back_off = None;
        if congested && rested {
            self.last_loss_event = Some(now);
            let before = self.cwnd_bytes();
            self.cwnd = (cfg.beta_loss * self.cwnd).max(CWND_MIN_PACKETS * mss);
            let cause = if ack.packets_lost > 0 {
                BackOffCause::Loss
            } else {
                BackOffCause::Ce
            };
            back_off = Some((cause, before, self.cwnd_bytes()));
        }

        // §9.1.4, after the back-off (the draft's code goes on with the same
        // feedback): every acknowledged byte moves the window by
        // gain · offTarget · mss / cwnd.
        let target = cfg.owd_target.as_secs_f64();
        let owd = self.owd.as_secs_f64();
        self.off_target = (target - owd) / target;
        self.headroom = cfg.cwnd_headroom_min
            + self.off_target.max(0.0) * (cfg.cwnd_headroom_max - cfg.cwnd_headroom_min);
        let per_byte = ack.bytes_acked as f64 * mss / self.cwnd;
        if self.off_target > 0.0 {
            // Grow only while the pipe is filled enough: the nearer the target, the
            // fuller it must be.
            if m.bytes_in_flight as f64 * self.headroom > self.cwnd {
                self.cwnd += cfg.gain_up * self.off_target * per_byte;
            }
        } else {
            // Shrink faster, on RTTs above 100 ms, while the delay holds or rises.
            let rtt_factor = if self.owd >= self.last_owd {
                (m.srtt.max(RTT_FACTOR_REF).as_secs_f64() / RTT_FACTOR_REF.as_secs_f64())
                    .min(RTT_FACTOR_MAX)
            } else {
                1.0
            };
            self.cwnd +=
                cfg.gain_down * rtt_factor * self.off_target.max(OFF_TARGET_FLOOR) * per_byte;
        }
        self.cwnd = self.cwnd.max(self.floor());
        self.last_owd = self.owd;
        back_off
    }
}

#[cfg(test)]
mod tests;
