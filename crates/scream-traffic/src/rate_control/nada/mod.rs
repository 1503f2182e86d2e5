//! NADA, RFC 8698, with the receiver-side statistics computed at the sender.
//!
//! RFC 8698 §6.4 allows the calculation to sit at either end. The receiver here is the
//! SCReAM receiver, which only reports per-packet arrival times and ECN marks in RFC
//! 8888; the sender derives from them what a NADA receiver would have measured (§5.1:
//! queueing delay over the base delay, loss and marking ratios, receive rate, rmode),
//! then runs the sender's rate calculation (§4.3) and rate shaping (§5.2).

mod signal;
#[cfg(test)]
mod tests;

use scream::{Bitrate, Duration, Instant};

use super::params::tunables;
use super::{ArrivalRate, PacketResult, SenderState, from_ms, ms};
use signal::Signal;

tunables! {
    /// NADA's tunables, set by name in a nada flow's `params`; defaults from RFC 8698's
    /// table of parameters (Table 3, §4.1). RMIN and RMAX are the flow's min and max
    /// bitrate, FPS its source's frame rate.
    pub struct NadaConfig {
        /// PRIO, weight of priority of the flow.
        prio: unit "1", default 1.0, range [0.01, 100.0], source "RFC 8698 Table 3 PRIO";
        /// XREF, reference congestion level.
        xref_ms: unit "ms", default 10.0, range [0.1, 1000.0], source "RFC 8698 Table 3 XREF";
        /// KAPPA, scaling of the gradual rate update.
        kappa: unit "1", default 0.5, range [0.0, 10.0], source "RFC 8698 Table 3 KAPPA";
        /// ETA, scaling of the gradual rate update's derivative term.
        eta: unit "1", default 2.0, range [0.0, 100.0], source "RFC 8698 Table 3 ETA";
        /// TAU, upper bound of the RTT in the gradual rate update.
        tau_ms: unit "ms", default 500.0, range [10.0, 10000.0], source "RFC 8698 Table 3 TAU";
        /// DELTA, target feedback interval.
        delta_ms: unit "ms", default 100.0, range [1.0, 10000.0], source "RFC 8698 Table 3 DELTA";
        /// LOGWIN, observation window of the loss, marking and receive-rate statistics.
        logwin_ms: unit "ms", default 500.0, range [10.0, 10000.0], source "RFC 8698 Table 3 LOGWIN";
        /// QEPS, queueing delay that ends accelerated ramp-up.
        qeps_ms: unit "ms", default 10.0, range [0.0, 1000.0], source "RFC 8698 Table 3 QEPS";
        /// DFILT, bound on the filtering delay.
        dfilt_ms: unit "ms", default 120.0, range [0.0, 10000.0], source "RFC 8698 Table 3 DFILT";
        /// GAMMA_MAX, upper bound on the rate increase ratio in ramp-up.
        gamma_max: unit "1", default 0.5, range [0.0, 10.0], source "RFC 8698 Table 3 GAMMA_MAX";
        /// QBOUND, upper bound on the self-inflicted queueing delay in ramp-up.
        qbound_ms: unit "ms", default 50.0, range [0.0, 10000.0], source "RFC 8698 Table 3 QBOUND";
        /// MULTILOSS, multiplier of the average loss interval that a loss stays recent.
        multiloss: unit "1", default 7.0, range [0.0, 1000.0], source "RFC 8698 Table 3 MULTILOSS";
        /// QTH, delay threshold of the non-linear warping.
        qth_ms: unit "ms", default 50.0, range [1.0, 10000.0], source "RFC 8698 Table 3 QTH";
        /// LAMBDA, exponent scaling of the non-linear warping.
        lambda: unit "1", default 0.5, range [0.0, 100.0], source "RFC 8698 Table 3 LAMBDA";
        /// PLRREF, reference packet loss ratio.
        plrref: unit "1", default 0.01, range [1e-6, 1.0], source "RFC 8698 Table 3 PLRREF";
        /// PMRREF, reference packet marking ratio.
        pmrref: unit "1", default 0.01, range [1e-6, 1.0], source "RFC 8698 Table 3 PMRREF";
        /// DLOSS, delay penalty of loss at PLRREF.
        dloss_ms: unit "ms", default 10.0, range [0.0, 10000.0], source "RFC 8698 Table 3 DLOSS";
        /// DMARK, delay penalty of marking at PMRREF.
        dmark_ms: unit "ms", default 2.0, range [0.0, 10000.0], source "RFC 8698 Table 3 DMARK";
        /// BETA_S, how strongly a full rate-shaping buffer raises the sending rate.
        beta_s: unit "1", default 0.1, range [0.0, 10.0], source "RFC 8698 Table 3 BETA_S";
        /// BETA_V, how strongly it lowers the encoder's target.
        beta_v: unit "1", default 0.1, range [0.0, 10.0], source "RFC 8698 Table 3 BETA_V";
        /// ALPHA, smoothing of the loss and marking ratios.
        alpha: unit "1", default 0.1, range [0.001, 1.0], source "RFC 8698 Table 3 ALPHA";
    }
}

/// Which update the last report ran (RFC 8698 §4.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Accelerated ramp-up: r_ref follows the receive rate up.
    RampUp,
    /// Gradual update driven by x_curr.
    Gradual,
}

/// One NADA sender.
#[derive(Debug)]
pub struct Nada {
    cfg: NadaConfig,
    min: Bitrate,
    max: Bitrate,
    fps: f64,
    signal: Signal,
    received: ArrivalRate,
    r_ref: Bitrate,
    x_prev: Option<f64>,
    last_update: Option<Instant>,
    mode: Mode,
    r_vin: Bitrate,
    r_send: Bitrate,
}

impl Nada {
    /// A sender with bitrates `[min, start, max]` (RMIN, start, RMAX) whose encoder
    /// produces `fps` frames per second.
    pub fn new(cfg: NadaConfig, [min, start, max]: [Bitrate; 3], fps: f64) -> Self {
        let start = start.clamp(min, max);
        Self {
            received: ArrivalRate::new(from_ms(cfg.logwin_ms)),
            cfg,
            min,
            max,
            fps,
            signal: Signal::new(),
            r_ref: start,
            x_prev: None,
            last_update: None,
            mode: Mode::RampUp,
            r_vin: start,
            r_send: start,
        }
    }

    /// One feedback report's newly resolved packets, in sending order.
    pub fn on_feedback(&mut self, now: Instant, results: &[PacketResult], s: SenderState) {
        for r in results {
            if let Some(t) = r.arrival_time() {
                self.received.add(t, r.size_bytes);
            }
        }
        if !self.signal.on_report(results, &self.cfg) {
            self.on_queue(s.queued_bytes);
            return;
        }
        // δ, the time since the previous update: the target interval DELTA before the
        // first, and never more than TAU (a report after a long silence must not scale
        // one step by the whole gap).
        let since_ms = self
            .last_update
            .map_or(self.cfg.delta_ms, |t| ms(now.saturating_duration_since(t)));
        // RFC 8698 §4.3 and §5.1: the rate is calculated once per feedback interval
        // DELTA. RFC 8888 reports come faster (every 40 ms or 16 packets); the ones in
        // between only feed the statistics, so that x_prev, x_diff and the ALPHA
        // smoothing are taken over DELTA as the RFC's gains assume.
        if since_ms < self.cfg.delta_ms {
            self.on_queue(s.queued_bytes);
            return;
        }
        let delta_ms = since_ms.min(self.cfg.tau_ms);
        self.last_update = Some(now);
        self.signal.smooth_ratios(&self.cfg);
        let x_curr = self.signal.aggregate_ms(&self.cfg);
        let r = self.r_ref.bps();
        let next = if self.signal.ramp_up(&self.cfg) {
            self.mode = Mode::RampUp;
            // γ = min(GAMMA_MAX, QBOUND / (rtt + DELTA + DFILT)); r_ref = max(r_ref,
            // (1 + γ) r_recv) (RFC 8698 §4.3).
            let gamma = (self.cfg.qbound_ms / (ms(s.srtt) + self.cfg.delta_ms + self.cfg.dfilt_ms))
                .min(self.cfg.gamma_max);
            let recv = self.received.rate().map_or(0.0, |b| b.bps());
            r.max((1.0 + gamma) * recv)
        } else {
            self.mode = Mode::Gradual;
            // x_offset = x_curr - PRIO XREF RMAX / r_ref; x_diff = x_curr - x_prev;
            // r_ref -= KAPPA (δ/TAU) (x_offset/TAU) r_ref + KAPPA ETA (x_diff/TAU) r_ref
            // (RFC 8698 §4.3).
            let tau = self.cfg.tau_ms;
            let x_offset = x_curr - self.cfg.prio * self.cfg.xref_ms * self.max.bps() / r.max(1.0);
            let x_diff = x_curr - self.x_prev.unwrap_or(x_curr);
            r - self.cfg.kappa * (delta_ms / tau) * (x_offset / tau) * r
                - self.cfg.kappa * self.cfg.eta * (x_diff / tau) * r
        };
        self.x_prev = Some(x_curr);
        self.r_ref =
            Bitrate::from_bps(if next.is_finite() { next } else { r }).clamp(self.min, self.max);
        self.on_queue(s.queued_bytes);
    }

    /// Rate shaping (RFC 8698 §5.2.2): a backlog in the rate-shaping buffer (the RTP
    /// queue) lowers the encoder's target and raises the sending rate, r_vin = r_ref -
    /// BETA_V 8 buffer_len FPS and r_send = r_ref + BETA_S 8 buffer_len FPS. r_vin stays
    /// within [RMIN, RMAX]; r_send only above RMIN, so that a backlog at RMAX drains.
    pub fn on_queue(&mut self, queued_bytes: u64) {
        let backlog = 8.0 * queued_bytes as f64 * self.fps;
        let r = self.r_ref.bps();
        self.r_vin = Bitrate::from_bps(r - self.cfg.beta_v * backlog).clamp(self.min, self.max);
        self.r_send = Bitrate::from_bps(r + self.cfg.beta_s * backlog).max(self.min);
    }

    /// r_vin, the encoder's target.
    pub fn encoder_rate(&self) -> Bitrate {
        self.r_vin
    }

    /// r_send, the pacer's rate.
    pub fn sending_rate(&self) -> Bitrate {
        self.r_send
    }

    #[cfg(test)]
    /// r_ref, the reference rate.
    pub(crate) fn reference_rate(&self) -> Bitrate {
        self.r_ref
    }

    #[cfg(test)]
    /// The update the last report ran.
    pub(crate) fn mode(&self) -> Mode {
        self.mode
    }

    /// d_queue.
    pub fn queue_delay(&self) -> Duration {
        self.signal.queue_delay()
    }

    /// r_recv, the receive rate over the recent arrivals.
    pub fn received_rate(&self) -> Option<Bitrate> {
        self.received.rate()
    }

    #[cfg(test)]
    /// The aggregate congestion signal x_curr, ms.
    pub(crate) fn congestion_ms(&self) -> f64 {
        self.signal.aggregate_ms(&self.cfg)
    }

    #[cfg(test)]
    /// Smoothed loss and marking ratios.
    pub(crate) fn ratios(&self) -> (f64, f64) {
        (self.signal.loss_ratio(), self.signal.mark_ratio())
    }
}
