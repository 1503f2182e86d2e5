//! The congestion window of SCReAM V1 (RFC 8298 §4.1.2 as the Ericsson code runs it):
//! fast increase, the LEDBAT-like law around the queue delay target, loss, classic ECN
//! and L4S back-offs, the queue delay trend, window validation and the pacing rate.

use super::config::V1Config;
use super::delay::{FRACTION_SLOTS, OwdEstimator, trend};
use crate::time::{Duration, Instant};
use crate::units::Bitrate;

/// Most one-second slots of bytes-in-flight history (reference: 60).
const MAX_BIF_SLOTS: usize = 60;
/// Interval of the queue-delay fraction history, validation and trend updates.
const HIST_INTERVAL: Duration = Duration::from_millis(50);
/// Minimum time between window updates without an event or a new frame.
const MIN_UPDATE_INTERVAL: Duration = Duration::from_millis(10);
/// How long after the start the trend is held at 0.
const TREND_HOLD: Duration = Duration::from_secs(2);
/// Least time between two base delay resets.
const BASE_RESET_INTERVAL: Duration = Duration::from_secs(20);
/// Upper bound of the CE-event and `l4s_alpha` guard interval (the sRTT, at most this).
const CE_GUARD_MAX: Duration = Duration::from_millis(30);
/// L4S is taken as active this long after the last CE event.
const L4S_ACTIVE_SPAN: Duration = Duration::from_secs(10);
/// Pacing rate floor (RFC 8298 `RATE_PACE_MIN` 50 kbit/s; the code 100 kbit/s).
const RATE_PACE_MIN_BPS: f64 = 1e5;
/// Below this total rate the fast increase grows by two MSS per update.
const LOW_RATE_BPS: f64 = 1e5;
/// Packet size the code resets its learnt MSS to every second, bytes.
pub(crate) const INIT_MSS: u64 = 100;

/// What the window law reads of the streams at a window update.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct StreamView {
    /// Sum of the streams' (internal) targets, bit/s.
    pub(crate) total_target: f64,
    /// Sum of the streams' measured RTP rates, bit/s.
    pub(crate) total_rtp_rate: f64,
    /// Sum over streams of the larger of transmitted and acknowledged rate, bit/s.
    pub(crate) max_rate: f64,
    /// Target-weighted frame-size scale of the streams whose scale exceeds 1 (1 if
    /// none).
    pub(crate) pacing_scale: f64,
}

/// Congestion events found in one feedback.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Events {
    pub(crate) loss: bool,
    pub(crate) ce: bool,
}

/// State of the V1 congestion window.
#[derive(Debug, Clone)]
pub(crate) struct Window {
    pub(crate) cwnd: u64,
    pub(crate) cwnd_min: u64,
    /// Largest packet since the last one-second reset (the code's learnt MSS).
    pub(crate) mss: u64,
    pub(crate) in_fast_start: bool,
    pub(crate) post_congestion_scale: f64,
    last_congestion: Option<Instant>,
    last_cwnd_update: Option<Instant>,
    pub(crate) bytes_newly_acked: u64,
    pub(crate) l4s_alpha: f64,
    bytes_delivered: u64,
    bytes_marked: u64,
    last_l4s_alpha_update: Option<Instant>,
    last_loss_event: Option<Instant>,
    last_ce_event: Option<Instant>,
    pub(crate) l4s_active: bool,
    pub(crate) owd: OwdEstimator,
    pub(crate) qdelay_fraction_avg: f64,
    fraction_hist: [f64; FRACTION_SLOTS],
    fraction_ptr: usize,
    pub(crate) qdelay_trend: f64,
    pub(crate) qdelay_target: Duration,
    last_hist_add: Option<Instant>,
    queue_delay_min: f64,
    queue_delay_min_avg: f64,
    base_reset_at: Option<Instant>,
    bif_lo: [u64; MAX_BIF_SLOTS],
    bif_hi: [u64; MAX_BIF_SLOTS],
    bif_ptr: usize,
    bif_acc_sum: u64,
    bif_acc_n: u64,
    bif_max_hi: u64,
    bif_lo_mem: u64,
    bif_hi_mem: u64,
    last_bif_slot: Option<Instant>,
    pub(crate) max_bytes_in_flight: f64,
    /// The window was validated (capped) at the last update.
    pub(crate) validated: bool,
    /// Pacing rate, or `None` when pacing is off (too little queue delay).
    pub(crate) pacing_rate: Option<Bitrate>,
    /// Frame-size scale of the pacing rate and the send window, at least 1.
    pub(crate) adaptive_scale: f64,
    pub(crate) bytes_in_flight_ratio: f64,
    pub(crate) new_frame: bool,
    started: Option<Instant>,
}

impl Window {
    pub(crate) fn new(cfg: &V1Config) -> Self {
        let cwnd_min = u64::from(cfg.min_cwnd_bytes).max(2 * INIT_MSS);
        Self {
            cwnd: u64::from(cfg.initial_cwnd_bytes).max(cwnd_min),
            cwnd_min,
            mss: INIT_MSS,
            in_fast_start: true,
            post_congestion_scale: 1.0,
            last_congestion: None,
            last_cwnd_update: None,
            bytes_newly_acked: 0,
            l4s_alpha: 0.1f64.min(cfg.l4s_alpha_max),
            bytes_delivered: 0,
            bytes_marked: 0,
            last_l4s_alpha_update: None,
            last_loss_event: None,
            last_ce_event: None,
            // As the code: active until the first feedback says otherwise.
            l4s_active: true,
            owd: OwdEstimator::default(),
            qdelay_fraction_avg: 0.0,
            fraction_hist: [0.0; FRACTION_SLOTS],
            fraction_ptr: 0,
            qdelay_trend: 0.0,
            qdelay_target: cfg.qdelay_target_lo,
            last_hist_add: None,
            queue_delay_min: 1000.0,
            queue_delay_min_avg: 0.0,
            base_reset_at: None,
            bif_lo: [0; MAX_BIF_SLOTS],
            bif_hi: [0; MAX_BIF_SLOTS],
            bif_ptr: 0,
            bif_acc_sum: 0,
            bif_acc_n: 0,
            bif_max_hi: 0,
            bif_lo_mem: 0,
            bif_hi_mem: 0,
            last_bif_slot: None,
            max_bytes_in_flight: 0.0,
            validated: false,
            pacing_rate: None,
            adaptive_scale: 1.0,
            bytes_in_flight_ratio: 0.0,
            new_frame: false,
            started: None,
        }
    }

    /// The first input: timers start here.
    pub(crate) fn start(&mut self, now: Instant) {
        if self.started.is_none() {
            self.started = Some(now);
            self.last_hist_add = Some(now);
            self.last_bif_slot = Some(now);
        }
    }

    /// Current queue delay, seconds.
    fn qd(&self) -> f64 {
        self.owd.queue_delay().as_secs_f64()
    }

    fn target_s(&self) -> f64 {
        self.qdelay_target.as_secs_f64()
    }

    /// The send window: bytes in flight may reach this (plus one MSS while the queue
    /// delay is below its target).
    pub(crate) fn send_limit(&self) -> u64 {
        let w = (self.cwnd as f64 * self.adaptive_scale) as u64;
        if self.owd.queue_delay() < self.qdelay_target {
            w + self.mss
        } else {
            w
        }
    }

    /// A packet of `size` bytes is about to leave with `bif_before` bytes in flight.
    pub(crate) fn on_sent(&mut self, size: u64, bif_before: u64) {
        self.bif_max_hi = self.bif_max_hi.max(bif_before);
        self.raise_mss(size);
        self.cwnd_min = self.cwnd_min.max(2 * self.mss);
        self.cwnd = self.cwnd.max(self.cwnd_min);
    }

    /// Learns a larger packet size.
    pub(crate) fn raise_mss(&mut self, size: u64) {
        self.mss = self.mss.max(size);
    }

    /// The once-per-second bytes-in-flight history slot and MSS reset.
    pub(crate) fn tick(&mut self, cfg: &V1Config, now: Instant, min_cwnd_bytes: u64) {
        let Some(last) = self.last_bif_slot else {
            return;
        };
        if now.saturating_duration_since(last) <= Duration::from_secs(1) {
            return;
        }
        let size = (cfg.bytes_in_flight_history_size.round() as usize).clamp(1, MAX_BIF_SLOTS);
        let lo = self.bif_acc_sum.checked_div(self.bif_acc_n).unwrap_or(0);
        self.bif_ptr %= size;
        self.bif_lo[self.bif_ptr] = lo;
        self.bif_hi[self.bif_ptr] = self.bif_max_hi;
        self.bif_ptr = (self.bif_ptr + 1) % size;
        self.bif_acc_sum = 0;
        self.bif_acc_n = 0;
        self.bif_max_hi = 0;
        self.bif_lo_mem = self.bif_lo[..size].iter().copied().max().unwrap_or(0);
        self.bif_hi_mem = self.bif_hi[..size].iter().copied().max().unwrap_or(0);
        self.mss = INIT_MSS;
        self.cwnd_min = min_cwnd_bytes.max(3 * self.mss);
        self.cwnd = self.cwnd.max(self.cwnd_min);
        self.last_bif_slot = Some(now);
    }

    /// A feedback acknowledged `packets` packets of `bytes` (`ce_bytes` of them
    /// CE-marked) with `bif` bytes in flight before it.
    pub(crate) fn on_acked(&mut self, bif: u64, packets: u64, bytes: u64, ce_bytes: u64) {
        self.bif_acc_sum = self.bif_acc_sum.saturating_add(bif.saturating_mul(packets));
        self.bif_acc_n += packets;
        self.bytes_delivered += bytes;
        self.bytes_marked += ce_bytes;
    }

    /// The events of one feedback: loss at most once per sRTT, CE at most once per
    /// `min(30 ms, sRTT)` (sharing the loss timer); updates `l4s_alpha`.
    pub(crate) fn detect_events(
        &mut self,
        cfg: &V1Config,
        now: Instant,
        srtt: Duration,
        lost: bool,
        ce: bool,
        l4s: bool,
    ) -> Events {
        let since = |t: Option<Instant>| t.map(|t| now.saturating_duration_since(t));
        let mut ev = Events::default();
        if lost && cfg.beta_loss < 1.0 && since(self.last_loss_event).is_none_or(|d| d > srtt) {
            ev.loss = true;
        }
        let guard = CE_GUARD_MAX.min(srtt);
        if ce && since(self.last_loss_event).is_none_or(|d| d > guard) {
            ev.ce = true;
            self.last_loss_event = Some(now);
            self.last_ce_event = Some(now);
        }
        if l4s && since(self.last_l4s_alpha_update).is_none_or(|d| d > guard) {
            self.last_l4s_alpha_update = Some(now);
            if self.bytes_delivered > 0 {
                let f = self.bytes_marked as f64 / self.bytes_delivered as f64;
                let g = cfg.l4s_avg_g;
                self.l4s_alpha = (g * f + (1.0 - g) * self.l4s_alpha).min(cfg.l4s_alpha_max);
                self.bytes_delivered = 0;
                self.bytes_marked = 0;
            }
        }
        if ev.loss || ev.ce {
            self.last_loss_event = Some(now);
        }
        ev
    }

    /// Whether a window update is due: 10 ms since the last, an event, or a new frame.
    pub(crate) fn update_due(&mut self, now: Instant, ev: Events) -> bool {
        let last = *self.last_cwnd_update.get_or_insert(now);
        now.saturating_duration_since(last) > MIN_UPDATE_INTERVAL
            || ev.loss
            || ev.ce
            || self.new_frame
    }

    /// After the feedback: whether L4S counts as active (a CE event within 10 s).
    pub(crate) fn end_feedback(&mut self, now: Instant, l4s: bool) {
        let last_ce = self.last_ce_event.or(self.started);
        self.l4s_active =
            l4s && last_ce.is_some_and(|t| now.saturating_duration_since(t) < L4S_ACTIVE_SPAN);
    }

    /// The window update (the code's `updateCwnd`). `bif` is the bytes in flight
    /// after this feedback. Returns the window before a back-off, if one happened.
    pub(crate) fn update(
        &mut self,
        cfg: &V1Config,
        now: Instant,
        ev: Events,
        bif: u64,
        l4s: bool,
        view: &StreamView,
    ) -> Option<u64> {
        let dt = self
            .last_cwnd_update
            .map_or(0.001, |t| now.saturating_duration_since(t).as_secs_f64());
        let mss = self.mss as f64;
        let acked_lim = if view.max_rate > LOW_RATE_BPS {
            (self.bytes_newly_acked as f64).min(1.25 * view.max_rate * dt / 8.0)
        } else {
            2.0 * mss
        };
        let target = self.target_s();
        self.track_queue_delay(cfg, now, target);
        self.update_pacing(cfg, l4s, view);
        self.every_50ms(cfg, now, bif);

        let before = self.cwnd;
        let backed_off = self.back_off(cfg, ev, l4s);
        if backed_off {
            self.last_congestion = Some(now);
            self.in_fast_start = false;
            self.post_congestion_scale = 0.0;
        } else {
            self.grow(cfg, now, bif, acked_lim, target);
        }
        self.settle(cfg, now);
        self.bytes_newly_acked = 0;
        self.last_cwnd_update = Some(now);
        self.new_frame = false;
        backed_off.then_some(before)
    }

    /// The smallest and the average queue delay of the window update; a standing
    /// queue resets the base delay.
    fn track_queue_delay(&mut self, cfg: &V1Config, now: Instant, target: f64) {
        self.queue_delay_min = self.queue_delay_min.min(self.qd());
        let reset_allowed = self
            .base_reset_at
            .or(self.started)
            .is_none_or(|t| now.saturating_duration_since(t) > BASE_RESET_INTERVAL);
        if self.queue_delay_min_avg > 0.25 * target && reset_allowed {
            // The code's "base OWD reset": a standing queue becomes the new zero.
            self.owd.reset();
            self.queue_delay_min_avg = 0.0;
            self.base_reset_at = Some(now);
        }
        let fraction = self.qd() / target;
        self.qdelay_fraction_avg =
            (1.0 - cfg.qdelay_weight) * self.qdelay_fraction_avg + cfg.qdelay_weight * fraction;
    }

    /// The back-off on loss or ECN-CE (L4S: in proportion to `l4s_alpha`); returns
    /// whether it backed off.
    fn back_off(&mut self, cfg: &V1Config, ev: Events, l4s: bool) -> bool {
        let cwnd = self.cwnd as f64;
        if ev.loss {
            self.cwnd = self.cwnd_min.max((cfg.beta_loss * cwnd) as u64);
            true
        } else if ev.ce {
            let scaled = if l4s {
                ((1.0 - self.l4s_alpha / (2.0 * cfg.packet_pacing_headroom)) * cwnd) as u64
                    + self.mss
            } else {
                (cfg.beta_ecn * cwnd) as u64
            };
            self.cwnd = self.cwnd_min.max(scaled);
            true
        } else {
            false
        }
    }

    /// Without loss or CE: fast increase while the queue delay does not rise, else the
    /// LEDBAT-like law towards the queue delay `target` (s), up when below it and down
    /// when above; `acked_lim` bounds the bytes an increase counts.
    fn grow(&mut self, cfg: &V1Config, now: Instant, bif: u64, acked_lim: f64, target: f64) {
        let mss = self.mss as f64;
        let cwnd = self.cwnd as f64;
        let off_target = (target - self.qd()) / target;
        let since = self.last_congestion.map_or(f64::INFINITY, |t| {
            now.saturating_duration_since(t).as_secs_f64()
        });
        self.post_congestion_scale =
            (since / cfg.post_congestion_delay.as_secs_f64()).clamp(0.0, 1.0);
        let used = (bif + self.bytes_newly_acked) as f64;
        if self.in_fast_start {
            if self.qdelay_trend < cfg.qdelay_trend_th {
                if used * 1.5 > cwnd {
                    self.cwnd += (self.post_congestion_scale * acked_lim) as u64;
                }
            } else {
                self.in_fast_start = false;
            }
        } else if off_target > 0.0 {
            if used * 1.2 > cwnd {
                self.cwnd += (cfg.gain_up * off_target * acked_lim * mss / cwnd + 0.5) as u64;
            }
        } else {
            let delta = (cfg.gain_down * -off_target * self.bytes_newly_acked as f64 * mss / cwnd)
                .min(cwnd / 4.0);
            self.cwnd = self.cwnd.saturating_sub(delta as u64);
            self.last_congestion = Some(now);
        }
    }

    /// After the update: the window capped at the bytes in flight it was seen to need
    /// (validated), never below its minimum; congestion noted on a rising queue delay,
    /// fast increase resumed after a long calm.
    fn settle(&mut self, cfg: &V1Config, now: Instant) {
        self.validated = false;
        if self.max_bytes_in_flight > 5000.0 && self.last_congestion.is_some() {
            let cap = self.max_bytes_in_flight as u64;
            if self.cwnd > cap {
                self.cwnd = cap;
                self.validated = true;
            }
        }
        self.cwnd = self.cwnd.max(self.cwnd_min);
        if self.qdelay_trend > cfg.qdelay_trend_th {
            self.last_congestion = Some(now);
        } else if !self.in_fast_start
            && self
                .last_congestion
                .is_none_or(|t| now.saturating_duration_since(t) > cfg.t_resume_fast_increase)
        {
            self.in_fast_start = true;
            self.last_congestion = Some(now);
        }
    }

    /// The pacing rate, recomputed at each window update.
    fn update_pacing(&mut self, cfg: &V1Config, l4s: bool, view: &StreamView) {
        self.adaptive_scale = 1.0;
        self.pacing_rate = None;
        if self.qdelay_fraction_avg > 0.02 || l4s {
            let mut headroom = cfg.packet_pacing_headroom;
            if self.last_congestion.is_none() {
                headroom = headroom.max(1.5);
            }
            self.adaptive_scale = view.pacing_scale.max(1.0);
            headroom *= self.adaptive_scale;
            let rate =
                (headroom * view.total_target.max(view.total_rtp_rate)).max(RATE_PACE_MIN_BPS);
            self.pacing_rate = Some(Bitrate::from_bps(rate));
        }
    }

    /// Every 50 ms inside a window update: queue-delay minimum, fraction history,
    /// trend and the validation limit.
    fn every_50ms(&mut self, cfg: &V1Config, now: Instant, bif: u64) {
        let last = *self.last_hist_add.get_or_insert(now);
        let elapsed = now.saturating_duration_since(last);
        if elapsed <= HIST_INTERVAL {
            return;
        }
        self.queue_delay_min_avg = if self.queue_delay_min < self.queue_delay_min_avg {
            self.queue_delay_min
        } else {
            0.001 * self.queue_delay_min + 0.999 * self.queue_delay_min_avg
        };
        self.queue_delay_min = 1000.0;
        let k = (elapsed.as_nanos() / HIST_INTERVAL.as_nanos()).min(FRACTION_SLOTS as u128);
        let fraction = self.qd() / self.target_s();
        for _ in 0..k {
            self.fraction_hist[self.fraction_ptr] = fraction;
            self.fraction_ptr = (self.fraction_ptr + 1) % FRACTION_SLOTS;
        }
        if self
            .started
            .is_some_and(|t| now.saturating_duration_since(t) > TREND_HOLD)
        {
            let mut ordered = [0.0; FRACTION_SLOTS];
            for (i, v) in ordered.iter_mut().enumerate() {
                *v = self.fraction_hist[(self.fraction_ptr + i) % FRACTION_SLOTS];
            }
            self.qdelay_trend = trend(&ordered, self.qdelay_fraction_avg);
        }
        let hi = self.bif_max_hi.max(self.bif_hi_mem) as f64;
        let lo = (bif + self.bytes_newly_acked).max(self.bif_lo_mem) as f64;
        let t = self.qdelay_trend;
        self.max_bytes_in_flight = (hi * (1.0 - t) + lo * t) * cfg.max_bytes_in_flight_head_room;
        self.last_hist_add = Some(now);
    }
}
