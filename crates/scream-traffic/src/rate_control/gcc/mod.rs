//! Google Congestion Control, draft-ietf-rmcat-gcc-02, run entirely at the sender.
//!
//! The draft (§3) allows two placements: the delay-based controller at the receiver
//! (its estimate returned in REMB) or both controllers at the sender, fed by per-packet
//! feedback. Here everything runs at the sender from the RFC 8888 reports the SCReAM
//! receiver already sends, as libwebrtc's send-side estimation does with its
//! transport-wide feedback: the receiver stays the same for every controller, and the
//! delay-based estimate needs no extra message.
//!
//! Per report: received packets, in sending order, form groups (§5.2) whose delay
//! variation feeds the arrival-time filter — the draft's Kalman filter (§5.3) or
//! libwebrtc's trendline — then the over-use detector (§5.4), then the rate controller
//! (§5.5); the loss-based controller (§6) sees the loss fraction. The target is the
//! smaller estimate, within the flow's bitrate range.
//!
//! Two variants ([`GccVariant`]): the draft as written (`draft-02`) and GCC as today's
//! libwebrtc runs it (`libwebrtc`): bandwidth probing (`probe`), the trendline's own
//! threshold gains and an additive increase counted per second.

mod aimd;
mod detector;
mod group;
mod kalman;
mod loss;
mod probe;
#[cfg(test)]
mod probe_tests;
#[cfg(test)]
mod tests;
mod trendline;

#[cfg(test)]
use aimd::RateState;
#[cfg(test)]
use detector::Usage;

use scream::{Bitrate, Duration, Instant};
use serde::{Deserialize, Serialize};

use super::params::tunables;
use super::{ArrivalRate, PacketResult, SenderState, from_ms};
use aimd::RemoteRate;
use detector::{Detector, DetectorConfig};
use group::Grouper;
use kalman::KalmanFilter;
use loss::LossBased;
pub use probe::ProbeCluster;
use probe::{ALR_USAGE_RATIO, ProbeController, ProbeEstimator};
use trendline::Trendline;

tunables! {
    /// GCC's tunables, set by name in a gcc flow's `params`.
    pub struct GccConfig {
        /// Packets sent within this time of a group's first packet form one group.
        burst_time_ms: unit "ms", default 5.0, range [0.0, 100.0],
            source "draft-ietf-rmcat-gcc-02 §5.2 and §5.6 Table 1 burst_time";
        /// State noise variance q of the Kalman filter.
        kalman_q: unit "1", default 1e-3, range [1e-9, 1.0],
            source "draft-ietf-rmcat-gcc-02 §5.3 q";
        /// Initial system error covariance e(0) of the Kalman filter.
        kalman_e0: unit "1", default 0.1, range [1e-6, 100.0],
            source "draft-ietf-rmcat-gcc-02 §5.6 Table 1 e(0)";
        /// Coefficient chi of the measurement-noise filter (the draft: within
        /// [0.001, 0.1]; 0.01 here, mid-range in log terms).
        kalman_chi: unit "1", default 0.01, range [0.001, 0.1],
            source "draft-ietf-rmcat-gcc-02 §5.3 chi";
        /// Groups in the trendline's regression window.
        trendline_window: unit "1", default 20.0, range [2.0, 1000.0],
            source "libwebrtc trendline_estimator.cc kDefaultTrendlineWindowSize";
        /// Smoothing coefficient of the trendline's accumulated delay.
        trendline_smoothing: unit "1", default 0.9, range [0.0, 0.999],
            source "libwebrtc trendline_estimator.cc kDefaultTrendlineSmoothingCoeff";
        /// Gain on the trendline's slope before the detector.
        trendline_threshold_gain: unit "1", default 4.0, range [0.01, 100.0],
            source "libwebrtc trendline_estimator.cc kDefaultTrendlineThresholdGain";
        /// Initial over-use threshold del_var_th(0).
        threshold_initial_ms: unit "ms", default 12.5, range [6.0, 600.0],
            source "draft-ietf-rmcat-gcc-02 §5.4";
        /// Threshold gain K_u while the estimate is outside the threshold (libwebrtc's
        /// trendline uses 0.0087).
        k_u: unit "1", default 0.01, range [0.0, 1.0],
            source "draft-ietf-rmcat-gcc-02 §5.4 K_u";
        /// Threshold gain K_d while the estimate is inside it (libwebrtc's trendline
        /// uses 0.039).
        k_d: unit "1", default 0.00018, range [0.0, 1.0],
            source "draft-ietf-rmcat-gcc-02 §5.4 K_d";
        /// How long the estimate must stay above the threshold before over-use.
        overuse_time_ms: unit "ms", default 10.0, range [0.0, 1000.0],
            source "draft-ietf-rmcat-gcc-02 §5.4 overuse_time_th";
        /// Decrease factor beta: A_hat = beta R_hat on over-use.
        beta: unit "1", default 0.85, range [0.5, 0.99],
            source "draft-ietf-rmcat-gcc-02 §5.5 (recommended within [0.8, 0.95])";
        /// Base eta of the multiplicative increase (at most 8 % per second).
        eta: unit "1", default 1.08, range [1.0, 2.0],
            source "draft-ietf-rmcat-gcc-02 §5.5";
        /// Window T of the received-rate estimate R_hat.
        rate_window_ms: unit "ms", default 500.0, range [100.0, 5000.0],
            source "draft-ietf-rmcat-gcc-02 §5.5 and Table 1 T in [0.5, 1] s";
        /// Loss fraction below which As_hat grows.
        loss_low: unit "1", default 0.02, range [0.0, 1.0],
            source "draft-ietf-rmcat-gcc-02 §6";
        /// Loss fraction above which As_hat shrinks by (1 - 0.5 p).
        loss_high: unit "1", default 0.1, range [0.0, 1.0],
            source "draft-ietf-rmcat-gcc-02 §6";
        /// The pacer releases the RTP queue at this multiple of the target.
        pacing_factor: unit "1", default 2.5, range [1.0, 10.0],
            source "libwebrtc goog_cc_network_control.cc default pacing factor 2.5";
    }
}

/// libwebrtc `trendline_estimator.cc` `kDefaultTrendlineThresholdGain`'s companions:
/// the over-use detector's threshold gains `k_up` 0.0087 and `k_down` 0.039
/// (`TrendlineEstimator::k_up_`, `k_down_`), the libwebrtc variant's defaults of
/// `k_u` and `k_d`.
pub const LIBWEBRTC_K_U: f64 = 0.0087;
/// See [`LIBWEBRTC_K_U`].
pub const LIBWEBRTC_K_D: f64 = 0.039;
/// libwebrtc `bitrate_estimator.cc` `noninitial_window_ms` 150: the acknowledged rate
/// that the decrease multiplies by beta is measured over 150 ms windows (500 ms only
/// for the first), so a decrease right after a ramp is not dragged down by the slow
/// start still in a 500 ms window. The libwebrtc variant's `rate_window_ms`.
pub const LIBWEBRTC_RATE_WINDOW_MS: f64 = 150.0;

impl GccConfig {
    /// The tunables' defaults of `variant`: the draft's, or for libwebrtc its
    /// trendline detector's threshold gains.
    pub fn for_variant(variant: GccVariant) -> Self {
        match variant {
            GccVariant::Draft02 => Self::default(),
            GccVariant::Libwebrtc => Self {
                k_u: LIBWEBRTC_K_U,
                k_d: LIBWEBRTC_K_D,
                rate_window_ms: LIBWEBRTC_RATE_WINDOW_MS,
                ..Self::default()
            },
        }
    }
}

/// Which GCC a gcc flow runs; named in its `[flows.gcc]` table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum GccVariant {
    /// draft-ietf-rmcat-gcc-02 as written: no probing, the draft's threshold gains, an
    /// additive increase floored per update. The default, so that existing scenarios and
    /// published snapshots keep their numbers.
    #[default]
    #[serde(rename = "draft-02")]
    Draft02,
    /// As libwebrtc's `goog_cc` runs it: initial, further and ALR probing, the
    /// trendline estimator with k_up 0.0087 and k_down 0.039, the additive increase as
    /// a rate per second.
    #[serde(rename = "libwebrtc")]
    Libwebrtc,
}

impl GccVariant {
    /// The arrival-time filter the variant uses unless the flow names one.
    pub fn default_estimator(self) -> GccEstimator {
        match self {
            Self::Draft02 => GccEstimator::Kalman,
            Self::Libwebrtc => GccEstimator::Trendline,
        }
    }
}

/// Which arrival-time filter a GCC controller uses; a gcc flow names it in its
/// `[flows.gcc]` table (`kalman` or `trendline`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GccEstimator {
    /// The scalar Kalman filter of draft-ietf-rmcat-gcc-02 §5.3.
    #[default]
    Kalman,
    /// libwebrtc's trendline estimator (least-squares slope of the smoothed delay).
    Trendline,
}

/// The filter in use.
#[derive(Debug, Clone)]
enum Filter {
    Kalman(KalmanFilter),
    Trendline(Trendline),
}

/// One GCC controller.
#[derive(Debug)]
pub struct Gcc {
    cfg: GccConfig,
    min: Bitrate,
    max: Bitrate,
    grouper: Grouper,
    filter: Filter,
    detector: Detector,
    remote: RemoteRate,
    loss: LossBased,
    received: ArrivalRate,
    target: Bitrate,
    /// Smallest apparent one-way delay seen (ns), for the queue-delay column.
    base_delay_ns: Option<i128>,
    /// Latest apparent one-way delay above it.
    queue_delay: Duration,
    /// Probing (libwebrtc variant only).
    prober: Option<(ProbeController, ProbeEstimator)>,
}

impl Gcc {
    /// A controller for a flow with bitrates `[min, max]` starting at `start`.
    /// `cfg` holds the tunables (start from [`GccConfig::for_variant`]).
    pub fn new(
        cfg: GccConfig,
        estimator: GccEstimator,
        variant: GccVariant,
        [min, start, max]: [Bitrate; 3],
    ) -> Self {
        let libwebrtc = variant == GccVariant::Libwebrtc;
        let filter = match estimator {
            GccEstimator::Kalman => Filter::Kalman(KalmanFilter::new(
                cfg.kalman_q,
                cfg.kalman_e0,
                cfg.kalman_chi,
            )),
            GccEstimator::Trendline => Filter::Trendline(Trendline::new(
                cfg.trendline_window.round() as usize,
                cfg.trendline_smoothing,
                cfg.trendline_threshold_gain,
            )),
        };
        let start = start.clamp(min, max);
        Self {
            grouper: Grouper::new(from_ms(cfg.burst_time_ms)),
            filter,
            detector: Detector::new(DetectorConfig {
                initial_threshold_ms: cfg.threshold_initial_ms,
                k_u: cfg.k_u,
                k_d: cfg.k_d,
                overuse_time_ms: cfg.overuse_time_ms,
            }),
            remote: RemoteRate::new(start, cfg.beta, cfg.eta, libwebrtc),
            loss: LossBased::new(max, cfg.loss_low, cfg.loss_high),
            received: ArrivalRate::new(from_ms(cfg.rate_window_ms)),
            target: start,
            min,
            max,
            cfg,
            base_delay_ns: None,
            queue_delay: Duration::ZERO,
            prober: libwebrtc.then(|| (ProbeController::new(max), ProbeEstimator::default())),
        }
    }

    /// The probe cluster to send now, if any. `sending` is the rate the sender's media
    /// left at lately: well below the target, the sender is application-limited and
    /// probes every few seconds (libwebrtc's ALR probing).
    pub fn poll_probe(&mut self, now: Instant, sending: Option<Bitrate>) -> Option<ProbeCluster> {
        let target = self.target;
        let (controller, estimator) = self.prober.as_mut()?;
        let alr = sending.is_some_and(|s| s < target.scale(ALR_USAGE_RATIO));
        let cluster = controller.poll(now, target, alr)?;
        estimator.on_cluster(&cluster);
        Some(cluster)
    }

    /// The resolved packets of one report, in sending order.
    pub fn on_feedback(&mut self, now: Instant, results: &[PacketResult], s: SenderState) {
        let (mut lost, mut total) = (0u32, 0u32);
        let mut probed: Option<Bitrate> = None;
        for r in results {
            total = total.saturating_add(1);
            if !r.received() {
                lost = lost.saturating_add(1);
                continue;
            }
            let Some(arrival) = r.arrival_time() else {
                continue;
            };
            self.received.add(arrival, r.size_bytes);
            if let (Some(id), Some((_, estimator))) = (r.probe, self.prober.as_mut())
                && let Some(rate) = estimator.on_packet(now, id, r)
            {
                probed = Some(rate);
            }
            if let Some(d) = r.apparent_delay_ns() {
                let base = self.base_delay_ns.map_or(d, |b| b.min(d));
                self.base_delay_ns = Some(base);
                let above = u64::try_from(d - base).unwrap_or(u64::MAX);
                self.queue_delay = Duration::from_nanos(above);
            }
            if let Some(delta) = self.grouper.on_packet(r.sent, arrival) {
                let estimate = match &mut self.filter {
                    Filter::Kalman(k) => {
                        k.update(&delta);
                        k.estimate()
                    }
                    Filter::Trendline(t) => {
                        t.update(&delta);
                        t.estimate()
                    }
                };
                self.detector.detect(estimate, delta.arrival_delta_ms);
            }
        }
        if total == 0 {
            return;
        }
        let received = self.received.rate();
        let usage = self.detector.usage();
        let mut delay_based = self.remote.update(now, usage, received, s.srtt);
        if let Some(rate) = probed
            && usage != detector::Usage::Over
        {
            self.remote.on_probe(rate);
            delay_based = self.remote.estimate();
        }
        let delay_based = delay_based.clamp(self.min, self.max);
        let in_use = delay_based.min(self.loss.estimate());
        self.loss.on_report(now, lost, total, in_use, s.srtt);
        self.target = delay_based
            .min(self.loss.estimate())
            .clamp(self.min, self.max);
        if probed.is_some()
            && let Some((controller, _)) = self.prober.as_mut()
        {
            controller.on_estimate(now, self.target);
        }
    }

    /// Target bitrate: min(A_hat, As_hat) within the flow's range.
    pub fn target(&self) -> Bitrate {
        self.target
    }

    /// Rate of the pacer: the target times `pacing_factor`.
    pub fn pacing_rate(&self) -> Bitrate {
        self.target.scale(self.cfg.pacing_factor)
    }

    /// GCC estimates no queueing delay itself; this is the one-way delay above the
    /// smallest seen, as its feedback shows it.
    pub fn queue_delay(&self) -> Duration {
        self.queue_delay
    }

    /// R_hat, the receive rate over the last `rate_window_ms` of arrivals.
    pub fn received_rate(&self) -> Option<Bitrate> {
        self.received.rate()
    }

    #[cfg(test)]
    /// The detector's current signal.
    pub(crate) fn usage(&self) -> Usage {
        self.detector.usage()
    }

    #[cfg(test)]
    /// The rate controller's state.
    pub(crate) fn rate_state(&self) -> RateState {
        self.remote.state()
    }

    #[cfg(test)]
    /// The delay-based estimate A_hat.
    pub(crate) fn delay_based(&self) -> Bitrate {
        self.remote.estimate()
    }

    #[cfg(test)]
    /// The loss-based estimate As_hat.
    pub(crate) fn loss_based(&self) -> Bitrate {
        self.loss.estimate()
    }

    #[cfg(test)]
    /// The adaptive threshold del_var_th, ms.
    pub(crate) fn threshold_ms(&self) -> f64 {
        self.detector.threshold_ms()
    }
}
