//! CUBIC (RFC 9438): window growth as a cubic function of the time since the last
//! congestion event, with a Reno-friendly floor. Windows here are in segments and
//! times in seconds, as the RFC writes them.

use scream::{Duration, Instant};

use super::law::Window;

/// RFC 9438 §4.1.1 / §5: C, the scaling constant of the cubic function
/// (segments/s³).
pub(crate) const C: f64 = 0.4;
/// RFC 9438 §4.1.1 / §4.6: β_cubic, the multiplicative decrease factor.
pub(crate) const BETA_CUBIC: f64 = 0.7;
/// RFC 9438 §4.3: α_cubic = 3 (1 − β_cubic) / (1 + β_cubic), the Reno-friendly
/// additive increase (segments per RTT) while W_est is below cwnd_prior.
pub(crate) const ALPHA_CUBIC: f64 = 3.0 * (1.0 - BETA_CUBIC) / (1.0 + BETA_CUBIC);
/// RFC 9438 §4.2: the target is at most 1.5 × cwnd.
const MAX_TARGET_GROWTH: f64 = 1.5;

/// CUBIC's state between congestion events.
#[derive(Debug, Clone, Default)]
pub(crate) struct Cubic {
    /// W_max: the window just before the last reduction, segments (0: none yet).
    w_max: f64,
    /// cwnd_prior: the window at the last congestion event, segments.
    cwnd_prior: f64,
    /// Start of the current congestion-avoidance epoch.
    epoch_start: Option<Instant>,
    /// K, s.
    k: f64,
    /// W_est, the Reno-friendly estimate, segments.
    w_est: f64,
}

/// RFC 9438 §4.2 eq. (2): K = ∛((W_max − cwnd_epoch) / C).
pub(crate) fn k_of(w_max: f64, cwnd_epoch: f64) -> f64 {
    ((w_max - cwnd_epoch).max(0.0) / C).cbrt()
}

impl Cubic {
    /// RFC 9438 §4.2 eq. (1): W_cubic(t) = C (t − K)³ + W_max.
    fn w_cubic(&self, t: f64) -> f64 {
        C * (t - self.k).powi(3) + self.w_max
    }

    /// Congestion avoidance on an ACK of `acked` bytes (RFC 9438 §4.2–§4.5).
    pub(crate) fn grow(&mut self, w: &mut Window, acked: u64, now: Instant, srtt: Duration) {
        let cwnd = w.cwnd / w.mss;
        let epoch = *self.epoch_start.get_or_insert_with(|| {
            // A new epoch starts with the first ACK of congestion avoidance.
            if self.w_max < cwnd {
                // No congestion event yet, or the window grew past it: probe from here.
                self.w_max = cwnd;
                self.k = 0.0;
            } else {
                self.k = k_of(self.w_max, cwnd);
            }
            self.w_est = cwnd;
            now
        });
        let t = (now - epoch).as_secs_f64();
        let segments = acked as f64 / w.mss;
        // §4.3: α_cubic until W_est reaches the window of the last congestion event,
        // then Reno's 1 segment per RTT.
        let alpha = if self.w_est >= self.cwnd_prior {
            1.0
        } else {
            ALPHA_CUBIC
        };
        self.w_est += alpha * segments / cwnd;
        let next = if self.w_cubic(t) < self.w_est {
            // §4.3: the Reno-friendly region.
            self.w_est
        } else {
            // §4.4 concave and §4.5 convex regions alike: one RTT ahead, clamped.
            let target = self
                .w_cubic(t + srtt.as_secs_f64())
                .clamp(cwnd, MAX_TARGET_GROWTH * cwnd);
            cwnd + (target - cwnd) / cwnd * segments
        };
        w.cwnd = next.max(cwnd) * w.mss;
    }

    /// A congestion event (RFC 9438 §4.6 and §4.7): the new ssthresh, bytes.
    pub(crate) fn on_congestion(&mut self, w: &Window, flight: u64) -> f64 {
        let cwnd = w.cwnd / w.mss;
        // §4.7 fast convergence: a flow whose window fell short of the last W_max
        // releases bandwidth to newer flows.
        self.w_max = if cwnd < self.w_max {
            cwnd * (1.0 + BETA_CUBIC) / 2.0
        } else {
            cwnd
        };
        self.cwnd_prior = cwnd;
        self.epoch_start = None;
        (flight as f64 * BETA_CUBIC).max(2.0 * w.mss)
    }

    #[cfg(test)]
    pub(crate) fn w_max(&self) -> f64 {
        self.w_max
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: f64 = 1000.0;

    fn window(segments: f64) -> Window {
        Window {
            cwnd: segments * MSS,
            ssthresh: 0.0,
            mss: MSS,
        }
    }

    /// Acks one window's worth of segments, one ACK per segment, spread over `rtt`.
    fn one_rtt(c: &mut Cubic, w: &mut Window, start: Instant, rtt: Duration) -> Instant {
        let n = (w.cwnd / MSS).floor().max(1.0) as u64;
        let step = rtt / n as u32;
        let mut now = start;
        for _ in 0..n {
            now += step;
            c.grow(w, MSS as u64, now, rtt);
        }
        now
    }

    #[test]
    fn k_follows_the_rfc_formula() {
        // W_max 100, cwnd_epoch 70: K = ∛(30 / 0.4) = ∛75.
        assert!((k_of(100.0, 70.0) - 75f64.cbrt()).abs() < 1e-12);
        assert_eq!(k_of(50.0, 70.0), 0.0);
    }

    #[test]
    fn reduction_is_beta_0_7_and_w_max_is_the_window_before_it() {
        let mut c = Cubic::default();
        let w = window(100.0);
        let ssthresh = c.on_congestion(&w, 100 * 1000);
        assert!((ssthresh - 70.0 * MSS).abs() < 1e-6);
        assert_eq!(c.w_max(), 100.0);
        // A second event below W_max: fast convergence lowers W_max further.
        let w = window(80.0);
        c.on_congestion(&w, 80 * 1000);
        assert!((c.w_max() - 80.0 * 1.7 / 2.0).abs() < 1e-9);
    }

    #[test]
    fn growth_is_concave_below_w_max_and_convex_above_it() {
        // A large window on a long RTT: the cubic function, not W_est, drives growth.
        let rtt = Duration::from_millis(100);
        let mut c = Cubic::default();
        let mut w = window(1000.0);
        let ssthresh = c.on_congestion(&w, 1000 * 1000);
        w.cwnd = ssthresh;
        let k = k_of(1000.0, 700.0);
        let mut now = Instant::from_millis(1);
        let mut per_rtt = Vec::new();
        let mut cwnds = Vec::new();
        for _ in 0..200 {
            let before = w.cwnd;
            now = one_rtt(&mut c, &mut w, now, rtt);
            per_rtt.push((now, (w.cwnd - before) / MSS));
            cwnds.push(w.cwnd / MSS);
        }
        let t = |at: Instant| (at - Instant::from_millis(1)).as_secs_f64();
        let before_k: Vec<f64> = per_rtt
            .iter()
            .filter(|(at, _)| t(*at) < k - 0.5)
            .map(|(_, g)| *g)
            .collect();
        let after_k: Vec<f64> = per_rtt
            .iter()
            .filter(|(at, _)| t(*at) > k + 0.5)
            .map(|(_, g)| *g)
            .collect();
        assert!(before_k.len() > 10 && after_k.len() > 10);
        // Concave: the increments shrink while approaching W_max...
        assert!(
            before_k.windows(2).all(|p| p[1] <= p[0] + 1e-9),
            "{before_k:?}"
        );
        // ...convex: they grow past it.
        assert!(
            after_k.windows(2).all(|p| p[1] >= p[0] - 1e-9),
            "{after_k:?}"
        );
        // The window plateaus near W_max around t = K.
        let at_k = per_rtt
            .iter()
            .zip(&cwnds)
            .find(|((at, _), _)| t(*at) >= k)
            .map(|(_, c)| *c)
            .unwrap();
        assert!((at_k - 1000.0).abs() < 10.0, "cwnd at K: {at_k}");
    }

    #[test]
    fn reno_friendly_region_takes_over_at_small_bdp() {
        // A small window on a 2 ms RTT: the cubic curve barely moves in the few
        // milliseconds of each RTT, so W_est (Reno-friendly) sets the pace.
        let rtt = Duration::from_millis(2);
        let mut c = Cubic::default();
        let mut w = window(10.0);
        w.cwnd = c.on_congestion(&w, 10 * 1000);
        let start = Instant::from_millis(1);
        let mut now = start;
        for _ in 0..50 {
            now = one_rtt(&mut c, &mut w, now, rtt);
        }
        let t = (now - start).as_secs_f64();
        let cubic_now = C * (t - k_of(10.0, 7.0)).powi(3) + 10.0;
        let cwnd = w.cwnd / MSS;
        assert!(cwnd > cubic_now + 5.0, "cwnd {cwnd}, W_cubic {cubic_now}");
        // About α_cubic per RTT below W_max = 10, then 1 per RTT (α = 1 once W_est
        // reaches cwnd_prior): 7 + 3 / 0.53 RTTs at α_cubic, then ~44 more at 1.
        assert!((45.0..=56.0).contains(&cwnd), "cwnd {cwnd}");
    }
}
