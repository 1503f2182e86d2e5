//! Random operation sequences against a model of which packets are resolved.
//!
//! Operations: time steps (small, long, and steps of the caller's clock backwards and
//! far forward), inputs at stray instants (a little or far back, far ahead, zero, the
//! end of time), frames of any size, coarse polling, timeouts, and feedback with loss,
//! CE, missing arrival times, reordering, duplicates, reports on old packets and
//! forged reports (unknown SSRCs, sequence numbers never sent, implausible arrival
//! times).
//!
//! After every step: nothing panics; bytes in flight equal the model's unresolved bytes
//! (acknowledged, declared lost by the reordering window, or timed out); the window is
//! at least its minimum; targets are finite and within the streams' limits; the pacing
//! rate is finite and positive; the RTP queue is no older than its discard rule allows.
//! At the end, sane time and feedback resume and the sender must send again within a
//! bounded time.
//!
//! Not generated: report timestamps that go backwards or jump, and arrival times after
//! the report time (how feedback with such times is treated is being reworked
//! separately), and more than 65 535 packets in flight.
//!
//! The model and the byte decoder below are shared with the `sender_ops` fuzz target
//! (`fuzz/fuzz_targets/sender_ops.rs` includes this file); only the proptest part is
//! `cfg(test)`.

use scream::sender::{
    EcnMode, MAX_TIME_STEP, MediaFrame, Sender, SenderConfig, StreamConfig, StreamId,
    TIME_JITTER_TOLERANCE, Transmit,
};
use scream::{
    Bitrate, Duration, Ecn, Feedback, Instant, PacketReport, PacketStatus, RemoteInstant,
};
use std::collections::VecDeque;

/// The receiver's clock epoch.
const RX_OFFSET: u64 = 77_000_000_000;
/// Where the sender's time line starts at the latest (mirrors the sender).
const LATEST_START: u64 = 1 << 62;
/// Minimum time between two RTP queue discards (mirrors the sender).
const MIN_DISCARD_INTERVAL: Duration = Duration::from_millis(250);
/// The caller's clock is kept below this, so that sane time can always run on.
const CALLER_CLOCK_CEILING: u64 = 1 << 63;
/// Resolved packets kept for reports on old packets.
const HISTORY: usize = 128;

/// The instant an input is made at, relative to the caller's clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum When {
    /// The caller's clock.
    Now,
    /// This many milliseconds earlier.
    Back(u16),
    /// This many seconds later (a stray far-future value).
    Ahead(u32),
    /// Instant zero.
    Zero,
    /// The end of time.
    Max,
}

/// Feedback on a window of recently sent packets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FeedbackOp {
    /// How many of the most recent packets the window ends before (a gap, or an old
    /// report).
    pub skip_newest: u8,
    /// Window length.
    pub len: u8,
    /// Bit `k`: the `k`-th packet of the window was not received.
    pub lost: u64,
    /// Bit `k`: received with CE.
    pub ce: u64,
    /// Bit `k`: received, arrival time unknown.
    pub no_arrival: u64,
    /// One-way delay, microseconds.
    pub owd_us: u32,
    /// Extra delay of every third packet, microseconds (reordered arrivals).
    pub jitter_us: u16,
    /// Report the window newest first.
    pub reverse: bool,
    /// Repeat this many of the window's reports.
    pub duplicates: u8,
    /// Reports for an SSRC no stream has.
    pub unknown_ssrc: u8,
    /// A report with a known SSRC and this sequence number, whatever was sent.
    pub forged_seq: Option<u16>,
    /// The first received packet of the window reports this arrival time (receiver
    /// clock, ns; capped at the report time), however implausible.
    pub forged_arrival: Option<u64>,
    /// When the feedback is handed in.
    pub at: When,
}

/// One step of the caller.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// Time passes, microseconds.
    Wait(u32),
    /// Time passes, milliseconds (timers run out).
    WaitLong(u16),
    /// The caller's clock steps by this many seconds (negative: back) and stays there.
    ClockStep(i32),
    /// A frame of this many bytes on stream 0 or 1.
    Frame {
        /// Stream index (0 or 1).
        stream: u8,
        /// Frame size.
        bytes: u32,
        /// When it is handed in.
        at: When,
    },
    /// Send whatever the sender releases at this instant.
    Transmit(When),
    /// `handle_timeout` at this instant.
    Timeout(When),
    /// Feedback.
    Feedback(FeedbackOp),
}

/// The sender's configuration and streams for one run.
#[derive(Clone, Debug, PartialEq)]
pub struct Setup {
    /// ECN mode.
    pub ecn: EcnMode,
    /// RTP payload per packet.
    pub mss_bytes: u32,
    /// Late-poll credit of the pacer, ms.
    pub catch_up_ms: u8,
    /// In-flight timeout, ms.
    pub in_flight_timeout_ms: u32,
    /// RTP queue age limit, ms.
    pub max_queue_ms: u32,
    /// Priority of stream 0; stream 1's is this times `priority_ratio`.
    pub priority: f64,
    /// Priority of stream 1 over stream 0's.
    pub priority_ratio: f64,
    /// Stream limits (min, start, max) in bit/s.
    pub limits: [(f64, f64, f64); 2],
    /// The caller's clock at the start, ns.
    pub start_ns: u64,
}

impl Default for Setup {
    fn default() -> Self {
        Self {
            ecn: EcnMode::L4s,
            mss_bytes: 1000,
            catch_up_ms: 10,
            in_flight_timeout_ms: 1000,
            max_queue_ms: 1000,
            priority: 1.0,
            priority_ratio: 0.5,
            limits: [(0.2e6, 1e6, 8e6), (0.05e6, 0.3e6, 2e6)],
            start_ns: 1_000_000,
        }
    }
}

/// Reads operations from bytes; missing bytes read as zero.
struct Bytes<'a> {
    data: &'a [u8],
}

impl Bytes<'_> {
    fn u8(&mut self) -> u8 {
        match self.data.split_first() {
            Some((b, rest)) => {
                self.data = rest;
                *b
            }
            None => 0,
        }
    }

    fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }

    fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }

    fn u64(&mut self) -> u64 {
        u64::from(self.u32()) | (u64::from(self.u32()) << 32)
    }

    fn when(&mut self) -> When {
        match self.u8() {
            0..=199 => When::Now,
            200..=229 => When::Back(self.u16()),
            230..=244 => When::Ahead(self.u32() % (48 * 3600)),
            245..=249 => When::Zero,
            _ => When::Max,
        }
    }
}

/// A setup and an operation sequence from arbitrary bytes (the fuzz target's input).
pub fn decode(data: &[u8]) -> (Setup, Vec<Op>) {
    let mut b = Bytes { data };
    let pick = |v: u8, options: &[f64]| options[usize::from(v) % options.len()];
    let mut setup = Setup::default();
    let flags = b.u8();
    setup.ecn = [EcnMode::None, EcnMode::Classic, EcnMode::L4s][usize::from(flags % 3)];
    setup.mss_bytes = [1000, 100, 1200, 65_000][usize::from(flags / 3 % 4)];
    setup.catch_up_ms = [10, 0, 100, 1][usize::from(flags / 12 % 4)];
    let timing = b.u8();
    setup.in_flight_timeout_ms = [1000, 10, 3_600_000, 200][usize::from(timing % 4)];
    setup.max_queue_ms = [1000, 10, 60_000, 100][usize::from(timing / 4 % 4)];
    setup.start_ns = [1_000_000, 1_000_000_000_000_000_000][usize::from(timing / 16 % 2)];
    let prio = b.u8();
    setup.priority = pick(prio, &[1.0, 1e-300, 1e300, 3.0]);
    setup.priority_ratio = pick(prio / 4, &[0.5, 1.0, 1e6, 1e-6]);
    if prio / 16 % 4 == 1 {
        setup.limits = [(1.0, 1.0, 1e11), (1.0, 1e11, 1e11)];
    }
    let mut ops = vec![];
    while !b.data.is_empty() && ops.len() < 2000 {
        let op = match b.u8() % 16 {
            0..=2 => Op::Wait(b.u32() % 60_000),
            3 => Op::WaitLong(b.u16() % 5000),
            4 => Op::ClockStep(b.u32() as i32 % (48 * 3600)),
            5..=7 => {
                let stream = b.u8() % 2;
                let bytes = match b.u8() % 8 {
                    0 => b.u32(),
                    _ => b.u32() % 30_000,
                };
                let at = b.when();
                Op::Frame { stream, bytes, at }
            }
            8..=10 => Op::Transmit(b.when()),
            11 => Op::Timeout(b.when()),
            _ => Op::Feedback(FeedbackOp {
                skip_newest: b.u8() % 8,
                len: b.u8() % 64 + 1,
                lost: b.u64() & b.u64(),
                ce: b.u64() & b.u64(),
                no_arrival: b.u64() & b.u64() & b.u64(),
                owd_us: b.u32() % 200_000,
                jitter_us: b.u16(),
                reverse: b.u8() % 2 == 1,
                duplicates: b.u8() % 4,
                unknown_ssrc: b.u8() % 3,
                forged_seq: (b.u8() < 64).then(|| b.u16()),
                forged_arrival: (b.u8() < 32).then(|| b.u64()),
                at: b.when(),
            }),
        };
        ops.push(op);
    }
    (setup, ops)
}

/// The sender's time line, as the sender documents it.
#[derive(Default)]
struct ModelClock {
    started: bool,
    now: u64,
    anchor: u64,
    behind: bool,
}

impl ModelClock {
    fn advance(&mut self, raw: u64) -> u64 {
        let max_step = MAX_TIME_STEP.as_nanos() as u64;
        let tolerance = TIME_JITTER_TOLERANCE.as_nanos() as u64;
        if !self.started {
            self.started = true;
            self.anchor = raw;
            self.now = raw.min(LATEST_START);
        } else if raw >= self.anchor {
            self.now = self.now.saturating_add((raw - self.anchor).min(max_step));
            self.anchor = raw;
            self.behind = false;
        } else if self.anchor - raw <= tolerance {
            self.behind = false;
        } else if self.behind {
            self.anchor = raw;
            self.behind = false;
        } else {
            self.behind = true;
        }
        self.now
    }
}

struct ModelPacket {
    ssrc: u32,
    seq: u16,
    size: u64,
    /// On the sender's time line.
    sent_at: u64,
    /// On the sane clock (the receiver's clock minus its offset).
    sane_sent_at: u64,
    resolved: bool,
}

/// A sender, the caller's clocks and the model of its packets.
struct Model {
    sender: Sender,
    ids: Vec<StreamId>,
    ssrcs: Vec<u32>,
    limits: [(f64, f64, f64); 2],
    clock: ModelClock,
    /// Time that only runs forward; the receiver's clock is this plus `RX_OFFSET`.
    sane: u64,
    /// The caller's clock minus `sane`.
    offset: i128,
    packets: VecDeque<ModelPacket>,
    newest_acked: Option<u64>,
    reorder: u64,
    timeout: u64,
    queue_limit: Duration,
    min_wnd: u64,
}

macro_rules! ensure {
    ($cond:expr, $($arg:tt)+) => {
        if !$cond {
            return Err(format!($($arg)+));
        }
    };
}

impl Model {
    fn new(setup: &Setup) -> Result<Self, String> {
        let cfg = SenderConfig {
            ecn: setup.ecn,
            mss_bytes: setup.mss_bytes,
            pacing_catch_up: Duration::from_millis(u64::from(setup.catch_up_ms)),
            in_flight_timeout: Duration::from_millis(u64::from(setup.in_flight_timeout_ms)),
            max_rtp_queue_delay: Duration::from_millis(u64::from(setup.max_queue_ms)),
            ..SenderConfig::default()
        };
        cfg.validate().map_err(|e| e.to_string())?;
        let reorder = cfg.reorder_time.as_nanos() as u64;
        let timeout = cfg.in_flight_timeout.as_nanos() as u64;
        let queue_limit = cfg.max_rtp_queue_delay.max(MIN_DISCARD_INTERVAL);
        let min_wnd = u64::from(cfg.min_ref_wnd_bytes);
        let mut sender = Sender::new(cfg).map_err(|e| e.to_string())?;
        let ssrcs = vec![10, 20];
        let priorities = [setup.priority, setup.priority * setup.priority_ratio];
        let mut ids = vec![];
        for (i, &(min, start, max)) in setup.limits.iter().enumerate() {
            let id = sender
                .add_stream_with_initial_seq(
                    StreamConfig {
                        ssrc: ssrcs[i],
                        min_bitrate: Bitrate::from_bps(min),
                        start_bitrate: Bitrate::from_bps(start),
                        max_bitrate: Bitrate::from_bps(max),
                        priority: priorities[i],
                    },
                    65_500,
                )
                .map_err(|e| e.to_string())?;
            ids.push(id);
        }
        Ok(Self {
            sender,
            ids,
            ssrcs,
            limits: setup.limits,
            clock: ModelClock::default(),
            sane: setup.start_ns,
            offset: 0,
            packets: VecDeque::new(),
            newest_acked: None,
            reorder,
            timeout,
            queue_limit,
            min_wnd,
        })
    }

    /// The caller's clock.
    fn caller_now(&self) -> u64 {
        let t = i128::from(self.sane) + self.offset;
        t.clamp(0, i128::from(CALLER_CLOCK_CEILING)) as u64
    }

    fn instant(&self, when: When) -> Instant {
        let now = Instant::from_nanos(self.caller_now());
        match when {
            When::Now => now,
            When::Back(ms) => now - Duration::from_millis(u64::from(ms)),
            When::Ahead(s) => now + Duration::from_secs(u64::from(s)),
            When::Zero => Instant::ZERO,
            When::Max => Instant::MAX,
        }
    }

    /// The sender's in-flight timeout at sender time `t`.
    fn expire(&mut self, t: u64) {
        if let Some(limit) = t.checked_sub(self.timeout) {
            for p in self.packets.iter_mut().filter(|p| p.sent_at <= limit) {
                p.resolved = true;
            }
        }
    }

    /// Drains `poll_transmit` at `at`; returns how many packets left.
    fn transmit(&mut self, at: Instant) -> usize {
        let mut sent = 0;
        loop {
            let t = self.clock.advance(at.as_nanos());
            self.expire(t);
            let Transmit::Now(p) = self.sender.poll_transmit(at) else {
                break;
            };
            self.packets.push_back(ModelPacket {
                ssrc: p.ssrc,
                seq: p.seq,
                size: u64::from(p.size_bytes),
                sent_at: t,
                sane_sent_at: self.sane,
                resolved: false,
            });
            sent += 1;
        }
        while self.packets.len() > HISTORY && self.packets.front().is_some_and(|p| p.resolved) {
            self.packets.pop_front();
        }
        sent
    }

    fn timeout(&mut self, at: Instant) {
        let t = self.clock.advance(at.as_nanos());
        self.sender.handle_timeout(at);
        self.expire(t);
    }

    fn frame(&mut self, stream: usize, bytes: u32, at: Instant) {
        self.clock.advance(at.as_nanos());
        let frame = MediaFrame {
            size_bytes: bytes,
            key_frame: false,
        };
        self.sender.on_media_frame(at, self.ids[stream], frame);
    }

    fn ack(&mut self, i: usize) {
        let p = &mut self.packets[i];
        if !p.resolved {
            p.resolved = true;
            self.newest_acked = Some(self.newest_acked.map_or(p.sent_at, |n| n.max(p.sent_at)));
        }
    }

    fn feedback(&mut self, f: &FeedbackOp) {
        let at = self.instant(f.at);
        self.clock.advance(at.as_nanos());
        let report_time = RX_OFFSET + self.sane;
        let end = self
            .packets
            .len()
            .saturating_sub(usize::from(f.skip_newest));
        let start = end.saturating_sub(usize::from(f.len));
        let mut reports = vec![];
        let mut acked = vec![];
        for (k, i) in (start..end).enumerate() {
            let bit = |mask: u64| mask >> (k % 64) & 1 == 1;
            let m = &self.packets[i];
            let jitter = if k % 3 == 2 {
                u64::from(f.jitter_us)
            } else {
                0
            };
            let mut arrival = RX_OFFSET + m.sane_sent_at + (u64::from(f.owd_us) + jitter) * 1000;
            let first_received = acked.is_empty() && !bit(f.lost);
            if let Some(forged) = f.forged_arrival.filter(|_| first_received) {
                arrival = forged.min(report_time);
            }
            let status = if bit(f.lost) || arrival > report_time {
                PacketStatus::NotReceived
            } else {
                acked.push(i);
                PacketStatus::Received {
                    arrival: (!bit(f.no_arrival)).then_some(RemoteInstant::from_nanos(arrival)),
                    ecn: if bit(f.ce) { Ecn::Ce } else { Ecn::Ect1 },
                }
            };
            reports.push(PacketReport {
                ssrc: m.ssrc,
                seq: m.seq,
                status,
            });
        }
        if f.reverse {
            reports.reverse();
        }
        let repeats: Vec<_> = reports
            .iter()
            .take(usize::from(f.duplicates))
            .copied()
            .collect();
        reports.extend(repeats);
        let received = PacketStatus::Received {
            arrival: Some(RemoteInstant::from_nanos(report_time)),
            ecn: Ecn::NotEct,
        };
        for n in 0..f.unknown_ssrc {
            reports.push(PacketReport {
                ssrc: 0xbad0_0000 + u32::from(n),
                seq: u16::from(n),
                status: received,
            });
        }
        if let Some(seq) = f.forged_seq {
            reports.push(PacketReport {
                ssrc: self.ssrcs[0],
                seq,
                status: received,
            });
            // Naming a packet in flight acknowledges it, whoever wrote the report.
            if let Some(i) = self
                .packets
                .iter()
                .position(|p| !p.resolved && p.ssrc == self.ssrcs[0] && p.seq == seq)
            {
                acked.push(i);
            }
        }
        let fb = Feedback {
            report_time: RemoteInstant::from_nanos(report_time),
            reports,
        };
        self.sender.on_feedback(at, &fb);
        // Acknowledgements first, then the reordering window.
        for i in acked {
            self.ack(i);
        }
        self.apply_reordering_window();
    }

    /// Feedback that reports every packet still unresolved as received (lost
    /// feedback is repaired): what a sane peer tells once its reports get through.
    fn report_everything(&mut self) {
        let at = self.instant(When::Now);
        self.clock.advance(at.as_nanos());
        let report_time = RX_OFFSET + self.sane;
        let mut reports = vec![];
        let mut acked = vec![];
        for (i, m) in self.packets.iter().enumerate().filter(|(_, m)| !m.resolved) {
            let arrival = (RX_OFFSET + m.sane_sent_at + 10_000_000).min(report_time);
            reports.push(PacketReport {
                ssrc: m.ssrc,
                seq: m.seq,
                status: PacketStatus::Received {
                    arrival: Some(RemoteInstant::from_nanos(arrival)),
                    ecn: Ecn::Ect1,
                },
            });
            acked.push(i);
        }
        let fb = Feedback {
            report_time: RemoteInstant::from_nanos(report_time),
            reports,
        };
        self.sender.on_feedback(at, &fb);
        for i in acked {
            self.ack(i);
        }
        self.apply_reordering_window();
    }

    /// The sender's loss detection: packets sent more than the reordering window before
    /// the newest acknowledged one are lost.
    fn apply_reordering_window(&mut self) {
        if let Some(limit) = self.newest_acked.and_then(|t| t.checked_sub(self.reorder)) {
            for p in self.packets.iter_mut().filter(|p| p.sent_at < limit) {
                p.resolved = true;
            }
        }
    }

    fn wait(&mut self, d: Duration) {
        self.sane = self.sane.saturating_add(d.as_nanos() as u64);
    }

    fn step(&mut self, op: &Op) {
        match *op {
            Op::Wait(us) => self.wait(Duration::from_micros(u64::from(us))),
            Op::WaitLong(ms) => self.wait(Duration::from_millis(u64::from(ms))),
            Op::ClockStep(s) => {
                self.offset += i128::from(s) * 1_000_000_000;
                // Keep the caller's clock where sane time can run on.
                let now = i128::from(self.sane) + self.offset;
                let clamped = now.clamp(0, i128::from(CALLER_CLOCK_CEILING));
                self.offset += clamped - now;
            }
            Op::Frame { stream, bytes, at } => {
                let at = self.instant(at);
                self.frame(usize::from(stream % 2), bytes, at);
            }
            Op::Transmit(at) => {
                self.transmit(self.instant(at));
            }
            Op::Timeout(at) => self.timeout(self.instant(at)),
            Op::Feedback(ref f) => self.feedback(f),
        }
    }

    fn check(&mut self, queue_checked: bool) -> Result<(), String> {
        while self.sender.poll_event().is_some() {}
        let stats = self.sender.stats();
        let expected: u64 = self
            .packets
            .iter()
            .filter(|p| !p.resolved)
            .map(|p| p.size)
            .sum();
        ensure!(
            stats.bytes_in_flight == expected,
            "bytes in flight {} but the model has {expected} unresolved",
            stats.bytes_in_flight
        );
        ensure!(
            stats.ref_window_bytes >= self.min_wnd,
            "window {} below its minimum {}",
            stats.ref_window_bytes,
            self.min_wnd
        );
        ensure!(
            stats.pacing_rate.bps().is_finite() && stats.pacing_rate.bps() > 0.0,
            "pacing rate {}",
            stats.pacing_rate.bps()
        );
        for (id, &(min, _, max)) in self.ids.iter().zip(self.limits.iter()) {
            let t = self.sender.target_bitrate(*id).bps();
            ensure!(
                t.is_finite() && (min..=max).contains(&t),
                "target {t} outside [{min}, {max}]"
            );
        }
        if queue_checked {
            for s in &stats.streams {
                ensure!(
                    s.rtp_queue_delay <= self.queue_limit,
                    "RTP queue {:?} old, limit {:?}",
                    s.rtp_queue_delay,
                    self.queue_limit
                );
            }
        }
        Ok(())
    }

    /// Sane time and feedback resume: frames every 10 ms, and every 10 ms a report on
    /// every packet in flight. The sender must send within `bound`, and again within
    /// `bound` after that.
    fn recover(&mut self, bound: Duration) -> Result<(), String> {
        let step = Duration::from_millis(10);
        let mut since_send = Duration::ZERO;
        let mut sent_total = 0;
        while sent_total < 2 {
            ensure!(
                since_send <= bound,
                "nothing sent for {since_send:?} ({sent_total} packets) once sane time and \
                 feedback resumed"
            );
            self.wait(step);
            since_send += step;
            let now = self.instant(When::Now);
            self.frame(0, 1000, now);
            self.check(true)?;
            if self.sender.poll_timeout().is_some_and(|t| t <= now) {
                self.timeout(now);
            }
            let sent = self.transmit(now);
            self.check(true)?;
            if sent > 0 {
                sent_total += sent;
                since_send = Duration::ZERO;
            }
            self.report_everything();
            self.check(false)?;
        }
        Ok(())
    }
}

/// Runs `ops` on a sender set up as `setup` against the model, then lets sane time and
/// feedback resume. Returns what went wrong, if anything.
pub fn run(setup: &Setup, ops: &[Op]) -> Result<(), String> {
    let mut m = Model::new(setup)?;
    for (i, op) in ops.iter().enumerate() {
        m.step(op);
        let queue_checked = matches!(op, Op::Frame { .. } | Op::Transmit(_) | Op::Timeout(_));
        m.check(queue_checked)
            .map_err(|e| format!("after op {i} ({op:?}): {e}"))?;
    }
    // The longest pacing gap: a full packet at the lowest pacing rate.
    let packet_bits = f64::from(setup.mss_bytes + 12) * 8.0;
    let gap = Duration::from_secs_f64(packet_bits / SenderConfig::default().rate_pace_min.bps());
    m.recover(Duration::from_secs(1) + gap * 2)
        .map_err(|e| format!("recovery: {e}"))
}

#[cfg(test)]
mod prop {
    use super::*;
    use proptest::prelude::*;

    fn when() -> impl Strategy<Value = When> {
        prop_oneof![
            12 => Just(When::Now),
            2 => (0u16..40).prop_map(When::Back),
            1 => (0u16..u16::MAX).prop_map(When::Back),
            1 => (0u32..48 * 3600).prop_map(When::Ahead),
            1 => Just(When::Zero),
            1 => Just(When::Max),
        ]
    }

    fn feedback() -> impl Strategy<Value = FeedbackOp> {
        (
            (0u8..8, 1u8..64, any::<u64>(), any::<u64>(), any::<u64>()),
            (0u32..200_000, any::<u16>(), any::<bool>(), 0u8..4, 0u8..3),
            (
                proptest::option::weighted(0.2, any::<u16>()),
                proptest::option::weighted(0.1, any::<u64>()),
                when(),
            ),
        )
            .prop_map(
                |(
                    (skip_newest, len, lost, ce, no_arrival),
                    (owd_us, jitter_us, reverse, duplicates, unknown_ssrc),
                    (forged_seq, forged_arrival, at),
                )| FeedbackOp {
                    skip_newest,
                    len,
                    // Mostly received: sparse loss and missing arrival times.
                    lost: lost & ce.rotate_left(17),
                    ce,
                    no_arrival: no_arrival & lost & ce,
                    owd_us,
                    jitter_us,
                    reverse,
                    duplicates,
                    unknown_ssrc,
                    forged_seq,
                    forged_arrival,
                    at,
                },
            )
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            6 => (0u32..60_000).prop_map(Op::Wait),
            1 => (0u16..3000).prop_map(Op::WaitLong),
            1 => (-48 * 3600i32..48 * 3600).prop_map(Op::ClockStep),
            5 => (0u8..2, 0u32..30_000, when())
                .prop_map(|(stream, bytes, at)| Op::Frame { stream, bytes, at }),
            1 => (0u8..2, any::<u32>(), when())
                .prop_map(|(stream, bytes, at)| Op::Frame { stream, bytes, at }),
            6 => when().prop_map(Op::Transmit),
            1 => when().prop_map(Op::Timeout),
            5 => feedback().prop_map(Op::Feedback),
        ]
    }

    fn setup() -> impl Strategy<Value = Setup> {
        (
            prop_oneof![
                Just(EcnMode::None),
                Just(EcnMode::Classic),
                Just(EcnMode::L4s)
            ],
            prop_oneof![4 => Just(1000u32), 1 => Just(100), 1 => Just(65_000)],
            prop_oneof![Just(10u8), Just(0), Just(100)],
            prop_oneof![3 => Just(1000u32), 1 => Just(10), 1 => Just(3_600_000)],
            prop_oneof![3 => Just(1000u32), 1 => Just(10), 1 => Just(60_000)],
            prop_oneof![Just(1.0), Just(1e-300), Just(1e300)],
            prop_oneof![Just(0.5), Just(1e6), Just(1e-6)],
            any::<bool>(),
            prop_oneof![Just(1_000_000u64), Just(1_000_000_000_000_000_000)],
        )
            .prop_map(
                |(
                    ecn,
                    mss_bytes,
                    catch_up_ms,
                    in_flight_timeout_ms,
                    max_queue_ms,
                    priority,
                    priority_ratio,
                    extreme,
                    start_ns,
                )| Setup {
                    ecn,
                    mss_bytes,
                    catch_up_ms,
                    in_flight_timeout_ms,
                    max_queue_ms,
                    priority,
                    priority_ratio,
                    limits: if extreme {
                        [(1.0, 1.0, 1e11), (1.0, 1e11, 1e11)]
                    } else {
                        Setup::default().limits
                    },
                    start_ns,
                },
            )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn invariants_hold_for_any_operation_sequence_l4s(
            ops in proptest::collection::vec(op(), 1..150)
        ) {
            run(&Setup::default(), &ops).map_err(TestCaseError::fail)?;
        }

        #[test]
        fn invariants_hold_for_any_operation_sequence_delay_only(
            ops in proptest::collection::vec(op(), 1..150)
        ) {
            let setup = Setup { ecn: EcnMode::None, ..Setup::default() };
            run(&setup, &ops).map_err(TestCaseError::fail)?;
        }

        #[test]
        fn invariants_hold_for_any_setup_and_operation_sequence(
            setup in setup(),
            ops in proptest::collection::vec(op(), 1..150)
        ) {
            run(&setup, &ops).map_err(TestCaseError::fail)?;
        }

        #[test]
        fn invariants_hold_for_any_bytes_as_the_fuzz_target_reads_them(
            data in proptest::collection::vec(any::<u8>(), 0..1500)
        ) {
            let (setup, ops) = decode(&data);
            run(&setup, &ops).map_err(TestCaseError::fail)?;
        }
    }

    #[test]
    fn a_far_future_input_then_normal_time() {
        let ops = [
            Op::Frame {
                stream: 0,
                bytes: 5000,
                at: When::Now,
            },
            Op::Transmit(When::Now),
            Op::Timeout(When::Ahead(24 * 3600)),
            Op::Wait(1000),
            Op::Frame {
                stream: 0,
                bytes: 5000,
                at: When::Now,
            },
            Op::Transmit(When::Now),
            Op::Transmit(When::Max),
            Op::Transmit(When::Zero),
            Op::ClockStep(-3600),
            Op::Transmit(When::Now),
        ];
        run(&Setup::default(), &ops).expect("invariants hold");
    }
}
