//! `delay-convergence` answers classic ECN-CE at most once per round trip of data: after
//! a sudden capacity drop behind a shallow CE step, every packet is marked for as long
//! as the old queue drains, and a back-off needs a packet sent after the previous one
//! to have been acknowledged (RFC 3168 §6.1.2, RFC 9002 §7.3.2).

mod support;

use scream::sender::{CongestionEventKind, EcnMode, Sender, SenderConfig, StreamConfig, Transmit};
use scream::{
    Bitrate, Duration, Ecn, Feedback, Instant, PacketReport, PacketStatus, RemoteInstant,
};
use support::Serializer;

const ONE_WAY: Duration = Duration::from_millis(20);
const FRAME: Duration = Duration::from_millis(20);
const REPORT: Duration = Duration::from_millis(10);
const TICK: Duration = Duration::from_millis(1);
/// A classic threshold marker: CE once a packet waited this long (RFC 3168 marking at
/// a step, as the robust evaluation's classic draws have it).
const CE_STEP: Duration = Duration::from_millis(5);
const DROP_AT: Instant = Instant::from_millis(4000);
const END: Instant = Instant::from_millis(8000);

/// A CE back-off at `at`, and when the newest packet acknowledged by then had left.
#[derive(Debug)]
struct BackOff {
    at: Instant,
    newest_acked_sent: Instant,
}

/// One 2-10 Mbit/s stream over a FIFO at 30 Mbit/s that drops to 2 Mbit/s at 4 s,
/// ECN-capable with a 5 ms CE step, 20 ms each way, a report every 10 ms; returns the
/// CE back-offs after the drop.
fn collapse(converge: bool) -> Vec<BackOff> {
    let mut cfg = SenderConfig {
        ecn: EcnMode::Classic,
        ..SenderConfig::default()
    };
    cfg.improvements.delay_convergence = converge;
    let mut s = Sender::new(cfg).unwrap();
    s.enable_cc_events(1024);
    let id = s
        .add_stream(StreamConfig {
            ssrc: 1,
            min_bitrate: Bitrate::from_kbps(200.0),
            start_bitrate: Bitrate::from_mbps(2.0),
            max_bitrate: Bitrate::from_mbps(10.0),
            priority: 1.0,
        })
        .unwrap();
    let mut link = Serializer::default();
    // Sent packets: sequence number, send time, arrival at the receiver, CE.
    let mut sent: Vec<(u16, Instant, Instant, bool)> = Vec::new();
    let mut reported = 0;
    // Reports on their way back: when they reach the sender, and what they carry.
    let mut returning: Vec<(Instant, Feedback, Instant)> = Vec::new();
    let mut newest_acked_sent = Instant::ZERO;
    let mut backoffs = Vec::new();
    let mut now = Instant::from_millis(1000);
    while now < END {
        while returning.first().is_some_and(|(at, ..)| *at <= now) {
            let (_, fb, newest) = returning.remove(0);
            s.on_feedback(now, &fb);
            newest_acked_sent = newest_acked_sent.max(newest);
        }
        if (now - Instant::ZERO).as_nanos() % FRAME.as_nanos() == 0 {
            let target = s.target_bitrate(id);
            s.on_media_frame(now, id, support::frame_at(target, FRAME));
        }
        if s.poll_timeout().is_some_and(|t| t <= now) {
            s.handle_timeout(now);
        }
        let rate = if now < DROP_AT { 30e6 } else { 2e6 };
        while let Transmit::Now(p) = s.poll_transmit(now) {
            let ce = link.start(now) - now > CE_STEP;
            let arrival = link.send(now, p.size_bytes, rate) + ONE_WAY;
            sent.push((p.seq, now, arrival, ce));
        }
        if (now - Instant::ZERO).as_nanos() % REPORT.as_nanos() == 0 {
            // Arrivals are in send order (a FIFO); report the new ones.
            let new = sent[reported..]
                .iter()
                .take_while(|(.., arrival, _)| *arrival <= now)
                .count();
            if new > 0 {
                let batch = &sent[reported..reported + new];
                let reports = batch
                    .iter()
                    .map(|&(seq, _, arrival, ce)| PacketReport {
                        ssrc: 1,
                        seq,
                        status: PacketStatus::Received {
                            arrival: Some(RemoteInstant::from_nanos(arrival.as_nanos())),
                            ecn: if ce { Ecn::Ce } else { Ecn::Ect0 },
                        },
                    })
                    .collect();
                let newest = batch.iter().map(|p| p.1).max().unwrap_or(Instant::ZERO);
                let fb = Feedback {
                    report_time: RemoteInstant::from_nanos(now.as_nanos()),
                    reports,
                };
                returning.push((now + ONE_WAY, fb, newest));
                reported += new;
            }
        }
        while s.poll_event().is_some() {}
        while let Some(e) = s.poll_cc_event() {
            if let CongestionEventKind::BackOff { .. } = e.kind {
                if e.at >= DROP_AT {
                    backoffs.push(BackOff {
                        at: e.at,
                        newest_acked_sent,
                    });
                }
            }
        }
        now += TICK;
    }
    backoffs
}

/// Back-offs that answered a report whose newest packet left before the previous
/// back-off: the same congestion answered twice.
fn repeated(backoffs: &[BackOff]) -> usize {
    backoffs
        .windows(2)
        .filter(|w| w[1].newest_acked_sent <= w[0].at)
        .count()
}

#[test]
fn classic_ce_is_answered_once_per_round_trip_of_data() {
    let faithful = collapse(false);
    let gated = collapse(true);
    // The setup springs the trap: faithfully, the old queue's marks are answered
    // again and again, every `min(VIRTUAL_RTT, sRTT)`.
    assert!(
        repeated(&faithful) >= 3,
        "faithful back-offs after the drop: {faithful:?}"
    );
    assert!(gated.len() >= 2, "no congestion answered: {gated:?}");
    assert_eq!(repeated(&gated), 0, "{gated:?}");
    assert!(gated.len() < faithful.len(), "{gated:?} vs {faithful:?}");
}
