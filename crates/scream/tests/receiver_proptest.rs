//! Random operation sequences against the receiver: the caller's clock stepping forward,
//! back and far ahead; packets of a few genuine streams (in order, duplicated, reordered,
//! far behind or ahead) and of forged SSRCs, with any ECN codepoint and marker bit;
//! feedback polls, now or at `poll_timeout()`; probes with a fresh stream. After every
//! step: nothing panicked, the tracked streams are within the cap, every packet is
//! counted once, `poll_timeout()` is at most one interval (plus the clamping tolerance)
//! ahead, and every report is well-formed: non-empty, one contiguous run of at most
//! `report_window` sequence numbers per SSRC, only SSRCs, sequence numbers and ECN
//! codepoints that were sent, arrivals not after the report time, report times never
//! going back. A probe's packet is always reported within one interval.
//!
//! The model (`Op`, `decode`, `run`) is shared with the fuzz target
//! `fuzz/fuzz_targets/receiver_ops.rs`, which includes this file and feeds it raw bytes;
//! only the proptest part below is test-only.

use std::collections::{BTreeMap, BTreeSet};

use scream::receiver::{CLOCK_STEP_TOLERANCE, ReceivedPacket, Receiver, ReceiverConfig};
use scream::{Duration, Ecn, Feedback, Instant, PacketStatus, RemoteInstant};

/// Receiver parameters, small so that eviction and window edges are reached often.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Setup {
    /// `max_ssrcs` is 1 + this % 8.
    pub(crate) max_ssrcs: u8,
    /// `report_window` is 1 + this % 64.
    pub(crate) window: u8,
    /// `packets_per_report` is 1 + this % `report_window`.
    pub(crate) per_report: u8,
    /// `max_report_interval` is 1 + this % 100 ms.
    pub(crate) interval_ms: u8,
    pub(crate) report_on_marker: bool,
}

impl Setup {
    fn config(self) -> ReceiverConfig {
        let window = 1 + u16::from(self.window % 64);
        ReceiverConfig {
            max_ssrcs: 1 + usize::from(self.max_ssrcs % 8),
            report_window: window,
            packets_per_report: 1 + u32::from(self.per_report) % u32::from(window),
            max_report_interval: Duration::from_millis(1 + u64::from(self.interval_ms % 100)),
            report_on_marker: self.report_on_marker,
        }
    }
}

/// Whose packet it is.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Source {
    /// One of four genuine streams (SSRC 1 + this % 4), numbering its packets in order.
    Genuine(u8),
    /// Any SSRC, any sequence number.
    Forged(u32, u16),
}

/// Which sequence number a genuine stream's packet carries, relative to its newest.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Seq {
    Next,
    Duplicate,
    /// This many behind the newest (reordering, or far behind: a restart).
    Behind(u16),
    /// This many ahead of the newest (a gap), which becomes the newest.
    Ahead(u16),
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum Op {
    /// The caller's clock advances this many microseconds.
    Wait(u32),
    /// The caller's clock steps back this many microseconds.
    StepBack(u64),
    /// The caller's clock jumps ahead: by an hour (0), a year (1), to `Instant::MAX` (2).
    Jump(u8),
    Packet {
        source: Source,
        seq: Seq,
        ecn: u8,
        marker: bool,
        size_bytes: u16,
    },
    /// `poll_feedback(now)` until `None`.
    Poll,
    /// The caller's clock goes to `poll_timeout()` if that is later; then `Poll`.
    PollAtTimeout,
    /// A packet of a never-seen SSRC must be reported within one interval.
    Probe,
}

/// Reads a setup and operations from raw bytes; stops where the bytes run out.
pub(crate) fn decode(data: &[u8]) -> Option<(Setup, Vec<Op>)> {
    let mut r = Reader(data);
    let flags = r.u8()?;
    let setup = Setup {
        max_ssrcs: r.u8()?,
        window: r.u8()?,
        per_report: r.u8()?,
        interval_ms: r.u8()?,
        report_on_marker: flags & 1 == 1,
    };
    let mut ops = vec![];
    while let Some(op) = decode_op(&mut r) {
        ops.push(op);
    }
    Some((setup, ops))
}

fn decode_op(r: &mut Reader<'_>) -> Option<Op> {
    Some(match r.u8()? % 8 {
        0 => Op::Wait(r.u32()? % 200_000),
        1 => Op::StepBack(if r.u8()? % 2 == 0 {
            u64::from(r.u16()?) * 4 // within the tolerance or a little above
        } else {
            u64::from(r.u32()?) * 2 // up to about 2.4 hours
        }),
        2 => Op::Jump(r.u8()? % 3),
        3 | 4 => {
            let b = r.u8()?;
            let source = if b & 0x80 == 0 {
                Source::Genuine(b)
            } else {
                Source::Forged(r.u32()?, r.u16()?)
            };
            let seq = match r.u8()? % 6 {
                0 => Seq::Duplicate,
                1 => Seq::Behind(r.u16()? % 128),
                2 => Seq::Behind(r.u16()?),
                3 => Seq::Ahead(r.u16()? % 128),
                4 => Seq::Ahead(r.u16()?),
                _ => Seq::Next,
            };
            Op::Packet {
                source,
                seq,
                ecn: b >> 1,
                marker: b & 0x40 != 0,
                size_bytes: r.u16()?,
            }
        }
        5 => Op::Poll,
        6 => Op::PollAtTimeout,
        _ => Op::Probe,
    })
}

struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
        let (head, rest) = self.0.split_first_chunk::<N>()?;
        self.0 = rest;
        Some(*head)
    }
    fn u8(&mut self) -> Option<u8> {
        self.take::<1>().map(|[b]| b)
    }
    fn u16(&mut self) -> Option<u16> {
        self.take().map(u16::from_le_bytes)
    }
    fn u32(&mut self) -> Option<u32> {
        self.take().map(u32::from_le_bytes)
    }
}

macro_rules! ensure {
    ($cond:expr, $($msg:tt)+) => {
        if !$cond {
            return Err(format!($($msg)+));
        }
    };
}

/// Probe SSRCs count up from here, skipping any a forged packet used.
const PROBE_SSRC: u32 = 0xC0DE_0000;

/// The caller and what it sent, to check the receiver against.
struct Model {
    config: ReceiverConfig,
    rx: Receiver,
    now: Instant,
    /// The caller's latest `now` the receiver saw: until it sees the next one, it cannot
    /// know the caller's clock moved, so `poll_timeout()` is checked against this.
    seen: Instant,
    /// ECN codepoints sent per (SSRC, sequence number), as a bit set.
    sent: BTreeMap<(u32, u16), u8>,
    ssrcs: BTreeSet<u32>,
    /// Newest sequence number of each genuine stream.
    newest: [Option<u16>; 4],
    packets: u64,
    probes: u32,
    last_report: Option<RemoteInstant>,
}

/// Runs `ops` on a receiver made from `setup`, checking the invariants after each.
pub(crate) fn run(setup: Setup, ops: &[Op]) -> Result<(), String> {
    let config = setup.config();
    let mut m = Model {
        rx: Receiver::new(config.clone()).map_err(|e| e.to_string())?,
        config,
        now: Instant::from_millis(10_000),
        seen: Instant::ZERO,
        sent: BTreeMap::new(),
        ssrcs: BTreeSet::new(),
        newest: [None; 4],
        packets: 0,
        probes: 0,
        last_report: None,
    };
    for (i, op) in ops.iter().chain([&Op::Probe]).enumerate() {
        m.step(*op).map_err(|e| format!("step {i} ({op:?}): {e}"))?;
        m.check_state()?;
    }
    Ok(())
}

impl Model {
    fn step(&mut self, op: Op) -> Result<(), String> {
        match op {
            Op::Wait(us) => self.now += Duration::from_micros(u64::from(us)),
            Op::StepBack(us) => self.now -= Duration::from_micros(us),
            Op::Jump(0) => self.now += Duration::from_secs(3600),
            Op::Jump(1) => self.now += Duration::from_secs(365 * 24 * 3600),
            Op::Jump(_) => self.now = Instant::MAX,
            Op::Packet {
                source,
                seq,
                ecn,
                marker,
                size_bytes,
            } => {
                let (ssrc, seq) = match source {
                    Source::Forged(ssrc, seq) => (ssrc, seq),
                    Source::Genuine(g) => self.genuine_seq(g, seq),
                };
                self.send(ssrc, seq, Ecn::from_bits(ecn), marker, size_bytes);
            }
            Op::Poll => {
                self.poll(self.now)?;
            }
            Op::PollAtTimeout => {
                if let Some(due) = self.rx.poll_timeout() {
                    self.now = self.now.max(due);
                }
                self.poll(self.now)?;
            }
            Op::Probe => self.probe()?,
        }
        Ok(())
    }

    fn genuine_seq(&mut self, g: u8, seq: Seq) -> (u32, u16) {
        let idx = usize::from(g % 4);
        let newest = &mut self.newest[idx];
        let s = match (*newest, seq) {
            (None, _) => u16::from(g).wrapping_mul(4099),
            (Some(n), Seq::Next) => n.wrapping_add(1),
            (Some(n), Seq::Duplicate) => n,
            (Some(n), Seq::Behind(k)) => n.wrapping_sub(k),
            (Some(n), Seq::Ahead(k)) => n.wrapping_add(k),
        };
        if newest.is_none() || matches!(seq, Seq::Next | Seq::Ahead(_)) {
            *newest = Some(s);
        }
        (1 + u32::from(g % 4), s)
    }

    fn send(&mut self, ssrc: u32, seq: u16, ecn: Ecn, marker: bool, size_bytes: u16) {
        *self.sent.entry((ssrc, seq)).or_insert(0) |= 1 << ecn.bits();
        self.ssrcs.insert(ssrc);
        self.packets += 1;
        let packet = ReceivedPacket {
            ssrc,
            seq,
            size_bytes: u32::from(size_bytes),
            ecn,
            marker,
        };
        self.seen = self.now;
        self.rx.on_packet(self.now, packet);
    }

    /// Polls at `now` until `None`; returns the report, if any. A report leaves nothing
    /// due, so a second one at the same instant is an error.
    fn poll(&mut self, now: Instant) -> Result<Option<Feedback>, String> {
        self.seen = now;
        let Some(fb) = self.rx.poll_feedback(now) else {
            return Ok(None);
        };
        self.check_feedback(&fb)?;
        ensure!(
            self.rx.poll_feedback(now).is_none(),
            "two reports at one instant"
        );
        Ok(Some(fb))
    }

    fn probe(&mut self) -> Result<(), String> {
        // A forged packet may have used the next probe SSRC already: skip such ones.
        let mut ssrc = PROBE_SSRC.wrapping_add(self.probes);
        while self.ssrcs.contains(&ssrc) {
            ssrc = ssrc.wrapping_add(1);
        }
        self.probes = ssrc.wrapping_sub(PROBE_SSRC).wrapping_add(1);
        self.poll(self.now)?;
        self.send(ssrc, 0, Ecn::Ect1, false, 1200);
        let fb = match self.poll(self.now)? {
            Some(fb) => fb,
            None => {
                let due = self
                    .rx
                    .poll_timeout()
                    .ok_or("nothing pending after a packet")?;
                ensure!(
                    due <= self.latest_due(),
                    "probe due at {due:?}, now {:?}",
                    self.now
                );
                self.now = self.now.max(due);
                self.poll(self.now)?.ok_or("no report at poll_timeout()")?
            }
        };
        let reported = fb.reports.iter().any(|r| {
            r.ssrc == ssrc && r.seq == 0 && matches!(r.status, PacketStatus::Received { .. })
        });
        ensure!(reported, "probe packet missing from {fb:?}");
        Ok(())
    }

    /// The latest `poll_timeout()` the receiver may name.
    fn latest_due(&self) -> Instant {
        self.seen + self.config.max_report_interval + CLOCK_STEP_TOLERANCE
    }

    fn check_state(&self) -> Result<(), String> {
        let s = self.rx.stats();
        ensure!(
            s.ssrcs_tracked <= self.config.max_ssrcs,
            "{} streams tracked",
            s.ssrcs_tracked
        );
        ensure!(
            s.packets_received + s.duplicates + s.too_old == self.packets,
            "{s:?} for {} packets",
            self.packets
        );
        if let Some(due) = self.rx.poll_timeout() {
            ensure!(
                due <= self.latest_due(),
                "timeout {due:?} at {:?}",
                self.now
            );
        }
        Ok(())
    }

    fn check_feedback(&mut self, fb: &Feedback) -> Result<(), String> {
        let window = usize::from(self.config.report_window);
        ensure!(!fb.reports.is_empty(), "empty report");
        ensure!(
            fb.reports.len() <= self.config.max_ssrcs * window,
            "{} entries",
            fb.reports.len()
        );
        ensure!(
            self.last_report.is_none_or(|t| t <= fb.report_time),
            "report time went back"
        );
        self.last_report = Some(fb.report_time);
        let mut seen = BTreeSet::new();
        for run in fb.reports.chunk_by(|a, b| a.ssrc == b.ssrc) {
            let ssrc = run[0].ssrc;
            ensure!(seen.insert(ssrc), "SSRC {ssrc} in two runs");
            ensure!(self.ssrcs.contains(&ssrc), "unknown SSRC {ssrc}");
            ensure!(run.len() <= window, "{} entries for {ssrc}", run.len());
            for pair in run.windows(2) {
                ensure!(pair[1].seq == pair[0].seq.wrapping_add(1), "gap in {ssrc}");
            }
            for r in run {
                let PacketStatus::Received { arrival, ecn } = r.status else {
                    continue;
                };
                let sent = self.sent.get(&(ssrc, r.seq)).copied().unwrap_or(0);
                ensure!(sent != 0, "{ssrc}/{} reported but never sent", r.seq);
                ensure!(sent & (1 << ecn.bits()) != 0, "{ssrc}/{} ECN", r.seq);
                let arrival = arrival.ok_or("arrival unknown")?;
                ensure!(arrival <= fb.report_time, "arrival after the report");
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod proptests {
    use super::*;
    use proptest::prelude::*;

    fn setup() -> impl Strategy<Value = Setup> {
        (
            any::<u8>(),
            any::<u8>(),
            any::<u8>(),
            any::<u8>(),
            any::<bool>(),
        )
            .prop_map(
                |(max_ssrcs, window, per_report, interval_ms, report_on_marker)| Setup {
                    max_ssrcs,
                    window,
                    per_report,
                    interval_ms,
                    report_on_marker,
                },
            )
    }

    fn seq() -> impl Strategy<Value = Seq> {
        prop_oneof![
            4 => Just(Seq::Next),
            1 => Just(Seq::Duplicate),
            1 => (0u16..128).prop_map(Seq::Behind),
            1 => any::<u16>().prop_map(Seq::Behind),
            1 => (0u16..128).prop_map(Seq::Ahead),
            1 => any::<u16>().prop_map(Seq::Ahead),
        ]
    }

    fn op() -> impl Strategy<Value = Op> {
        let source = prop_oneof![
            3 => any::<u8>().prop_map(Source::Genuine),
            1 => (any::<u32>(), any::<u16>()).prop_map(|(s, q)| Source::Forged(s, q)),
        ];
        prop_oneof![
            4 => (0u32..50_000).prop_map(Op::Wait),
            1 => (0u64..250_000).prop_map(Op::StepBack),
            1 => (0u64..8_000_000_000).prop_map(Op::StepBack),
            1 => (0u8..3).prop_map(Op::Jump),
            12 => (source, seq(), any::<u8>(), any::<bool>(), any::<u16>()).prop_map(
                |(source, seq, ecn, marker, size_bytes)| Op::Packet {
                    source,
                    seq,
                    ecn,
                    marker,
                    size_bytes
                }
            ),
            3 => Just(Op::Poll),
            2 => Just(Op::PollAtTimeout),
            1 => Just(Op::Probe),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn invariants_hold_for_any_operation_sequence(
            setup in setup(),
            ops in proptest::collection::vec(op(), 1..300),
        ) {
            run(setup, &ops).map_err(TestCaseError::fail)?;
        }

        /// The fuzz target's path: raw bytes decoded into operations.
        #[test]
        fn invariants_hold_for_any_decoded_bytes(
            data in proptest::collection::vec(any::<u8>(), 0..2048),
        ) {
            if let Some((setup, ops)) = decode(&data) {
                run(setup, &ops).map_err(TestCaseError::fail)?;
            }
        }
    }

    /// Found by the fuzz target: a forged packet had taken the SSRC of the next probe.
    #[test]
    fn a_probe_never_reuses_an_ssrc_seen_before() {
        let data = [
            255, 96, 63, 0, 255, 255, 172, 255, 1, 0, 222, 192, 255, 104, 0, 222, 192, 255, 13, 4,
            2, 10, 255, 13, 4, 37, 10,
        ];
        let (setup, ops) = decode(&data).unwrap();
        run(setup, &ops).unwrap();
    }

    #[test]
    fn a_flood_with_clock_steps_keeps_every_invariant() {
        let setup = Setup {
            max_ssrcs: 3,
            window: 15,
            per_report: 3,
            interval_ms: 39,
            report_on_marker: true,
        };
        let mut ops = vec![];
        for i in 0..2000u32 {
            let forged = Source::Forged(i.wrapping_mul(2_654_435_761), i as u16);
            let source = if i % 5 == 0 {
                Source::Genuine(0)
            } else {
                forged
            };
            ops.push(Op::Packet {
                source,
                seq: Seq::Next,
                ecn: i as u8,
                marker: i % 7 == 0,
                size_bytes: 1200,
            });
            ops.push(match i % 200 {
                50 => Op::StepBack(3_600_000_000),
                100 => Op::Jump(1),
                150 => Op::Jump(2),
                _ => Op::Wait(1000),
            });
            ops.push(if i % 3 == 0 {
                Op::PollAtTimeout
            } else {
                Op::Poll
            });
        }
        run(setup, &ops).unwrap();
    }
}
