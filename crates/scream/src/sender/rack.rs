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

use super::Sender;
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
        for s in &mut self.streams {
            let resolved = s.sent.declare_lost_before(limit);
            let unreported = resolved.unreported.bytes;
            let t = resolved.lost;
            self.bytes_in_flight = self
                .bytes_in_flight
                .saturating_sub(unreported)
                .saturating_sub(t.bytes);
            changed |= unreported > 0 || t.packets > 0;
            if t.packets > 0 {
                self.counters.packets_lost += t.packets;
                self.rate_lost.add(now, t.bytes);
            }
        }
        changed
    }
}
