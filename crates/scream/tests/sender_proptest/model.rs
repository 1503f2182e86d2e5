//! A model of which packets a sender has resolved, driven by the operations of
//! `ops.rs`, and the invariants checked after every operation (see
//! `sender_proptest.rs`).

use super::ops::{FeedbackOp, Op, Setup, When};
use scream::sender::{
    FeedbackUse, GENERATION_NAMES, MAX_TIME_STEP, MediaFrame, Sender, SenderConfig, StreamConfig,
    StreamId, TIME_JITTER_TOLERANCE, Transmit,
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
/// How many of the last packets sent a report may name to prove itself (mirrors the
/// sender).
const RECENT: u16 = 4096;
/// Every stream's first sequence number: close to the wrap.
const FIRST_SEQ: u16 = 65_500;
/// Resolved packets kept for reports on old packets.
const HISTORY: usize = 128;
/// How much further the receiver's clock may advance between two reports than the
/// sender's did (mirrors the sender's report clock).
const REPORT_AHEAD_SLACK: u64 = 2_000_000_000;
/// Consecutive reports that must agree on a new receiver clock (mirrors the sender).
const RESYNC_REPORTS: u32 = 3;

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

/// Which reports the sender takes, as its report clock documents it: a report time
/// that neither goes back nor runs more than the slack ahead of the sender's own clock
/// advance since the last report taken; else only the third of a run of reports that
/// agree with each other that way.
#[derive(Default)]
struct ModelReportClock {
    /// Report time and sender time of the last report taken.
    taken: Option<(u64, u64)>,
    /// The latest of a run of refused reports that continue each other, and how many.
    candidate: Option<((u64, u64), u32)>,
}

impl ModelReportClock {
    fn continues((remote, local): (u64, u64), report_time: u64, now: u64) -> bool {
        report_time >= remote
            && report_time - remote <= now.saturating_sub(local).saturating_add(REPORT_AHEAD_SLACK)
    }

    /// Whether the sender takes a report with `report_time` at sender time `now`.
    fn take(&mut self, report_time: u64, now: u64) -> bool {
        let run = match (self.taken, self.candidate) {
            (None, _) => RESYNC_REPORTS,
            (Some(t), _) if Self::continues(t, report_time, now) => RESYNC_REPORTS,
            (_, Some((c, n))) if Self::continues(c, report_time, now) => n + 1,
            _ => 1,
        };
        if run >= RESYNC_REPORTS {
            self.taken = Some((report_time, now));
            self.candidate = None;
            true
        } else {
            self.candidate = Some(((report_time, now), run));
            false
        }
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
    report_clock: ModelReportClock,
    /// Time that only runs forward; the receiver's clock is this plus `RX_OFFSET`.
    sane: u64,
    /// The caller's clock minus `sane`.
    offset: i128,
    packets: VecDeque<ModelPacket>,
    /// Per stream, the sequence number its next packet will carry.
    next_seq: [u16; 2],
    newest_acked: Option<u64>,
    reorder: u64,
    timeout: u64,
    /// The sender's stall timeout, ns.
    stall: u64,
    /// Sender time of the latest transmission.
    last_sent: Option<u64>,
    queue_limit: Duration,
    /// The window's floor: V2's `min_ref_wnd_bytes`; the older generations derive theirs
    /// from the MSS, so the model asks only for a positive window there.
    min_wnd: u64,
}

/// The base configuration of `setup`'s generation.
fn base_config(setup: &Setup) -> SenderConfig {
    let name = GENERATION_NAMES[usize::from(setup.generation) % GENERATION_NAMES.len()];
    SenderConfig::for_generation(name).expect("a listed generation")
}

/// The slowest pacing rate of `cfg`'s generation, bit/s (mirrors the generations:
/// RFC 8298 `RATE_PACE_MIN` as V1's code and draft-00 here take it).
fn pacing_floor_bps(cfg: &SenderConfig) -> f64 {
    match cfg.v2() {
        Some(v2) => v2.rate_pace_min.bps(),
        None if cfg.v1().is_some() => 100_000.0,
        None => 50_000.0,
    }
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
            ..base_config(setup)
        };
        cfg.validate().map_err(|e| e.to_string())?;
        let reorder = cfg.reorder_time.as_nanos() as u64;
        let timeout = cfg.in_flight_timeout.as_nanos() as u64;
        let stall = cfg.stall_timeout.as_nanos() as u64;
        let queue_limit = cfg.max_rtp_queue_delay.max(MIN_DISCARD_INTERVAL);
        let min_wnd = cfg.v2().map_or(1, |v2| u64::from(v2.min_ref_wnd_bytes));
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
                    FIRST_SEQ,
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
            report_clock: ModelReportClock::default(),
            sane: setup.start_ns,
            offset: 0,
            packets: VecDeque::new(),
            next_seq: [FIRST_SEQ; 2],
            newest_acked: None,
            reorder,
            timeout,
            stall,
            last_sent: None,
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

    /// Bytes of the packets the model has unresolved.
    fn unresolved_bytes(&self) -> u64 {
        self.packets
            .iter()
            .filter(|p| !p.resolved)
            .map(|p| p.size)
            .sum()
    }

    /// The sender's stall guard at sender time `t`, seen from outside: the model cannot
    /// tell whether the send window holds a packet back, so it accepts that the sender
    /// gave up its flight (now holding fewer bytes than the model) only once the stall
    /// timeout has passed since the last transmission, and only all of it at once.
    fn stall_reset(&mut self, t: u64, in_flight_now: u64, just_sent: u64) -> Result<(), String> {
        let expected = self.unresolved_bytes();
        if in_flight_now >= expected + just_sent {
            return Ok(());
        }
        let idle = self.last_sent.map(|l| t.saturating_sub(l));
        ensure!(
            idle.is_some_and(|i| i >= self.stall),
            "bytes in flight fell to {in_flight_now} (model {expected} + {just_sent} sent) \
             {idle:?} ns after the last transmission, before the stall timeout"
        );
        ensure!(
            in_flight_now == just_sent,
            "a stall reset left {in_flight_now} bytes in flight, {just_sent} just sent"
        );
        for p in &mut self.packets {
            p.resolved = true;
        }
        Ok(())
    }

    /// Drains `poll_transmit` at `at`; returns how many packets left.
    fn transmit(&mut self, at: Instant) -> Result<usize, String> {
        let mut sent = 0;
        loop {
            let t = self.clock.advance(at.as_nanos());
            self.expire(t);
            let out = self.sender.poll_transmit(at);
            let just_sent = match out {
                Transmit::Now(p) => u64::from(p.size_bytes),
                _ => 0,
            };
            self.stall_reset(t, self.sender.bytes_in_flight(), just_sent)?;
            let Transmit::Now(p) = out else {
                break;
            };
            if let Some(k) = self.ssrcs.iter().position(|&s| s == p.ssrc) {
                self.next_seq[k] = p.seq.wrapping_add(1);
            }
            self.packets.push_back(ModelPacket {
                ssrc: p.ssrc,
                seq: p.seq,
                size: u64::from(p.size_bytes),
                sent_at: t,
                sane_sent_at: self.sane,
                resolved: false,
            });
            self.last_sent = Some(t);
            sent += 1;
        }
        while self.packets.len() > HISTORY && self.packets.front().is_some_and(|p| p.resolved) {
            self.packets.pop_front();
        }
        Ok(sent)
    }

    fn timeout(&mut self, at: Instant) -> Result<(), String> {
        let t = self.clock.advance(at.as_nanos());
        self.sender.handle_timeout(at);
        self.expire(t);
        self.stall_reset(t, self.sender.bytes_in_flight(), 0)
    }

    fn frame(&mut self, stream: usize, bytes: u32, at: Instant) {
        self.clock.advance(at.as_nanos());
        let frame = MediaFrame::new(bytes);
        self.sender.on_media_frame(at, self.ids[stream], frame);
    }

    fn ack(&mut self, i: usize) {
        let p = &mut self.packets[i];
        if !p.resolved {
            p.resolved = true;
            self.newest_acked = Some(self.newest_acked.map_or(p.sent_at, |n| n.max(p.sent_at)));
        }
    }

    fn feedback(&mut self, f: &FeedbackOp) -> Result<(), String> {
        let at = self.instant(f.at);
        // The receiver's clock as this report reads it.
        let shift = i128::from(f.report_shift_ms) * 1_000_000;
        let rx = |t: u64| (i128::from(t) + shift).clamp(0, i128::from(u64::MAX)) as u64;
        let report_time = rx(RX_OFFSET + self.sane);
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
            let mut arrival =
                rx(RX_OFFSET + m.sane_sent_at + (u64::from(f.owd_us) + jitter) * 1000);
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
        self.deliver(at, &fb, &acked)
    }

    /// Whether `fb` proves its writer saw the media, as the sender documents it: it
    /// names a packet in flight or one of the last `RECENT` sent, and claims no
    /// arrival of a packet not yet sent.
    fn proven(&self, fb: &Feedback) -> bool {
        let mut ours = false;
        for r in &fb.reports {
            let Some(k) = self.ssrcs.iter().position(|&s| s == r.ssrc) else {
                continue;
            };
            let in_flight = self
                .packets
                .iter()
                .any(|p| !p.resolved && p.ssrc == r.ssrc && p.seq == r.seq);
            let received = matches!(r.status, PacketStatus::Received { .. });
            let ahead = r.seq.wrapping_sub(self.next_seq[k]) < 0x8000;
            if received && ahead && !in_flight {
                return false;
            }
            let back = self.next_seq[k].wrapping_sub(r.seq);
            ours = ours || in_flight || (1..=RECENT).contains(&back);
        }
        ours
    }

    /// Hands `fb` to the sender at `at`. A report that proves nothing must change
    /// nothing; if the sender takes it (its report clock), the packets at `acked` are
    /// acknowledged, then the reordering window applies. A report refused whole must
    /// show as such: every per-packet report counted as ignored, nothing acknowledged.
    fn deliver(&mut self, at: Instant, fb: &Feedback, acked: &[usize]) -> Result<(), String> {
        let t = self.clock.advance(at.as_nanos());
        let before = self.sender.stats();
        if !self.proven(fb) {
            let used = self.sender.on_feedback(at, fb);
            let after = self.sender.stats();
            ensure!(
                used == FeedbackUse::Unproven
                    && after.feedback_unproven == before.feedback_unproven + 1
                    && after.packets_acked == before.packets_acked
                    && after.bytes_in_flight == before.bytes_in_flight,
                "report at {:?} proves nothing, but the sender made it {used:?} and \
                 acknowledged {}",
                fb.report_time,
                after.packets_acked - before.packets_acked
            );
            return Ok(());
        }
        let taken = self.report_clock.take(fb.report_time.as_nanos(), t);
        let used = self.sender.on_feedback(at, fb);
        let want = if taken {
            FeedbackUse::Taken
        } else {
            FeedbackUse::Stale
        };
        ensure!(
            used == want,
            "report at {:?}: the sender made it {used:?}, the model {want:?}",
            fb.report_time
        );
        if !taken {
            let after = self.sender.stats();
            let ignored = after.feedback_ignored - before.feedback_ignored;
            ensure!(
                ignored == fb.reports.len() as u64 && after.packets_acked == before.packets_acked,
                "report at {:?} refused whole by the model's report clock, but the sender \
                 ignored {ignored} of {} reports and acknowledged {}",
                fb.report_time,
                fb.reports.len(),
                after.packets_acked - before.packets_acked
            );
            return Ok(());
        }
        // Acknowledgements first, then the reordering window.
        for &i in acked {
            self.ack(i);
        }
        self.apply_reordering_window();
        Ok(())
    }

    /// Feedback that reports every packet still unresolved as received (lost
    /// feedback is repaired): what a sane peer tells once its reports get through.
    fn report_everything(&mut self) -> Result<(), String> {
        let at = self.instant(When::Now);
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
        self.deliver(at, &fb, &acked)
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

    fn step(&mut self, op: &Op) -> Result<(), String> {
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
                self.transmit(self.instant(at))?;
            }
            Op::Timeout(at) => self.timeout(self.instant(at))?,
            Op::Feedback(ref f) => return self.feedback(f),
        }
        Ok(())
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
            stats.window_bytes >= self.min_wnd,
            "window {} below its minimum {}",
            stats.window_bytes,
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
                self.timeout(now)?;
            }
            let sent = self.transmit(now)?;
            self.check(true)?;
            if sent > 0 {
                sent_total += sent;
                since_send = Duration::ZERO;
            }
            self.report_everything()?;
            self.check(false)?;
        }
        Ok(())
    }
}

/// Runs `ops` on a sender set up as `setup` against the model, then lets sane time and
/// feedback resume. Returns what went wrong, if anything.
pub(crate) fn run(setup: &Setup, ops: &[Op]) -> Result<(), String> {
    let mut m = Model::new(setup)?;
    for (i, op) in ops.iter().enumerate() {
        let queue_checked = matches!(op, Op::Frame { .. } | Op::Transmit(_) | Op::Timeout(_));
        m.step(op)
            .and_then(|()| m.check(queue_checked))
            .map_err(|e| format!("after op {i} ({op:?}): {e}"))?;
    }
    // The longest pacing gap: a full packet at the lowest pacing rate.
    let packet_bits = f64::from(setup.mss_bytes + 12) * 8.0;
    let gap = Duration::from_secs_f64(packet_bits / pacing_floor_bps(&base_config(setup)));
    m.recover(Duration::from_secs(1) + gap * 2)
        .map_err(|e| format!("recovery: {e}"))
}
