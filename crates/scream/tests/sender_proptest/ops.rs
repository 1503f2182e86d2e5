//! The operations of the sender model (`model.rs`), and how arbitrary bytes decode to
//! a setup and a sequence of them: the input of the `sender_ops` fuzz target, also
//! fed to the model by a proptest.

use scream::sender::EcnMode;

/// The instant an input is made at, relative to the caller's clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum When {
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
pub(crate) struct FeedbackOp {
    /// How many of the most recent packets the window ends before (a gap, or an old
    /// report).
    pub(crate) skip_newest: u8,
    /// Window length.
    pub(crate) len: u8,
    /// Bit `k`: the `k`-th packet of the window was not received.
    pub(crate) lost: u64,
    /// Bit `k`: received with CE.
    pub(crate) ce: u64,
    /// Bit `k`: received, arrival time unknown.
    pub(crate) no_arrival: u64,
    /// One-way delay, microseconds.
    pub(crate) owd_us: u32,
    /// Extra delay of every third packet, microseconds (reordered arrivals).
    pub(crate) jitter_us: u16,
    /// Report the window newest first.
    pub(crate) reverse: bool,
    /// Repeat this many of the window's reports.
    pub(crate) duplicates: u8,
    /// Reports for an SSRC no stream has.
    pub(crate) unknown_ssrc: u8,
    /// A report with a known SSRC and this sequence number, whatever was sent.
    pub(crate) forged_seq: Option<u16>,
    /// The first received packet of the window reports this arrival time (receiver
    /// clock, ns; capped at the report time), however implausible.
    pub(crate) forged_arrival: Option<u64>,
    /// When the feedback is handed in.
    pub(crate) at: When,
    /// The report's times (report time and arrival times) lie this many milliseconds
    /// off the receiver's clock: a replayed, reordered or forged report.
    pub(crate) report_shift_ms: i32,
}

/// One step of the caller.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Op {
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
pub(crate) struct Setup {
    /// Sender generation: index into `scream::sender::GENERATION_NAMES`.
    pub(crate) generation: u8,
    /// ECN mode.
    pub(crate) ecn: EcnMode,
    /// RTP payload per packet.
    pub(crate) mss_bytes: u32,
    /// Late-poll credit of the pacer, ms.
    pub(crate) catch_up_ms: u8,
    /// In-flight timeout, ms.
    pub(crate) in_flight_timeout_ms: u32,
    /// RTP queue age limit, ms.
    pub(crate) max_queue_ms: u32,
    /// Priority of stream 0; stream 1's is this times `priority_ratio`.
    pub(crate) priority: f64,
    /// Priority of stream 1 over stream 0's.
    pub(crate) priority_ratio: f64,
    /// Stream limits (min, start, max) in bit/s.
    pub(crate) limits: [(f64, f64, f64); 2],
    /// The caller's clock at the start, ns.
    pub(crate) start_ns: u64,
}

impl Default for Setup {
    fn default() -> Self {
        Self {
            generation: 0,
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
pub(crate) fn decode(data: &[u8]) -> (Setup, Vec<Op>) {
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
    // Most inputs exercise V2, the default; the older generations share the chassis that
    // meets the hostile input, but each has its own window and rate laws to keep sane.
    setup.generation = [0, 0, 1, 2][usize::from(prio / 64)];
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
                report_shift_ms: match b.u8() {
                    0..=223 => 0,
                    224..=247 => b.u16() as i16 as i32,
                    _ => b.u32() as i32 % (48 * 3600 * 1000),
                },
            }),
        };
        ops.push(op);
    }
    (setup, ops)
}
