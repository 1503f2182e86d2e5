//! A closed loop for feedback-robustness tests: sender, a FIFO bottleneck with a tail
//! drop, the receiver, and a return path on which every report travels as RFC 8888
//! bytes. Hooks let a test tamper with the reports, lose them, move the receiver's
//! clock or hand the sender a wrong `now`.
//!
//! Everything runs in virtual time; the figures it returns are counts and rates, never
//! wall-clock measurements.

#![allow(
    dead_code,
    reason = "each test file uses the part of the harness it needs"
)]

#[path = "../support/mod.rs"]
mod support;

use scream::receiver::{ReceivedPacket, Receiver, ReceiverConfig};
use scream::sender::{FeedbackUse, Sender, SenderConfig, SenderStats, StreamConfig, Transmit};
use scream::wire::ccfb::{ParseOptions, Repr, TimestampUnwrapper, decode_feedback, from_feedback};
use scream::{Bitrate, Duration, Feedback, Instant, PacketStatus, RemoteInstant};
use std::collections::VecDeque;

pub(crate) const SSRC: u32 = 0x5eed;
const FRAME_INTERVAL: Duration = Duration::from_millis(20);
/// The receiver's clock epoch, 5 h from the sender's (so that it may step back an hour).
pub(crate) const RX_EPOCH: u64 = 18_000_000_000_000;

/// What to do with one report on its way back.
pub(crate) type Tamper = Box<dyn FnMut(Instant, Repr) -> Vec<Repr>>;

/// Datagrams an attacker hands the sender as feedback from the receiver's address,
/// one every `interval` from `from` on: `forge` writes each.
pub(crate) struct Forger {
    pub(crate) from: Instant,
    pub(crate) interval: Duration,
    pub(crate) forge: Box<dyn FnMut(Instant) -> Vec<u8>>,
}

/// A run's parameters.
pub(crate) struct Setup {
    pub(crate) duration: Duration,
    /// Bottleneck rate from each instant on (sorted, first at zero).
    pub(crate) capacity: Vec<(Instant, f64)>,
    /// Extra forward propagation delay from each instant on (sorted, first at zero).
    pub(crate) path_delay: Vec<(Instant, Duration)>,
    pub(crate) return_delay: Duration,
    /// Tail drop: a packet that would wait longer than this at the bottleneck is lost.
    pub(crate) buffer: Duration,
    /// The receiver's clock steps by this many ns at this (sender) instant: arrival
    /// times recorded from then on, and report times, are on the new clock. (Applied
    /// to the reports, so the run does not depend on how the receiver's own timers
    /// cope with the step.)
    pub(crate) rx_step: Option<(Instant, i64)>,
    /// Every report passes through here after encoding; return what to send.
    pub(crate) tamper: Tamper,
    /// Whether the n-th report (0, 1, ...) is lost on the return path.
    pub(crate) lose_report: Box<dyn FnMut(u64) -> bool>,
    /// Added once to the sender's `now`, on the first feedback at or after the instant.
    pub(crate) sender_jump: Option<(Instant, Duration)>,
    /// Forged feedback beside the genuine.
    pub(crate) forger: Option<Forger>,
    pub(crate) config: SenderConfig,
}

impl Default for Setup {
    fn default() -> Self {
        Self {
            duration: Duration::from_secs(30),
            capacity: vec![(Instant::ZERO, 10e6)],
            path_delay: vec![(Instant::ZERO, Duration::from_millis(25))],
            return_delay: Duration::from_millis(25),
            buffer: Duration::from_millis(500),
            rx_step: None,
            tamper: Box::new(|_, r| vec![r]),
            lose_report: Box::new(|_| false),
            sender_jump: None,
            forger: None,
            config: SenderConfig::default(),
        }
    }
}

/// One report that reached the sender.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Delivered {
    pub(crate) at: Instant,
    /// Per-packet reports it carried.
    pub(crate) reports: u64,
    /// How many of them the sender counted as ignored.
    pub(crate) ignored: u64,
    /// What the sender made of it.
    pub(crate) used: FeedbackUse,
    /// It came from the forger.
    pub(crate) forged: bool,
}

impl Delivered {
    /// The sender discarded the whole report.
    pub(crate) fn wholly_ignored(&self) -> bool {
        self.reports > 0 && self.ignored >= self.reports
    }
}

/// A periodic sample of the sender.
#[derive(Clone, Debug)]
pub(crate) struct Sample {
    pub(crate) at: Instant,
    pub(crate) target: Bitrate,
    pub(crate) stats: SenderStats,
}

/// What happened in a run.
#[derive(Default)]
pub(crate) struct Outcome {
    /// (arrival at the receiver, bytes)
    pub(crate) arrivals: Vec<(Instant, u32)>,
    pub(crate) dropped_at_bottleneck: u64,
    /// Packets declared lost while processing feedback (loss detection proper, as
    /// opposed to the in-flight timeout, which runs on the other calls).
    pub(crate) lost_on_feedback: u64,
    pub(crate) feedback: Vec<Delivered>,
    pub(crate) samples: Vec<Sample>,
    pub(crate) last: SenderStats,
}

impl Outcome {
    /// Goodput at the receiver over `[from, to)`, bit/s.
    pub(crate) fn goodput(&self, from: Instant, to: Instant) -> f64 {
        let bytes: u64 = self
            .arrivals
            .iter()
            .filter(|(t, _)| *t >= from && *t < to)
            .map(|(_, b)| u64::from(*b))
            .sum();
        bytes as f64 * 8.0 / (to - from).as_secs_f64()
    }

    /// Mean target over `[from, to)`, bit/s.
    pub(crate) fn mean_target(&self, from: Instant, to: Instant) -> f64 {
        let v: Vec<f64> = self
            .samples
            .iter()
            .filter(|s| s.at >= from && s.at < to)
            .map(|s| s.target.bps())
            .collect();
        v.iter().sum::<f64>() / v.len().max(1) as f64
    }

    /// Largest estimated queue delay sampled over `[from, to)`.
    pub(crate) fn max_queue_delay(&self, from: Instant, to: Instant) -> Duration {
        self.samples
            .iter()
            .filter(|s| s.at >= from && s.at < to)
            .map(|s| s.stats.queue_delay)
            .max()
            .unwrap_or_default()
    }

    /// Reports delivered at or after `from` that the sender discarded whole.
    pub(crate) fn wholly_ignored_since(&self, from: Instant) -> Vec<Delivered> {
        self.feedback
            .iter()
            .filter(|d| d.at >= from && d.wholly_ignored())
            .copied()
            .collect()
    }

    /// Packets the sender's loss detection declared lost beyond those the bottleneck
    /// dropped.
    pub(crate) fn falsely_detected_lost(&self) -> u64 {
        self.lost_on_feedback
            .saturating_sub(self.dropped_at_bottleneck)
    }

    /// Packets the sender declared lost beyond those the bottleneck dropped.
    pub(crate) fn falsely_lost(&self) -> u64 {
        self.last
            .packets_lost
            .saturating_sub(self.dropped_at_bottleneck)
    }
}

/// The receiver's clock at sender time `t` (before any step).
fn rx_clock(t: Instant) -> Instant {
    Instant::from_nanos(t.as_nanos() + RX_EPOCH)
}

/// Moves the times in `fb` recorded at or after `from` (receiver clock) by `step` ns.
fn step_clock(fb: &mut Feedback, from: Instant, step: i64) {
    let shift = |t: RemoteInstant| {
        if t.as_nanos() >= from.as_nanos() {
            RemoteInstant::from_nanos(t.as_nanos().saturating_add_signed(step))
        } else {
            t
        }
    };
    fb.report_time = shift(fb.report_time);
    for r in &mut fb.reports {
        if let PacketStatus::Received {
            arrival: Some(a), ..
        } = &mut r.status
        {
            *a = shift(*a);
        }
    }
}

fn at<T: Copy>(schedule: &[(Instant, T)], t: Instant) -> T {
    schedule
        .iter()
        .take_while(|(from, _)| *from <= t)
        .last()
        .map(|(_, v)| *v)
        .unwrap_or(schedule[0].1)
}

/// Runs `setup` with one stream (100 kbit/s to 20 Mbit/s, starting at 1 Mbit/s).
pub(crate) fn run(mut setup: Setup) -> Outcome {
    let mut sender = Sender::new(setup.config.clone()).expect("valid config");
    let stream = sender
        .add_stream(StreamConfig {
            ssrc: SSRC,
            min_bitrate: Bitrate::from_kbps(100.0),
            start_bitrate: Bitrate::from_mbps(1.0),
            max_bitrate: Bitrate::from_mbps(20.0),
            priority: 1.0,
        })
        .expect("valid stream");
    let mut receiver = Receiver::new(ReceiverConfig::default()).expect("valid receiver");
    let mut unwrapper = TimestampUnwrapper::new();
    let mut out = Outcome::default();

    let mut link = support::Serializer::default();
    let mut forward: VecDeque<(Instant, ReceivedPacket)> = VecDeque::new();
    let mut back: VecDeque<(Instant, Vec<u8>)> = VecDeque::new();
    let mut next_frame = Instant::ZERO;
    let mut next_sample = Instant::ZERO;
    let mut reports_sent = 0u64;
    let mut next_forgery = setup.forger.as_ref().map_or(Instant::MAX, |f| f.from);
    let end = Instant::ZERO + setup.duration;
    let mut now = Instant::ZERO;

    while now < end {
        if now >= next_frame {
            let frame = support::frame_at(sender.target_bitrate(stream), FRAME_INTERVAL);
            sender.on_media_frame(now, stream, frame);
            next_frame += FRAME_INTERVAL;
        }
        // Forward path: arrivals, in order (the path delay never shrinks mid-flight
        // in these runs, so the FIFO order holds).
        while let Some((t, p)) = forward.front().copied() {
            if t > now {
                break;
            }
            forward.pop_front();
            out.arrivals.push((t, p.size_bytes));
            receiver.on_packet(rx_clock(t), p);
        }
        // Reports: encode, tamper, lose, send back.
        while let Some(mut fb) = receiver.poll_feedback(rx_clock(now)) {
            if let Some((when, step)) = setup.rx_step {
                step_clock(&mut fb, rx_clock(when), step);
            }
            let repr = from_feedback(&fb, 0xfeed);
            for r in (setup.tamper)(now, repr) {
                let n = reports_sent;
                reports_sent += 1;
                if (setup.lose_report)(n) {
                    continue;
                }
                let mut bytes = Vec::new();
                r.emit_to_vec(&mut bytes).expect("emits");
                back.push_back((now + setup.return_delay, bytes));
            }
        }
        let mut arrived = vec![];
        while let Some((t, _)) = back.front() {
            if *t > now {
                break;
            }
            let (_, bytes) = back.pop_front().expect("front exists");
            arrived.push((bytes, false));
        }
        if let Some(f) = setup.forger.as_mut() {
            while next_forgery <= now {
                arrived.push(((f.forge)(now), true));
                next_forgery += f.interval;
            }
        }
        for (bytes, forged) in arrived {
            // What a sender on a socket does: a datagram that does not decode is dropped.
            let Ok(fb) = decode_feedback(&bytes, &ParseOptions::RFC, &unwrapper) else {
                assert!(forged, "a genuine report failed to decode");
                continue;
            };
            let before = sender.stats();
            let mut fb_now = now;
            if let Some((when, jump)) = setup.sender_jump {
                if now >= when {
                    fb_now = now + jump;
                    setup.sender_jump = None;
                }
            }
            let used = sender.on_feedback(fb_now, &fb);
            if used == FeedbackUse::Taken {
                unwrapper.accept(fb.report_time);
            }
            out.feedback.push(Delivered {
                at: now,
                reports: fb.reports.len() as u64,
                ignored: sender.stats().feedback_ignored - before.feedback_ignored,
                used,
                forged,
            });
            out.lost_on_feedback += sender.stats().packets_lost - before.packets_lost;
        }
        if sender.poll_timeout().is_some_and(|t| t <= now) {
            sender.handle_timeout(now);
        }
        let mut wake = None;
        loop {
            match sender.poll_transmit(now) {
                Transmit::Now(p) => {
                    let start = link.start(now);
                    if start - now > setup.buffer {
                        out.dropped_at_bottleneck += 1;
                        continue;
                    }
                    let link_free_at = link.send(now, p.size_bytes, at(&setup.capacity, start));
                    let rx = support::received(&p);
                    let arrival = link_free_at + at(&setup.path_delay, link_free_at);
                    let arrival = forward.back().map_or(arrival, |(t, _)| arrival.max(*t));
                    forward.push_back((arrival, rx));
                }
                Transmit::At(t) => {
                    wake = Some(t);
                    break;
                }
                Transmit::Idle => break,
            }
        }
        while sender.poll_event().is_some() {}
        if now >= next_sample {
            out.samples.push(Sample {
                at: now,
                target: sender.target_bitrate(stream),
                stats: sender.stats(),
            });
            next_sample = now + Duration::from_millis(10);
        }
        // The receiver's timer, mapped back to the sender's time by the current offset.
        let rx_timeout = receiver
            .poll_timeout()
            .map(|t| Instant::from_nanos(t.as_nanos() - RX_EPOCH));
        let candidates = [
            Some(next_frame),
            wake,
            forward.front().map(|(t, _)| *t),
            back.front().map(|(t, _)| *t),
            Some(next_forgery),
            rx_timeout,
            sender.poll_timeout(),
            Some(now + Duration::from_millis(5)),
        ];
        let next = candidates.into_iter().flatten().filter(|t| *t > now).min();
        now = next.unwrap_or(now + Duration::from_millis(1));
    }
    out.last = sender.stats();
    out
}

/// A tiny deterministic generator (xorshift64*), so loss patterns repeat exactly.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Self(seed.max(1))
    }

    /// Uniform over all 32-bit values.
    pub(crate) fn next_u32(&mut self) -> u32 {
        (self.next_f64() * 4_294_967_296.0) as u32
    }

    /// Uniform in [0, 1).
    pub(crate) fn next_f64(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let x = self.0.wrapping_mul(0x2545_f491_4f6c_dd1d);
        (x >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[expect(
    clippy::print_stderr,
    reason = "the measured figures are part of the test report"
)]
pub(crate) fn report(name: &str, text: std::fmt::Arguments<'_>) {
    eprintln!("{name}: {text}");
}
