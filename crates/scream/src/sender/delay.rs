//! Delay estimation shared by all generations: one-way delay, base delay, queue delay
//! and its averages, smoothed RTT, and the queue-delay variation that makes the send
//! window headroom adaptive.
//!
//! The one-way delay is the receiver's arrival time minus our send time. The two clocks
//! have unrelated epochs, so only its changes mean anything: the base delay is its
//! minimum over a long history (draft §"Network Congestion Control", after RFC 6817 LEDBAT) and the queue delay
//! is the excess over that minimum.
//!
//! Samples are checked against what the sender knows for itself before they are used.
//! A packet's queue delay cannot exceed the time since it was sent (its "age" when the
//! feedback arrives), and a one-way delay cannot fall below the base by more than that
//! age either (the base path's own delay is at most one round trip). A sample outside
//! those bounds means the receiver's clock stepped, our own `now` jumped, or the report
//! lies; it is not used. Only when such samples persist over
//! [`STEP_CONFIRM_FEEDBACKS`] feedbacks in a row is it a clock step, and the base delay
//! restarts from them. So one bad sample cannot collapse the rate, while a real queue or
//! a longer path (both within the bounds) is measured as before.

mod arrival_span;
mod report_clock;

use super::generation::DelayParams;
use crate::time::{Duration, Instant, RemoteInstant};
use arrival_span::ArrivalSpan;
use report_clock::ReportClock;
pub(crate) use report_clock::Verdict;

/// Buckets of the base delay history (draft: a 10-minute history kept in 1-minute
/// minima, as in RFC 6817 §3.4.2).
const BASE_DELAY_BUCKETS: usize = 10;
/// Smoothed RTT before the first sample (reference implementation initial value).
pub(crate) const INITIAL_SRTT: Duration = Duration::from_millis(50);
/// EWMA gain of the smoothed RTT (RFC 6298 §2: alpha = 1/8).
const SRTT_G: f64 = 1.0 / 8.0;
/// Gain with which the controller's sRTT follows a falling RTT while the window is
/// application-limited (reference implementation: 1/1024), so that an encoder running
/// below its target does not see its target raised by the RTT alone.
const SRTT_APP_LIMITED_G: f64 = 1.0 / 1024.0;
/// `fresh-srtt`: the controller's sRTT is replaced by the per-sample one once that has
/// fallen below this fraction of it.
const FRESH_SRTT_DROP: f64 = 0.5;
/// Queue-delay variation above which the send window headroom is at its minimum
/// (reference `kLatencyDiffThreshold`, 10 ms).
const LATENCY_DIFF_THRESHOLD: f64 = 0.010;
/// EWMA gain of the queue-delay variation (reference `kLatencyDiffAlpha`).
const LATENCY_DIFF_G: f64 = 1.0 / 32.0;
/// Decay of the tracked queue-delay maximum and minimum per update (reference
/// `kQueueDelayMinMaxAlpha`).
const MIN_MAX_G: f64 = 1.0 / 16.0;
/// Window over which the minimum queue delay is checked for a standing offset.
const STANDING_QUEUE_WINDOW: Duration = Duration::from_secs(10);
/// At most one base delay refresh per this interval (reference
/// `kBaseDelayResetInterval`, 60 s).
const REFRESH_INTERVAL: Duration = Duration::from_secs(60);
/// Minimum length of the reduced-rate period of a refresh (reference: 100 ms or 5 RTTs).
const REFRESH_MIN_SPAN: Duration = Duration::from_millis(100);
/// RTTs of reduced rate during a refresh (reference `kNumRateLimitRtts`).
const REFRESH_RTTS: u32 = 5;
/// Target scale during a refresh, so the network queue drains.
const REFRESH_RATE_FACTOR: f64 = 0.5;
/// Slack on the plausibility bounds of a delay sample: the arrival time offset's
/// resolution (1/1024 s, RFC 8888 §3.1), the report timestamp's (1/65536 s), and the
/// clocks' rate difference over a base delay window (tens of ppm over minutes).
pub(crate) const PLAUSIBILITY_MARGIN: Duration = Duration::from_millis(10);
/// Feedbacks with implausible samples, and no plausible one in between, after which the
/// receiver's clock (or ours) is taken to have stepped and the base delay restarts. One
/// report, or two, may be forged or corrupted; three in a row is what a clock step
/// looks like.
const STEP_CONFIRM_FEEDBACKS: u64 = 3;

/// Delay state of a sender.
#[derive(Debug, Clone)]
pub(crate) struct DelayEstimator {
    buckets: [i64; BASE_DELAY_BUCKETS],
    bucket_idx: usize,
    bucket_started: Option<Instant>,
    bucket_len: Duration,
    /// Minimum over every bucket except the current one.
    history_min: i64,
    queue_delay: Duration,
    qdelay_avg: Duration,
    last_avg_update: Option<Instant>,
    srtt_fast: Duration,
    /// The latest RTT sample.
    last_rtt: Duration,
    srtt_falling: bool,
    srtt: Duration,
    last_srtt_update: Option<Instant>,
    qd_max_avg: f64,
    qd_min_avg: f64,
    latency_diff_avg: f64,
    last_var_update: Option<Instant>,
    standing_min: Duration,
    standing_started: Option<Instant>,
    refresh_until: Option<Instant>,
    last_refresh: Option<Instant>,
    report_clock: ReportClock,
    /// Feedbacks processed so far.
    feedbacks: u64,
    /// Implausible samples since the last plausible one, if any.
    step: Option<ClockStep>,
    /// Whether the return path loses reports (`arrival_span`).
    arrivals: ArrivalSpan,
}

/// A run of implausible samples: maybe a clock step.
#[derive(Debug, Clone, Copy)]
struct ClockStep {
    /// The feedback (count) its latest sample came with.
    last_feedback: u64,
    /// Distinct feedbacks its samples came with.
    feedbacks: u64,
    /// Lowest one-way delay among its samples: the base delay if the step is real.
    lowest: i64,
}

impl DelayEstimator {
    pub(crate) fn new(base_delay_window: Duration) -> Self {
        Self {
            buckets: [i64::MAX; BASE_DELAY_BUCKETS],
            bucket_idx: 0,
            bucket_started: None,
            bucket_len: base_delay_window / BASE_DELAY_BUCKETS as u32,
            history_min: i64::MAX,
            queue_delay: Duration::ZERO,
            qdelay_avg: Duration::ZERO,
            last_avg_update: None,
            srtt_fast: INITIAL_SRTT,
            last_rtt: INITIAL_SRTT,
            srtt_falling: false,
            srtt: INITIAL_SRTT,
            last_srtt_update: None,
            qd_max_avg: 0.0,
            qd_min_avg: f64::MAX,
            latency_diff_avg: 0.0,
            last_var_update: None,
            standing_min: Duration::MAX,
            standing_started: None,
            refresh_until: None,
            last_refresh: None,
            report_clock: ReportClock::default(),
            feedbacks: 0,
            step: None,
            arrivals: ArrivalSpan::default(),
        }
    }

    /// Whether a report with `report_time`, arriving at `now`, is fresh enough to use;
    /// `last` is the report time of the last report used (see [`ReportClock`]). The
    /// delay estimator judges it because the report time is the receiver's clock, the
    /// same clock the one-way delays are measured against.
    pub(crate) fn judge_report(
        &mut self,
        now: Instant,
        last: Option<RemoteInstant>,
        report_time: RemoteInstant,
    ) -> Verdict {
        self.report_clock.judge(now, last, report_time)
    }

    /// One-way delay sample: `owd_nanos` = arrival (remote clock) − send (local clock),
    /// of a packet sent `age` before `now`. Returns whether the sample was used (see the
    /// module documentation for when it is not).
    pub(crate) fn on_owd_sample(
        &mut self,
        now: Instant,
        owd_nanos: i64,
        age: Duration,
        qdelay_target: Duration,
    ) -> bool {
        self.rotate_buckets(now);
        let base = self.history_min.min(self.buckets[self.bucket_idx]);
        if base != i64::MAX {
            let bound = nanos_i64(age.saturating_add(PLAUSIBILITY_MARGIN));
            let deviation = owd_nanos.saturating_sub(base);
            if deviation > bound || deviation < bound.saturating_neg() {
                self.on_implausible(now, owd_nanos);
                return false;
            }
        }
        self.step = None;
        self.arrivals.sample(age, owd_nanos);
        let cur = &mut self.buckets[self.bucket_idx];
        *cur = (*cur).min(owd_nanos);
        let base = self.history_min.min(*cur);
        let q = u64::try_from(owd_nanos.saturating_sub(base)).unwrap_or(0);
        self.queue_delay = Duration::from_nanos(q);

        let qd = self.queue_delay.as_secs_f64();
        self.qd_min_avg = self.qd_min_avg.min(qd);
        self.qd_max_avg = qdelay_target.as_secs_f64().min(self.qd_max_avg.max(qd));
        self.standing_min = self.standing_min.min(self.queue_delay);
        true
    }

    /// A sample outside the plausible bounds. Alone it is dropped; when the samples of
    /// [`STEP_CONFIRM_FEEDBACKS`] feedbacks in a row are all out of bounds, a clock
    /// stepped: the base delay history restarts from the lowest of them.
    fn on_implausible(&mut self, now: Instant, owd_nanos: i64) {
        let feedback = self.feedbacks;
        let step = self.step.get_or_insert(ClockStep {
            last_feedback: feedback,
            feedbacks: 1,
            lowest: owd_nanos,
        });
        if step.last_feedback != feedback {
            step.last_feedback = feedback;
            step.feedbacks += 1;
        }
        step.lowest = step.lowest.min(owd_nanos);
        if step.feedbacks < STEP_CONFIRM_FEEDBACKS {
            return;
        }
        let lowest = step.lowest;
        self.step = None;
        self.buckets = [i64::MAX; BASE_DELAY_BUCKETS];
        self.buckets[self.bucket_idx] = lowest;
        self.history_min = i64::MAX;
        self.bucket_started = Some(now);
        self.queue_delay =
            Duration::from_nanos(u64::try_from(owd_nanos.saturating_sub(lowest)).unwrap_or(0));
        self.standing_min = Duration::MAX;
        self.standing_started = Some(now);
    }

    /// Starts a new base delay bucket when the current one is full.
    fn rotate_buckets(&mut self, now: Instant) {
        let started = *self.bucket_started.get_or_insert(now);
        if now.saturating_duration_since(started) >= self.bucket_len {
            self.history_min = self.history_min.min(self.buckets[self.bucket_idx]);
            self.bucket_idx = (self.bucket_idx + 1) % BASE_DELAY_BUCKETS;
            self.buckets[self.bucket_idx] = i64::MAX;
            self.history_min = self
                .buckets
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != self.bucket_idx)
                .map(|(_, b)| *b)
                .min()
                .unwrap_or(i64::MAX);
            self.bucket_started = Some(now);
        }
    }

    /// RTT sample (send time of the newest acknowledged packet to now).
    /// `app_limited`: the window is larger than the recent bytes in flight need.
    /// `fresh`: the `fresh-srtt` improvement is on.
    pub(crate) fn on_rtt_sample(
        &mut self,
        now: Instant,
        rtt: Duration,
        app_limited: bool,
        fresh: bool,
    ) {
        // Both averages start from INITIAL_SRTT, not from the first sample, as the
        // reference's `sRttSh` and `sRtt` do (RFC 6298 would start from the first
        // sample): the start-up target then does not hinge on one RTT sample.
        let s = self.srtt_fast.as_secs_f64();
        let next = Duration::from_secs_f64(s + SRTT_G * (rtt.as_secs_f64() - s));
        self.srtt_falling = next < self.srtt_fast;
        self.srtt_fast = next;
        self.last_rtt = rtt;
        // The controller's sRTT follows the per-sample one once per RTT with the same
        // gain (reference implementation), so it spans about eight RTTs.
        let due = self
            .last_srtt_update
            .is_none_or(|t| now.saturating_duration_since(t) >= self.srtt_fast);
        if due && fresh && self.srtt_fast < self.srtt.mul_f64(FRESH_SRTT_DROP) {
            // `fresh-srtt`: the RTT has fallen to well below what the controller
            // remembers (a queue that built in an outage has drained): the remembered
            // value describes a path that is gone, so it is dropped instead of decaying
            // over dozens of RTTs, or hundreds while application-limited.
            self.srtt = self.srtt_fast;
            self.last_srtt_update = Some(now);
        } else if due {
            let g = if app_limited && self.srtt_fast < self.srtt {
                SRTT_APP_LIMITED_G
            } else {
                SRTT_G
            };
            let s = self.srtt.as_secs_f64();
            self.srtt = Duration::from_secs_f64(s + g * (self.srtt_fast.as_secs_f64() - s));
            self.last_srtt_update = Some(now);
        }
    }

    /// Slower updates, once per feedback after its samples were taken.
    pub(crate) fn on_feedback_end(&mut self, now: Instant, params: &DelayParams) {
        let (qdelay_avg_g, congestion_interval, qdelay_target) =
            (params.qdelay_avg_g, params.interval, params.qdelay_target);
        self.feedbacks += 1;
        self.arrivals.end_feedback(now);
        // Draft §"Network Congestion Control": qdelay_avg, a slow-attack fast-decay EWMA.
        // The draft updates it once per RTT; like the reference we update it once per
        // congestion interval (min(VIRTUAL_RTT, s_rtt)), otherwise at RTTs of 50 ms
        // the delay-based back-off sets in late and the queue overshoots.
        let due = self
            .last_avg_update
            .is_none_or(|t| now.saturating_duration_since(t) >= congestion_interval);
        if due {
            if self.queue_delay < self.qdelay_avg {
                self.qdelay_avg = self.queue_delay;
            } else {
                let a = self.qdelay_avg.as_secs_f64();
                let q = self.queue_delay.as_secs_f64();
                self.qdelay_avg = Duration::from_secs_f64(a + qdelay_avg_g * (q - a));
            }
            self.last_avg_update = Some(now);
        }

        let due = self
            .last_var_update
            .is_none_or(|t| now.saturating_duration_since(t) >= congestion_interval);
        if due {
            let diff = (self.qd_max_avg - self.qd_min_avg).clamp(0.0, 2.0 * LATENCY_DIFF_THRESHOLD);
            self.latency_diff_avg += LATENCY_DIFF_G * (diff - self.latency_diff_avg);
            self.qd_max_avg *= 1.0 - MIN_MAX_G;
            self.qd_min_avg =
                (1.0 - MIN_MAX_G) * self.qd_min_avg.min(1e3) + MIN_MAX_G * self.qd_max_avg;
            self.last_var_update = Some(now);
        }

        self.check_standing_queue(now, qdelay_target);
    }

    /// A queue delay that never drops near zero for a long while means a standing
    /// queue or clock drift has lifted the base delay estimate; the reference then
    /// lowers the rate briefly so the queue drains, and restarts the base delay history.
    fn check_standing_queue(&mut self, now: Instant, qdelay_target: Duration) {
        if let Some(until) = self.refresh_until {
            if now >= until {
                self.refresh_until = None;
                self.buckets = [i64::MAX; BASE_DELAY_BUCKETS];
                self.history_min = i64::MAX;
                self.bucket_started = Some(now);
                self.queue_delay = Duration::ZERO;
                self.qdelay_avg = Duration::ZERO;
                self.standing_min = Duration::MAX;
                self.standing_started = Some(now);
            }
            return;
        }
        let started = *self.standing_started.get_or_insert(now);
        if now.saturating_duration_since(started) < STANDING_QUEUE_WINDOW {
            return;
        }
        let standing = self.standing_min > qdelay_target / 8;
        let allowed = self
            .last_refresh
            .is_none_or(|t| now.saturating_duration_since(t) >= REFRESH_INTERVAL);
        if standing && allowed {
            let span = REFRESH_MIN_SPAN.max(self.srtt * REFRESH_RTTS);
            self.refresh_until = Some(now + span);
            self.last_refresh = Some(now);
        }
        self.standing_min = Duration::MAX;
        self.standing_started = Some(now);
    }

    /// Forgets the queue-delay variation (`outage-recovery`, after an outage): the
    /// swings of an outage say nothing about the path that comes back, and would
    /// restrain the window growth for seconds.
    pub(crate) fn forget_variation(&mut self) {
        self.qd_max_avg = 0.0;
        self.qd_min_avg = f64::MAX;
        self.latency_diff_avg = 0.0;
    }

    /// Factor applied to the targets: below one while a base delay refresh drains the
    /// queue.
    pub(crate) fn rate_factor(&self) -> f64 {
        if self.refresh_until.is_some() {
            REFRESH_RATE_FACTOR
        } else {
            1.0
        }
    }

    pub(crate) fn queue_delay(&self) -> Duration {
        self.queue_delay
    }

    pub(crate) fn qdelay_avg(&self) -> Duration {
        self.qdelay_avg
    }

    /// The sRTT the controller uses everywhere (the reference's `sRtt`): the per-sample
    /// EWMA followed once per RTT with gain 1/8, so it spans about eight RTTs and
    /// barely moves during a short queue build-up.
    pub(crate) fn srtt(&self) -> Duration {
        self.srtt
    }

    /// EWMA of every RTT sample with gain 1/8 (RFC 6298; the reference's `sRttSh`).
    pub(crate) fn srtt_fast(&self) -> Duration {
        self.srtt_fast
    }

    /// Whether a feedback in the last second followed reports lost on the way back
    /// (see `arrival_span`).
    pub(crate) fn reports_lost_lately(&self, now: Instant) -> bool {
        self.arrivals.reports_lost_lately(now)
    }

    /// The latest RTT sample (the initial sRTT before the first).
    pub(crate) fn last_rtt(&self) -> Duration {
        self.last_rtt
    }

    /// Whether the latest RTT sample lowered the per-sample smoothed RTT.
    pub(crate) fn srtt_falling(&self) -> bool {
        self.srtt_falling
    }

    /// 1 when the queue delay is steady, falling to 0 as its variation reaches twice
    /// the threshold (reference `latencyDiffCwndScale`).
    pub(crate) fn steadiness(&self) -> f64 {
        (1.0 - self.latency_diff_avg / LATENCY_DIFF_THRESHOLD).clamp(0.0, 1.0)
    }
}

/// A duration in nanoseconds as `i64`, saturating (292 years).
fn nanos_i64(d: Duration) -> i64 {
    i64::try_from(d.as_nanos()).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests;
