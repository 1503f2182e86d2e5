//! The SCReAM V2 reference window (draft §"Network Congestion Control"): back-off on loss, classic ECN-CE,
//! L4S CE fraction and queue delay ("virtual L4S"), and the adaptive multiplicative
//! increase, capped by the recent maximum of bytes in flight.

use super::V2Settings;
use crate::sender::config::EcnMode;
use crate::sender::generation::contract::{AckSummary, BackOffCause, Measurements};
use crate::time::{Duration, Instant};

/// `l4s_alpha` is updated at least this often (draft §"Network Congestion Control": every min(10 ms, s_rtt)).
const L4S_ALPHA_UPDATE: Duration = Duration::from_millis(10);
/// Lowest value of the inflection-point scale `scl_i` (draft §"Network Congestion
/// Control" reference window increase: 0.1); it restrains the multiplicative part of
/// the increase.
const SCL_LOW: f64 = 0.1;
/// Lowest scale of the additive part of the increase near the inflection point
/// (reference implementation: 0.25). With the draft's 0.1 the window needs several
/// seconds to climb back past the previous congestion point after a capacity drop.
const SCL_INCREMENT_LOW: f64 = 0.25;
/// Gain of the relative distance to the inflection point before squaring (reference
/// implementation: 8; the draft's 4 keeps the growth restrained up to 25 % above the
/// inflection point instead of 12.5 %).
const SCL_GAIN: f64 = 8.0;
/// L4S back-offs are scaled down to this fraction when the total target is already
/// below [`ACKED_RATE_FRACTION`] of the acknowledged rate (reference implementation):
/// the encoder is behind the window, so a full back-off would only starve it.
const RATE_LIMITED_BACKOFF: f64 = 0.25;
/// See [`RATE_LIMITED_BACKOFF`] (reference `kTotalAckedBitrateFraction`).
const ACKED_RATE_FRACTION: f64 = 0.8;
/// Below this fraction of the queue delay target the L4S back-off is scaled by the
/// inflection-point scale and the queue-delay steadiness (reference implementation),
/// each no lower than [`SMALL_QUEUE_BACKOFF_MIN`]: marks at a small queue near the
/// previous congestion point call for a gentle reaction.
const SMALL_QUEUE_FRACTION: f64 = 0.25;
const SMALL_QUEUE_BACKOFF_MIN: f64 = 0.25;
/// Growth beyond the recent bytes in flight is restrained in proportion to the
/// queue-delay variation, down to this factor (reference `latencyDiffCwndScale`
/// lower limit 0.1).
const STEADINESS_MIN: f64 = 0.1;
/// History of bytes-in-flight maxima used to cap the window at the maximum rate:
/// 20 entries of 50 ms (reference `kMaxBytesInFlightHistSize`, slow update interval).
const BIF_HIST_LEN: usize = 20;
const BIF_HIST_PERIOD: Duration = Duration::from_millis(50);
/// The window is capped once the total target exceeds this fraction of the total
/// maximum bitrate (reference: 0.95).
const NEAR_MAX_RATE: f64 = 0.95;
/// After this many RTTs without congestion the window may have outgrown the real
/// bytes in flight; the next L4S back-off starts from the bytes in flight (draft
/// §"Network Congestion Control", 100 RTTs of at least `VIRTUAL_RTT`).
const LONG_UNCONGESTED_RTTS: u32 = 100;

/// `delay-convergence`: the delay-based (virtual L4S) back-off sets in at this
/// fraction of the queue delay target (faithful: one half), so that it acts at the
/// queue levels that delay-based flows actually settle at.
const CONVERGENCE_ONSET: f64 = 0.25;

/// `outage-recovery`: the window regrows fast while it is below this fraction of its
/// recent peak,...
const REGROW_FRACTION: f64 = 0.5;
/// ...the largest window of the last 5 to 10 s (two buckets of this span)...
const PEAK_BUCKET: Duration = Duration::from_secs(5);
/// ...and no congestion event came in this many RTTs (of at least `VIRTUAL_RTT`).
const REGROW_QUIET_RTTS: u32 = 2;
/// `outage-recovery`: from this many stalls in a row with nothing acknowledged in
/// between (a silence of about 0.3 s or more), each one halves the window. A shorter
/// outage leaves the window as it was: capacity usually returns where it was.
const STALLS_BEFORE_BACKOFF: u32 = 3;
const STALL_BACKOFF: f64 = 0.5;

/// `delay-convergence` acts only on windows whose multiplicative increase is at least
/// this many times the additive one (the increase per RTT is about
/// `mss + mul_increase_factor · ref_wnd`): additive increase and the proportional
/// back-off already equalise smaller windows, and freeing their growth only raised the
/// queue of many small flows.
const CONVERGENCE_MUL_DOMINANCE: f64 = 2.0;

/// Send window headroom over the reference window: `REF_WND_OVERHEAD` when the queue
/// delay varies, up to `ref_wnd_overhead_max` when it is steady (reference adaptive
/// window headroom; the draft multiplies by `rel_framesize_high` instead).
pub(crate) fn headroom(cfg: &V2Settings, steadiness: f64) -> f64 {
    cfg.ref_wnd_overhead
        + (cfg.ref_wnd_overhead_max - cfg.ref_wnd_overhead) * steadiness.clamp(0.0, 1.0)
}

/// What shapes the window growth of one feedback besides the measurements.
#[derive(Clone, Copy, Debug)]
struct Growth {
    /// The inflection-point scale before this feedback's back-off.
    scl: f64,
    /// `delay-convergence` acts (delay-only flow).
    converge: bool,
    /// `outage-recovery` regrowth acts (far below the recent peak, no congestion).
    regrow: bool,
}

/// The congestion signals of one feedback that call for a back-off, and the scales of
/// the reaction.
#[derive(Clone, Copy, Debug)]
struct Signals {
    /// Loss calls for a back-off.
    loss: bool,
    /// ECN-CE calls for a back-off (not the marks of an L4S queue already draining).
    ce: bool,
    /// The delay-based virtual CE fraction, already divided by `per_rtt`; 0 when the
    /// queue delay calls for no back-off.
    alpha_v: f64,
    /// Back-offs that fit in one RTT (at least 1): each is scaled down by it.
    per_rtt: f64,
    /// Scale of the back-off: below 1 when the encoder is behind the window.
    limited_scale: f64,
    /// Time since the previous congestion event.
    since: Duration,
}

/// Reference window state.
#[derive(Debug, Clone)]
pub(crate) struct RefWindow {
    ref_wnd: f64,
    ref_wnd_i: f64,
    inflection_blocked: bool,
    l4s_alpha: f64,
    packets_delivered: u64,
    packets_marked: u64,
    last_alpha_update: Option<Instant>,
    last_congestion: Option<Instant>,
    max_bif: u64,
    max_bif_prev: u64,
    last_bif_roll: Option<Instant>,
    bif_hist: [u64; BIF_HIST_LEN],
    bif_hist_idx: usize,
    last_bif_hist: Option<Instant>,
    min_wnd: f64,
    app_limited: bool,
    /// Largest window in the current [`PEAK_BUCKET`], which started at `peak_at`...
    peak: f64,
    /// ...and in the one before.
    peak_prev: f64,
    peak_at: Option<Instant>,
    /// A stall (an outage) happened since the last congestion event: the window may
    /// regrow fast (`outage-recovery`).
    regrow_armed: bool,
}

impl RefWindow {
    pub(crate) fn new(cfg: &V2Settings) -> Self {
        let min_wnd = f64::from(cfg.min_ref_wnd_bytes);
        Self {
            ref_wnd: f64::from(cfg.initial_ref_wnd_bytes).max(min_wnd),
            ref_wnd_i: 1.0,
            inflection_blocked: false,
            l4s_alpha: 0.0,
            packets_delivered: 0,
            packets_marked: 0,
            last_alpha_update: None,
            last_congestion: None,
            max_bif: 0,
            max_bif_prev: 0,
            last_bif_roll: None,
            bif_hist: [0; BIF_HIST_LEN],
            bif_hist_idx: 0,
            last_bif_hist: None,
            min_wnd,
            app_limited: false,
            peak: 0.0,
            peak_prev: 0.0,
            peak_at: None,
            regrow_armed: false,
        }
    }

    pub(crate) fn ref_wnd_bytes(&self) -> u64 {
        self.ref_wnd.round() as u64
    }

    pub(crate) fn l4s_alpha(&self) -> f64 {
        self.l4s_alpha
    }

    /// Whether the window exceeds what the recent bytes in flight can use (the
    /// streams send less than the window allows).
    pub(crate) fn app_limited(&self) -> bool {
        self.app_limited
    }

    /// Draft §"Send Window": bytes in flight may exceed the reference window by the headroom,
    /// plus one packet so that a full-size packet always fits a just-open window.
    pub(crate) fn send_limit_bytes(&self, cfg: &V2Settings, steadiness: f64, mss: u64) -> u64 {
        (self.ref_wnd * headroom(cfg, steadiness)).round() as u64 + mss
    }

    pub(crate) fn on_sent(&mut self, bytes_in_flight: u64) {
        self.max_bif = self.max_bif.max(bytes_in_flight);
    }

    /// Updates the window for one feedback; returns the back-off it made, if any, with
    /// the window before and after it, bytes.
    pub(crate) fn on_feedback(
        &mut self,
        cfg: &V2Settings,
        ack: &AckSummary,
        m: &Measurements,
    ) -> Option<(BackOffCause, u64, u64)> {
        let now = m.now;
        let srtt = m.srtt.max(Duration::from_micros(100));
        let mss = m.mss_bytes.max(1) as f64;
        self.min_wnd = f64::from(cfg.min_ref_wnd_bytes).max(2.0 * mss);
        let last_congestion = *self.last_congestion.get_or_insert(now);
        self.roll_bytes_in_flight(now, srtt, m.bytes_in_flight);
        self.update_l4s_alpha(cfg, ack, now, srtt);
        let converge = cfg.improvements.delay_convergence
            && cfg.ecn == EcnMode::None
            && self.ref_wnd * cfg.mul_increase_factor > CONVERGENCE_MUL_DOMINANCE * mss;
        self.note_peak(now);
        let signals = self.signals(cfg, ack, m, srtt, converge, last_congestion);
        // Taken before the back-off moves the window.
        let scl_i = self.inflection_scale();
        let backed_off = self.back_off(cfg, m, srtt, &signals, scl_i);
        let growth = Growth {
            scl: scl_i,
            converge,
            regrow: self.may_regrow(cfg, now, srtt),
        };
        self.increase(cfg, ack, m, srtt, mss, growth);
        self.cap_near_max_rate(cfg, m, srtt);
        self.ref_wnd = self.ref_wnd.max(self.min_wnd);
        backed_off
    }

    /// Keeps the largest window of the current and the previous [`PEAK_BUCKET`].
    fn note_peak(&mut self, now: Instant) {
        let started = *self.peak_at.get_or_insert(now);
        if now.saturating_duration_since(started) >= PEAK_BUCKET {
            self.peak_prev = self.peak;
            self.peak = 0.0;
            self.peak_at = Some(now);
        }
        self.peak = self.peak.max(self.ref_wnd);
    }

    /// The congestion signals of one feedback that call for a back-off now, and how
    /// strongly to react to them.
    fn signals(
        &self,
        cfg: &V2Settings,
        ack: &AckSummary,
        m: &Measurements,
        srtt: Duration,
        converge: bool,
        last_congestion: Instant,
    ) -> Signals {
        let now = m.now;
        // Draft §"Network Congestion Control": a congestion event needs a signal AND at least
        // min(VIRTUAL_RTT, s_rtt) since the previous event.
        let interval = cfg.virtual_rtt.min(srtt);
        let since = now.saturating_duration_since(last_congestion);
        let may_react = since >= interval;
        let loss = may_react && ack.packets_lost > 0 && cfg.beta_loss < 1.0;
        // A feedback whose packets were all CE-marked while the RTT falls reports a
        // queue that is already draining: an L4S marker with high thresholds keeps
        // marking for a while after the sender backed off (reference implementation).
        // A classic threshold marker marks every packet anyway, so this applies to L4S only.
        let draining = cfg.ecn == EcnMode::L4s
            && ack.packets_acked > 0
            && ack.packets_ce == ack.packets_acked
            && m.rtt_falling;
        let ce = may_react && ack.packets_ce > 0 && cfg.ecn != EcnMode::None && !draining;
        let target = cfg.qdelay_target.as_secs_f64();
        let qavg = m.qdelay_avg.as_secs_f64();
        // Several back-offs fit in one RTT when s_rtt > VIRTUAL_RTT; scale each down so
        // the reaction per RTT stays the same (reference implementation).
        let per_rtt = (m.srtt.as_secs_f64() / cfg.virtual_rtt.as_secs_f64()).max(1.0);
        let onset = target * if converge { CONVERGENCE_ONSET } else { 0.5 };
        // `delay-convergence`: a delay-based back-off answers only a queue that packets
        // sent after the previous back-off still find, one reaction per round trip of
        // data as TCP's recovery period has it (RFC 6582 §3.2, RFC 9002 §7.3.2). The
        // `may_react` interval assumes the sRTT is the RTT; behind a link that only
        // trickles, each report acknowledges a packet sent seconds earlier, before the
        // last back-off, and faithfully every such report backs off again: on a
        // near-dead stretch of 4.5 s the earlier onset took the window to its 3 kB
        // minimum (faithful: 24 kB) and the restart starved the flow for 2 s.
        let answered = !(cfg.improvements.delay_convergence && cfg.ecn == EcnMode::None)
            || m.newest_acked_sent_at.is_none_or(|t| t > last_congestion);
        let mut alpha_v = 0.0;
        if may_react && answered && qavg > onset && !self.l4s_active(cfg, m, srtt) {
            // The reference divides the virtual alpha by `per_rtt` both when computing
            // it and when applying it; without the second division the delay-based
            // back-off is twice as strong per RTT at 50 ms RTTs.
            alpha_v = ((qavg - onset) / (target - onset)).clamp(0.0, 1.0) / per_rtt;
        }
        // The encoder is already well below what gets through: a full back-off would
        // only starve it (reference implementation).
        let rate_limited = m.total_target.bps() < ACKED_RATE_FRACTION * m.rate_acked.bps();
        let limited_scale = if rate_limited {
            RATE_LIMITED_BACKOFF
        } else {
            1.0
        };
        Signals {
            loss,
            ce,
            alpha_v,
            per_rtt,
            limited_scale,
            since,
        }
    }

    /// One reaction per congestion event, the strongest signal first: loss, then CE,
    /// then the delay-based virtual CE (reference implementation). Returns the cause
    /// and the window before and after, bytes, if it backed off.
    fn back_off(
        &mut self,
        cfg: &V2Settings,
        m: &Measurements,
        srtt: Duration,
        sig: &Signals,
        scl_i: f64,
    ) -> Option<(BackOffCause, u64, u64)> {
        let virtual_ce = sig.alpha_v > 0.0;
        if !(sig.loss || sig.ce || virtual_ce) {
            return None;
        }
        let before = self.ref_wnd_bytes();
        if !self.inflection_blocked {
            self.ref_wnd_i = self.ref_wnd;
            self.inflection_blocked = true;
        }
        let cause = if sig.loss {
            BackOffCause::Loss
        } else if !sig.ce {
            BackOffCause::Delay
        } else if cfg.ecn == EcnMode::L4s {
            BackOffCause::L4s
        } else {
            BackOffCause::Ce
        };
        if sig.loss {
            self.ref_wnd *= cfg.beta_loss;
        } else if sig.ce && cfg.ecn == EcnMode::L4s {
            self.back_off_l4s(cfg, m, srtt, sig, scl_i);
        } else if sig.ce {
            self.ref_wnd *= cfg.beta_ecn;
        } else {
            self.ref_wnd *= 1.0 - sig.alpha_v / 2.0 * sig.limited_scale / sig.per_rtt;
        }
        self.ref_wnd = self.ref_wnd.max(self.min_wnd);
        self.last_congestion = Some(m.now);
        self.regrow_armed = false;
        Some((cause, before, self.ref_wnd_bytes()))
    }

    /// The L4S back-off: in proportion to `l4s_alpha`, gentler at a small queue near
    /// the inflection point, from the real bytes in flight after a long calm.
    fn back_off_l4s(
        &mut self,
        cfg: &V2Settings,
        m: &Measurements,
        srtt: Duration,
        sig: &Signals,
        scl_i: f64,
    ) {
        let target = cfg.qdelay_target.as_secs_f64();
        let mut backoff = self.l4s_alpha / 2.0 * sig.limited_scale / sig.per_rtt;
        if m.queue_delay.as_secs_f64() < target * SMALL_QUEUE_FRACTION {
            backoff *= scl_i.max(SMALL_QUEUE_BACKOFF_MIN);
            backoff *= m.steadiness.clamp(SMALL_QUEUE_BACKOFF_MIN, 1.0);
        }
        let long = cfg.virtual_rtt.max(srtt) * LONG_UNCONGESTED_RTTS;
        if sig.since > long {
            let prev = self.max_bif_prev.max(self.max_bif) as f64;
            if prev > 0.0 {
                self.ref_wnd = self.ref_wnd.min(prev);
            }
        }
        self.ref_wnd *= 1.0 - backoff;
    }

    /// `outage-recovery`: whether the window may regrow fast, far below its recent
    /// peak after a stall, with no congestion event for a while.
    fn may_regrow(&mut self, cfg: &V2Settings, now: Instant, srtt: Duration) -> bool {
        let quiet = cfg.virtual_rtt.max(srtt) * REGROW_QUIET_RTTS;
        let below_peak = self.ref_wnd < REGROW_FRACTION * self.peak.max(self.peak_prev);
        self.regrow_armed &= below_peak;
        cfg.improvements.outage_recovery
            && self.regrow_armed
            && self
                .last_congestion
                .is_none_or(|t| now.saturating_duration_since(t) >= quiet)
    }

    /// The flight was given up after a stall (`outage-recovery`), the `in_a_row`-th
    /// with nothing acknowledged since the first: past a few, nothing has been heard
    /// for so long that the window halves at each, as a TCP sender's does at each
    /// retransmission timeout.
    /// Returns the window before and after, bytes, if it shrank.
    pub(crate) fn on_stall(&mut self, in_a_row: u32) -> Option<(u64, u64)> {
        self.regrow_armed = true;
        if in_a_row < STALLS_BEFORE_BACKOFF {
            return None;
        }
        let before = self.ref_wnd_bytes();
        self.ref_wnd = (self.ref_wnd * STALL_BACKOFF).max(self.min_wnd);
        Some((before, self.ref_wnd_bytes()))
    }

    /// Whether L4S marking is evidently at work, in which case the delay-based
    /// back-off stands aside (draft §"Network Congestion Control": `l4s_alpha` at least the two marks per RTT
    /// expected at equilibrium).
    fn l4s_active(&self, cfg: &V2Settings, m: &Measurements, srtt: Duration) -> bool {
        if cfg.ecn != EcnMode::L4s {
            return false;
        }
        let mss_bits = m.mss_bytes as f64 * 8.0;
        let denom = m.total_target.bps() * srtt.as_secs_f64();
        denom > 0.0 && self.l4s_alpha >= 2.0 * mss_bits / denom
    }

    fn update_l4s_alpha(
        &mut self,
        cfg: &V2Settings,
        ack: &AckSummary,
        now: Instant,
        srtt: Duration,
    ) {
        if cfg.ecn != EcnMode::L4s {
            self.l4s_alpha = 0.0;
            return;
        }
        self.packets_delivered += ack.packets_acked;
        self.packets_marked += ack.packets_ce;
        let due = self
            .last_alpha_update
            .is_none_or(|t| now.saturating_duration_since(t) >= L4S_ALPHA_UPDATE.min(srtt));
        if due && self.packets_delivered > 0 {
            let fraction = self.packets_marked as f64 / self.packets_delivered as f64;
            // Draft §"Network Congestion Control": l4s_alpha = L4S_AVG_G * fraction + (1 - L4S_AVG_G) * l4s_alpha,
            // with a separate gain for decay (see `SenderConfig::l4s_avg_g_down`).
            let g = if fraction >= self.l4s_alpha {
                cfg.l4s_avg_g
            } else {
                cfg.l4s_avg_g_down
            };
            self.l4s_alpha += g * (fraction - self.l4s_alpha);
            self.packets_delivered = 0;
            self.packets_marked = 0;
            self.last_alpha_update = Some(now);
        }
    }

    /// Draft §"Network Congestion Control" reference window increase.
    fn increase(
        &mut self,
        cfg: &V2Settings,
        ack: &AckSummary,
        m: &Measurements,
        srtt: Duration,
        mss: f64,
        growth: Growth,
    ) {
        let scl = growth.scl;
        let now = m.now;
        let ratio = mss / self.ref_wnd;
        let mut increment = ack.bytes_acked.saturating_sub(ack.bytes_acked_ce) as f64 * ratio;

        // Flows with RTTs below VIRTUAL_RTT grow more slowly per acknowledgement. The
        // factor is plain min(1, s_rtt / VIRTUAL_RTT) as in the reference
        // (`ScreamV2Tx::updateCwnd`); the draft squares it, which at 5 ms one way held
        // the L4S queue and CE rate well below the reference's.
        let small_rtt = (srtt.as_secs_f64() / cfg.virtual_rtt.as_secs_f64()).min(1.0);
        increment *= small_rtt;

        // Grow cautiously near the window where congestion last set in.
        increment *= scl.max(SCL_INCREMENT_LOW);

        // Growth is restrained while the queue delay varies (reference), which also
        // freezes the windows of delay-based flows sharing a bottleneck at whatever
        // split they reached: the queue they share varies, so none grows, and equal
        // back-offs keep the ratio. `delay-convergence` lets the additive part grow
        // freely so that the back-offs (now at a lower queue delay) equalise them.
        if !growth.converge {
            increment *= m.steadiness.clamp(STEADINESS_MIN, 1.0);
        }

        // Multiplicative increase, restrained after congestion.
        let since = self
            .last_congestion
            .map_or(Duration::ZERO, |t| now.saturating_duration_since(t));
        let post_span = cfg.virtual_rtt.max(srtt).as_secs_f64() * cfg.post_congestion_delay_rtts;
        let post = (since.as_secs_f64() / post_span).clamp(0.0, 1.0);
        let mut mul = 1.0 + cfg.mul_increase_factor * self.ref_wnd / mss;
        if mul > 1.0 {
            mul = 1.0 + (mul - 1.0) * post * scl;
        }
        increment *= mul;

        if growth.regrow {
            // `outage-recovery`: far below the recent peak with no congestion in
            // sight, the window grows by what was acknowledged (doubling per RTT, as
            // slow start), free of the restraints that guard the last congestion point.
            increment = increment.max(ack.bytes_acked.saturating_sub(ack.bytes_acked_ce) as f64);
        }

        // Grow only while the window is in use: bytes in flight recently reached a
        // good part of it (BYTES_IN_FLIGHT_HEAD_ROOM), and the streams can use more.
        let max_allowed =
            mss + self.max_bif.max(self.max_bif_prev) as f64 * cfg.bytes_in_flight_head_room;
        self.app_limited = max_allowed < self.ref_wnd;
        let mut grown = self.ref_wnd + increment;
        if growth.regrow {
            // Slow start's increments are large; take what the bytes in flight allow
            // rather than nothing.
            grown = grown.min(max_allowed.max(self.ref_wnd));
        }
        if grown > self.ref_wnd && grown <= max_allowed && m.total_target < m.total_max {
            self.ref_wnd = grown;
            self.inflection_blocked = false;
        }
    }

    /// How far the window is from the inflection point (the window when congestion
    /// last set in): `(SCL_GAIN · (ref_wnd − ref_wnd_i) / ref_wnd_i)²` in [`SCL_LOW`, 1]
    /// (draft §"Network Congestion Control" reference window increase).
    fn inflection_scale(&self) -> f64 {
        let dist = SCL_GAIN * (self.ref_wnd - self.ref_wnd_i) / self.ref_wnd_i.max(1.0);
        (dist * dist).clamp(SCL_LOW, 1.0)
    }

    /// Bytes-in-flight maxima per RTT (draft `max_bytes_in_flight[_prev]`) and a
    /// one-second history of them.
    fn roll_bytes_in_flight(&mut self, now: Instant, srtt: Duration, bif: u64) {
        let last = *self.last_bif_roll.get_or_insert(now);
        if now.saturating_duration_since(last) >= srtt {
            self.max_bif_prev = self.max_bif;
            self.max_bif = bif;
            self.last_bif_roll = Some(now);
        }
        let last = *self.last_bif_hist.get_or_insert(now);
        if now.saturating_duration_since(last) >= BIF_HIST_PERIOD {
            self.bif_hist[self.bif_hist_idx] = self.max_bif.max(self.max_bif_prev);
            self.bif_hist_idx = (self.bif_hist_idx + 1) % BIF_HIST_LEN;
            self.last_bif_hist = Some(now);
        }
    }

    /// At the streams' maximum bitrate there is no point in a window beyond what is
    /// really in flight: an inflated window would take extra RTTs to bring down when
    /// congestion comes (draft §"Network Congestion Control"; reference history of bytes in flight).
    fn cap_near_max_rate(&mut self, cfg: &V2Settings, m: &Measurements, srtt: Duration) {
        if m.total_target.bps() <= m.total_max.bps() * NEAR_MAX_RATE {
            return;
        }
        let hist = self
            .bif_hist
            .iter()
            .copied()
            .max()
            .unwrap_or(0)
            .max(self.max_bif) as f64;
        let at_max = cfg.packet_pacing_headroom
            * m.total_max.bytes_per_sec()
            * (srtt + Duration::from_millis(1)).as_secs_f64();
        self.ref_wnd = self.ref_wnd.min(hist.max(at_max));
    }
}

#[cfg(test)]
mod tests;
