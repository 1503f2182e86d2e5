//! The delay-based rate controller of draft-ietf-rmcat-gcc-02 §5.5: the Hold /
//! Increase / Decrease state machine driving the estimate A_hat.

use scream::{Bitrate, Duration, Instant};

use super::detector::Usage;

/// §5.5: the response time is the RTT plus 100 ms for the estimator and detector to
/// react.
pub(crate) const RESPONSE_TIME_EXTRA: Duration = Duration::from_millis(100);
/// §5.5: additive increase is at least 1000 bit per update.
pub(crate) const MIN_ADDITIVE_BPS: f64 = 1000.0;
/// §5.5: expected_packet_size assumes 30 frames per second...
pub(crate) const EXPECTED_FPS: f64 = 30.0;
/// ...and packets of at most 1200 bytes.
pub(crate) const EXPECTED_PACKET_BITS: f64 = 1200.0 * 8.0;
/// §5.5: A_hat(i) < 1.5 R_hat(i) while increasing.
pub(crate) const MAX_RATE_OVER_RECEIVED: f64 = 1.5;
/// §5.5: "close" to convergence is within three standard deviations of the average
/// received rate at past decreases.
pub(crate) const CONVERGENCE_SIGMAS: f64 = 3.0;
/// §5.5: the average and variance at decreases are exponential moving averages with
/// smoothing factor 0.95 (the new sample weighs 0.05).
pub(crate) const MAX_RATE_SMOOTHING: f64 = 0.95;
/// libwebrtc `aimd_rate_control.cc`: the variance is kept normalised by the average
/// (kbit/s) and clamped to [0.4, 2.5], so that a single decrease already gives a
/// usable band (the draft's unnormalised variance is zero after one sample, and then
/// nothing would ever count as close).
pub(crate) const NORM_VARIANCE_MIN: f64 = 0.4;
/// See [`NORM_VARIANCE_MIN`].
pub(crate) const NORM_VARIANCE_MAX: f64 = 2.5;
/// libwebrtc `aimd_rate_control.cc` `kMinIncreaseRateBpsPerSecond`: its near-max
/// additive increase is a rate per second, at least 4 kbit/s per second, times the
/// time since the last update (the draft's floor is 1000 bit per update instead).
pub(crate) const MIN_ADDITIVE_BPS_PER_SEC: f64 = 4000.0;
/// §5.5: multiplicative increase uses eta^min(dt / 1 s, 1), so one update never
/// counts more than a second.
pub(crate) const MAX_INCREASE_STEP: Duration = Duration::from_secs(1);

/// The state of the rate controller (§5.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RateState {
    /// Waiting for queues to drain.
    Hold,
    /// No congestion: the estimate grows.
    Increase,
    /// Congestion: the estimate drops to beta R_hat.
    Decrease,
}

/// The delay-based estimate A_hat and what drives it.
#[derive(Debug, Clone)]
pub(crate) struct RemoteRate {
    /// Additive increase as libwebrtc runs it (per second) rather than the draft's.
    per_second_additive: bool,
    beta: f64,
    eta: f64,
    state: RateState,
    estimate: Bitrate,
    /// Average received rate at decreases, kbit/s, while valid.
    avg_max_kbps: Option<f64>,
    /// Its variance over the average, kbit/s.
    var_max_norm: f64,
    last_update: Option<Instant>,
}

impl RemoteRate {
    /// Starts in Increase at `start` (§5.5) with decrease factor `beta` (0.85) and
    /// multiplicative-increase base `eta` (1.08).
    pub(crate) fn new(start: Bitrate, beta: f64, eta: f64, per_second_additive: bool) -> Self {
        Self {
            per_second_additive,
            beta,
            eta,
            state: RateState::Increase,
            estimate: start,
            avg_max_kbps: None,
            var_max_norm: NORM_VARIANCE_MIN,
            last_update: None,
        }
    }

    pub(crate) fn estimate(&self) -> Bitrate {
        self.estimate
    }

    /// A probe measured `rate`: the estimate jumps to it when that is higher
    /// (libwebrtc `delay_based_bwe.cc` sets the AIMD estimate from a probe result when
    /// not over-using; a result below the estimate is not taken as a cut here, the
    /// detector owns decreases).
    pub(crate) fn on_probe(&mut self, rate: Bitrate) {
        self.estimate = self.estimate.max(rate);
    }

    #[cfg(test)]
    pub(crate) fn state(&self) -> RateState {
        self.state
    }

    /// Whether the received rate `r` is close to the average at past decreases.
    pub(crate) fn near_convergence(&self, r: Bitrate) -> bool {
        self.avg_max_kbps.is_some_and(|avg| {
            let sigma = (self.var_max_norm * avg).sqrt();
            (r.kbps() - avg).abs() <= CONVERGENCE_SIGMAS * sigma
        })
    }

    fn sigma_kbps(&self, avg: f64) -> f64 {
        (self.var_max_norm * avg).sqrt()
    }

    /// Adds the received rate at a decrease to the average and its variance.
    fn record_max(&mut self, r_kbps: f64) {
        let a = 1.0 - MAX_RATE_SMOOTHING;
        let avg = match self.avg_max_kbps {
            None => r_kbps,
            Some(avg) => (1.0 - a) * avg + a * r_kbps,
        };
        let norm = avg.max(1.0);
        self.var_max_norm = ((1.0 - a) * self.var_max_norm + a * (avg - r_kbps).powi(2) / norm)
            .clamp(NORM_VARIANCE_MIN, NORM_VARIANCE_MAX);
        self.avg_max_kbps = Some(avg);
    }

    /// The state transition of §5.5's table (blank cells keep the state).
    fn transition(&mut self, usage: Usage) {
        self.state = match (usage, self.state) {
            (Usage::Over, _) => RateState::Decrease,
            (Usage::Normal, RateState::Hold) => RateState::Increase,
            (Usage::Normal, RateState::Decrease) => RateState::Hold,
            (Usage::Normal, RateState::Increase) => RateState::Increase,
            (Usage::Under, _) => RateState::Hold,
        };
    }

    /// One update with the detector's signal, the received rate R_hat (when measured)
    /// and the RTT. Returns the new A_hat.
    pub(crate) fn update(
        &mut self,
        now: Instant,
        usage: Usage,
        received: Option<Bitrate>,
        rtt: Duration,
    ) -> Bitrate {
        let since = self
            .last_update
            .map_or(Duration::ZERO, |t| now.saturating_duration_since(t));
        self.last_update = Some(now);
        self.transition(usage);
        match self.state {
            RateState::Hold => {}
            RateState::Increase => self.increase(since, received, rtt),
            RateState::Decrease => self.decrease(received),
        }
        self.estimate
    }

    fn increase(&mut self, since: Duration, received: Option<Bitrate>, rtt: Duration) {
        if let (Some(r), Some(avg)) = (received, self.avg_max_kbps)
            && r.kbps() > avg + CONVERGENCE_SIGMAS * self.sigma_kbps(avg)
        {
            // The congestion level changed: forget the old average (§5.5).
            self.avg_max_kbps = None;
        }
        let a = self.estimate.bps();
        let near = received.is_some_and(|r| self.near_convergence(r));
        let next = if near && self.per_second_additive {
            // libwebrtc: one expected packet per response time, as a rate per second.
            let response = rtt + RESPONSE_TIME_EXTRA;
            let bits_per_frame = a / EXPECTED_FPS;
            let packets_per_frame = (bits_per_frame / EXPECTED_PACKET_BITS).ceil().max(1.0);
            let per_sec = (bits_per_frame / packets_per_frame / response.as_secs_f64())
                .max(MIN_ADDITIVE_BPS_PER_SEC);
            a + per_sec * since.as_secs_f64()
        } else if near {
            let response = rtt + RESPONSE_TIME_EXTRA;
            let alpha = 0.5 * (since.as_secs_f64() / response.as_secs_f64()).min(1.0);
            let bits_per_frame = a / EXPECTED_FPS;
            let packets_per_frame = (bits_per_frame / EXPECTED_PACKET_BITS).ceil().max(1.0);
            let packet_bits = bits_per_frame / packets_per_frame;
            a + (alpha * packet_bits).max(MIN_ADDITIVE_BPS)
        } else {
            let step = since.min(MAX_INCREASE_STEP).as_secs_f64();
            a * self.eta.powf(step)
        };
        // §5.5: do not run away from what the sender actually gets through; an
        // estimate already above the bound is held, not cut.
        let bounded = match received {
            Some(r) => next.min((MAX_RATE_OVER_RECEIVED * r.bps()).max(a)),
            None => next,
        };
        self.estimate = Bitrate::from_bps(bounded);
    }

    fn decrease(&mut self, received: Option<Bitrate>) {
        let Some(r) = received else {
            // No receive rate yet: cut the estimate itself.
            self.estimate = self.estimate.scale(self.beta);
            return;
        };
        if let Some(avg) = self.avg_max_kbps
            && r.kbps() < avg - CONVERGENCE_SIGMAS * self.sigma_kbps(avg)
        {
            self.avg_max_kbps = None;
        }
        self.record_max(r.kbps());
        // A_hat = beta R_hat (§5.5), never above the estimate it replaces: a receive
        // rate inflated by a queue draining must not raise it.
        self.estimate = self.estimate.min(r.scale(self.beta));
    }
}
