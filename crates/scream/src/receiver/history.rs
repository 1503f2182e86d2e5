//! Reception history of one RTP stream (one SSRC).

use crate::ecn::Ecn;
use crate::feedback::{PacketReport, PacketStatus};
use crate::time::{Instant, RemoteInstant};

/// One slot of the ring: which extended sequence number it holds, and what arrived.
#[derive(Clone, Copy, Debug)]
struct Slot {
    ext_seq: u64,
    arrival: Instant,
    ecn: Ecn,
}

/// What [`SsrcHistory::record`] made of a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Recorded {
    /// A packet not seen before, inside the window.
    New,
    /// The same sequence number arrived again; the first arrival is kept.
    Duplicate,
    /// Older than the window: it can no longer be reported.
    TooOld,
}

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
    ring: Vec<Option<Slot>>,
    /// Packets recorded since the last report that included this SSRC.
    pub(crate) unreported: u32,
}

/// Extended sequence numbers start here so that packets arriving slightly out of order
/// before the first one can still be placed without going below zero.
const EXT_SEQ_ORIGIN: u64 = 1 << 32;

impl SsrcHistory {
    pub(crate) fn new(ssrc: u32, window: usize, seq: u16) -> Self {
        let ext = EXT_SEQ_ORIGIN + u64::from(seq);
        Self {
            ssrc,
            first: ext,
            highest: ext,
            ring: vec![None; window.max(1)],
            unreported: 0,
        }
    }

    fn window(&self) -> u64 {
        self.ring.len() as u64
    }

    /// Extends a 16-bit sequence number to the one nearest the highest seen.
    fn extend(&self, seq: u16) -> u64 {
        let delta = seq.wrapping_sub(self.highest as u16) as i16;
        self.highest.wrapping_add_signed(i64::from(delta))
    }

    pub(crate) fn record(&mut self, now: Instant, seq: u16, ecn: Ecn) -> Recorded {
        let ext = self.extend(seq);
        if ext + self.window() <= self.highest {
            return Recorded::TooOld;
        }
        let idx = (ext % self.window()) as usize;
        if let Some(slot) = self.ring[idx] {
            if slot.ext_seq == ext {
                return Recorded::Duplicate;
            }
        }
        self.ring[idx] = Some(Slot {
            ext_seq: ext,
            arrival: now,
            ecn,
        });
        self.highest = self.highest.max(ext);
        self.first = self.first.min(ext);
        self.unreported += 1;
        Recorded::New
    }

    /// Appends reports for the last `window` sequence numbers up to the highest seen.
    pub(crate) fn report_into(&self, out: &mut Vec<PacketReport>) {
        let begin = self.first.max(self.highest + 1 - self.window());
        for ext in begin..=self.highest {
            let status = match self.ring[(ext % self.window()) as usize] {
                Some(slot) if slot.ext_seq == ext => PacketStatus::Received {
                    arrival: Some(RemoteInstant::from_nanos(slot.arrival.as_nanos())),
                    ecn: slot.ecn,
                },
                _ => PacketStatus::NotReceived,
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
        let mut h = SsrcHistory::new(1, 8, 65534);
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
        let mut h = SsrcHistory::new(1, 4, 10);
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
        let mut h = SsrcHistory::new(1, 8, 100);
        h.record(t, 100, Ecn::NotEct);
        assert_eq!(h.record(t, 99, Ecn::NotEct), Recorded::New);
        assert_eq!(seqs(&h), vec![(99, true), (100, true)]);
    }
}
