//! The retransmission timeout of RFC 6298: smoothed RTT, its variation, and the
//! exponential back-off.

use scream::Duration;

/// RFC 6298 §2.1: RTO before the first RTT sample.
pub(crate) const INITIAL_RTO: Duration = Duration::from_millis(1000);
/// RFC 6298 §2.5: an upper bound on the RTO "provided it is at least 60 seconds".
pub(crate) const MAX_RTO: Duration = Duration::from_millis(60_000);
/// Linux's lower bound on the RTO (`TCP_RTO_MIN`, 200 ms), the default of
/// `min_rto_ms`; RFC 6298 §2.4 asks for 1 s, which no widespread stack uses.
pub const LINUX_MIN_RTO: Duration = Duration::from_millis(200);
/// RFC 6298 §2: α, the gain of SRTT.
const ALPHA: f64 = 1.0 / 8.0;
/// RFC 6298 §2: β, the gain of RTTVAR.
const BETA: f64 = 1.0 / 4.0;
/// RFC 6298 §2: K, the weight of RTTVAR in the RTO.
const K: f64 = 4.0;

/// RTT estimate and retransmission timeout.
#[derive(Debug, Clone)]
pub(crate) struct RtoEstimator {
    srtt_s: Option<f64>,
    rttvar_s: f64,
    min_rto: Duration,
    /// Back-offs since the last RTT sample: the RTO is doubled this many times.
    backoff: u32,
}

impl RtoEstimator {
    pub(crate) fn new(min_rto: Duration) -> Self {
        Self {
            srtt_s: None,
            rttvar_s: 0.0,
            min_rto,
            backoff: 0,
        }
    }

    /// A new RTT measurement (RFC 6298 §2.2 and §2.3); it also ends any back-off
    /// (§5.7: the RTO is computed afresh once a sample arrives).
    pub(crate) fn on_sample(&mut self, rtt: Duration) {
        let r = rtt.as_secs_f64();
        match self.srtt_s {
            None => {
                self.srtt_s = Some(r);
                self.rttvar_s = r / 2.0;
            }
            Some(srtt) => {
                self.rttvar_s = (1.0 - BETA) * self.rttvar_s + BETA * (srtt - r).abs();
                self.srtt_s = Some((1.0 - ALPHA) * srtt + ALPHA * r);
            }
        }
        self.backoff = 0;
    }

    /// The timer expired (RFC 6298 §5.5): the next RTO is twice as long, up to the cap.
    pub(crate) fn back_off(&mut self) {
        self.backoff = (self.backoff + 1).min(32);
    }

    /// Whether the timer expired since the last RTT sample.
    pub(crate) fn backed_off(&self) -> bool {
        self.backoff > 0
    }

    /// The smoothed RTT, once there is a sample.
    pub(crate) fn srtt(&self) -> Option<Duration> {
        self.srtt_s.map(secs)
    }

    /// The current timeout, back-off included.
    pub(crate) fn rto(&self) -> Duration {
        let base = match self.srtt_s {
            // The clock granularity G of §2.3 is the simulator's nanosecond: negligible.
            Some(srtt) => secs(srtt + K * self.rttvar_s).max(self.min_rto),
            None => INITIAL_RTO.max(self.min_rto),
        };
        let factor = 2f64.powi(self.backoff as i32);
        secs(base.as_secs_f64() * factor)
            .min(MAX_RTO)
            .max(self.min_rto)
    }
}

fn secs(s: f64) -> Duration {
    Duration::from_nanos((s * 1e9).clamp(0.0, 1e18) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_sample_sets_srtt_and_half_of_it_as_variation() {
        let mut e = RtoEstimator::new(Duration::ZERO);
        assert_eq!(e.rto(), INITIAL_RTO);
        e.on_sample(Duration::from_millis(100));
        assert_eq!(e.srtt(), Some(Duration::from_millis(100)));
        // 100 ms + 4 x 50 ms.
        assert_eq!(e.rto(), Duration::from_millis(300));
    }

    #[test]
    fn rto_doubles_with_each_back_off_up_to_the_cap_and_a_sample_resets_it() {
        let mut e = RtoEstimator::new(LINUX_MIN_RTO);
        e.on_sample(Duration::from_millis(100));
        let base = e.rto();
        e.back_off();
        assert_eq!(e.rto(), Duration::from_millis(600));
        e.back_off();
        assert_eq!(e.rto(), Duration::from_millis(1200));
        assert_eq!(base, Duration::from_millis(300));
        for _ in 0..20 {
            e.back_off();
        }
        assert_eq!(e.rto(), MAX_RTO);
        e.on_sample(Duration::from_millis(100));
        assert!(e.rto() < Duration::from_millis(400), "{:?}", e.rto());
    }

    #[test]
    fn the_minimum_rto_holds_on_short_paths() {
        let mut e = RtoEstimator::new(LINUX_MIN_RTO);
        for _ in 0..50 {
            e.on_sample(Duration::from_millis(2));
        }
        assert_eq!(e.rto(), LINUX_MIN_RTO);
    }
}
