//! Packet pacing (draft §"Packet Pacing"): packets leave no faster than the pacing
//! rate, so frames are spread over the frame period instead of hitting the bottleneck
//! as a burst. The rate itself is the generation's (`v2::pacing`); this is the
//! spacing.

use crate::time::{Duration, Instant};
use crate::units::Bitrate;

/// When the next packet may leave.
///
/// Slots are `size / rate` apart. A caller that polls late (a coarse timer, a busy
/// event loop) may still use the slots that passed since the instant it was told to
/// come back, back to at most `catch_up` before `now`; their packets leave
/// back-to-back. Without that, a caller waking once per millisecond could send at most
/// one packet per millisecond, whatever the pacing rate. An idle period (nothing to
/// send, or the send window full) earns no credit.
#[derive(Debug, Clone, Default)]
pub(crate) struct Pacer {
    next_send: Instant,
    /// A packet has been waiting for `next_send` since the last poll (it answered
    /// `Transmit::At`), so slots between then and a late poll are owed.
    waiting: bool,
}

impl Pacer {
    /// Earliest instant of the next transmission.
    pub(crate) fn next_send(&self) -> Instant {
        self.next_send
    }

    /// A packet is ready but must wait for [`Pacer::next_send`].
    pub(crate) fn on_wait(&mut self) {
        self.waiting = true;
    }

    /// Nothing can be sent (empty queues or a full window): no slot is owed until a
    /// packet has left again.
    pub(crate) fn on_idle(&mut self) {
        self.waiting = false;
    }

    /// A packet of `size_bytes` left at `now` under pacing rate `rate`.
    pub(crate) fn on_sent(
        &mut self,
        now: Instant,
        size_bytes: u32,
        rate: Bitrate,
        catch_up: Duration,
    ) {
        let gap = rate
            .transmit_time(u64::from(size_bytes))
            .unwrap_or(Duration::ZERO);
        let start = if self.waiting {
            self.next_send.max(now.saturating_sub(catch_up))
        } else {
            self.next_send.max(now)
        };
        self.next_send = start + gap;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CATCH_UP: Duration = Duration::from_millis(10);

    #[test]
    fn packets_are_spaced_by_size_over_rate() {
        let mut p = Pacer::default();
        let t0 = Instant::from_millis(100);
        p.on_sent(t0, 1000, Bitrate::from_mbps(8.0), CATCH_UP);
        assert_eq!(p.next_send(), t0 + Duration::from_millis(1));
        p.on_wait();
        p.on_sent(p.next_send(), 1000, Bitrate::from_mbps(8.0), CATCH_UP);
        assert_eq!(p.next_send(), t0 + Duration::from_millis(2));
    }

    #[test]
    fn a_late_poll_may_use_the_slots_it_missed_up_to_the_bound() {
        let rate = Bitrate::from_mbps(8.0); // 1 ms per 1000 bytes
        let mut p = Pacer::default();
        let t0 = Instant::from_millis(100);
        p.on_sent(t0, 1000, rate, CATCH_UP);
        p.on_wait();
        // Polled 3.5 ms late: the slots at 101, 102, 103 and 104 ms are still usable.
        let now = t0 + Duration::from_micros(4500);
        let mut sent = 0;
        while p.next_send() <= now {
            p.on_sent(now, 1000, rate, CATCH_UP);
            sent += 1;
        }
        assert_eq!(sent, 4);
        // Polled a second late: only the last `CATCH_UP` of slots.
        p.on_wait();
        let now = now + Duration::from_secs(1);
        let mut sent = 0;
        while p.next_send() <= now {
            p.on_sent(now, 1000, rate, CATCH_UP);
            sent += 1;
        }
        assert_eq!(sent, 11);
    }

    #[test]
    fn an_idle_period_earns_no_credit() {
        let rate = Bitrate::from_mbps(8.0);
        let mut p = Pacer::default();
        let t0 = Instant::from_millis(100);
        p.on_sent(t0, 1000, rate, CATCH_UP);
        p.on_idle();
        let now = t0 + Duration::from_millis(50);
        p.on_sent(now, 1000, rate, CATCH_UP);
        assert_eq!(p.next_send(), now + Duration::from_millis(1));
    }
}
