//! The trendline estimator of today's libwebrtc (`modules/congestion_controller/
//! goog_cc/trendline_estimator.cc`), the alternative to the draft's Kalman filter: a
//! least-squares slope of the smoothed accumulated delay over the last groups.

use std::collections::VecDeque;

use scream::RemoteInstant;

use super::group::GroupDelta;

/// The window, smoothed delay and slope.
#[derive(Debug, Clone)]
pub(crate) struct Trendline {
    window: usize,
    smoothing: f64,
    threshold_gain: f64,
    first_arrival: Option<RemoteInstant>,
    accumulated_ms: f64,
    smoothed_ms: f64,
    /// (arrival since the first group, smoothed delay), ms.
    points: VecDeque<(f64, f64)>,
    slope: f64,
}

impl Trendline {
    /// libwebrtc's defaults: `window` 20 (`kDefaultTrendlineWindowSize`), `smoothing`
    /// 0.9 (`kDefaultTrendlineSmoothingCoeff`), `threshold_gain` 4
    /// (`kDefaultTrendlineThresholdGain`).
    pub(crate) fn new(window: usize, smoothing: f64, threshold_gain: f64) -> Self {
        Self {
            window: window.max(2),
            smoothing,
            threshold_gain,
            first_arrival: None,
            accumulated_ms: 0.0,
            smoothed_ms: 0.0,
            points: VecDeque::with_capacity(window.max(2)),
            slope: 0.0,
        }
    }

    /// The slope times the threshold gain: the delay gradient the detector judges,
    /// before its scaling by the number of deltas.
    pub(crate) fn estimate(&self) -> f64 {
        self.slope * self.threshold_gain
    }

    pub(crate) fn update(&mut self, delta: &GroupDelta) {
        let first = *self.first_arrival.get_or_insert(delta.arrival);
        let x = delta.arrival.saturating_duration_since(first).as_secs_f64() * 1e3;
        self.accumulated_ms += delta.d_ms;
        self.smoothed_ms =
            self.smoothing * self.smoothed_ms + (1.0 - self.smoothing) * self.accumulated_ms;
        if self.points.len() == self.window {
            self.points.pop_front();
        }
        self.points.push_back((x, self.smoothed_ms));
        if self.points.len() == self.window
            && let Some(s) = fit_slope(&self.points)
        {
            self.slope = s;
        }
    }
}

/// Least-squares slope of y over x; `None` when every x is the same.
fn fit_slope(points: &VecDeque<(f64, f64)>) -> Option<f64> {
    let n = points.len() as f64;
    let mean_x = points.iter().map(|p| p.0).sum::<f64>() / n;
    let mean_y = points.iter().map(|p| p.1).sum::<f64>() / n;
    let (mut num, mut den) = (0.0, 0.0);
    for (x, y) in points {
        num += (x - mean_x) * (y - mean_y);
        den += (x - mean_x) * (x - mean_x);
    }
    (den > 0.0).then(|| num / den)
}
