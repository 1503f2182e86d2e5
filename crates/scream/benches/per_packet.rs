//! Per-packet cost of the state machines: sender `poll_transmit` and `on_feedback` with
//! 64 reports, receiver `on_packet` (and its share of `poll_feedback`).
//! A plain timing loop (`cargo bench -p scream --bench per_packet`); prints ns/op.

#![expect(clippy::print_stdout, reason = "a benchmark reports on stdout")]
#![expect(
    clippy::disallowed_methods,
    clippy::disallowed_types,
    reason = "a benchmark measures real elapsed time"
)]

use scream::receiver::{ReceivedPacket, Receiver, ReceiverConfig};
use scream::sender::{MediaFrame, Sender, SenderConfig, SentPacket, StreamConfig, Transmit};
use scream::{
    Bitrate, Duration, Ecn, Feedback, Instant, PacketReport, PacketStatus, RemoteInstant,
};
use std::hint::black_box;
use std::time::Instant as WallClock;

const ROUNDS: usize = 20_000;
const PER_ROUND: usize = 64;

fn main() {
    let mut sender = Sender::new(SenderConfig::default()).expect("valid");
    let stream = sender
        .add_stream(StreamConfig {
            ssrc: 7,
            min_bitrate: Bitrate::from_mbps(0.1),
            start_bitrate: Bitrate::from_mbps(10.0),
            max_bitrate: Bitrate::from_mbps(1000.0),
            priority: 1.0,
        })
        .expect("valid");
    let mut now = Instant::from_millis(1);
    let mut sent: Vec<(SentPacket, Instant)> = Vec::with_capacity(PER_ROUND);
    let mut fb = Feedback {
        report_time: RemoteInstant::ZERO,
        reports: Vec::with_capacity(PER_ROUND),
    };
    let (mut tx_ns, mut tx_ops, mut fb_ns, mut fb_ops) = (0u128, 0u64, 0u128, 0u64);

    for _ in 0..ROUNDS {
        sender.on_media_frame(now, stream, MediaFrame::new(64_000));
        sent.clear();
        let start = WallClock::now();
        while sent.len() < PER_ROUND {
            match sender.poll_transmit(now) {
                Transmit::Now(p) => sent.push((black_box(p), now)),
                Transmit::At(t) => now = t,
                Transmit::Idle => break,
            }
        }
        tx_ns += start.elapsed().as_nanos();
        tx_ops += sent.len() as u64;

        now += Duration::from_millis(20);
        fb.clear();
        for (p, t) in &sent {
            fb.reports.push(PacketReport {
                ssrc: p.ssrc,
                seq: p.seq,
                status: PacketStatus::Received {
                    arrival: Some(RemoteInstant::from_nanos(t.as_nanos() + 10_000_000)),
                    ecn: Ecn::NotEct,
                },
            });
        }
        fb.report_time = RemoteInstant::from_nanos(now.as_nanos());
        let start = WallClock::now();
        sender.on_feedback(now, black_box(&fb));
        fb_ns += start.elapsed().as_nanos();
        fb_ops += 1;
        while sender.poll_event().is_some() {}
    }
    println!(
        "poll_transmit: {:.0} ns/packet ({tx_ops} packets)",
        tx_ns as f64 / tx_ops.max(1) as f64
    );
    println!(
        "on_feedback ({PER_ROUND} reports): {:.0} ns/feedback, {:.1} ns/report ({fb_ops} feedbacks)",
        fb_ns as f64 / fb_ops.max(1) as f64,
        fb_ns as f64 / (fb_ops.max(1) * PER_ROUND as u64) as f64
    );
    bench_receiver();
    bench_forged(&mut sender, now);
}

/// What a blind forger's reports cost the sender, decoding included: an empty 12-byte
/// packet, and a 1,400-byte packet whose one block lists 690 received packets of a
/// random SSRC. Neither proves anything, so each costs a parse and a scan.
fn bench_forged(sender: &mut Sender, now: Instant) {
    use scream::wire::ccfb::{
        BlockRepr, MetricBlock, ParseOptions, Repr, TimestampUnwrapper, decode_feedback,
    };
    const FORGED: u64 = 200_000;
    let unwrapper = TimestampUnwrapper::new();
    let packet = |reports: usize| {
        let blocks = (reports > 0)
            .then(|| BlockRepr {
                media_ssrc: 0xbad,
                begin_seq: 0,
                reports: vec![
                    MetricBlock {
                        received: true,
                        ecn: Ecn::NotEct,
                        ato: 5
                    };
                    reports
                ],
            })
            .into_iter()
            .collect();
        let mut bytes = Vec::new();
        Repr {
            sender_ssrc: 1,
            report_timestamp: 12_345,
            blocks,
        }
        .emit_to_vec(&mut bytes)
        .expect("emits");
        bytes
    };
    for reports in [0, 690] {
        let bytes = packet(reports);
        let before = sender.stats().feedback_unproven;
        let start = WallClock::now();
        for _ in 0..FORGED {
            let fb = decode_feedback(black_box(&bytes), &ParseOptions::RFC, &unwrapper)
                .expect("decodes");
            black_box(sender.on_feedback(now, &fb));
        }
        let ns = start.elapsed().as_nanos() as f64;
        assert_eq!(sender.stats().feedback_unproven - before, FORGED);
        println!(
            "forged feedback, {} bytes ({reports} reports): {:.0} ns/datagram",
            bytes.len(),
            ns / FORGED as f64
        );
    }
}

/// Receiver cost per packet: `on_packet` alone, and `on_packet` plus the `poll_feedback`
/// calls a real loop makes (one report of 64 entries every 16 packets).
fn bench_receiver() {
    const PACKETS: u64 = 2_000_000;
    let mut rx = Receiver::new(ReceiverConfig::default()).expect("valid");
    let mut reports = 0u64;
    let start = WallClock::now();
    for i in 0..PACKETS {
        let now = Instant::from_micros(i * 100);
        let packet = ReceivedPacket {
            ssrc: 7,
            seq: i as u16,
            size_bytes: 1200,
            ecn: Ecn::Ect1,
            marker: i % 8 == 7,
        };
        rx.on_packet(now, black_box(packet));
        if let Some(fb) = rx.poll_feedback(now) {
            reports += black_box(fb).reports.len() as u64;
        }
    }
    let ns = start.elapsed().as_nanos() as f64;
    println!(
        "receiver on_packet + poll_feedback: {:.0} ns/packet ({PACKETS} packets, {reports} report entries)",
        ns / PACKETS as f64
    );
}
