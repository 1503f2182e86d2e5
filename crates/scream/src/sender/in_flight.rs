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
//!
//! Lost feedback is not lost media. Each report covers a range of sequence numbers per
//! stream (RFC 8888 §3.1: `begin_seq` and `num_reports`; in the abstract feedback, its
//! lowest to its highest reported number). A packet some report covered without
//! acknowledging it was reported missing, and RACK declares it lost. A packet that no
//! report ever covered, because the reports that would have covered it were lost, has
//! an unknown fate: once RACK's time rule says it is no longer in the network, it leaves
//! the bytes in flight without counting as a loss. Such a gap only means lost feedback
//! when the receiver repeats packets across reports (overlapping reports, as the
//! reference's and this crate's receivers send: the last 64 sequence numbers each
//! time); a receiver that reports each packet once can leave a packet out only because
//! it did not arrive, so until a stream's reports have overlapped, a gap is taken as
//! reported missing, as before.

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
    /// No longer in flight, fate unknown: the reports that would have told were lost.
    Unreported,
}

/// One sent packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SentRecord {
    pub(crate) seq: u16,
    pub(crate) size_bytes: u32,
    pub(crate) sent_at: Instant,
    pub(crate) state: PacketState,
    /// A report covered its sequence number.
    pub(crate) covered: bool,
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

impl Tally {
    fn add(&mut self, r: &SentRecord) {
        self.packets += 1;
        self.bytes += u64::from(r.size_bytes);
    }
}

/// Packets that left the flight in one loss detection pass.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Resolved {
    /// Reported missing: lost.
    pub(crate) lost: Tally,
    /// Never covered by a report that arrived: fate unknown.
    pub(crate) unreported: Tally,
}

/// The sequence numbers one report covers for one stream, as extended indices.
#[derive(Clone, Copy, Debug)]
struct Span {
    /// Lowest and highest tracked packet reported.
    tracked: Option<(u64, u64)>,
    /// Whether the report also named packets already forgotten (before the oldest
    /// record): it then covers everything from the oldest record on.
    behind: bool,
}

/// The sent packets of one stream.
#[derive(Debug)]
pub(crate) struct SentHistory {
    records: VecDeque<SentRecord>,
    next_seq: u16,
    /// In-flight packets dropped from a full history and not yet reported through
    /// [`SentHistory::expire`].
    evicted: Tally,
    /// Extended index (count of packets ever sent before it) of `records[0]`.
    front: u64,
    /// Every packet below this extended index was covered by a report, or skipped by
    /// one (a gap of lost feedback).
    covered_to: u64,
    /// The receiver repeats packets across reports (some report overlapped an earlier
    /// one), so a gap in the coverage is lost feedback.
    repeats: bool,
    /// Coverage of the report being processed.
    span: Option<Span>,
}

impl SentHistory {
    pub(crate) fn new(first_seq: u16) -> Self {
        Self {
            records: VecDeque::with_capacity(256),
            next_seq: first_seq,
            evicted: Tally::default(),
            front: 0,
            covered_to: 0,
            repeats: false,
            span: None,
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
            if let Some(r) = self.pop_front() {
                if r.state == PacketState::InFlight {
                    self.evicted.add(&r);
                }
            }
        }
        self.records.push_back(SentRecord {
            seq,
            size_bytes,
            sent_at: now,
            state: PacketState::InFlight,
            covered: false,
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

    /// Whether `seq` names a packet still in flight.
    fn is_in_flight(&self, seq: u16) -> bool {
        match self.lookup(seq) {
            Lookup::Tracked(i) => self.records[i].state == PacketState::InFlight,
            Lookup::Stale | Lookup::Unknown => false,
        }
    }

    /// Whether `seq` names a packet sent recently: one still in flight, or one of the
    /// last [`STALE_WINDOW`] sent, as far back as a receiver's overlapping reports go.
    pub(crate) fn sent_recently(&self, seq: u16) -> bool {
        let back = self.next_seq.wrapping_sub(seq);
        (1..=STALE_WINDOW).contains(&back) || self.is_in_flight(seq)
    }

    /// Whether `seq` lies at or ahead of the next sequence number to send (within the
    /// forward half of the number space), so that no receiver can have it.
    pub(crate) fn never_sent(&self, seq: u16) -> bool {
        seq.wrapping_sub(self.next_seq) < 0x8000 && !self.is_in_flight(seq)
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

    /// Notes that the report being processed names the packet `lookup` found (whatever
    /// it says about it); [`SentHistory::end_report`] applies the coverage.
    pub(crate) fn note_reported(&mut self, lookup: Lookup) {
        let span = self.span.get_or_insert(Span {
            tracked: None,
            behind: false,
        });
        match lookup {
            Lookup::Tracked(idx) => {
                let ext = self.front + idx as u64;
                span.tracked = Some(
                    span.tracked
                        .map_or((ext, ext), |(lo, hi)| (lo.min(ext), hi.max(ext))),
                );
            }
            Lookup::Stale => span.behind = true,
            Lookup::Unknown => {}
        }
    }

    /// The report being processed is done: every packet from its lowest to its highest
    /// reported one is covered. Each packet is marked once, so this is O(1) amortised.
    pub(crate) fn end_report(&mut self) {
        let Some(span) = self.span.take() else {
            return;
        };
        let lo = match span.tracked {
            Some((lo, _)) if !span.behind => lo,
            _ => self.front,
        };
        if span.behind || lo < self.covered_to {
            self.repeats = true;
        }
        let Some((_, hi)) = span.tracked else {
            return;
        };
        let from = lo.max(self.covered_to).max(self.front);
        for ext in from..=hi {
            if let Some(r) = self.records.get_mut((ext - self.front) as usize) {
                r.covered = true;
            }
        }
        self.covered_to = self.covered_to.max(hi + 1);
    }

    /// Loss detection: resolves every in-flight packet sent before `sent_before`, as
    /// lost if a report covered it (or if the receiver does not repeat packets across
    /// reports), else as unreported.
    pub(crate) fn declare_lost_before(&mut self, sent_before: Instant) -> Resolved {
        let mut out = Resolved::default();
        let repeats = self.repeats;
        for r in &mut self.records {
            if r.sent_at >= sent_before {
                break;
            }
            if r.state == PacketState::InFlight {
                if r.covered || !repeats {
                    r.state = PacketState::Lost;
                    out.lost.add(r);
                } else {
                    r.state = PacketState::Unreported;
                    out.unreported.add(r);
                }
            }
        }
        self.trim();
        out
    }

    /// Forgets resolved packets at the old end.
    pub(crate) fn trim(&mut self) {
        while self
            .records
            .front()
            .is_some_and(|r| r.state != PacketState::InFlight)
        {
            self.pop_front();
        }
    }

    fn pop_front(&mut self) -> Option<SentRecord> {
        let r = self.records.pop_front()?;
        self.front += 1;
        Some(r)
    }

    /// Send time of the oldest packet still in flight.
    pub(crate) fn oldest_in_flight(&self) -> Option<Instant> {
        self.records
            .iter()
            .find(|r| r.state == PacketState::InFlight)
            .map(|r| r.sent_at)
    }

    /// In-flight bytes of the packets sent at or before `t`, and the send time of the
    /// first in-flight packet sent after it (O(packets up to that one)).
    pub(crate) fn in_flight_sent_before(&self, t: Instant) -> (u64, Option<Instant>) {
        let mut bytes = 0;
        for r in &self.records {
            if r.state != PacketState::InFlight {
                continue;
            }
            if r.sent_at > t {
                return (bytes, Some(r.sent_at));
            }
            bytes += u64::from(r.size_bytes);
        }
        (bytes, None)
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
            for r in &mut self.records {
                if r.sent_at > limit {
                    break;
                }
                if r.state == PacketState::InFlight {
                    r.state = PacketState::Lost;
                    t.add(r);
                }
            }
            self.trim();
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

    /// Processes one report naming `seqs` (received or not) and acknowledging `acked`.
    fn report(h: &mut SentHistory, seqs: std::ops::RangeInclusive<u16>, acked: &[u16]) {
        for seq in seqs {
            let lookup = h.lookup(seq);
            h.note_reported(lookup);
            if let (Lookup::Tracked(i), true) = (lookup, acked.contains(&seq)) {
                h.ack(i);
            }
        }
        h.end_report();
        h.trim();
    }

    #[test]
    fn a_gap_between_overlapping_reports_is_lost_feedback_not_lost_media() {
        let mut h = SentHistory::new(0);
        for i in 0..40 {
            h.on_sent(ms(i), 100);
        }
        let all: Vec<u16> = (0..40).collect();
        // Overlapping reports: 0..=9, then 0..=14 (the receiver repeats).
        report(&mut h, 0..=9, &all);
        report(&mut h, 0..=14, &all);
        // The reports on 15..=29 were lost; this one covers 30..=39 and says 33 is
        // missing.
        let mut acked = all.clone();
        acked.retain(|s| *s != 33);
        report(&mut h, 30..=39, &acked);
        let r = h.declare_lost_before(ms(36));
        assert_eq!(
            r.lost,
            Tally {
                packets: 1,
                bytes: 100
            },
            "33, reported missing"
        );
        assert_eq!(
            r.unreported,
            Tally {
                packets: 15,
                bytes: 1500
            },
            "15..=29"
        );
        assert_eq!(h.in_flight_bytes(), 0);
    }

    #[test]
    fn a_gap_is_loss_while_the_receiver_has_never_repeated_itself() {
        // Reports of disjoint ranges: a packet left out was not received.
        let mut h = SentHistory::new(65_530);
        for i in 0..12 {
            h.on_sent(ms(i), 100);
        }
        let all: Vec<u16> = (0..12u16).map(|i| 65_530u16.wrapping_add(i)).collect();
        report(&mut h, 65_530..=65_533, &all);
        report(&mut h, 65_535..=65_535, &all);
        report(&mut h, 0..=5, &all);
        let r = h.declare_lost_before(ms(10));
        assert_eq!(r.lost.packets, 1, "65534");
        assert_eq!(r.unreported, Tally::default());
    }

    #[test]
    fn in_flight_bytes_are_split_by_send_time() {
        let mut h = SentHistory::new(0);
        for i in 0..5 {
            h.on_sent(ms(10 * i), 100);
        }
        h.ack(1);
        assert_eq!(h.in_flight_sent_before(ms(20)), (200, Some(ms(30))));
        assert_eq!(h.in_flight_sent_before(ms(5)), (100, Some(ms(20))));
        assert_eq!(h.in_flight_sent_before(ms(40)), (400, None));
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
            t.lost,
            Tally {
                packets: 3,
                bytes: 300
            }
        );
        assert_eq!(h.oldest_in_flight(), Some(ms(30)));
        assert_eq!(h.in_flight_bytes(), 100);
    }
}
