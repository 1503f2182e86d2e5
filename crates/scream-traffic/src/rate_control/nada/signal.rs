//! NADA's congestion signal (RFC 8698 §4.2, with the estimation of §5.1): queueing
//! delay above the base delay, loss and ECN-marking ratios, and their aggregate x_curr,
//! computed at the sender from per-packet feedback.

use std::collections::VecDeque;

use scream::Duration;

use super::NadaConfig;
use crate::rate_control::PacketResult;

/// Samples in the minimum filter over the raw queueing delay (RFC 8698 §5.1.1 filters
/// d_queue with a min filter to drop jitter; the window length is our choice: 15
/// samples, about one RFC 8888 report's worth of packets).
pub(crate) const MIN_FILTER_SAMPLES: usize = 15;
/// Upper bound of x_curr, ms: the aggregate congestion signal of the RFC's authors'
/// reference simulator (cisco/ns3-rmcat `NADA_PARAM_XMAX`, "maximum value of aggregate
/// congestion signal"; RFC 8698's table leaves it out). The loss penalty grows with the
/// square of the loss ratio, so a tail-drop burst (20 % loss: DLOSS (0.2/PLRREF)² = 4 s)
/// would otherwise put seconds into x_curr, and as the smoothed ratio decays the §4.3
/// derivative term KAPPA ETA x_diff / TAU would double r_ref every DELTA while the
/// signal still reads many times the equilibrium.
pub(crate) const X_MAX_MS: f64 = 500.0;
/// Most packets the observation window keeps (hostile feedback cannot grow it).
const MAX_WINDOW_PACKETS: usize = 1 << 16;
/// Weight of a new loss interval in the running average loss interval (RFC 8698
/// §4.2's loss_int, "measured average loss interval in packet count"; the RFC leaves
/// the averaging open, we use an EWMA of 1/8). An interval runs from one loss event to
/// the next, a loss event being a run of consecutive lost packets (RFC 5348 §5.2's
/// loss interval, as the RFC's authors' reference simulator counts them): a tail-drop
/// queue loses packets in bursts, and counting each packet of a burst as an interval
/// of zero would pull loss_int to nothing, end the warping a few packets after the
/// burst and hand the sender the full, unwarped queue as a step in x_curr.
const LOSS_INTERVAL_GAIN: f64 = 0.125;

/// One packet in the LOGWIN observation window.
#[derive(Debug, Clone, Copy)]
struct Observed {
    sent_ns: u64,
    lost: bool,
    ce: bool,
    /// Filtered queueing delay when it arrived, ms (0 when lost or untimed).
    d_queue_ms: f64,
}

/// The receiver-side statistics of RFC 8698, kept at the sender.
#[derive(Debug, Clone)]
pub(crate) struct Signal {
    base_delay_ns: Option<i128>,
    recent: VecDeque<f64>,
    d_queue_ms: f64,
    window: VecDeque<Observed>,
    window_lost: u32,
    window_ce: u32,
    p_loss: f64,
    p_mark: f64,
    packets_since_loss: Option<u64>,
    loss_interval: Option<f64>,
}

impl Signal {
    pub(crate) fn new() -> Self {
        Self {
            base_delay_ns: None,
            recent: VecDeque::with_capacity(MIN_FILTER_SAMPLES),
            d_queue_ms: 0.0,
            window: VecDeque::new(),
            window_lost: 0,
            window_ce: 0,
            p_loss: 0.0,
            p_mark: 0.0,
            packets_since_loss: None,
            loss_interval: None,
        }
    }

    /// d_queue, the filtered queueing delay.
    pub(crate) fn queue_delay(&self) -> Duration {
        Duration::from_secs_f64(self.d_queue_ms.max(0.0) * 1e-3)
    }

    #[cfg(test)]
    /// The smoothed loss ratio p_loss.
    pub(crate) fn loss_ratio(&self) -> f64 {
        self.p_loss
    }

    #[cfg(test)]
    /// The smoothed marking ratio p_mark.
    pub(crate) fn mark_ratio(&self) -> f64 {
        self.p_mark
    }

    fn on_packet(&mut self, r: &PacketResult) {
        let lost = !r.received();
        if lost {
            // A loss right after a loss continues the same event (interval 0 is no
            // interval).
            if let Some(n) = self.packets_since_loss.filter(|&n| n > 0) {
                let n = n as f64;
                self.loss_interval = Some(match self.loss_interval {
                    None => n,
                    Some(avg) => avg + LOSS_INTERVAL_GAIN * (n - avg),
                });
            }
            self.packets_since_loss = Some(0);
        } else if let Some(n) = &mut self.packets_since_loss {
            *n += 1;
        }
        let mut d_queue_ms = 0.0;
        if let Some(d) = r.apparent_delay_ns() {
            // d_base: the smallest one-way delay seen (the clock offset cancels in
            // d_fwd - d_base).
            let base = self.base_delay_ns.map_or(d, |b| b.min(d));
            self.base_delay_ns = Some(base);
            let raw = (d - base) as f64 * 1e-6;
            if self.recent.len() == MIN_FILTER_SAMPLES {
                self.recent.pop_front();
            }
            self.recent.push_back(raw);
            self.d_queue_ms = self.recent.iter().copied().fold(f64::INFINITY, f64::min);
            d_queue_ms = self.d_queue_ms;
        }
        if self.window.len() >= MAX_WINDOW_PACKETS {
            self.pop_window();
        }
        let ce = r.ce();
        self.window_lost += u32::from(lost);
        self.window_ce += u32::from(ce);
        self.window.push_back(Observed {
            sent_ns: r.sent.as_nanos(),
            lost,
            ce,
            d_queue_ms,
        });
    }

    fn pop_window(&mut self) {
        if let Some(o) = self.window.pop_front() {
            self.window_lost -= u32::from(o.lost);
            self.window_ce -= u32::from(o.ce);
        }
    }

    /// The packets of one report; the window keeps the last LOGWIN of sending time.
    /// Returns whether any packet was new.
    pub(crate) fn on_report(&mut self, results: &[PacketResult], cfg: &NadaConfig) -> bool {
        for r in results {
            self.on_packet(r);
        }
        let Some(newest) = self.window.iter().map(|o| o.sent_ns).max() else {
            return false;
        };
        let logwin_ns = (cfg.logwin_ms * 1e6) as u64;
        while self
            .window
            .front()
            .is_some_and(|o| newest.saturating_sub(o.sent_ns) > logwin_ns)
        {
            self.pop_window();
        }
        !results.is_empty()
    }

    /// RFC 8698 §5.1.2: the instantaneous ratios over the window, smoothed with ALPHA.
    /// Called once per rate calculation (every DELTA), the cadence ALPHA was chosen for:
    /// run on every RFC 8888 report (every 40 ms or less) the smoothing would span a
    /// fraction of the time the RFC means, and a burst of losses would reach x_curr
    /// almost unfiltered (squared, through DLOSS).
    pub(crate) fn smooth_ratios(&mut self, cfg: &NadaConfig) {
        let n = self.window.len().max(1) as f64;
        let loss_inst = f64::from(self.window_lost) / n;
        let mark_inst = f64::from(self.window_ce) / n;
        self.p_loss = cfg.alpha * loss_inst + (1.0 - cfg.alpha) * self.p_loss;
        self.p_mark = cfg.alpha * mark_inst + (1.0 - cfg.alpha) * self.p_mark;
    }

    /// d_tilde (RFC 8698 §4.2): d_queue, warped down above QTH while a loss is recent
    /// (within MULTILOSS average loss intervals), so that a flow facing a loss-based
    /// competitor is not driven by a queue it cannot drain.
    pub(crate) fn warped_delay_ms(&self, cfg: &NadaConfig) -> f64 {
        let recent_loss = match (self.packets_since_loss, self.loss_interval) {
            (Some(n), Some(avg)) => (n as f64) <= cfg.multiloss * avg,
            // One loss so far: count it as recent until as many packets again passed
            // as the RFC's multiplier of a one-packet interval.
            (Some(n), None) => (n as f64) <= cfg.multiloss,
            _ => false,
        };
        let d = self.d_queue_ms;
        if recent_loss && d >= cfg.qth_ms {
            cfg.qth_ms * (-cfg.lambda * (d - cfg.qth_ms) / cfg.qth_ms).exp()
        } else {
            d
        }
    }

    /// x_curr = d_tilde + DMARK (p_mark/PMRREF)² + DLOSS (p_loss/PLRREF)², ms
    /// (RFC 8698 §4.2).
    pub(crate) fn aggregate_ms(&self, cfg: &NadaConfig) -> f64 {
        (self.warped_delay_ms(cfg)
            + cfg.dmark_ms * (self.p_mark / cfg.pmrref).powi(2)
            + cfg.dloss_ms * (self.p_loss / cfg.plrref).powi(2))
        .min(X_MAX_MS)
    }

    /// rmode (RFC 8698 §4.2): accelerated ramp-up while the window holds no loss, no
    /// mark and no queueing delay of QEPS or more.
    pub(crate) fn ramp_up(&self, cfg: &NadaConfig) -> bool {
        self.window_lost == 0
            && self.window_ce == 0
            && self.window.iter().all(|o| o.d_queue_ms < cfg.qeps_ms)
    }
}
