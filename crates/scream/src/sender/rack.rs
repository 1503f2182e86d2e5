//! `tail-loss-probe`: the RACK reordering timer (RFC 8985 §6.2 step 5, §6.3).
//!
//! Feedback declares a packet lost once a packet sent more than `reorder_time` after
//! it has been acknowledged (`ack::detect_losses`). The packets sent in the last
//! `reorder_time` before the newest acknowledged one are left in flight until a later
//! report, in case they were only reordered. After a sudden capacity drop no later
//! report may come: the queue dropped almost everything of a large flight, the few
//! packets it let through were reported, and the window is full of the dropped
//! packets of that last reordering window (150 kB at 55 Mbit/s in 30 ms). The sender
//! then sat until the stall guard gave the flight up, with the link idle.
//!
//! RACK resolves them by time as well as by sequence: a packet sent before the newest
//! acknowledged one is lost once an RTT and the reordering window have passed since it
//! left (`now >= xmit_ts + RACK.rtt + reo_wnd`, RFC 8985 §6.2 step 5), and a timer
//! fires when the oldest of them reaches that instant (§6.3). `RACK.rtt` is the RTT of
//! the most recently acknowledged packet (§6.2 step 2). Their bytes leave the flight at
//! once, so the window opens. Their loss is counted but not handed to the window law:
//! they were overtaken by a packet the same reports acknowledged, within one
//! reordering window of it, so they belong to the loss episode those reports already
//! answered, and the faithful sender gives the same packets up at the stall without a
//! back-off too.
//! Handing them on cost a further back-off after the drop: on the classic-ECN draws of
//! `scream eval robust --class sudden-drop` the window then ended below the faithful
//! one and the silence after the drop did not shorten (p90 0.28 s against 0.12 s).
//!
//! When what the timer gives up comes on top of more losses than deliveries over the
//! last RTT (a collapse: the path carries less than half of what was sent), the window
//! is set from what the path delivered in that RTT, and a recovery period begins: the
//! marks, losses and queue delay of packets sent before it describe the old queue and
//! call for no further back-off (RFC 9002 §7.3.2), and what was still in flight then
//! does not hold the new window shut (see `Sender::counted_in_flight`).

use super::{BackOffCause, CongestionEventKind, Sender};
use crate::time::{Duration, Instant};

impl Sender {
    /// How long after it left a packet overtaken by an acknowledged one is lost:
    /// `RACK.rtt + reo_wnd` (RFC 8985 §6.2 step 5).
    fn rack_wait(&self) -> Duration {
        self.delay
            .last_rtt()
            .saturating_add(self.config.reorder_time)
    }

    /// When the reordering timer fires: the oldest packet in flight that was sent
    /// before the newest acknowledged one, plus [`Sender::rack_wait`]. `None` unless
    /// `tail-loss-probe` is on and such a packet exists.
    pub(super) fn rack_deadline(&self) -> Option<Instant> {
        if !self.config.improvements.tail_loss_probe {
            return None;
        }
        let newest = self.newest_acked_sent_at?;
        let oldest = self
            .streams
            .iter()
            .filter_map(|s| s.sent.oldest_in_flight())
            .filter(|t| *t < newest)
            .min()?;
        Some(oldest + self.rack_wait())
    }

    /// Runs the reordering timer if it is due: every packet sent before the newest
    /// acknowledged one and at least [`Sender::rack_wait`] ago is resolved as the
    /// sequence rule resolves it (lost if a report covered it, else unreported).
    /// Returns whether the flight changed.
    pub(super) fn rack_timeout(&mut self, now: Instant) -> bool {
        let Some(deadline) = self.rack_deadline() else {
            return false;
        };
        let Some(newest) = self.newest_acked_sent_at else {
            return false;
        };
        if now < deadline {
            return false;
        }
        // `declare_lost_before` takes packets sent strictly before its bound; the rule
        // includes a packet sent exactly `rack_wait` ago.
        let Some(aged) = now.checked_sub(self.rack_wait()) else {
            return false;
        };
        let limit = (aged + Duration::from_nanos(1)).min(newest);
        let mut changed = false;
        let mut given_up = 0;
        for s in &mut self.streams {
            let resolved = s.sent.declare_lost_before(limit);
            let unreported = resolved.unreported.bytes;
            let t = resolved.lost;
            self.bytes_in_flight = self
                .bytes_in_flight
                .saturating_sub(unreported)
                .saturating_sub(t.bytes);
            changed |= unreported > 0 || t.packets > 0;
            given_up += unreported + t.bytes;
            if t.packets > 0 {
                self.counters.packets_lost += t.packets;
                self.rate_lost.add(now, t.bytes);
            }
        }
        // A collapse: over the last RTT more was lost (by either rule) than delivered,
        // so the path carries less than half of what the sender puts into it, a cut
        // no single back-off (× 0.7 on loss, × 0.8 on CE) answers. A loss or two is
        // only counted.
        let rtt = self.delay.last_rtt();
        let delivered = in_rtt(self.rate_acked.rate_over(now, rtt), rtt);
        let lost = in_rtt(self.rate_lost.rate_over(now, rtt), rtt);
        if given_up > 0 && lost > delivered {
            self.after_collapse(now, delivered);
        }
        changed
    }

    /// The bytes in flight the send window counts. In the recovery period after a
    /// collapse, what was still in flight when the timer fired is left out: sent after
    /// the newest acknowledged packet, it was either dropped at the tail, and only new
    /// packets' reports will tell (as a tail loss probe's would, RFC 8985 §7), or it
    /// still drains at the new rate, and each of its acknowledgements lets one new
    /// packet go (packet conservation, RFC 6937 §3). Without this the old tail held the
    /// new, smaller window shut until the probe timeout.
    pub(super) fn counted_in_flight(&self) -> u64 {
        if self.collapse_at.is_some() {
            self.bytes_in_flight.saturating_sub(self.collapse_flight)
        } else {
            self.bytes_in_flight
        }
    }

    /// The timer gave up what was left of a flight: the path carries far less than
    /// was sent into it. The window restarts from what the path delivered in the last
    /// RTT rather than from the old rate less a few back-offs, and the congestion
    /// signals of packets sent before now (marks and losses at the queue the old rate
    /// built) are not answered again: a recovery period that ends when a packet sent
    /// after it is acknowledged (RFC 9002 §7.3.2; NewReno's `recover`, RFC 6582 §3.2).
    fn after_collapse(&mut self, now: Instant, delivered: u64) {
        self.collapse_at = Some(now);
        self.collapse_flight = self.bytes_in_flight;
        if let Some((window_before, window_after)) = self.generation.on_collapse(now, delivered) {
            let kind = CongestionEventKind::BackOff {
                cause: BackOffCause::Loss,
                window_before,
                window_after,
            };
            self.cc_event(now, kind);
        }
    }
}

/// Bytes at `rate` over `rtt` (the meters span 200 ms at most; a longer RTT is
/// extrapolated at the same rate).
fn in_rtt(rate: crate::units::Bitrate, rtt: Duration) -> u64 {
    (rate.bytes_per_sec() * rtt.as_secs_f64()) as u64
}
