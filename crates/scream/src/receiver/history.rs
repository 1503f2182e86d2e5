//! Reception history of one RTP stream (one SSRC).

use crate::ecn::Ecn;
use crate::feedback::{PacketReport, PacketStatus};
use crate::time::{Instant, RemoteInstant};

/// One slot of the ring: which extended sequence number of which generation it holds,
/// and what arrived.
#[derive(Clone, Copy, Debug)]
struct Slot {
    ext_seq: u64,
    arrival: Instant,
    /// The slot is valid only while this equals the history's generation; a restart
    /// bumps the generation, which empties every slot at once.
    generation: u32,
    ecn: Ecn,
}

/// Generation 0 is never current, so a slot of it is empty.
const EMPTY: Slot = Slot {
    ext_seq: 0,
    arrival: Instant::ZERO,
    generation: 0,
    ecn: Ecn::NotEct,
};

/// What [`SsrcHistory::record`] made of a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Recorded {
    /// A packet not seen before, inside the window.
    New,
    /// A packet far behind the window after a run of such packets: the sender restarted
    /// its sequence numbers, and the history restarted at this packet (recorded as new).
    Restarted,
    /// The same sequence number arrived again; the first arrival is kept.
    Duplicate,
    /// Older than the window: it can no longer be reported.
    TooOld,
}

/// Consecutive too-old packets of one stream after which its sender is assumed to have
/// restarted its sequence numbers (RFC 3550 §A.1 handles such jumps with a similar
/// probation).
const RESTART_AFTER_TOO_OLD: u32 = 16;

/// Received packets of one SSRC over the last `window` sequence numbers.
///
/// Sequence numbers are extended to 64 bits (RFC 3550 §A.1 style) relative to the
/// highest one seen, so wrap-around of the 16-bit field is invisible above this type.
#[derive(Debug)]
pub(crate) struct SsrcHistory {
    pub(crate) ssrc: u32,
    /// First extended sequence number ever received: reports never start before it, so
    /// a stream joining mid-way is not reported as a run of losses.
    first: u64,
    highest: u64,
    ring: Vec<Slot>,
    /// Current generation of the ring's slots (never 0).
    generation: u32,
    /// Packets recorded since the last report that included this SSRC.
    pub(crate) unreported: u32,
    /// Packets recorded since this history started (saturating).
    pub(crate) accepted: u32,
    /// Too-old packets in a row.
    too_old_run: u32,
}

/// Extended sequence numbers start here so that packets arriving slightly out of order
/// before the first one can still be placed without going below zero.
const EXT_SEQ_ORIGIN: u64 = 1 << 32;

impl SsrcHistory {
    /// A history of `window` sequence numbers, empty, to be started by `restart`.
    /// Allocates the ring: the only allocation over the life of the history.
    pub(crate) fn new(window: usize) -> Self {
        Self {
            ssrc: 0,
            first: EXT_SEQ_ORIGIN,
            highest: EXT_SEQ_ORIGIN,
            ring: vec![EMPTY; window.max(1)],
            generation: 0,
            unreported: 0,
            accepted: 0,
            too_old_run: 0,
        }
    }

    /// Forgets everything and starts over for `ssrc` at sequence number `seq`, keeping
    /// the ring. O(1): bumping the generation empties every slot, except once every 2^32
    /// restarts, when the generation wraps and the ring is cleared for real.
    pub(crate) fn restart(&mut self, ssrc: u32, seq: u16) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.ring.fill(EMPTY);
            self.generation = 1;
        }
        let ext = EXT_SEQ_ORIGIN + u64::from(seq);
        self.ssrc = ssrc;
        self.first = ext;
        self.highest = ext;
        self.unreported = 0;
        self.accepted = 0;
        self.too_old_run = 0;
    }

    fn window(&self) -> u64 {
        self.ring.len() as u64
    }

    /// Extends a 16-bit sequence number to the one nearest the highest seen.
    fn extend(&self, seq: u16) -> u64 {
        let delta = seq.wrapping_sub(self.highest as u16) as i16;
        self.highest.wrapping_add_signed(i64::from(delta))
    }

    fn slot(&self, ext: u64) -> Option<Slot> {
        let slot = self.ring[(ext % self.window()) as usize];
        (slot.generation == self.generation && slot.ext_seq == ext).then_some(slot)
    }

    pub(crate) fn record(&mut self, now: Instant, seq: u16, ecn: Ecn) -> Recorded {
        let mut ext = self.extend(seq);
        let mut outcome = Recorded::New;
        if ext + self.window() <= self.highest {
            self.too_old_run += 1;
            if self.too_old_run < RESTART_AFTER_TOO_OLD {
                return Recorded::TooOld;
            }
            self.restart(self.ssrc, seq);
            ext = self.highest;
            outcome = Recorded::Restarted;
        }
        if self.slot(ext).is_some() {
            return Recorded::Duplicate;
        }
        let idx = (ext % self.window()) as usize;
        self.ring[idx] = Slot {
            ext_seq: ext,
            arrival: now,
            generation: self.generation,
            ecn,
        };
        self.highest = self.highest.max(ext);
        self.first = self.first.min(ext);
        // Saturating: a caller that never polls cannot make this overflow.
        self.unreported = self.unreported.saturating_add(1);
        self.accepted = self.accepted.saturating_add(1);
        self.too_old_run = 0;
        outcome
    }

    /// Appends reports for the last `window` sequence numbers up to the highest seen.
    pub(crate) fn report_into(&self, out: &mut Vec<PacketReport>) {
        let begin = self.first.max(self.highest + 1 - self.window());
        for ext in begin..=self.highest {
            let status = match self.slot(ext) {
                Some(slot) => PacketStatus::Received {
                    arrival: Some(RemoteInstant::from_nanos(slot.arrival.as_nanos())),
                    ecn: slot.ecn,
                },
                None => PacketStatus::NotReceived,
            };
            out.push(PacketReport {
                ssrc: self.ssrc,
                seq: ext as u16,
                status,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn history(ssrc: u32, window: usize, seq: u16) -> SsrcHistory {
        let mut h = SsrcHistory::new(window);
        h.restart(ssrc, seq);
        h
    }

    fn seqs(h: &SsrcHistory) -> Vec<(u16, bool)> {
        let mut out = Vec::new();
        h.report_into(&mut out);
        out.iter()
            .map(|r| (r.seq, matches!(r.status, PacketStatus::Received { .. })))
            .collect()
    }

    #[test]
    fn wrap_around_keeps_reports_contiguous() {
        let t = Instant::ZERO;
        let mut h = history(1, 8, 65534);
        for s in [65534u16, 65535, 0, 1] {
            assert_eq!(h.record(t, s, Ecn::Ect1), Recorded::New);
        }
        assert_eq!(
            seqs(&h),
            vec![(65534, true), (65535, true), (0, true), (1, true)]
        );
    }

    #[test]
    fn gaps_are_reported_as_not_received_and_window_is_bounded() {
        let t = Instant::ZERO;
        let mut h = history(1, 4, 10);
        h.record(t, 10, Ecn::NotEct);
        h.record(t, 12, Ecn::NotEct);
        h.record(t, 14, Ecn::NotEct);
        assert_eq!(
            seqs(&h),
            vec![(11, false), (12, true), (13, false), (14, true)]
        );
        assert_eq!(h.record(t, 10, Ecn::NotEct), Recorded::TooOld);
        assert_eq!(h.record(t, 14, Ecn::NotEct), Recorded::Duplicate);
    }

    #[test]
    fn late_packet_before_the_first_one_is_placed() {
        let t = Instant::ZERO;
        let mut h = history(1, 8, 100);
        h.record(t, 100, Ecn::NotEct);
        assert_eq!(h.record(t, 99, Ecn::NotEct), Recorded::New);
        assert_eq!(seqs(&h), vec![(99, true), (100, true)]);
    }

    #[test]
    fn a_restart_forgets_every_packet_without_clearing_the_ring() {
        let t = Instant::ZERO;
        let mut h = history(1, 8, 100);
        for s in 100..108 {
            h.record(t, s, Ecn::NotEct);
        }
        // Same sequence numbers under another SSRC: nothing of the first life shows.
        h.restart(2, 100);
        assert_eq!(h.record(t, 107, Ecn::NotEct), Recorded::New);
        assert_eq!(seqs(&h).iter().filter(|(_, received)| *received).count(), 1);
        assert_eq!((h.ssrc, h.accepted, h.unreported), (2, 1, 1));
    }

    #[test]
    fn the_ring_is_cleared_when_the_generation_wraps() {
        let t = Instant::ZERO;
        let mut h = history(1, 4, 0);
        h.record(t, 0, Ecn::NotEct);
        h.generation = u32::MAX;
        h.record(t, 1, Ecn::NotEct);
        h.restart(1, 0);
        assert_eq!(h.generation, 1);
        assert_eq!(seqs(&h), vec![(0, false)]);
    }

    #[test]
    fn a_run_of_too_old_packets_restarts_the_history() {
        let t = Instant::ZERO;
        let mut h = history(1, 8, 30000);
        h.record(t, 30000, Ecn::NotEct);
        for i in 0..RESTART_AFTER_TOO_OLD - 1 {
            assert_eq!(h.record(t, i as u16, Ecn::NotEct), Recorded::TooOld);
        }
        assert_eq!(h.record(t, 500, Ecn::NotEct), Recorded::Restarted);
        assert_eq!(seqs(&h), vec![(500, true)]);
    }
}
