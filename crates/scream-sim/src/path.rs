//! Path effects after a link's serializer (propagation delay, jitter, random loss) and
//! the return direction that carries feedback.

use crate::rng::RngStream;
use scream::{Bitrate, Duration, Instant};

/// The forward direction of a link after its serializer.
#[derive(Debug, Clone)]
pub struct ForwardPath {
    delay: Duration,
    /// Jitter standard deviation and truncation bound, ns.
    jitter_sigma_ns: f64,
    jitter_bound_ns: f64,
    keep_order: bool,
    loss: f64,
    jitter_rng: RngStream,
    loss_rng: RngStream,
    last_arrival: Instant,
}

impl ForwardPath {
    /// A forward path; `jitter` is (standard deviation, bound). The random streams are
    /// named `<id>/jitter` and `<id>/loss` under `seed`.
    pub fn new(
        delay: Duration,
        jitter: (Duration, Duration),
        keep_order: bool,
        loss: f64,
        seed: u64,
        id: &str,
    ) -> Self {
        Self {
            delay,
            jitter_sigma_ns: jitter.0.as_nanos() as f64,
            jitter_bound_ns: jitter.1.as_nanos() as f64,
            keep_order,
            loss,
            jitter_rng: RngStream::new(seed, &format!("{id}/jitter")),
            loss_rng: RngStream::new(seed, &format!("{id}/loss")),
            last_arrival: Instant::ZERO,
        }
    }

    /// When a packet that left the serializer at `now` reaches the far end, or `None`
    /// if it is lost on the way. With order keeping, a packet never overtakes the one
    /// before it (RFC 8868 §4.2 allows both behaviours).
    pub fn transit(&mut self, now: Instant) -> Option<Instant> {
        if self.loss_rng.chance(self.loss) {
            return None;
        }
        let base = now + self.delay;
        let arrival = if self.jitter_sigma_ns > 0.0 {
            let j = self
                .jitter_rng
                .truncated_normal(self.jitter_sigma_ns, self.jitter_bound_ns)
                .round();
            // Jitter cannot make a packet arrive before it was sent.
            if j >= 0.0 {
                base + Duration::from_nanos(j as u64)
            } else {
                base.saturating_sub(Duration::from_nanos((-j) as u64))
                    .max(now)
            }
        } else {
            base
        };
        let arrival = if self.keep_order {
            arrival.max(self.last_arrival)
        } else {
            arrival
        };
        self.last_arrival = self.last_arrival.max(arrival);
        Some(arrival)
    }
}

/// The return direction of a link: a delay and an optional capacity shared by all
/// feedback crossing it (FIFO, unlimited buffer).
#[derive(Debug, Clone)]
pub struct ReturnPath {
    delay: Duration,
    capacity: Option<Bitrate>,
    busy_until: Instant,
}

impl ReturnPath {
    /// A return path; `capacity` `None` = unlimited.
    pub fn new(delay: Duration, capacity: Option<Bitrate>) -> Self {
        Self {
            delay,
            capacity,
            busy_until: Instant::ZERO,
        }
    }

    /// When a feedback packet of `bytes` entering at `now` leaves the far end.
    pub fn transit(&mut self, now: Instant, bytes: u32) -> Instant {
        let departed = match self
            .capacity
            .and_then(|c| c.transmit_time(u64::from(bytes)))
        {
            Some(tx) => {
                let done = now.max(self.busy_until) + tx;
                self.busy_until = done;
                done
            }
            None => now,
        };
        departed + self.delay
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordered_jitter_never_reorders_and_stays_within_bound() {
        let ms = Duration::from_millis;
        let mut p = ForwardPath::new(ms(20), (ms(5), ms(15)), true, 0.0, 1, "l");
        let mut last = Instant::ZERO;
        for i in 0..2000u64 {
            let now = Instant::from_micros(i * 500);
            let a = p.transit(now).unwrap();
            assert!(a >= last);
            assert!(a >= now + ms(5));
            last = a;
        }
    }

    #[test]
    fn unordered_jitter_reorders_some_packets() {
        let ms = Duration::from_millis;
        let mut p = ForwardPath::new(ms(20), (ms(5), ms(15)), false, 0.0, 1, "l");
        let arrivals: Vec<Instant> = (0..2000u64)
            .map(|i| p.transit(Instant::from_micros(i * 500)).unwrap())
            .collect();
        assert!(arrivals.windows(2).any(|w| w[1] < w[0]));
        for (i, a) in arrivals.iter().enumerate() {
            let sent = Instant::from_micros(i as u64 * 500);
            assert!(*a >= sent + ms(5) && *a <= sent + ms(35));
        }
    }

    #[test]
    fn random_loss_matches_its_probability() {
        let mut p = ForwardPath::new(
            Duration::ZERO,
            (Duration::ZERO, Duration::ZERO),
            true,
            0.1,
            9,
            "l",
        );
        let lost = (0..50_000)
            .filter(|_| p.transit(Instant::ZERO).is_none())
            .count();
        assert!((4_500..5_500).contains(&lost), "{lost}");
    }

    #[test]
    fn return_capacity_serialises_feedback_back_to_back() {
        let mut r = ReturnPath::new(Duration::from_millis(10), Some(Bitrate::from_mbps(0.8)));
        // 100 bytes at 0.8 Mbit/s = 1 ms each.
        assert_eq!(r.transit(Instant::ZERO, 100), Instant::from_millis(11));
        assert_eq!(r.transit(Instant::ZERO, 100), Instant::from_millis(12));
        assert_eq!(
            r.transit(Instant::from_millis(50), 100),
            Instant::from_millis(61)
        );
    }
}
