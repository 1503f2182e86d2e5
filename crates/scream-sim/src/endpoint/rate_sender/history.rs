//! A stream's record of its packets, keyed by RTP sequence number, turning the RFC 8888
//! reports of its SSRC into per-packet results. Bounded: hostile or odd feedback
//! (unknown sequence numbers, duplicates, reordering) is counted and ignored, never
//! stored; reports of other SSRCs (the flow's other streams, or none) are skipped.

use std::collections::VecDeque;

use scream::{Duration, Feedback, Instant, PacketStatus};

use scream_traffic::rate_control::{Arrival, PacketResult};

/// Most packets remembered: at 20 Mbit/s of 1 kB packets, about 6 s. An older packet
/// that was never reported is forgotten (counted in `expired`).
pub(crate) const MAX_HISTORY: usize = 1 << 14;
/// A packet not reported received is taken for lost once a packet sent this many
/// later was (the reordering tolerance of RFC 5681's three duplicate ACKs).
pub(crate) const REORDER_THRESHOLD: u64 = 3;

#[derive(Debug, Clone, Copy)]
struct Sent {
    at: Instant,
    size_bytes: u32,
    resolved: bool,
    probe: Option<u32>,
}

/// What odd feedback the history ignored.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct HistoryStats {
    /// Reports of a sequence number never sent or long forgotten.
    pub(crate) unknown: u64,
    /// Reports of a packet already resolved.
    pub(crate) duplicate: u64,
    /// Packets forgotten before any report resolved them.
    pub(crate) expired: u64,
}

/// Sent packets from the oldest unresolved on.
#[derive(Debug, Clone)]
pub(crate) struct SendHistory {
    ssrc: u32,
    /// Unwrapped sequence number of `entries[0]`.
    first: u64,
    entries: VecDeque<Sent>,
    highest_received: Option<u64>,
    in_flight_bytes: u64,
    stats: HistoryStats,
}

impl SendHistory {
    pub(crate) fn new(ssrc: u32) -> Self {
        Self {
            ssrc,
            first: 0,
            entries: VecDeque::new(),
            highest_received: None,
            in_flight_bytes: 0,
            stats: HistoryStats::default(),
        }
    }

    /// Unwrapped sequence number of the next packet.
    pub(crate) fn next_seq(&self) -> u64 {
        self.first + self.entries.len() as u64
    }

    /// Bytes sent and not yet resolved.
    pub(crate) fn in_flight_bytes(&self) -> u64 {
        self.in_flight_bytes
    }

    #[cfg(test)]
    pub(crate) fn stats(&self) -> HistoryStats {
        self.stats
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// The next packet left at `at`, in probe cluster `probe` if any.
    pub(crate) fn on_sent(&mut self, at: Instant, size_bytes: u32, probe: Option<u32>) {
        if self.entries.len() >= MAX_HISTORY {
            self.pop_front();
        }
        self.entries.push_back(Sent {
            at,
            size_bytes,
            resolved: false,
            probe,
        });
        self.in_flight_bytes += u64::from(size_bytes);
    }

    fn pop_front(&mut self) {
        if let Some(s) = self.entries.pop_front() {
            self.first += 1;
            if !s.resolved {
                self.stats.expired += 1;
                self.in_flight_bytes -= u64::from(s.size_bytes);
            }
        }
    }

    /// The unwrapped number of `seq` among the packets held, if any.
    fn unwrap(&self, seq: u16) -> Option<u64> {
        let last = self.next_seq().checked_sub(1)?;
        let back = u64::from((last as u16).wrapping_sub(seq));
        let n = last.checked_sub(back)?;
        (n >= self.first).then_some(n)
    }

    fn resolve(
        &mut self,
        n: u64,
        arrival: Arrival,
        out: &mut Vec<PacketResult>,
    ) -> Option<Instant> {
        let Some(e) = self.entries.get_mut((n - self.first) as usize) else {
            self.stats.unknown += 1;
            return None;
        };
        if e.resolved {
            self.stats.duplicate += 1;
            return None;
        }
        e.resolved = true;
        self.in_flight_bytes -= u64::from(e.size_bytes);
        out.push(PacketResult {
            sent: e.at,
            arrival,
            size_bytes: e.size_bytes,
            probe: e.probe,
        });
        Some(e.at)
    }

    /// Appends what `fb` reports of this SSRC to `out`, in sending order, and returns an
    /// RTT sample from the newest packet it reports received, with that packet's send
    /// time: the time since it was sent, less the time the receiver held it before the
    /// report.
    pub(crate) fn on_feedback(
        &mut self,
        now: Instant,
        fb: &Feedback,
        out: &mut Vec<PacketResult>,
    ) -> Option<(Instant, Duration)> {
        let from = out.len();
        let mut rtt = None;
        for r in &fb.reports {
            if r.ssrc != self.ssrc {
                continue;
            }
            let PacketStatus::Received { arrival, ecn } = r.status else {
                continue;
            };
            let Some(n) = self.unwrap(r.seq) else {
                self.stats.unknown += 1;
                continue;
            };
            let fate = match arrival {
                Some(t) => Arrival::At(t, ecn),
                None => Arrival::Untimed(ecn),
            };
            let Some(sent) = self.resolve(n, fate, out) else {
                continue;
            };
            self.highest_received = Some(self.highest_received.map_or(n, |h| h.max(n)));
            if let Some(t) = arrival {
                let held = fb.report_time.saturating_duration_since(t);
                if let Some(sample) = now.saturating_duration_since(sent).checked_sub(held) {
                    rtt = Some((sent, sample));
                }
            }
        }
        self.sweep_losses(out);
        out[from..].sort_by_key(|r| r.sent);
        while self.entries.front().is_some_and(|e| e.resolved) {
            self.pop_front();
        }
        rtt
    }

    /// Packets older than the newest received by the reordering threshold are lost.
    fn sweep_losses(&mut self, out: &mut Vec<PacketResult>) {
        let Some(limit) = self
            .highest_received
            .and_then(|h| h.checked_sub(REORDER_THRESHOLD))
        else {
            return;
        };
        let mut n = self.first;
        while n <= limit && n < self.next_seq() {
            if self.entries[(n - self.first) as usize].resolved {
                n += 1;
                continue;
            }
            self.resolve(n, Arrival::Lost, out);
            n += 1;
        }
    }
}
