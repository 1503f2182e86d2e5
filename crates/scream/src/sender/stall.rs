//! Giving up the flight: the in-flight timeout, and the stall guard that gives up every
//! packet in flight when the send window has held media back for `stall_timeout`
//! (`outage-recovery` shortens it while no acknowledgement arrives).

use super::{BackOffCause, CongestionEventKind, Sender, scheduler};
use crate::time::{Duration, Instant};

/// `outage-recovery`: the stall timeout is at most this many smoothed RTTs...
const STALL_RTTS: u32 = 4;
/// ...but not below this.
const STALL_MIN: Duration = Duration::from_millis(100);

/// The next packet to send: its stream's index, its size in bytes, and whether the
/// send window keeps it back.
pub(super) type NextPacket = (usize, u64, bool);

impl Sender {
    /// Gives up packets in flight: those older than `in_flight_timeout`, or all of them
    /// when the send window has stalled the sender for `stall_timeout`. `next` is what
    /// [`Sender::next_packet`] gives now; the result says whether the flight or the
    /// window changed, which makes that view stale.
    pub(super) fn expire_in_flight(&mut self, now: Instant, next: Option<NextPacket>) -> bool {
        let stalled = self
            .stall_deadline_for(next)
            .is_some_and(|deadline| now >= deadline);
        let timeout = if stalled {
            Duration::ZERO
        } else {
            self.config.in_flight_timeout
        };
        let (mut packets, mut bytes) = (0, 0);
        for s in &mut self.streams {
            let t = s.sent.expire(now, timeout);
            if t.packets > 0 {
                self.bytes_in_flight = self.bytes_in_flight.saturating_sub(t.bytes);
                self.counters.packets_lost += t.packets;
                self.rate_lost.add(now, t.bytes);
                packets += t.packets;
                bytes += t.bytes;
            }
        }
        if stalled {
            self.silent_stalls = self.silent_stalls.saturating_add(1);
            self.cc_event(now, CongestionEventKind::Stall { packets, bytes });
            if self.config.improvements.outage_recovery {
                let shrank = self.generation.on_stall(self.silent_stalls);
                self.delay.forget_variation();
                if let Some((window_before, window_after)) = shrank {
                    let kind = CongestionEventKind::BackOff {
                        cause: BackOffCause::Stall,
                        window_before,
                        window_after,
                    };
                    self.cc_event(now, kind);
                }
            }
        }
        // A stall may also have shrunk the window.
        packets > 0 || stalled
    }

    /// The next packet in the scheduler's order and whether the send window keeps it
    /// back.
    pub(super) fn next_packet(&self) -> Option<NextPacket> {
        let idx = scheduler::pick(&self.streams)?;
        let size = u64::from(self.streams[idx].queue.front()?.size_bytes);
        // Draft §"Send Window", with the exception that a packet may always leave when
        // nothing is in flight (otherwise a packet larger than the window would never
        // go).
        let limit = self
            .generation
            .send_limit_bytes(self.delay.steadiness(), self.largest_packet);
        let wanted = self.bytes_in_flight + size;
        // Late feedback leaves delivered packets in the count (`late_feedback`).
        let blocked = self.bytes_in_flight > 0
            && wanted > limit
            && wanted > limit.saturating_add(self.late_feedback_allowance(limit).0);
        Some((idx, size, blocked))
    }

    /// When the send window, if it stays closed, stalls the sender: `stall_timeout`
    /// after the last transmission while a packet waits behind the window.
    pub(super) fn stall_deadline(&self) -> Option<Instant> {
        self.stall_deadline_for(self.next_packet())
    }

    /// [`Sender::stall_deadline`] for the next packet `next`, already looked up.
    fn stall_deadline_for(&self, next: Option<NextPacket>) -> Option<Instant> {
        let (_, _, blocked) = next?;
        let last = self.last_sent?;
        let mut deadline = last + self.config.stall_timeout;
        if self.config.improvements.outage_recovery {
            // A flight that has gone unanswered for several RTTs is gone; waiting the
            // full half second only delays the restart after a capacity outage. While
            // acknowledgements still arrive, the flight is only slow (a long queue at a
            // reduced capacity), and the faithful timeout applies.
            let quick = (self.delay.srtt() * STALL_RTTS).max(STALL_MIN);
            let heard = self.last_ack_progress.map_or(last, |t| t.max(last));
            deadline = deadline.min(heard + quick);
        }
        blocked.then_some(deadline)
    }
}
