//! The table of tracked streams: SSRC lookup, a cap on their number, eviction, and which
//! streams have something to report.
//!
//! SSRCs come from the network, so anyone who can spoof RTP packets chooses them. The
//! table therefore costs the same whatever they are:
//!
//! - lookup is a `BTreeMap` from SSRC to a slot: O(log max_ssrcs) in the worst case,
//!   with no hash an attacker could aim collisions at and no OS-seeded state;
//! - at most `max_ssrcs` streams are kept; a new SSRC beyond that takes over the slot
//!   of an evicted stream, reusing its ring without clearing it (see
//!   `SsrcHistory::restart`), so a flood allocates nothing once the table is full;
//! - eviction order is kept in two intrusive least-recently-used lists (O(1) per
//!   packet), one for streams on probation and one for established streams. A stream
//!   is on probation until it has [`ESTABLISHED_AFTER`] packets; the victim is the
//!   probationary stream idle the longest, else the established stream idle the
//!   longest. A forged SSRC rarely gets a second packet, so random SSRCs evict each
//!   other and leave genuine streams alone however fast they come;
//! - streams with unreported packets are listed (each slot at most once), so building
//!   a report costs O(k log k) in the k streams it covers, not O(max_ssrcs).

use std::collections::BTreeMap;

use super::history::{Recorded, SsrcHistory};
use crate::ecn::Ecn;
use crate::feedback::PacketReport;
use crate::time::Instant;

/// Packets after which a stream leaves probation: RFC 3550 §A.1's `MIN_SEQUENTIAL`,
/// the packets a source must send before it is taken as valid.
pub(crate) const ESTABLISHED_AFTER: u32 = 2;

/// End of an intrusive list.
const NIL: u32 = u32::MAX;

/// Which eviction list a stream is on; the value indexes [`StreamTable::lists`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Standing {
    Probation = 0,
    Established = 1,
}

/// A tracked stream and its links in its eviction list.
#[derive(Debug)]
struct Entry {
    history: SsrcHistory,
    standing: Standing,
    /// Neighbour that had a packet more recently, or `NIL`.
    newer: u32,
    /// Neighbour idle for longer, or `NIL`.
    older: u32,
    /// Listed in [`StreamTable::dirty`].
    dirty: bool,
}

/// Ends of one eviction list.
#[derive(Clone, Copy, Debug)]
struct Lru {
    newest: u32,
    oldest: u32,
}

const EMPTY_LIST: Lru = Lru {
    newest: NIL,
    oldest: NIL,
};

/// Tracked streams (see the module docs).
#[derive(Debug)]
pub(crate) struct StreamTable {
    index: BTreeMap<u32, u32>,
    entries: Vec<Entry>,
    lists: [Lru; 2],
    /// Slots whose stream may have unreported packets; every slot with some is here.
    dirty: Vec<u32>,
    /// Sum of the entries' unreported packets (each of which saturates at `u32::MAX`).
    unreported: u64,
    max: usize,
    window: usize,
    evicted: u64,
}

impl StreamTable {
    /// A table of at most `max` streams (≥ 1) with histories of `window` sequence numbers.
    pub(crate) fn new(max: usize, window: usize) -> Self {
        debug_assert!((1..NIL as usize).contains(&max));
        Self {
            index: BTreeMap::new(),
            entries: Vec::new(),
            lists: [EMPTY_LIST; 2],
            dirty: Vec::new(),
            unreported: 0,
            max,
            window,
            evicted: 0,
        }
    }

    /// Streams tracked.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Packets recorded and not yet reported, over all streams.
    pub(crate) fn unreported(&self) -> u64 {
        self.unreported
    }

    /// Streams evicted so far.
    pub(crate) fn evicted(&self) -> u64 {
        self.evicted
    }

    /// Records a packet of `ssrc`, tracking the stream first if it is new.
    pub(crate) fn record(&mut self, now: Instant, ssrc: u32, seq: u16, ecn: Ecn) -> Recorded {
        let slot = match self.index.get(&ssrc) {
            Some(&slot) => slot,
            None => self.insert(ssrc, seq),
        };
        let entry = &mut self.entries[slot as usize];
        let before = entry.history.unreported;
        let recorded = entry.history.record(now, seq, ecn);
        // A restart drops the stream's unreported packets; keep the sum in step.
        self.unreported = self.unreported - u64::from(before) + u64::from(entry.history.unreported);
        if entry.history.unreported > 0 && !entry.dirty {
            entry.dirty = true;
            self.dirty.push(slot);
        }
        // Established streams stay so, through a sequence restart too.
        let standing = if entry.history.accepted >= ESTABLISHED_AFTER {
            Standing::Established
        } else {
            entry.standing
        };
        // Any packet, even a duplicate, shows the stream is not idle.
        self.touch(slot, standing);
        recorded
    }

    /// Appends the reports of every stream with unreported packets, by SSRC, and marks
    /// everything reported.
    pub(crate) fn report_into(&mut self, out: &mut Vec<PacketReport>) {
        let mut dirty = std::mem::take(&mut self.dirty);
        dirty.sort_unstable_by_key(|&slot| self.entries[slot as usize].history.ssrc);
        for &slot in &dirty {
            let entry = &mut self.entries[slot as usize];
            entry.dirty = false;
            if entry.history.unreported > 0 {
                entry.history.report_into(out);
                entry.history.unreported = 0;
            }
        }
        dirty.clear();
        self.dirty = dirty;
        self.unreported = 0;
    }

    /// A slot for new `ssrc` starting at `seq`, on probation: a fresh one while the
    /// table has room, else the victim's.
    fn insert(&mut self, ssrc: u32, seq: u16) -> u32 {
        let slot = if self.entries.len() < self.max {
            let slot = self.entries.len() as u32;
            self.entries.push(Entry {
                history: SsrcHistory::new(self.window),
                standing: Standing::Probation,
                newer: NIL,
                older: NIL,
                dirty: false,
            });
            self.link_newest(slot, Standing::Probation);
            slot
        } else {
            let probation = self.lists[Standing::Probation as usize].oldest;
            let slot = if probation == NIL {
                self.lists[Standing::Established as usize].oldest
            } else {
                probation
            };
            let entry = &mut self.entries[slot as usize];
            self.unreported -= u64::from(entry.history.unreported);
            self.index.remove(&entry.history.ssrc);
            self.evicted += 1;
            self.touch(slot, Standing::Probation);
            slot
        };
        // Still listed in `dirty` if it was: harmless, `report_into` skips it if empty.
        self.entries[slot as usize].history.restart(ssrc, seq);
        self.index.insert(ssrc, slot);
        slot
    }

    /// Makes `slot` the newest of the list for `standing`.
    fn touch(&mut self, slot: u32, standing: Standing) {
        let entry = &self.entries[slot as usize];
        if entry.standing == standing && entry.newer == NIL {
            return;
        }
        self.unlink(slot);
        self.link_newest(slot, standing);
    }

    fn unlink(&mut self, slot: u32) {
        let Entry {
            newer,
            older,
            standing,
            ..
        } = self.entries[slot as usize];
        let list = &mut self.lists[standing as usize];
        if newer == NIL {
            list.newest = older;
        } else {
            self.entries[newer as usize].older = older;
        }
        if older == NIL {
            list.oldest = newer;
        } else {
            self.entries[older as usize].newer = newer;
        }
    }

    fn link_newest(&mut self, slot: u32, standing: Standing) {
        let list = &mut self.lists[standing as usize];
        let older = list.newest;
        list.newest = slot;
        if older == NIL {
            list.oldest = slot;
        } else {
            self.entries[older as usize].newer = slot;
        }
        let entry = &mut self.entries[slot as usize];
        entry.standing = standing;
        entry.newer = NIL;
        entry.older = older;
    }

    /// The SSRCs of one list, newest first (tests only).
    #[cfg(test)]
    fn order(&self, standing: Standing) -> Vec<u32> {
        let mut out = vec![];
        let mut slot = self.lists[standing as usize].newest;
        while slot != NIL {
            let entry = &self.entries[slot as usize];
            out.push(entry.history.ssrc);
            slot = entry.older;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(max: usize) -> StreamTable {
        StreamTable::new(max, 8)
    }

    fn send(t: &mut StreamTable, ssrc: u32, seq: u16) -> Recorded {
        t.record(Instant::ZERO, ssrc, seq, Ecn::NotEct)
    }

    fn tracked(t: &StreamTable) -> Vec<u32> {
        t.index.keys().copied().collect()
    }

    /// The lists, the index and the entries agree.
    fn check(t: &StreamTable) {
        let mut listed = t.order(Standing::Probation);
        listed.extend(t.order(Standing::Established));
        listed.sort_unstable();
        assert_eq!(listed, tracked(t));
        assert_eq!(t.index.len(), t.entries.len());
        assert!(t.entries.len() <= t.max);
        let sum: u64 = t
            .entries
            .iter()
            .map(|e| u64::from(e.history.unreported))
            .sum();
        assert_eq!(sum, t.unreported);
        for (slot, e) in t.entries.iter().enumerate() {
            assert_eq!(t.index[&e.history.ssrc], slot as u32);
            if e.history.unreported > 0 {
                assert!(e.dirty && t.dirty.contains(&(slot as u32)));
            }
        }
    }

    #[test]
    fn streams_are_established_after_their_second_packet() {
        let mut t = table(4);
        send(&mut t, 1, 0);
        send(&mut t, 2, 0);
        send(&mut t, 1, 1);
        assert_eq!(t.order(Standing::Probation), vec![2]);
        assert_eq!(t.order(Standing::Established), vec![1]);
        check(&t);
    }

    #[test]
    fn the_probationary_stream_idle_longest_is_evicted_first() {
        let mut t = table(4);
        for ssrc in [1, 2] {
            send(&mut t, ssrc, 0);
            send(&mut t, ssrc, 1);
        }
        send(&mut t, 3, 0);
        send(&mut t, 4, 0);
        send(&mut t, 1, 2);
        send(&mut t, 5, 0);
        assert_eq!(tracked(&t), vec![1, 2, 4, 5]);
        assert_eq!(t.evicted(), 1);
        check(&t);
    }

    #[test]
    fn without_probationary_streams_the_established_one_idle_longest_goes() {
        let mut t = table(3);
        for ssrc in [1, 2, 3] {
            send(&mut t, ssrc, 0);
            send(&mut t, ssrc, 1);
        }
        send(&mut t, 1, 2);
        send(&mut t, 3, 2);
        send(&mut t, 9, 0);
        assert_eq!(tracked(&t), vec![1, 3, 9]);
        check(&t);
    }

    #[test]
    fn an_evicted_stream_comes_back_with_a_fresh_history() {
        let mut t = table(1);
        send(&mut t, 1, 100);
        send(&mut t, 2, 7);
        assert_eq!(send(&mut t, 1, 101), Recorded::New);
        let mut out = vec![];
        t.report_into(&mut out);
        let got: Vec<(u32, u16)> = out.iter().map(|r| (r.ssrc, r.seq)).collect();
        assert_eq!(got, vec![(1, 101)]);
        assert_eq!(t.unreported(), 0);
        check(&t);
    }

    #[test]
    fn reports_are_ordered_by_ssrc_and_cover_only_streams_with_news() {
        let mut t = table(4);
        send(&mut t, 9, 0);
        send(&mut t, 3, 0);
        let mut out = vec![];
        t.report_into(&mut out);
        send(&mut t, 9, 1);
        send(&mut t, 5, 0);
        out.clear();
        t.report_into(&mut out);
        let got: Vec<(u32, u16)> = out.iter().map(|r| (r.ssrc, r.seq)).collect();
        assert_eq!(got, vec![(5, 0), (9, 0), (9, 1)]);
        check(&t);
    }

    #[test]
    fn lists_stay_consistent_under_churn() {
        let mut t = table(5);
        let mut x = 12345u32;
        for i in 0..5000u32 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let ssrc = (x >> 16) % 9;
            send(&mut t, ssrc, (x >> 8) as u16 % 40);
            if i % 7 == 0 {
                t.report_into(&mut vec![]);
            }
            check(&t);
        }
    }
}
