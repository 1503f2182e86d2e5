use super::history::{MAX_HISTORY, SendHistory};
use scream::{Duration, Ecn, Feedback, Instant, PacketReport, PacketStatus, RemoteInstant};
use scream_traffic::rate_control::{Arrival, PacketResult};

const SSRC: u32 = 0x5c00_0000;

fn received(seq: u16, arrival_ms: u64) -> PacketReport {
    PacketReport {
        ssrc: SSRC,
        seq,
        status: PacketStatus::Received {
            arrival: Some(RemoteInstant::from_millis(arrival_ms)),
            ecn: Ecn::NotEct,
        },
    }
}

fn report(reports: Vec<PacketReport>, at_ms: u64) -> Feedback {
    Feedback {
        report_time: RemoteInstant::from_millis(at_ms),
        reports,
    }
}

fn sent(h: &mut SendHistory, n: u64) {
    for i in 0..n {
        h.on_sent(Instant::from_millis(i), 1000, None);
    }
}

#[test]
fn reports_resolve_packets_once_and_give_an_rtt_sample() {
    let mut h = SendHistory::new(SSRC);
    sent(&mut h, 4);
    let mut out = Vec::new();
    // Packet 1 arrived at 30 ms, reported at 35 ms, the report reached us at 45 ms.
    let rtt = h.on_feedback(
        Instant::from_millis(45),
        &report(vec![received(1, 30)], 35),
        &mut out,
    );
    assert_eq!(
        rtt,
        Some((Instant::from_millis(1), Duration::from_millis(39)))
    );
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].sent, Instant::from_millis(1));
    // The same report again is a duplicate.
    out.clear();
    h.on_feedback(
        Instant::from_millis(46),
        &report(vec![received(1, 30)], 36),
        &mut out,
    );
    assert!(out.is_empty());
    assert_eq!(h.stats().duplicate, 1);
    assert_eq!(h.in_flight_bytes(), 3000);
}

#[test]
fn a_packet_is_lost_once_three_later_ones_arrived() {
    let mut h = SendHistory::new(SSRC);
    sent(&mut h, 6);
    let mut out = Vec::new();
    // 0 missing, then 1..=3 received: 0 is only two behind 2, then three behind 3.
    h.on_feedback(
        Instant::from_millis(50),
        &report(vec![received(1, 26), received(2, 27)], 30),
        &mut out,
    );
    assert!(out.iter().all(PacketResult::received));
    out.clear();
    h.on_feedback(
        Instant::from_millis(60),
        &report(vec![received(3, 28)], 31),
        &mut out,
    );
    assert_eq!(out.len(), 2);
    assert_eq!(
        out[0].arrival,
        Arrival::Lost,
        "sorted in sending order: {out:?}"
    );
    assert_eq!(out[0].sent, Instant::from_millis(0));
    // A late arrival of the packet taken for lost changes nothing.
    out.clear();
    h.on_feedback(
        Instant::from_millis(70),
        &report(vec![received(0, 40)], 41),
        &mut out,
    );
    assert!(out.is_empty());
}

#[test]
fn hostile_feedback_is_counted_and_ignored_and_memory_stays_bounded() {
    let mut h = SendHistory::new(SSRC);
    sent(&mut h, 10);
    let mut out = Vec::new();
    let mut junk = vec![PacketReport {
        ssrc: 0xdead_beef,
        seq: 1,
        status: PacketStatus::NotReceived,
    }];
    // Sequence numbers never sent (far ahead, and everything else).
    junk.extend(
        (0..=u16::MAX)
            .step_by(7)
            .map(|s| received(s.wrapping_add(100), 5)),
    );
    h.on_feedback(Instant::from_millis(100), &report(junk, 10), &mut out);
    assert!(h.stats().unknown > 9000);
    assert!(out.len() <= 10, "only the ten sent packets can resolve");
    // A sender that keeps sending without ever hearing back forgets the oldest.
    sent(&mut h, 3 * MAX_HISTORY as u64);
    assert!(h.len() <= MAX_HISTORY);
    assert!(h.stats().expired > 0);
    assert!(h.in_flight_bytes() <= MAX_HISTORY as u64 * 1000);
}

#[test]
fn sequence_numbers_wrap() {
    let mut h = SendHistory::new(SSRC);
    sent(&mut h, 70_000);
    let mut out = Vec::new();
    // Packet 69 999 carries RTP sequence number 69 999 mod 2^16 = 4463.
    h.on_feedback(
        Instant::from_millis(100_000),
        &report(vec![received(4463, 90_000)], 90_001),
        &mut out,
    );
    let last = out.last().unwrap();
    assert_eq!(last.sent, Instant::from_millis(69_999));
    assert!(last.received());
    // Every older packet still held was never reported: lost.
    assert!(out[..out.len() - 1].iter().all(|r| !r.received()));
}

#[test]
fn each_stream_resolves_only_its_own_ssrc_of_a_shared_report() {
    // Two streams of one flow, both at sequence numbers 0..4, in one RFC 8888 report.
    let other = SSRC + 1;
    let (mut a, mut b) = (SendHistory::new(SSRC), SendHistory::new(other));
    for i in 0..4 {
        a.on_sent(Instant::from_millis(2 * i), 1000, None);
        b.on_sent(Instant::from_millis(2 * i + 1), 500, None);
    }
    let mut reports = vec![received(0, 30), received(1, 31)];
    reports.push(PacketReport {
        ssrc: other,
        seq: 1,
        status: PacketStatus::Received {
            arrival: Some(RemoteInstant::from_millis(32)),
            ecn: Ecn::NotEct,
        },
    });
    let fb = report(reports, 40);
    let mut out = Vec::new();
    let rtt_a = a.on_feedback(Instant::from_millis(50), &fb, &mut out);
    let rtt_b = b.on_feedback(Instant::from_millis(50), &fb, &mut out);
    // a: its packets 0 and 1 (sent at 0 and 2 ms); b: its packet 1 (sent at 3 ms),
    // appended after them; b's packet 0 is one behind, not yet taken for lost.
    let sent: Vec<u64> = out.iter().map(|r| r.sent.as_nanos() / 1_000_000).collect();
    assert_eq!(sent, [0, 2, 3]);
    assert_eq!(out[2].size_bytes, 500);
    assert_eq!(rtt_a.map(|(t, _)| t), Some(Instant::from_millis(2)));
    assert_eq!(rtt_b.map(|(t, _)| t), Some(Instant::from_millis(3)));
    // Neither counts the other's reports as odd, and each keeps its own in flight.
    assert_eq!(a.stats().unknown + b.stats().unknown, 0);
    assert_eq!(a.in_flight_bytes(), 2000);
    assert_eq!(b.in_flight_bytes(), 1500);
    assert!(out.iter().all(PacketResult::received));
}
