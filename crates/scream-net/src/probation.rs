//! Sources not served yet. Anyone can send a UDP datagram with any source address, so
//! a source earns a place in a table that serves it (a receiver's peer, a relay's
//! client) only by sending valid RTP with consecutive sequence numbers, as RFC 3550
//! §A.1 validates a new source before it counts; until then it sits in this small
//! table of fixed size, which costs little per source and evicts among its own
//! entries only.
//!
//! A source on probation keeps its last few packets (in whatever form the caller
//! needs: arrival metadata for the receiver, whole datagrams for the relay), so that
//! once admitted nothing of a genuine sender's start is lost.

use std::net::SocketAddr;

use scream::{Duration, Instant};

/// Consecutive sequence numbers that prove a source sends RTP (RFC 3550 §A.1 asks for
/// `MIN_SEQUENTIAL` = 2; a few more make a blind guess of a stream much less likely to
/// pass and cost a genuine sender a few packet intervals, at 50 fps at most 80 ms).
pub const PROBATION_PACKETS: u32 = 4;
/// Sources on probation at once. A new one evicts the one with the fewest packets in
/// sequence (of those, the longest silent), so that sources sending one packet each
/// displace one another rather than a sender on its way to proof.
pub const PROBATION_SLOTS: usize = 32;
/// Most bytes of held packets per source on probation (beyond it the oldest are
/// dropped), so that the whole table holds at most `PROBATION_SLOTS` · 16 KiB.
pub(crate) const MAX_HELD_BYTES: usize = 16 << 10;
/// A served source (peer, client) silent this long may give its slot to a newcomer
/// that proved itself when every slot is taken; one heard more recently keeps it. A
/// media sender sends at least a packet per frame, so only one that stopped is silent
/// this long.
pub const EVICTABLE_AFTER: Duration = Duration::from_secs(2);
/// A source on probation silent this long is forgotten: a sender of media is never
/// silent that long while it starts.
const PROBATION_IDLE: Duration = Duration::from_secs(2);

/// What probation counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ProbationCounters {
    /// Packets of sources on probation that will never be served: dropped for a packet
    /// out of sequence, beyond the hold limits, or with their source (evicted or
    /// silent).
    pub(crate) dropped: u64,
    /// Sources dropped to make room for a new one.
    pub(crate) evicted: u64,
}

/// A source on probation.
#[derive(Debug)]
struct Candidate<H> {
    addr: SocketAddr,
    ssrc: u32,
    last_seq: u16,
    /// Consecutive packets in sequence, the last one included.
    in_sequence: u32,
    last_seen: Instant,
    /// The latest packets in sequence, oldest first.
    held: Vec<H>,
    held_sizes: Vec<usize>,
    /// Every packet and byte heard from it, held or not.
    packets: u64,
    bytes: u64,
    refused: bool,
}

impl<H> Candidate<H> {
    fn new(now: Instant, addr: SocketAddr) -> Self {
        Self {
            addr,
            ssrc: 0,
            last_seq: 0,
            in_sequence: 0,
            last_seen: now,
            held: Vec::new(),
            held_sizes: Vec::new(),
            packets: 0,
            bytes: 0,
            refused: false,
        }
    }

    fn drop_oldest(&mut self) {
        self.held.remove(0);
        self.held_sizes.remove(0);
    }
}

/// A source let out of probation: its first SSRC, the packets held for it (oldest
/// first) and what was heard from it in all.
#[derive(Debug)]
pub(crate) struct Admitted<H> {
    pub(crate) ssrc: u32,
    pub(crate) held: Vec<H>,
    pub(crate) packets: u64,
    pub(crate) bytes: u64,
}

/// The table of sources on probation; `H` is what is held of each packet.
#[derive(Debug)]
pub(crate) struct Probation<H> {
    candidates: Vec<Candidate<H>>,
    counters: ProbationCounters,
}

impl<H> Default for Probation<H> {
    fn default() -> Self {
        Self {
            candidates: Vec::with_capacity(PROBATION_SLOTS),
            counters: ProbationCounters::default(),
        }
    }
}

impl<H> Probation<H> {
    /// What was counted.
    pub(crate) fn counters(&self) -> ProbationCounters {
        self.counters
    }

    /// Sources on probation now.
    pub(crate) fn len(&self) -> usize {
        self.candidates.len()
    }

    /// Records an RTP packet of `ssrc` and `seq`, `size` bytes long, from `addr`, and
    /// holds `item` for it. Returns whether `addr` has now sent [`PROBATION_PACKETS`]
    /// in sequence (and may be admitted with [`Self::admit`]).
    pub(crate) fn hear(
        &mut self,
        now: Instant,
        addr: SocketAddr,
        (ssrc, seq): (u32, u16),
        size: usize,
        item: H,
    ) -> bool {
        let i = match self.candidates.iter().position(|c| c.addr == addr) {
            // Silent for long, it starts again, whether or not `expire` ran meanwhile.
            Some(i)
                if now.saturating_duration_since(self.candidates[i].last_seen)
                    >= PROBATION_IDLE =>
            {
                let gone = std::mem::replace(&mut self.candidates[i], Candidate::new(now, addr));
                self.counters.dropped += gone.held.len() as u64;
                i
            }
            Some(i) => i,
            None => self.insert(now, addr),
        };
        let c = &mut self.candidates[i];
        let first = c.packets == 0;
        c.packets += 1;
        c.bytes += size as u64;
        c.last_seen = now;
        // RFC 3550 §A.1: during probation anything but the next number starts the count
        // again; what was held belongs to the run that broke off.
        if !first && ssrc == c.ssrc && seq == c.last_seq.wrapping_add(1) {
            c.in_sequence = c.in_sequence.saturating_add(1);
        } else {
            self.counters.dropped += c.held.len() as u64;
            c.held.clear();
            c.held_sizes.clear();
            c.ssrc = ssrc;
            c.in_sequence = 1;
        }
        c.last_seq = seq;
        if size > MAX_HELD_BYTES {
            self.counters.dropped += 1;
        } else {
            let held_bytes: usize = c.held_sizes.iter().sum();
            let mut over = held_bytes + size > MAX_HELD_BYTES;
            while !c.held.is_empty() && (over || c.held.len() >= PROBATION_PACKETS as usize) {
                c.drop_oldest();
                self.counters.dropped += 1;
                over = c.held_sizes.iter().sum::<usize>() + size > MAX_HELD_BYTES;
            }
            c.held.push(item);
            c.held_sizes.push(size);
        }
        c.in_sequence >= PROBATION_PACKETS
    }

    /// Takes `addr` out of probation, with what it held.
    pub(crate) fn admit(&mut self, addr: SocketAddr) -> Option<Admitted<H>> {
        let i = self.candidates.iter().position(|c| c.addr == addr)?;
        let c = self.candidates.swap_remove(i);
        Some(Admitted {
            ssrc: c.ssrc,
            held: c.held,
            packets: c.packets,
            bytes: c.bytes,
        })
    }

    /// Notes that `addr`, proven, found no room; true the first time for this source,
    /// so that a refused source is counted once, not once per packet.
    pub(crate) fn refuse(&mut self, addr: SocketAddr) -> bool {
        self.candidates
            .iter_mut()
            .find(|c| c.addr == addr)
            .is_some_and(|c| !std::mem::replace(&mut c.refused, true))
    }

    /// Forgets sources silent for 2 s.
    pub(crate) fn expire(&mut self, now: Instant) {
        let counters = &mut self.counters;
        self.candidates.retain(|c| {
            let keep = now.saturating_duration_since(c.last_seen) < PROBATION_IDLE;
            if !keep {
                counters.dropped += c.held.len() as u64;
            }
            keep
        });
    }

    /// A new entry for `addr`, in place of the least advanced one if the table is full.
    fn insert(&mut self, now: Instant, addr: SocketAddr) -> usize {
        let fresh = Candidate::new(now, addr);
        if self.candidates.len() < PROBATION_SLOTS {
            self.candidates.push(fresh);
            return self.candidates.len() - 1;
        }
        let victim = (0..self.candidates.len())
            .min_by_key(|&i| {
                let c = &self.candidates[i];
                (c.in_sequence, c.last_seen)
            })
            .unwrap_or(0);
        let gone = std::mem::replace(&mut self.candidates[victim], fresh);
        self.counters.dropped += gone.held.len() as u64;
        self.counters.evicted += 1;
        victim
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    fn addr(port: u16) -> SocketAddr {
        (Ipv4Addr::LOCALHOST, port).into()
    }

    fn ms(t: u64) -> Instant {
        Instant::from_millis(t)
    }

    #[test]
    fn consecutive_numbers_prove_a_source_and_its_packets_are_handed_over() {
        let mut p: Probation<u16> = Probation::default();
        let a = addr(1);
        for seq in 65_534..=65_535 {
            assert!(!p.hear(ms(0), a, (9, seq), 100, seq));
        }
        // Across the wrap.
        assert!(!p.hear(ms(1), a, (9, 0), 100, 0));
        assert!(p.hear(ms(2), a, (9, 1), 100, 1));
        let got = p.admit(a).expect("on probation");
        assert_eq!(got.held, [65_534, 65_535, 0, 1]);
        assert_eq!((got.ssrc, got.packets, got.bytes), (9, 4, 400));
        assert_eq!(p.len(), 0);
        assert_eq!(p.counters(), ProbationCounters::default());
    }

    #[test]
    fn a_gap_a_duplicate_or_another_ssrc_starts_the_count_again() {
        let mut p: Probation<u16> = Probation::default();
        let a = addr(1);
        let mut heard = |ssrc, seq| p.hear(ms(0), a, (ssrc, seq), 10, seq);
        for (ssrc, seq) in [
            (1, 10),
            (1, 11),
            (1, 13),
            (1, 14),
            (1, 14),
            (2, 15),
            (1, 16),
        ] {
            assert!(!heard(ssrc, seq), "{ssrc} {seq}");
        }
        // Only the run that proves the source is handed over.
        for seq in 17..19 {
            assert!(!heard(1, seq));
        }
        assert!(heard(1, 19));
        let got = p.admit(a).expect("on probation");
        assert_eq!(got.held, [16, 17, 18, 19]);
        assert_eq!(got.packets, 10);
        // Held and dropped: 10 and 11, 13 and 14, 14, 15.
        assert_eq!(p.counters().dropped, 6);
    }

    #[test]
    fn a_full_table_evicts_the_least_advanced_source_and_stays_full() {
        let mut p: Probation<()> = Probation::default();
        let sender = addr(1);
        p.hear(ms(0), sender, (1, 0), 10, ());
        p.hear(ms(0), sender, (1, 1), 10, ());
        // Far more one-packet sources than slots, all heard after the sender.
        for port in 2..1002 {
            p.hear(ms(u64::from(port)), addr(port), (port.into(), 0), 10, ());
            assert!(p.len() <= PROBATION_SLOTS);
        }
        assert_eq!(p.len(), PROBATION_SLOTS);
        assert_eq!(p.counters().evicted, 1000 + 1 - PROBATION_SLOTS as u64);
        // The sender on its way to proof is still there and completes it.
        p.hear(ms(1500), sender, (1, 2), 10, ());
        assert!(p.hear(ms(1501), sender, (1, 3), 10, ()));
    }

    #[test]
    fn held_packets_are_bounded_in_number_and_bytes() {
        let mut p: Probation<usize> = Probation::default();
        let a = addr(1);
        // A proven source that is refused goes on sending: only its latest are held.
        for seq in 0..20u16 {
            p.hear(ms(0), a, (1, seq), 1000, usize::from(seq));
        }
        assert!(p.refuse(a));
        assert!(!p.refuse(a), "counted once");
        let big = MAX_HELD_BYTES / 2;
        for seq in 20..23u16 {
            p.hear(ms(0), a, (1, seq), big, usize::from(seq));
        }
        // Larger than the limit on its own: not held.
        p.hear(ms(0), a, (1, 23), MAX_HELD_BYTES + 1, 23);
        let got = p.admit(a).expect("on probation");
        assert_eq!(got.held, [21, 22]);
        // 0-15 for the count, 16 for 20, 17-19 for the bytes of 21, 20 for 22, and 23.
        assert_eq!(p.counters().dropped, 16 + 1 + 3 + 1 + 1);
    }

    #[test]
    fn silent_sources_are_forgotten_with_what_they_held() {
        let mut p: Probation<()> = Probation::default();
        p.hear(ms(0), addr(1), (1, 0), 10, ());
        p.hear(ms(1500), addr(2), (2, 0), 10, ());
        p.expire(ms(2500));
        assert_eq!(p.len(), 1);
        assert!(p.admit(addr(1)).is_none());
        assert_eq!(p.counters().dropped, 1);
        // Back after as long a silence, before any `expire`: it starts again, held
        // packets dropped, refusal forgotten.
        for seq in 1..4 {
            p.hear(ms(1500), addr(2), (2, seq), 10, ());
        }
        assert!(p.refuse(addr(2)));
        assert!(!p.hear(ms(3500), addr(2), (2, 4), 10, ()));
        assert_eq!(p.counters().dropped, 1 + 4);
        assert!(p.refuse(addr(2)), "a new source to refuse");
    }
}
