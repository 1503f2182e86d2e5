//! The scalar Kalman arrival-time filter of draft-ietf-rmcat-gcc-02 §5.3.

use std::collections::VecDeque;

use super::group::GroupDelta;

/// libwebrtc `overuse_estimator.cc` `kMinFramePeriodHistoryLength`: how many recent
/// groups f_max (§5.3: "the last K packet groups") looks back over; the draft leaves K
/// open.
pub(crate) const F_MAX_HISTORY: usize = 60;
/// Initial measurement-noise variance var_v_hat(0), ms². The draft gives none;
/// libwebrtc's `OveruseEstimator` starts its `var_noise_` at 50.
pub(crate) const VAR_V_INITIAL: f64 = 50.0;
/// §5.3: var_v_hat never drops below 1 ms².
pub(crate) const VAR_V_MIN: f64 = 1.0;
/// §5.3 outlier filter: z(i) is clamped to 3 sqrt(var_v_hat) in the variance update.
pub(crate) const OUTLIER_SIGMAS: f64 = 3.0;

/// The filter's state: m_hat(i), e(i), var_v_hat(i).
#[derive(Debug, Clone)]
pub(crate) struct KalmanFilter {
    q: f64,
    chi: f64,
    m_hat: f64,
    e: f64,
    var_v: f64,
    /// Recent inter-departure times, ms, for f_max.
    send_deltas: VecDeque<f64>,
}

impl KalmanFilter {
    /// A filter with state noise `q` (§5.3, 10^-3), initial error `e0` (§5.6 Table 1,
    /// 0.1) and noise-filter coefficient `chi` (§5.3, in [0.001, 0.1]).
    pub(crate) fn new(q: f64, e0: f64, chi: f64) -> Self {
        Self {
            q,
            chi,
            m_hat: 0.0,
            e: e0,
            var_v: VAR_V_INITIAL,
            send_deltas: VecDeque::with_capacity(F_MAX_HISTORY),
        }
    }

    /// m_hat(i), ms.
    pub(crate) fn estimate(&self) -> f64 {
        self.m_hat
    }

    /// One inter-group delay variation d(i).
    pub(crate) fn update(&mut self, delta: &GroupDelta) {
        if self.send_deltas.len() == F_MAX_HISTORY {
            self.send_deltas.pop_front();
        }
        self.send_deltas.push_back(delta.send_delta_ms);
        // f_max in 1/ms: the shortest inter-departure time among the last K groups.
        let min_period = self
            .send_deltas
            .iter()
            .copied()
            .filter(|d| *d > 0.0)
            .fold(f64::INFINITY, f64::min);
        let f_max = if min_period.is_finite() {
            1.0 / min_period
        } else {
            // Groups that left together: take the burst time's rate (one per 5 ms).
            0.2
        };
        let z = delta.d_ms - self.m_hat;
        let alpha = (1.0 - self.chi).powf(30.0 / (1000.0 * f_max));
        let bound = OUTLIER_SIGMAS * self.var_v.sqrt();
        let z_noise = z.clamp(-bound, bound);
        self.var_v = (alpha * self.var_v + (1.0 - alpha) * z_noise * z_noise).max(VAR_V_MIN);
        let prior = self.e + self.q;
        let k = prior / (self.var_v + prior);
        self.m_hat += z * k;
        self.e = (1.0 - k) * prior;
        if !self.m_hat.is_finite() {
            // Only absurd inputs get here; start over rather than stay poisoned.
            self.m_hat = 0.0;
            self.var_v = VAR_V_INITIAL;
        }
    }
}
