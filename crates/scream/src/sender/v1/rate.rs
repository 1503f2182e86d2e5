//! Media rate control of SCReAM V1 (RFC 8298 §4.1.2.4 as the Ericsson code runs it),
//! per stream: rate estimates over 8 × 50 ms, the frame-size pacing scale, and the
//! target adjusted every `rate_adjust_interval` when a frame arrives.

use super::config::V1Config;
use crate::time::{Duration, Instant};

/// Slots of the rate averages (reference `kRateUpDateSize`).
const RATE_SLOTS: usize = 8;
/// Slots of the inflection-point history (reference `kTargetBitrateHistSize`).
const I_SLOTS: usize = 3;
/// EWMA gain of the average frame size (reference `kFrameSizeAvgAlpha`).
const FRAME_SIZE_AVG_G: f64 = 1.0 / 32.0;
/// Least time between two window-full nudges.
const FULL_WINDOW_INTERVAL: Duration = Duration::from_millis(100);
/// Least time between two inflection-point updates when the fast increase ends.
const I_UPDATE_INTERVAL: Duration = Duration::from_millis(500);
/// RTP queue backlog (bits) above which the target does not increase.
const TX_SIZE_FREEZE_BITS: f64 = 12_000.0;
/// Slack of the adjustment's comparison, for instants that stand for whole 1/65536 s
/// ticks: a tick is not a whole number of nanoseconds, so a tick instant and an
/// interval of whole ticks are each off by under 1 ns. Comparing with this slack makes
/// `elapsed >= interval` true exactly when it holds in ticks, as in the code
/// (`updateTargetBitrateOld`, integer `time_ntp` arithmetic); one tick is 15 259 ns, so
/// nothing else moves.
const TICK_ROUNDING_SLACK: Duration = Duration::from_nanos(1);

/// The least time since the last adjustment at which a frame adjusts the rate:
/// `rate_adjust_interval` less the configured early tolerance (see
/// `V1Config::rate_adjust_tolerance`: the default 0.1 lets a frame of a real clock that
/// comes a few microseconds early adjust; measured over UDP the exact comparison ran
/// the ramp at 0.50 instead of 0.94 Mbit/s after 10 s from 0.15), and less the tick
/// rounding slack.
fn adjust_due(cfg: &V1Config) -> Duration {
    cfg.rate_adjust_interval
        .mul_f64(1.0 - cfg.rate_adjust_tolerance)
        .saturating_sub(TICK_ROUNDING_SLACK)
}

/// What the rate adjustment of one stream reads of the sender.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RateInput {
    pub(crate) now: Instant,
    pub(crate) l4s: bool,
    pub(crate) l4s_alpha: f64,
    /// Learnt MSS over the congestion window (L4S only, else 0).
    pub(crate) cwnd_ratio: f64,
    pub(crate) in_fast_start: bool,
    pub(crate) post_congestion_scale: f64,
    pub(crate) qdelay_trend: f64,
    pub(crate) bytes_in_flight_ratio: f64,
    pub(crate) competing: bool,
    /// Age of the oldest packet in the stream's RTP queue.
    pub(crate) rtp_queue_delay: Duration,
    /// Bytes in the stream's RTP queue.
    pub(crate) rtp_queue_bytes: u64,
    pub(crate) priority: f64,
    pub(crate) min_bps: f64,
    pub(crate) max_bps: f64,
}

/// Per-stream state of SCReAM V1.
#[derive(Debug, Clone)]
pub(crate) struct V1Stream {
    /// Internal target, bit/s.
    pub(crate) target: f64,
    /// Announced target before the adaptive scale (with hysteresis), bit/s.
    pub(crate) target_h: f64,
    pub(crate) target_rate_scale: f64,
    target_i: f64,
    i_hist: [f64; I_SLOTS],
    i_ptr: usize,
    last_adjust: Option<Instant>,
    last_i_update: Option<Instant>,
    last_full_window: Option<Instant>,
    was_fast_start: bool,
    tx_size_bits_avg: f64,
    pub(crate) loss_flag: bool,
    pub(crate) ce_flag: bool,
    /// A frame arrived since the last adjustment.
    pub(crate) frame_pending: bool,
    /// The RTP queue was discarded since the last adjustment.
    pub(crate) discard_pending: bool,
    /// RTP bytes of the newest frame.
    last_frame_bytes: u64,
    bytes_tx: u64,
    bytes_acked: u64,
    bytes_rtp: u64,
    hist_tx: [f64; RATE_SLOTS],
    hist_acked: [f64; RATE_SLOTS],
    hist_rtp: [f64; RATE_SLOTS],
    hist_ptr: usize,
    updates: u32,
    pub(crate) rate_tx: f64,
    pub(crate) rate_acked: f64,
    pub(crate) rate_rtp: f64,
    frame_size_avg: f64,
    /// Frame-size scale of pacing and the send window.
    pub(crate) pacing_scale: f64,
}

impl V1Stream {
    pub(crate) fn new(start_bps: f64) -> Self {
        Self {
            target: start_bps,
            target_h: start_bps,
            target_rate_scale: 1.0,
            target_i: 1.0,
            i_hist: [0.0; I_SLOTS],
            i_ptr: 0,
            last_adjust: None,
            last_i_update: None,
            last_full_window: None,
            was_fast_start: false,
            tx_size_bits_avg: 0.0,
            loss_flag: false,
            ce_flag: false,
            frame_pending: false,
            discard_pending: false,
            last_frame_bytes: 0,
            bytes_tx: 0,
            bytes_acked: 0,
            bytes_rtp: 0,
            hist_tx: [0.0; RATE_SLOTS],
            hist_acked: [0.0; RATE_SLOTS],
            hist_rtp: [0.0; RATE_SLOTS],
            hist_ptr: 0,
            updates: 0,
            rate_tx: 0.0,
            rate_acked: 0.0,
            rate_rtp: 0.0,
            frame_size_avg: 0.0,
            pacing_scale: 1.0,
        }
    }

    /// The larger of the transmitted and the acknowledged rate, bit/s.
    pub(crate) fn max_rate(&self) -> f64 {
        self.rate_tx.max(self.rate_acked)
    }

    /// The target the encoder is given, bit/s.
    pub(crate) fn output(&self) -> f64 {
        self.target_rate_scale * self.target_h
    }

    pub(crate) fn on_sent(&mut self, size: u64) {
        self.bytes_tx += size;
    }

    pub(crate) fn on_acked(&mut self, size: u64) {
        self.bytes_acked += size;
    }

    /// A frame of `rtp_bytes` (packets with headers) entered the RTP queue, which now
    /// holds `queue_bytes`.
    pub(crate) fn on_frame(&mut self, cfg: &V1Config, rtp_bytes: u64, queue_bytes: u64) {
        self.bytes_rtp += rtp_bytes;
        self.last_frame_bytes = rtp_bytes;
        self.frame_pending = true;
        let size = rtp_bytes as f64;
        self.frame_size_avg = if self.frame_size_avg == 0.0 {
            size
        } else {
            FRAME_SIZE_AVG_G * size + (1.0 - FRAME_SIZE_AVG_G) * self.frame_size_avg
        };
        let frame = (queue_bytes as f64).max(size);
        self.pacing_scale = if self.frame_size_avg > 500.0 {
            (frame / self.frame_size_avg).clamp(1.0, cfg.max_adaptive_pacing_scale)
        } else {
            1.0
        };
    }

    /// The RTP queue was cleared.
    pub(crate) fn on_discard(&mut self) {
        self.discard_pending = true;
        self.target_rate_scale = 1.0;
        self.tx_size_bits_avg = 0.0;
    }

    /// The 50 ms rate estimate; `dt` is the time since the previous one (`None` the
    /// first time, which only starts the counters).
    pub(crate) fn update_rates(&mut self, cfg: &V1Config, dt: Option<Duration>) {
        if let Some(dt) = dt.filter(|d| !d.is_zero()) {
            let secs = dt.as_secs_f64();
            self.updates = self.updates.saturating_add(1);
            let p = self.hist_ptr;
            self.hist_tx[p] = self.bytes_tx as f64 * 8.0 / secs;
            self.hist_acked[p] = self.bytes_acked as f64 * 8.0 / secs;
            self.hist_rtp[p] = self.bytes_rtp as f64 * 8.0 / secs;
            self.hist_ptr = (p + 1) % RATE_SLOTS;
            let mean = |h: &[f64; RATE_SLOTS]| h.iter().sum::<f64>() / RATE_SLOTS as f64;
            self.rate_tx = mean(&self.hist_tx);
            self.rate_acked = mean(&self.hist_acked);
            self.rate_rtp = mean(&self.hist_rtp);
            if self.rate_rtp > 0.0
                && cfg.adaptive_target_rate_scale
                && self.updates as usize > RATE_SLOTS
            {
                let diff = self.target * self.target_rate_scale / self.rate_rtp;
                self.target_rate_scale =
                    (0.98 * self.target_rate_scale + 0.02 * diff).clamp(0.8, 1.1);
            }
        }
        self.bytes_tx = 0;
        self.bytes_acked = 0;
        self.bytes_rtp = 0;
    }

    fn update_target_i(&mut self, br: f64) {
        let v = br.min(self.target);
        self.i_hist[self.i_ptr] = v;
        self.i_ptr = (self.i_ptr + 1) % I_SLOTS;
        self.target_i = self.i_hist.iter().copied().fold(v, f64::max);
    }

    /// The rate adjustment run when a frame arrived (the code's
    /// `updateTargetBitrateOld`).
    pub(crate) fn adjust(&mut self, cfg: &V1Config, x: &RateInput) {
        self.frame_pending = false;
        let now = x.now;
        let br = self.max_rate();
        let rtp_limit = self.rate_rtp.max(br);
        let last_adjust = *self.last_adjust.get_or_insert(now);
        if self.loss_flag || self.ce_flag {
            self.on_congestion(cfg, x, br);
        } else if !self.adjust_calm(cfg, x, br, rtp_limit, last_adjust) {
            return;
        }
        self.target = self.target.clamp(x.min_bps, x.max_bps);
        let diff = (self.target - self.target_h) / self.target_h;
        if diff > cfg.target_hysteresis || diff < -cfg.target_hysteresis / 4.0 {
            self.target_h = self.target;
        }
    }

    /// A loss or CE event since the last adjustment: the target backs off (L4S: in
    /// proportion to `l4s_alpha`) and the inflection point is noted.
    fn on_congestion(&mut self, cfg: &V1Config, x: &RateInput, br: f64) {
        let now = x.now;
        self.update_target_i(br);
        self.last_i_update = Some(now);
        if self.loss_flag {
            self.target = x.min_bps.max(self.target * cfg.loss_event_rate_scale);
        } else if x.l4s {
            let t = self.target * (1.0 - x.l4s_alpha / 2.0) + self.target * x.cwnd_ratio;
            self.target = t.clamp(x.min_bps, x.max_bps);
        } else {
            self.target = x.min_bps.max(self.target * cfg.ecn_ce_event_rate_scale);
        }
        self.loss_flag = false;
        self.ce_flag = false;
        self.last_adjust = Some(now);
    }

    /// No congestion event: a full window scales the target down; once the adjustment
    /// interval has passed, fast increase or the steady law moves it. Returns whether
    /// the interval had passed (the target moved or may have).
    fn adjust_calm(
        &mut self,
        cfg: &V1Config,
        x: &RateInput,
        br: f64,
        rtp_limit: f64,
        last_adjust: Instant,
    ) -> bool {
        let now = x.now;
        let since_full = self
            .last_full_window
            .map_or(Duration::MAX, |t| now.saturating_duration_since(t));
        if x.bytes_in_flight_ratio > 0.9 && since_full > FULL_WINDOW_INTERVAL {
            self.target *= cfg.target_rate_scale_rtp_qdelay;
            self.last_full_window = Some(now);
        }
        if now.saturating_duration_since(last_adjust) < adjust_due(cfg) {
            return false;
        }
        let tx_limit = (self.target * 0.02).trunc();
        let tx_size_bits =
            (x.rtp_queue_bytes.saturating_sub(self.last_frame_bytes) as f64 * 8.0).min(tx_limit);
        self.tx_size_bits_avg = 0.5 * self.tx_size_bits_avg + 0.5 * tx_size_bits;
        let mut ramp = cfg.ramp_up_speed.bps().min(self.target * cfg.ramp_up_scale);
        if x.competing {
            ramp *= 2.0;
        }
        if core::mem::take(&mut self.discard_pending) {
            // The queue was just cleared: no rate change this time.
        } else if x.in_fast_start && x.rtp_queue_delay < cfg.rtp_qdelay_th {
            self.fast_increase(cfg, x, ramp, rtp_limit);
        } else {
            self.steady_adjust(cfg, x, br, rtp_limit, ramp, tx_size_bits);
        }
        self.last_adjust = Some(now);
        true
    }

    /// Fast increase: the target ramps up by `ramp` (bit/s per second), restrained
    /// near the inflection point and after congestion, and when the RTP rate lags.
    fn fast_increase(&mut self, cfg: &V1Config, x: &RateInput, ramp: f64, rtp_limit: f64) {
        let step = cfg.rate_adjust_interval.as_secs_f64();
        let scl_i = (((self.target - self.target_i) / self.target_i * 4.0).powi(2)).clamp(0.2, 1.0);
        let mut inc = ramp * step * scl_i * x.priority.sqrt();
        if self.target > rtp_limit {
            inc *= 1.0 + (rtp_limit / self.target - 1.0).max(-1.0);
        }
        inc *= x.post_congestion_scale;
        self.target += inc;
        self.was_fast_start = true;
    }

    /// The steady law: the target moves towards the acknowledged rate less the
    /// pre-congestion guard and the transmit queue, at most `ramp` up, and follows the
    /// RTP rate down. `tx_size_bits` is what this frame added to the RTP queue.
    fn steady_adjust(
        &mut self,
        cfg: &V1Config,
        x: &RateInput,
        br: f64,
        rtp_limit: f64,
        ramp: f64,
        tx_size_bits: f64,
    ) {
        let now = x.now;
        let step = cfg.rate_adjust_interval.as_secs_f64();
        if self.was_fast_start {
            self.was_fast_start = false;
            let due = self
                .last_i_update
                .is_none_or(|t| now.saturating_duration_since(t) > I_UPDATE_INTERVAL);
            if due {
                self.update_target_i(br);
                self.last_i_update = Some(now);
            }
        }
        let guard =
            cfg.pre_congestion_guard * x.qdelay_trend * if x.competing { 0.05 } else { 1.0 };
        let mut inc =
            br * (1.0 - guard) - cfg.tx_queue_size_factor * self.tx_size_bits_avg - self.target;
        if tx_size_bits > TX_SIZE_FREEZE_BITS && inc > 0.0 {
            inc = 0.0;
        }
        if inc > 0.0 {
            self.was_fast_start = true;
            inc *= 1.0 + x.cwnd_ratio + 0.05 * (50_000.0 / self.target).min(1.0);
            if !x.competing {
                inc = inc.min(ramp * step);
            }
            if self.target > rtp_limit {
                inc *= 1.0 + (2.0 * (rtp_limit / self.target - 1.0)).max(-1.0);
            }
        } else {
            if rtp_limit < self.target {
                inc *= 1.0 + (2.0 * (rtp_limit / self.target - 1.0)).max(-1.0);
            }
            if rtp_limit > 2.0 * self.target {
                inc = 0.0;
            }
        }
        self.target += inc;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(now: Instant) -> RateInput {
        RateInput {
            now,
            l4s: false,
            l4s_alpha: 0.0,
            cwnd_ratio: 0.0,
            in_fast_start: true,
            post_congestion_scale: 1.0,
            qdelay_trend: 0.0,
            bytes_in_flight_ratio: 0.0,
            competing: false,
            rtp_queue_delay: Duration::ZERO,
            rtp_queue_bytes: 0,
            priority: 1.0,
            min_bps: 150e3,
            max_bps: 10e6,
        }
    }

    /// The target after `frames` frames 20 ms apart, each `early` before its slot
    /// every other time (a real clock's jitter).
    fn ramp(early: Duration, frames: u64) -> f64 {
        let cfg = V1Config::default();
        let slots = (0..frames).map(|i| {
            let slot = Instant::from_millis(1000 + 20 * i);
            if i % 2 == 1 { slot - early } else { slot }
        });
        ramp_at(&cfg, slots)
    }

    /// The target after a frame at each of `times`, from 150 kbit/s.
    fn ramp_at(cfg: &V1Config, times: impl Iterator<Item = Instant>) -> f64 {
        let mut s = V1Stream::new(150e3);
        // Media flows at the link's rate, so only the ramp limits the increase.
        s.rate_tx = 10e6;
        for now in times {
            s.adjust(cfg, &input(now));
        }
        s.target
    }

    /// Instant of tick `k` of a 1/65536 s clock, rounded up to whole nanoseconds as the
    /// simulator's tick clock does.
    fn tick(k: u64) -> Instant {
        Instant::from_nanos((k * 1_000_000_000).div_ceil(65_536))
    }

    /// A V1 configuration that compares exactly, with an interval of `ticks` ticks.
    fn exact(ticks: u32) -> V1Config {
        V1Config {
            rate_adjust_tolerance: 0.0,
            rate_adjust_interval: Duration::from_secs_f64(f64::from(ticks) / 65_536.0),
            ..V1Config::default()
        }
    }

    #[test]
    fn frames_a_little_early_still_adjust_every_time() {
        let exact = ramp(Duration::ZERO, 200);
        let jittered = ramp(Duration::from_micros(50), 200);
        assert!(exact > 150e3 * 1.5, "the fast increase ramps: {exact}");
        // Without the tolerance every other frame is skipped and the ramp is slower.
        assert!(
            (jittered / exact - 1.0).abs() < 0.05,
            "jittered {jittered}, exact {exact}"
        );
    }

    #[test]
    fn without_tolerance_a_frame_one_tick_short_of_the_interval_skips() {
        // Frames every 1310 ticks (50 fps on the code's clock), interval 1311 ticks
        // (its kRateAdjustInterval_ntp): every other frame adjusts, the ramp at half
        // speed. With an interval of 1310 ticks every frame adjusts.
        let frames = |n: u64| (0..n).map(|i| tick(65_536 + 1310 * i));
        let half = ramp_at(&exact(1311), frames(200));
        let every_other_frame = ramp_at(&exact(1310), frames(200).step_by(2));
        let full = ramp_at(&exact(1310), frames(200));
        // The same adjustments; each adds `ramp x interval`, 1311 / 1310 of the other.
        assert!(
            (half / every_other_frame - 1.0).abs() < 1e-3,
            "half {half}, every other frame {every_other_frame}"
        );
        assert!(full > half * 1.3, "full {full}, half {half}");
    }

    #[test]
    fn an_interval_of_whole_ticks_compares_exactly_at_every_phase() {
        // Whatever the nanosecond rounding of the two tick instants, elapsed ticks
        // equal to the interval adjust and one tick fewer do not.
        for ticks in [1311_u32, 3277, 1000, 65_535] {
            let cfg = exact(ticks);
            for start in (0..70_000_u64).step_by(997) {
                let due = [tick(start), tick(start + u64::from(ticks))];
                let early = [tick(start), tick(start + u64::from(ticks) - 1)];
                let mut on_time = V1Stream::new(150e3);
                let mut one_short = V1Stream::new(150e3);
                for (s, times) in [(&mut on_time, due), (&mut one_short, early)] {
                    s.rate_tx = 10e6;
                    for now in times {
                        s.adjust(&cfg, &input(now));
                    }
                }
                assert_eq!(on_time.last_adjust, Some(due[1]), "{ticks} from {start}");
                assert_eq!(
                    one_short.last_adjust,
                    Some(early[0]),
                    "{ticks} from {start}"
                );
            }
        }
    }
}
