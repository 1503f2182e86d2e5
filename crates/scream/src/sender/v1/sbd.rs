//! Competing-flows compensation (RFC 8298 §4.1.2.2) as the Ericsson code runs it: a
//! 10 s history of the normalized queue delay, sampled every 50 ms, tells whether a
//! loss-based flow keeps the queue standing; the queue delay target then rises, up to
//! `qdelay_target_hi`, so that SCReAM is not starved. Off unless
//! `competing_flows_compensation` is set.

use super::config::V1Config;
use crate::time::{Duration, Instant};

/// Samples of the normalized queue delay history (10 s).
const HIST: usize = 200;
/// Newest samples of the short mean (2.5 s).
const HIST_SHORT: usize = 50;
/// Sampling interval of the history.
const INTERVAL: Duration = Duration::from_millis(50);

/// Shared-bottleneck statistics and the adapted queue delay target.
#[derive(Debug, Clone)]
pub(crate) struct Sbd {
    hist: [f64; HIST],
    ptr: usize,
    last_sample: Option<Instant>,
    /// Third moment. The code does not reset it before summing, so each value carries
    /// 1/200 of the previous one (kept: it decides when the target may jump).
    skew: f64,
    loss_event_rate: f64,
    was_loss: bool,
    last_loss_rate_update: Option<Instant>,
    target: Option<Duration>,
}

impl Default for Sbd {
    fn default() -> Self {
        Self {
            hist: [0.0; HIST],
            ptr: 0,
            last_sample: None,
            skew: 0.0,
            loss_event_rate: 0.0,
            was_loss: false,
            last_loss_rate_update: None,
            target: None,
        }
    }
}

impl Sbd {
    /// A window update at `now` with queue delay `qd`; `event` tells whether it
    /// reacts to loss or CE. Returns the queue delay target.
    pub(crate) fn update(
        &mut self,
        cfg: &V1Config,
        now: Instant,
        qd: Duration,
        event: bool,
        srtt: Duration,
    ) -> Duration {
        let lo = cfg.qdelay_target_lo.as_secs_f64();
        let hi = cfg.qdelay_target_hi.as_secs_f64().max(lo);
        let mut target = self.target.unwrap_or(cfg.qdelay_target_lo).as_secs_f64();
        self.was_loss |= event;
        if !event {
            let due = self
                .last_loss_rate_update
                .is_none_or(|t| now.saturating_duration_since(t) > srtt);
            if due {
                self.loss_event_rate =
                    0.99 * self.loss_event_rate + if self.was_loss { 0.01 } else { 0.0 };
                self.was_loss = false;
                self.last_loss_rate_update = Some(now);
            }
        }
        let last = *self.last_sample.get_or_insert(now);
        if now.saturating_duration_since(last) > INTERVAL {
            self.last_sample = Some(now);
            self.hist[self.ptr] = qd.as_secs_f64() / lo;
            self.ptr = (self.ptr + 1) % HIST;
            let ordered = (0..HIST).map(|i| self.hist[(self.ptr + i) % HIST]);
            let mean = ordered.clone().sum::<f64>() / HIST as f64;
            let mean_sh = ordered.clone().skip(HIST - HIST_SHORT).sum::<f64>() / HIST_SHORT as f64;
            let mut var = 0.0;
            let mut skew = 0.0;
            for h in ordered {
                let d = h - mean;
                var += d * d;
                skew += d * d * d;
            }
            var /= HIST as f64;
            self.skew = (self.skew + skew) / HIST as f64;
            let oh = lo * (mean_sh + var.sqrt());
            target = if self.loss_event_rate > 0.002 && mean_sh > 0.5 && var < 0.2 {
                hi.min(1.5 * oh)
            } else if var < 0.2 && self.skew < 0.05 {
                oh.clamp(lo, hi)
            } else if oh < target {
                lo.max((0.99 * target).max(oh))
            } else {
                lo.max(0.999 * target)
            };
        }
        let t = Duration::from_secs_f64(target.max(lo));
        self.target = Some(t);
        t
    }
}
