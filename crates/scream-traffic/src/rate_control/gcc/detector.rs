//! The over-use detector with its adaptive threshold (draft-ietf-rmcat-gcc-02 §5.4).

/// §5.4: del_var_th is clamped to [6, 600] ms.
pub(crate) const THRESHOLD_MIN_MS: f64 = 6.0;
/// §5.4: del_var_th is clamped to [6, 600] ms.
pub(crate) const THRESHOLD_MAX_MS: f64 = 600.0;
/// §5.4: del_var_th is not updated when |m(i)| - del_var_th(i) > 15 ms (a latency
/// spike, such as a sudden capacity drop, must not drag the threshold up).
pub(crate) const MAX_ADAPT_OFFSET_MS: f64 = 15.0;
/// libwebrtc `kMaxTimeDeltaMs`: the time step of one threshold update is capped at
/// 100 ms, so that a gap in the feedback does not swing the threshold in one step.
pub(crate) const MAX_THRESHOLD_STEP_MS: f64 = 100.0;
/// libwebrtc `kMinNumDeltas` / `kMaxNumDeltas`: the filtered gradient is scaled by the
/// number of deltas seen, up to 60, before it meets the threshold. The draft compares
/// m(i) itself, but its threshold values (12.5 ms initial, at least 6 ms) are
/// libwebrtc's, which apply to the scaled value: a 5 % over-use on 20 ms groups is a
/// gradient of 1 ms per group, which unscaled would never reach 6 ms.
pub(crate) const MAX_NUM_DELTAS: f64 = 60.0;

/// What the detector signals to the rate controller (§5.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Usage {
    /// Neither over- nor under-use.
    #[default]
    Normal,
    /// The queue grows: over-use.
    Over,
    /// The queue drains: under-use.
    Under,
}

/// Detector tunables (§5.4 defaults).
#[derive(Debug, Clone, Copy)]
pub(crate) struct DetectorConfig {
    /// del_var_th(0), ms.
    pub(crate) initial_threshold_ms: f64,
    /// K_u.
    pub(crate) k_u: f64,
    /// K_d.
    pub(crate) k_d: f64,
    /// overuse_time_th, ms.
    pub(crate) overuse_time_ms: f64,
}

/// The detector's state.
#[derive(Debug, Clone)]
pub(crate) struct Detector {
    cfg: DetectorConfig,
    threshold_ms: f64,
    num_deltas: f64,
    /// The previous (scaled) estimate, for the "not decreasing" rule.
    previous: f64,
    /// How long the estimate has been above the threshold, ms.
    time_over_ms: f64,
    overuse_count: u32,
    usage: Usage,
}

impl Detector {
    pub(crate) fn new(cfg: DetectorConfig) -> Self {
        Self {
            cfg,
            threshold_ms: cfg
                .initial_threshold_ms
                .clamp(THRESHOLD_MIN_MS, THRESHOLD_MAX_MS),
            num_deltas: 0.0,
            previous: 0.0,
            time_over_ms: 0.0,
            overuse_count: 0,
            usage: Usage::Normal,
        }
    }

    #[cfg(test)]
    /// del_var_th(i), ms.
    pub(crate) fn threshold_ms(&self) -> f64 {
        self.threshold_ms
    }

    /// The current signal.
    pub(crate) fn usage(&self) -> Usage {
        self.usage
    }

    /// The estimate scaled as the threshold sees it (see [`MAX_NUM_DELTAS`]).
    pub(crate) fn scaled(&self, estimate: f64) -> f64 {
        self.num_deltas.min(MAX_NUM_DELTAS) * estimate
    }

    /// One filtered gradient `estimate` (ms) after a group that came `dt_ms` after the
    /// previous one.
    pub(crate) fn detect(&mut self, estimate: f64, dt_ms: f64) -> Usage {
        self.num_deltas = (self.num_deltas + 1.0).min(MAX_NUM_DELTAS);
        let m = self.scaled(estimate);
        if self.num_deltas < 2.0 {
            self.previous = m;
            return self.usage;
        }
        let dt = dt_ms.clamp(0.0, MAX_THRESHOLD_STEP_MS);
        if m > self.threshold_ms {
            // Half the step counts for the first sample above, as it crossed somewhere
            // in between (libwebrtc does the same).
            self.time_over_ms += if self.overuse_count == 0 {
                dt / 2.0
            } else {
                dt
            };
            self.overuse_count += 1;
            if self.time_over_ms > self.cfg.overuse_time_ms
                && self.overuse_count > 1
                && m >= self.previous
            {
                self.time_over_ms = 0.0;
                self.overuse_count = 0;
                self.usage = Usage::Over;
            }
        } else if m < -self.threshold_ms {
            self.time_over_ms = 0.0;
            self.overuse_count = 0;
            self.usage = Usage::Under;
        } else {
            self.time_over_ms = 0.0;
            self.overuse_count = 0;
            self.usage = Usage::Normal;
        }
        self.previous = m;
        self.adapt_threshold(m, dt);
        self.usage
    }

    /// del_var_th(i) = del_var_th(i-1) + dt K(i) (|m(i)| - del_var_th(i-1)), with K_d
    /// inside the band and K_u outside (§5.4).
    fn adapt_threshold(&mut self, m: f64, dt_ms: f64) {
        let excess = m.abs() - self.threshold_ms;
        if excess > MAX_ADAPT_OFFSET_MS {
            return;
        }
        let k = if m.abs() < self.threshold_ms {
            self.cfg.k_d
        } else {
            self.cfg.k_u
        };
        self.threshold_ms =
            (self.threshold_ms + dt_ms * k * excess).clamp(THRESHOLD_MIN_MS, THRESHOLD_MAX_MS);
    }
}
