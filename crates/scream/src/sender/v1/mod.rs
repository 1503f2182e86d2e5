//! SCReAM V1: RFC 8298 as the Ericsson code ran it before V2 (`ScreamTx` at commit
//! 0924c0b with `isNewCc = false`), the sender of the published 5G studies (TSP 2022,
//! Sensors 2023).
//!
//! The congestion window (`window`) follows the queue delay the way LEDBAT does, with
//! a fast increase that stops when the queue delay trend rises; media rate control
//! (`rate`) moves each stream's target towards the measured rate, lowered by the
//! delay trend and the RTP queue backlog. V1 keeps its own queue delay estimate
//! (`delay`), fed with the one-way delay samples the chassis accepted, because its
//! base delay history and its "base delay reset" decide how the queue delay reads
//! after a capacity drop. Parameters: `config`.
//!
//! # Deviations from RFC 8298 (the code's behaviour, kept)
//!
//! - **Constants**: `MAX_BYTES_IN_FLIGHT_HEAD_ROOM` 1.25 (RFC 1.1); separate increase
//!   and decrease gains (`gain_up` 1, `gain_down` 2; RFC one `GAIN`); `BETA_ECN` 0.9;
//!   `QDELAY_TARGET_HI` 0.3 s; `RATE_ADJUST_INTERVAL` 20 ms (RFC 0.2 s);
//!   `TX_QUEUE_SIZE_FACTOR` 0.2 (RFC 1.0); `RAMP_UP_SPEED` also capped at
//!   `ramp_up_scale` × target per second; `T_RESUME_FAST_INCREASE` 0.25 s (RFC 5 s);
//!   pacing floor 100 kbit/s (RFC 50 kbit/s).
//! - **MSS is learnt**: the largest packet since the last once-per-second reset to
//!   100 bytes. It sets the minimum window (two of it, three right after the reset,
//!   never below `min_cwnd_bytes`), the LEDBAT step and the send window slack.
//! - **Queue delay** is that of the newest acknowledged packet, unfiltered; the base
//!   delay is the minimum over 50 slots of 10 s. When the slowly averaged minimum queue
//!   delay exceeds a quarter of the target, the base delay history is thrown away (at
//!   most every 20 s), so a standing queue becomes the new zero.
//! - **Queue delay trend**: the queue delay fraction is sampled every 50 ms into a 1 s
//!   history and its lag-1 autocorrelation times `qdelay_fraction_avg` is the trend,
//!   held at 0 for the first 2 s. `qdelay_fraction_avg` is updated at every window
//!   update.
//! - **Fast increase** grows the window by the acknowledged bytes (limited to 1.25 ×
//!   the measured rate, two MSS per update below 100 kbit/s) only while bytes in flight
//!   reach two thirds of the window, restarted over `post_congestion_delay` after a
//!   congestion event. It ends only when the trend reaches `qdelay_trend_th` or on loss
//!   or CE: **a queue delay above the target does not slow it**.
//! - **LEDBAT part**: increase only while bytes in flight reach 1/1.2 of the window;
//!   decrease by `gain_down` with unlimited acknowledged bytes, at most a quarter of the
//!   window per update; a decrease counts as congestion (it blocks the fast-increase
//!   resume and enables window validation).
//! - **Window validation** against 1 s slots of bytes in flight (the mean over the
//!   acknowledgements of each second, and its maximum, blended by the trend), ×1.25,
//!   only after the first congestion event: until then the window is unbounded except
//!   by its own usage test.
//! - **Loss**: at most one window back-off per sRTT; classic CE at most every
//!   `min(30 ms, sRTT)`, sharing the timer with loss. **L4S** (not in the RFC):
//!   `cwnd × (1 − l4s_alpha / (2 · packet_pacing_headroom)) + MSS`, `l4s_alpha` an
//!   EWMA (gain 1/8) of the CE fraction of the bytes acknowledged since its last update,
//!   at most every `min(30 ms, sRTT)`.
//! - **Send window** `cwnd × adaptive pacing scale`, plus one MSS while the queue delay
//!   is below its target.
//! - **Pacing** at `packet_pacing_headroom` (at least 1.5 until the first congestion
//!   event) × the frame-size scale × max(sum of targets, measured RTP rate), recomputed
//!   at window updates only, and only when `qdelay_fraction_avg` > 0.02 or in L4S mode;
//!   otherwise packets leave unpaced.
//! - **Media rate control** every 20 ms at a frame: fast increase by the ramp-up speed ×
//!   sqrt(priority) while the RTP queue delay is below `rtp_qdelay_th`, damped near the
//!   last inflection point (3-entry history) and when the encoder undershoots; else
//!   towards the measured rate × (1 − `pre_congestion_guard` × trend) minus
//!   `tx_queue_size_factor` × the smoothed RTP queue backlog (at most 20 ms of target).
//!   The RFC's `TARGET_RATE_SCALE_RTP_QDELAY` reaction to the RTP queue delay and its
//!   `rate_media_limit` cap are absent; the target is instead cut by
//!   `target_rate_scale_rtp_qdelay` (0.95) at most every 100 ms while the window is
//!   full, the increase is frozen above 12 000 bits of backlog, the output is scaled to
//!   compensate an encoder over- or undershooting (`adaptive_target_rate_scale`) and
//!   held by `target_hysteresis`. Loss scales the target by `loss_event_rate_scale`,
//!   classic CE by `ecn_ce_event_rate_scale`, L4S CE by `1 − l4s_alpha / 2 + MSS/cwnd`.
//! - **Lost packet detection**: a packet is lost once a packet sent `reorder_time` (the
//!   code: 10 ms) after it has been acknowledged, a time reordering window instead of
//!   a packet count; a loss event at most once per sRTT.
//! - **sRTT** is smoothed twice (per sample, then once per RTT) instead of one EWMA
//!   with gain 1/8 per sample.
//! - **Competing-flows compensation** (off by default): a 10 s history of the
//!   normalized queue delay every 50 ms, its mean over the last 2.5 s, variance and
//!   third moment; the target is raised to the standing delay when the variance is low,
//!   to 1.5 × it when losses are frequent, up to `qdelay_target_hi` (0.3 s); it then
//!   doubles the ramp-up speed, lifts the increase cap and cuts the pre-congestion
//!   guard to 5 %.
//! - **Feedback** is RFC 8888 (the crate's receiver and codec), not RFC 8298's own RTCP
//!   format.
//! - **Stream prioritization**: once per second, when the trend is high or L4S is
//!   active, a stream above 1.05 × its fair share of the transmitted rate loses 10 % of
//!   its target and one below 0.9 × gains 10 %.
//!
//! # Oddities of the code, reproduced
//!
//! - **Loss and CE cut the media rate at the next frame**, not at the feedback (the code
//!   clears the flag it tests before testing it).
//! - **The window-full nudge** may leave the target below its minimum until the next
//!   adjustment, and the bytes-in-flight ratio it reads is refreshed at window updates
//!   only.
//! - **Fast start before the first congestion**: with the window unvalidated and the
//!   send window up to `max_adaptive_pacing_scale` × cwnd, a capacity drop in
//!   delay-only mode builds a queue of about a second until the trend ends fast start
//!   (the reference shows the same).
//! - **The base delay reset** can treat a standing queue as zero delay.
//! - **`l4s_active` starts true** and the first window updates grow by two MSS while
//!   the measured rate is below 100 kbit/s.
//!
//! Not reproduced, as they do not change the compared results: the second rate
//! adjustment per frame (it returns at the 20 ms guard); the pacing interval computed
//! with the 100-byte MSS right after the one-second reset (here each packet is spaced
//! by its own size); a feedback whose last report is a lost packet still updates the
//! window; a stale feedback block does not discard the rest of the message.
//!
//! # Deviations from the reference code
//!
//! - **Chassis bookkeeping**: a packet leaves the bytes in flight when acknowledged or
//!   declared lost (the code: when the highest reported sequence number passes it,
//!   received or not); loss uses the chassis' time reordering window `reorder_time`
//!   (set it to 0.01 s for the code's value; the shared default is 30 ms); the RTP queue
//!   is discarded by the chassis at `max_rtp_queue_delay` (set 0.1 s for the code's
//!   library default) with a key-frame request event instead of a `-1` target; streams
//!   are served by the chassis' weighted fair scheduler, not the code's credit scheme.
//!   Without loss these do not change the numbers.
//! - **sRTT** is the chassis' (per-sample EWMA 1/8 followed once per RTT, starting at
//!   50 ms; the code's two-stage filter starts at 20 ms and samples once per feedback);
//!   V1 uses it only for the loss and CE guard intervals.
//! - **The base delay refresh** (deliberately clearing the RTP queue after 490 s of
//!   standing queue) and **clock drift compensation** are not implemented. The code's
//!   stall reset is the chassis' `stall_timeout`.
//! - **The target given to the encoder is clamped to the stream's limits**, also after
//!   the adaptive scale (the code may return up to 1.1 × its maximum).
//! - **Competing-flows compensation** (off by default, as in the code) samples the
//!   queue delay at window updates 50 ms apart, as the code; it keeps the code's
//!   third moment that is not reset before summing (each value carries 1/200 of the
//!   previous one).
//! - When the total rate is below 100 kbit/s, the code also lowers every stream's
//!   target with a LEDBAT decrease; not done (it affects only sub-100 kbit/s flows).
//! - **The rate adjustment accepts a frame up to 10 % of `rate_adjust_interval` early**
//!   by default (the code: not at all), so that frames from a real clock at exactly the
//!   interval do not skip every other adjustment; `rate_adjust_tolerance = 0` is the
//!   code's exact comparison (see `rate::adjust_due`).

pub(crate) mod config;
pub(crate) mod delay;
pub(crate) mod rate;
pub(crate) mod sbd;
pub(crate) mod stats;
pub(crate) mod window;

pub use config::V1Config;

use super::config::{EcnMode, SenderConfig};
use super::generation::contract::{
    AckSummary, BackOffCause, DelayParams, Measurements, TargetInput,
};
use super::generation::controller::Controller;
use super::stream::Stream;
use crate::time::{Duration, Instant};
use crate::units::Bitrate;
use stats::V1Stats;

/// Period of the rate estimates (reference `kRateUpdateInterval`).
const RATE_UPDATE_INTERVAL: Duration = Duration::from_millis(50);
/// Below this acknowledged rate, rates are estimated half as often.
const SLOW_RATE_BPS: f64 = 50_000.0;
/// Least time between two priority corrections.
const PRIORITY_INTERVAL: Duration = Duration::from_secs(1);
/// Pacing rate reported when pacing is off.
const UNPACED_BPS: f64 = 1e12;

/// The state of SCReAM V1.
#[derive(Debug, Clone)]
pub(crate) struct V1 {
    pub(crate) cfg: V1Config,
    ecn: EcnMode,
    mss_bytes: u32,
    overhead_bytes: u32,
    pub(crate) window: Box<window::Window>,
    pub(crate) streams: Vec<rate::V1Stream>,
    sbd: Box<sbd::Sbd>,
    last_rate_update: Option<Instant>,
    last_priority_adjust: Option<Instant>,
    priorities_due: bool,
    /// Total acknowledged rate at the last estimate, bit/s.
    rate_acked: f64,
}

impl V1 {
    fn l4s(&self) -> bool {
        self.ecn == EcnMode::L4s
    }

    fn competing(&self) -> bool {
        self.window.qdelay_target > self.cfg.qdelay_target_lo
    }

    fn rate_interval(&self) -> Duration {
        if self.rate_acked < SLOW_RATE_BPS {
            RATE_UPDATE_INTERVAL * 2
        } else {
            RATE_UPDATE_INTERVAL
        }
    }

    /// Runs the periodic work due at `now`: rate estimates every 50 ms, the
    /// bytes-in-flight history every second.
    fn tick(&mut self, now: Instant) {
        self.window.start(now);
        let Some(last) = self.last_rate_update else {
            // The first call only starts the rate counters.
            self.last_rate_update = Some(now);
            for s in &mut self.streams {
                s.update_rates(&self.cfg, None);
            }
            return;
        };
        let dt = now.saturating_duration_since(last);
        if dt > self.rate_interval() {
            let mut acked = 0.0;
            for s in &mut self.streams {
                s.update_rates(&self.cfg, Some(dt));
                acked += s.rate_acked;
            }
            self.rate_acked = acked;
            self.last_rate_update = Some(now);
            self.priorities_due = true;
        }
        let min_cwnd = u64::from(self.cfg.min_cwnd_bytes);
        self.window.tick(&self.cfg, now, min_cwnd);
    }

    /// What the window law reads of the streams.
    fn view(&self) -> window::StreamView {
        let mut v = window::StreamView::default();
        let (mut scaled, mut weight) = (0.0, 0.0);
        for s in &self.streams {
            v.total_target += s.target;
            v.total_rtp_rate += s.rate_rtp;
            v.max_rate += s.max_rate();
            if s.pacing_scale > 1.0 {
                scaled += s.pacing_scale * s.target;
                weight += s.target;
            }
        }
        v.pacing_scale = if weight > 0.0 { scaled / weight } else { 1.0 };
        v
    }

    /// Once per second with several streams, when the trend is high or L4S active:
    /// moves each stream's target 10 % towards its fair share of the transmitted rate.
    fn adjust_priorities(&mut self, now: Instant, streams: &[Stream]) {
        if self.streams.len() < 2 {
            return;
        }
        let due = self
            .last_priority_adjust
            .is_none_or(|t| now.saturating_duration_since(t) >= PRIORITY_INTERVAL);
        let congested =
            self.window.qdelay_trend >= self.cfg.qdelay_trend_th || self.window.l4s_active;
        if !due || !congested {
            return;
        }
        self.last_priority_adjust = Some(now);
        let total_prio: f64 = streams.iter().map(|s| s.config.priority).sum();
        let total_tx: f64 = self.streams.iter().map(|s| s.rate_tx).sum();
        if total_prio <= 0.0 {
            return;
        }
        for (s, v1) in streams.iter().zip(&mut self.streams) {
            let fair = total_tx * s.config.priority / total_prio;
            if v1.rate_rtp > 1.05 * fair {
                v1.target = s.config.min_bitrate.bps().max(0.9 * v1.target);
            } else if v1.rate_rtp < 0.9 * fair {
                v1.target = s.config.max_bitrate.bps().min(1.1 * v1.target);
            }
        }
    }
}

impl Controller for V1 {
    type Config = V1Config;
    type Stats = V1Stats;

    fn new(cfg: &SenderConfig, params: &V1Config, _srtt: Duration) -> Self {
        Self {
            window: Box::new(window::Window::new(params)),
            cfg: params.clone(),
            ecn: cfg.ecn,
            mss_bytes: cfg.mss_bytes,
            overhead_bytes: cfg.rtp_overhead_bytes,
            streams: Vec::new(),
            sbd: Box::default(),
            last_rate_update: None,
            last_priority_adjust: None,
            priorities_due: false,
            rate_acked: 0.0,
        }
    }

    fn on_stream_added(&mut self, stream: &Stream) {
        self.streams.push(rate::V1Stream::new(stream.target.bps()));
    }

    /// A frame entered stream `idx`'s RTP queue.
    fn on_frame(&mut self, idx: usize, stream: &Stream, size_bytes: u32, _queue_delay: Duration) {
        let packets = u64::from(size_bytes.div_ceil(self.mss_bytes.max(1)));
        let rtp_bytes = u64::from(size_bytes) + packets * u64::from(self.overhead_bytes);
        if let Some(s) = self.streams.get_mut(idx) {
            s.on_frame(&self.cfg, rtp_bytes, stream.queue.bytes());
        }
        if let Some(p) = stream.queue.front() {
            self.window.raise_mss(u64::from(p.size_bytes));
        }
        let w = &mut self.window;
        w.new_frame = true;
        w.cwnd_min = w.cwnd_min.max(2 * w.mss);
        w.cwnd = w.cwnd.max(w.cwnd_min);
    }

    fn on_discard(&mut self, idx: usize) {
        if let Some(s) = self.streams.get_mut(idx) {
            s.on_discard();
        }
    }

    /// V1 keeps its own queue delay estimate; the chassis' serves clock-step checks and
    /// the statistics only.
    fn delay_params(&self, _srtt: Duration) -> DelayParams {
        DelayParams {
            qdelay_target: self.window.qdelay_target,
            qdelay_avg_g: self.cfg.qdelay_weight,
            interval: Duration::from_millis(50),
        }
    }

    fn on_feedback(
        &mut self,
        ack: &AckSummary,
        m: &Measurements,
    ) -> Option<(BackOffCause, u64, u64)> {
        let now = m.now;
        self.tick(now);
        let l4s = self.l4s();
        let bif_before = m.bytes_in_flight + ack.bytes_acked;
        let w = &mut self.window;
        w.on_acked(
            bif_before,
            ack.packets_acked,
            ack.bytes_acked,
            ack.bytes_acked_ce,
        );
        w.bytes_newly_acked += ack.bytes_acked;
        let ev = w.detect_events(
            &self.cfg,
            now,
            m.srtt,
            ack.packets_lost > 0,
            ack.packets_ce > 0,
            l4s,
        );
        if ev.loss || ev.ce {
            for s in &mut self.streams {
                if ev.loss {
                    s.loss_flag = true;
                } else {
                    s.ce_flag = true;
                }
            }
        }
        let mut result = None;
        if self.window.update_due(now, ev) {
            let cwnd = self.window.cwnd.max(1) as f64;
            self.window.bytes_in_flight_ratio = (bif_before as f64 / cwnd).min(1.0);
            let view = self.view();
            if self.cfg.competing_flows_compensation {
                let qd = self.window.owd.queue_delay();
                self.window.qdelay_target =
                    self.sbd
                        .update(&self.cfg, now, qd, ev.loss || ev.ce, m.srtt);
            }
            let bif = m.bytes_in_flight;
            if let Some(before) = self.window.update(&self.cfg, now, ev, bif, l4s, &view) {
                let cause = if ev.loss {
                    BackOffCause::Loss
                } else if l4s {
                    BackOffCause::L4s
                } else {
                    BackOffCause::Ce
                };
                result = Some((cause, before, self.window.cwnd));
            }
        }
        self.window.end_feedback(now, l4s);
        result
    }

    fn on_packet_sent(&mut self, idx: usize, now: Instant, size: u32, bif: u64) {
        self.tick(now);
        let size = u64::from(size);
        self.window.on_sent(size, bif.saturating_sub(size));
        if let Some(s) = self.streams.get_mut(idx) {
            s.on_sent(size);
        }
    }

    /// `owd_nanos` feeds V1's own one-way delay estimate.
    fn on_packet_acked(&mut self, idx: usize, now: Instant, size: u32, owd_nanos: Option<i64>) {
        if let Some(s) = self.streams.get_mut(idx) {
            s.on_acked(u64::from(size));
        }
        if let Some(owd) = owd_nanos {
            self.window.owd.on_sample(now, owd);
        }
    }

    fn queue_delay(&self) -> Option<Duration> {
        Some(self.window.owd.queue_delay())
    }

    /// `cwnd`.
    fn window_bytes(&self) -> u64 {
        self.window.cwnd
    }

    fn send_limit_bytes(&self, _steadiness: f64, _mss: u64) -> u64 {
        self.window.send_limit()
    }

    /// When the rate estimates or the bytes-in-flight history fall due.
    fn next_timeout(&self) -> Option<Instant> {
        if self.streams.is_empty() {
            return None;
        }
        let last = self.last_rate_update?;
        Some(last + self.rate_interval() + Duration::from_nanos(1))
    }

    /// The timer runs V1's rate estimates; targets change at frames only.
    fn on_timeout(&mut self, now: Instant) -> bool {
        self.tick(now);
        false
    }

    /// Media rate control: adjusts the streams that got a frame, then hands every
    /// stream its output target.
    fn update_targets(&mut self, streams: &mut [Stream], input: &TargetInput) {
        let now = input.now;
        self.tick(now);
        if self.priorities_due {
            self.priorities_due = false;
            self.adjust_priorities(now, streams);
        }
        let w = &self.window;
        let cwnd_ratio = if self.l4s() {
            w.mss as f64 / w.cwnd.max(1) as f64
        } else {
            0.0
        };
        let competing = self.competing();
        for (s, v1) in streams.iter_mut().zip(&mut self.streams) {
            if v1.frame_pending {
                let x = rate::RateInput {
                    now,
                    l4s: self.ecn == EcnMode::L4s,
                    l4s_alpha: w.l4s_alpha,
                    cwnd_ratio,
                    in_fast_start: w.in_fast_start,
                    post_congestion_scale: w.post_congestion_scale,
                    qdelay_trend: w.qdelay_trend,
                    bytes_in_flight_ratio: w.bytes_in_flight_ratio,
                    competing,
                    rtp_queue_delay: s.queue.delay(now),
                    rtp_queue_bytes: s.queue.bytes(),
                    priority: s.config.priority,
                    min_bps: s.config.min_bitrate.bps(),
                    max_bps: s.config.max_bitrate.bps(),
                };
                v1.adjust(&self.cfg, &x);
            }
            s.target =
                Bitrate::from_bps(v1.output()).clamp(s.config.min_bitrate, s.config.max_bitrate);
        }
    }

    fn pacing_rate(
        &self,
        _streams: &[Stream],
        _media_rate: Bitrate,
        _peak: Option<Bitrate>,
    ) -> Bitrate {
        self.window
            .pacing_rate
            .unwrap_or(Bitrate::from_bps(UNPACED_BPS))
    }

    fn l4s_alpha(&self) -> f64 {
        if self.l4s() {
            self.window.l4s_alpha
        } else {
            0.0
        }
    }

    fn stats(&self, _steadiness: f64) -> V1Stats {
        let w = &self.window;
        V1Stats {
            qdelay_target: w.qdelay_target,
            qdelay_trend: w.qdelay_trend,
            qdelay_fraction_avg: w.qdelay_fraction_avg,
            in_fast_start: w.in_fast_start,
            cwnd_validated: w.validated,
            max_bytes_in_flight: w.max_bytes_in_flight as u64,
            post_congestion_scale: w.post_congestion_scale,
            l4s_active: w.l4s_active,
            mss_bytes: w.mss,
            pacing_scale: w.adaptive_scale,
        }
    }
}
