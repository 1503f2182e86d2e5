//! A Prague-style L4S law: DCTCP's estimate α of the fraction of CE-marked bytes,
//! updated once per window (RFC 8257 §3.3), a reduction of cwnd by α / 2 at most once
//! per window, Reno's additive increase, and Reno's halving on loss (RFC 9331 §4.3:
//! an L4S sender still reacts to loss as a classic one does).

use super::law::{Reno, Window, half_flight};

/// RFC 8257 §3.3: g, the gain of the α estimate (1/16).
pub(crate) const G: f64 = 1.0 / 16.0;
/// RFC 8257 §3.3: α starts at 1, so that the first marks halve the window as a classic
/// sender would until the estimate has learnt the marking level.
pub(crate) const INITIAL_ALPHA: f64 = 1.0;
/// Pacing rate in slow start as a multiple of cwnd / sRTT: Linux's
/// `net.ipv4.tcp_pacing_ss_ratio` default (200 %), which TCP Prague inherits.
pub(crate) const PACING_SS_RATIO: f64 = 2.0;
/// Pacing rate in congestion avoidance as a multiple of cwnd / sRTT: Linux's
/// `net.ipv4.tcp_pacing_ca_ratio` default (120 %).
pub(crate) const PACING_CA_RATIO: f64 = 1.2;

pub(crate) fn pacing_ratio(slow_start: bool) -> f64 {
    if slow_start {
        PACING_SS_RATIO
    } else {
        PACING_CA_RATIO
    }
}

/// The α estimator and the additive increase.
#[derive(Debug, Clone)]
pub(crate) struct Prague {
    alpha: f64,
    /// DCTCP.WindowEnd: α is updated when the cumulative ACK passes it.
    window_end: u64,
    bytes_acked: u64,
    bytes_marked: u64,
    reno: Reno,
}

impl Default for Prague {
    fn default() -> Self {
        Self {
            alpha: INITIAL_ALPHA,
            window_end: 0,
            bytes_acked: 0,
            bytes_marked: 0,
            reno: Reno::default(),
        }
    }
}

impl Prague {
    /// RFC 8257 §3.3 steps 1–8 for one ACK that acknowledged `acked` new bytes and
    /// echoed `marked` more CE-marked bytes.
    pub(crate) fn on_ack(&mut self, acked: u64, marked: u64, snd_una: u64, snd_max: u64) {
        self.bytes_acked += acked;
        self.bytes_marked += marked;
        if snd_una <= self.window_end {
            return;
        }
        if self.bytes_acked > 0 {
            let m = (self.bytes_marked as f64 / self.bytes_acked as f64).min(1.0);
            self.alpha = (1.0 - G) * self.alpha + G * m;
        }
        self.window_end = snd_max;
        self.bytes_acked = 0;
        self.bytes_marked = 0;
    }

    /// RFC 8257 §3.3: cwnd × (1 − α / 2), no lower than 2 segments; ssthresh follows.
    pub(crate) fn on_ce(&mut self, w: &mut Window) {
        w.cwnd = (w.cwnd * (1.0 - self.alpha / 2.0)).max(2.0 * w.mss);
        w.ssthresh = w.cwnd;
        self.reno = Reno::default();
    }

    pub(crate) fn on_loss(&mut self, w: &Window, flight: u64) -> f64 {
        self.reno = Reno::default();
        half_flight(flight, w.mss)
    }

    pub(crate) fn grow(&mut self, w: &mut Window, acked: u64) {
        self.reno.grow(w, acked);
    }

    #[cfg(test)]
    pub(crate) fn alpha(&self) -> f64 {
        self.alpha
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alpha_converges_to_the_marking_fraction() {
        let mut p = Prague::default();
        // 20 % of the bytes marked, one window of 10 segments per round.
        let (mss, mut una) = (1000u64, 0u64);
        for round in 0..200u64 {
            let end = (round + 1) * 10 * mss;
            for k in 0..10u64 {
                una += mss;
                let marked = if k < 2 { mss } else { 0 };
                p.on_ack(mss, marked, una, end);
            }
        }
        assert!((p.alpha() - 0.2).abs() < 0.01, "alpha {}", p.alpha());
    }

    #[test]
    fn alpha_moves_by_g_once_per_window_not_per_ack() {
        let mut p = Prague::default();
        // The first ACK passes the initial window end: one update towards 0.
        p.on_ack(1000, 0, 1000, 10_000);
        assert!((p.alpha() - (1.0 - G)).abs() < 1e-12);
        // More unmarked ACKs within the same window change nothing.
        for k in 2..=10 {
            p.on_ack(1000, 0, k * 1000, 10_000);
        }
        assert!((p.alpha() - (1.0 - G)).abs() < 1e-12);
        p.on_ack(1000, 0, 11_000, 20_000);
        assert!((p.alpha() - (1.0 - G) * (1.0 - G)).abs() < 1e-12);
    }

    #[test]
    fn a_reduction_scales_with_alpha() {
        let mut p = Prague::default();
        let mut w = Window {
            cwnd: 100_000.0,
            ssthresh: f64::INFINITY,
            mss: 1000.0,
        };
        p.on_ce(&mut w);
        assert_eq!(w.cwnd, 50_000.0, "alpha 1 halves");
        p.alpha = 0.2;
        p.on_ce(&mut w);
        assert_eq!(w.cwnd, 45_000.0);
        assert_eq!(w.ssthresh, w.cwnd);
    }
}
