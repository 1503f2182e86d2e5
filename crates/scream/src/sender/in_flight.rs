//! Sent-packet bookkeeping of one stream: what is in flight, what was acknowledged,
//! what is lost.
//!
//! Records are kept in sequence (= transmission) order from the oldest unresolved
//! packet to the newest sent one, in a ring buffer that keeps its capacity. A
//! 16-bit sequence number from feedback is located by its distance from the oldest
//! record, so lookups are O(1) and wrap-around safe.
//!
//! Loss detection follows the time-based reordering window of RFC 8985 (RACK), as the
//! draft's lost packet detection asks: a packet is lost once a packet *sent* more than
//! the reordering window after it has been acknowledged. Reordering shorter than the
//! window is therefore never loss.

use std::collections::VecDeque;

use crate::time::{Duration, Instant};

/// How far behind the oldest tracked packet a reported sequence number may lie and
/// still be taken as a repeat from overlapping feedback rather than as garbage.
/// Receivers repeat at most a few hundred packets (the reference receiver 64).
const STALE_WINDOW: u16 = 4096;

/// Resolution of a sent packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PacketState {
    InFlight,
    Acked,
    Lost,
}

/// One sent packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SentRecord {
    pub(crate) seq: u16,
    pub(crate) size_bytes: u32,
    pub(crate) sent_at: Instant,
    pub(crate) state: PacketState,
}

/// Where a reported sequence number falls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lookup {
    /// A tracked packet, at this index.
    Tracked(usize),
    /// Resolved and forgotten a short while ago: a repeat, skip silently.
    Stale,
    /// Never sent, or far behind anything tracked: inconsistent feedback.
    Unknown,
}

/// Packets and bytes that changed state in one operation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    pub(crate) packets: u64,
    pub(crate) bytes: u64,
}

/// The sent packets of one stream.
#[derive(Debug)]
pub(crate) struct SentHistory {
    records: VecDeque<SentRecord>,
    next_seq: u16,
    /// In-flight packets dropped from a full history and not yet reported through
    /// [`SentHistory::expire`].
    evicted: Tally,
}

impl SentHistory {
    pub(crate) fn new(first_seq: u16) -> Self {
        Self {
            records: VecDeque::with_capacity(256),
            next_seq: first_seq,
            evicted: Tally::default(),
        }
    }

    /// Records a transmission; returns its sequence number.
    pub(crate) fn on_sent(&mut self, now: Instant, size_bytes: u32) -> u16 {
        let seq = self.next_seq;
        self.next_seq = seq.wrapping_add(1);
        if self.records.len() >= usize::from(u16::MAX) {
            // Only when more packets are unresolved than 16-bit sequence numbers can
            // tell apart (a long in-flight timeout at a high packet rate). The oldest
            // record leaves to keep lookups unambiguous; if it was still in flight it
            // leaves the bytes in flight too, as an expiry, at the next `expire`.
            if let Some(r) = self.records.pop_front() {
                if r.state == PacketState::InFlight {
                    self.evicted.packets += 1;
                    self.evicted.bytes += u64::from(r.size_bytes);
                }
            }
        }
        self.records.push_back(SentRecord {
            seq,
            size_bytes,
            sent_at: now,
            state: PacketState::InFlight,
        });
        seq
    }

    pub(crate) fn lookup(&self, seq: u16) -> Lookup {
        let Some(front) = self.records.front() else {
            return self.lookup_untracked(seq);
        };
        let offset = usize::from(seq.wrapping_sub(front.seq));
        if offset < self.records.len() {
            return Lookup::Tracked(offset);
        }
        self.lookup_untracked(seq)
    }

    fn lookup_untracked(&self, seq: u16) -> Lookup {
        let oldest = self.records.front().map_or(self.next_seq, |r| r.seq);
        let behind = oldest.wrapping_sub(seq);
        if behind != 0 && behind <= STALE_WINDOW {
            Lookup::Stale
        } else {
            Lookup::Unknown
        }
    }

    pub(crate) fn get(&self, idx: usize) -> Option<&SentRecord> {
        self.records.get(idx)
    }

    /// Marks the record at `idx` acknowledged; returns it if it was in flight.
    pub(crate) fn ack(&mut self, idx: usize) -> Option<SentRecord> {
        let r = self.records.get_mut(idx)?;
        if r.state != PacketState::InFlight {
            return None;
        }
        r.state = PacketState::Acked;
        Some(*r)
    }

    /// Declares lost every in-flight packet sent before `sent_before`.
    pub(crate) fn declare_lost_before(&mut self, sent_before: Instant) -> Tally {
        let mut t = Tally::default();
        for r in &mut self.records {
            if r.sent_at >= sent_before {
                break;
            }
            if r.state == PacketState::InFlight {
                r.state = PacketState::Lost;
                t.packets += 1;
                t.bytes += u64::from(r.size_bytes);
            }
        }
        self.trim();
        t
    }

    /// Forgets resolved packets at the old end.
    pub(crate) fn trim(&mut self) {
        while self
            .records
            .front()
            .is_some_and(|r| r.state != PacketState::InFlight)
        {
            self.records.pop_front();
        }
    }

    /// Send time of the oldest packet still in flight.
    pub(crate) fn oldest_in_flight(&self) -> Option<Instant> {
        self.records
            .iter()
            .find(|r| r.state == PacketState::InFlight)
            .map(|r| r.sent_at)
    }

    /// In-flight bytes of this stream (O(n); for checks, not the per-packet path).
    #[cfg(test)]
    pub(crate) fn in_flight_bytes(&self) -> u64 {
        self.records
            .iter()
            .filter(|r| r.state == PacketState::InFlight)
            .map(|r| u64::from(r.size_bytes))
            .sum()
    }

    /// Timeout: declares lost what was sent `timeout` or longer before `now`, and
    /// what a full history dropped while it was in flight.
    pub(crate) fn expire(&mut self, now: Instant, timeout: Duration) -> Tally {
        let mut t = std::mem::take(&mut self.evicted);
        if let Some(limit) = now.checked_sub(timeout) {
            let timed_out = self.declare_lost_before(limit + Duration::from_nanos(1));
            t.packets += timed_out.packets;
            t.bytes += timed_out.bytes;
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Instant {
        Instant::from_millis(v)
    }

    #[test]
    fn lookup_is_wrap_around_safe_and_classifies_strays() {
        let mut h = SentHistory::new(65534);
        for i in 0..4 {
            h.on_sent(ms(i), 100);
        }
        assert_eq!(h.lookup(65534), Lookup::Tracked(0));
        assert_eq!(h.lookup(1), Lookup::Tracked(3));
        assert_eq!(h.lookup(2), Lookup::Unknown, "never sent");
        assert_eq!(h.lookup(30000), Lookup::Unknown, "far away");
        h.ack(0);
        h.ack(1);
        h.trim();
        assert_eq!(
            h.lookup(65534),
            Lookup::Stale,
            "repeat of a resolved packet"
        );
        assert_eq!(h.lookup(0), Lookup::Tracked(0));
    }

    #[test]
    fn acking_twice_counts_once() {
        let mut h = SentHistory::new(0);
        h.on_sent(ms(0), 100);
        assert!(h.ack(0).is_some());
        assert!(h.ack(0).is_none());
    }

    #[test]
    fn bytes_in_flight_never_outlive_their_records() {
        // More packets unresolved than 16-bit sequence numbers can tell apart: the
        // oldest records must leave, and their bytes with them, through a tally.
        let mut h = SentHistory::new(0);
        let mut sent = 0u64;
        for i in 0..70_000u64 {
            h.on_sent(Instant::from_micros(10 * i), 500);
            sent += 500;
        }
        // Nothing is old enough to time out; only what the history dropped comes out.
        let out = h.expire(Instant::from_millis(1000), Duration::from_secs(3600));
        assert_eq!(out.packets, 70_000 - u64::from(u16::MAX));
        assert_eq!(h.in_flight_bytes() + out.bytes, sent);
        assert_eq!(
            h.expire(Instant::from_millis(1000), Duration::from_secs(3600)),
            Tally::default()
        );
    }

    #[test]
    fn loss_is_declared_only_for_packets_older_than_the_limit() {
        let mut h = SentHistory::new(0);
        for i in 0..5 {
            h.on_sent(ms(10 * i), 100);
        }
        h.ack(4);
        let t = h.declare_lost_before(ms(25));
        assert_eq!(
            t,
            Tally {
                packets: 3,
                bytes: 300
            }
        );
        assert_eq!(h.oldest_in_flight(), Some(ms(30)));
        assert_eq!(h.in_flight_bytes(), 100);
    }
}
