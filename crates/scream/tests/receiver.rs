//! Behaviour of the receiver: feedback cadence, coverage and robustness.

use scream::receiver::{ReceivedPacket, Receiver, ReceiverConfig};
use scream::{Ecn, Feedback, Instant, PacketStatus};

fn pkt(ssrc: u32, seq: u16, marker: bool) -> ReceivedPacket {
    ReceivedPacket {
        ssrc,
        seq,
        size_bytes: 1200,
        ecn: Ecn::Ect1,
        marker,
    }
}

fn ms(v: u64) -> Instant {
    Instant::from_millis(v)
}

fn received_seqs(fb: &Feedback) -> Vec<u16> {
    fb.reports
        .iter()
        .filter(|r| matches!(r.status, PacketStatus::Received { .. }))
        .map(|r| r.seq)
        .collect()
}

#[test]
fn report_is_due_after_packets_per_report_packets() {
    let mut rx = Receiver::new(ReceiverConfig::default()).unwrap();
    for seq in 0..15 {
        rx.on_packet(ms(1), pkt(7, seq, false));
        assert!(
            rx.poll_feedback(ms(1)).is_none(),
            "report before the 16th packet"
        );
    }
    rx.on_packet(ms(1), pkt(7, 15, false));
    let fb = rx.poll_feedback(ms(1)).expect("report after 16 packets");
    assert_eq!(received_seqs(&fb), (0..16).collect::<Vec<_>>());
    assert!(rx.poll_feedback(ms(1)).is_none(), "one report per trigger");
}

#[test]
fn marker_bit_triggers_a_report() {
    let mut rx = Receiver::new(ReceiverConfig::default()).unwrap();
    rx.on_packet(ms(1), pkt(7, 0, false));
    rx.on_packet(ms(2), pkt(7, 1, true));
    let fb = rx.poll_feedback(ms(2)).expect("marker report");
    assert_eq!(received_seqs(&fb), vec![0, 1]);
}

#[test]
fn interval_timer_reports_only_when_something_new_arrived() {
    let mut rx = Receiver::new(ReceiverConfig::default()).unwrap();
    assert_eq!(rx.poll_timeout(), None);
    rx.on_packet(ms(10), pkt(7, 0, false));
    assert_eq!(rx.poll_timeout(), Some(ms(50)));
    assert!(rx.poll_feedback(ms(49)).is_none());
    assert!(rx.poll_feedback(ms(50)).is_some());
    assert_eq!(rx.poll_timeout(), None, "nothing new after the report");
    assert!(rx.poll_feedback(ms(200)).is_none());
}

#[test]
fn report_time_and_arrivals_are_the_receiver_clock() {
    let mut rx = Receiver::new(ReceiverConfig::default()).unwrap();
    rx.on_packet(ms(3), pkt(7, 0, true));
    let fb = rx.poll_feedback(ms(5)).unwrap();
    assert_eq!(fb.report_time.as_nanos(), ms(5).as_nanos());
    match fb.reports[0].status {
        PacketStatus::Received {
            arrival: Some(a),
            ecn,
        } => {
            assert_eq!(a.as_nanos(), ms(3).as_nanos());
            assert_eq!(ecn, Ecn::Ect1);
        }
        other => panic!("unexpected status {other:?}"),
    }
}

#[test]
fn a_lost_report_is_repaired_by_the_next_one() {
    let mut rx = Receiver::new(ReceiverConfig::default()).unwrap();
    for seq in 0..16 {
        rx.on_packet(ms(1), pkt(7, seq, false));
    }
    let _lost = rx.poll_feedback(ms(1)).unwrap();
    for seq in 16..32 {
        rx.on_packet(ms(2), pkt(7, seq, false));
    }
    let next = rx.poll_feedback(ms(2)).unwrap();
    assert_eq!(received_seqs(&next), (0..32).collect::<Vec<_>>());
}

#[test]
fn each_report_covers_a_bounded_window_across_wrap_around() {
    let mut rx = Receiver::new(ReceiverConfig::default()).unwrap();
    let mut last = None;
    for i in 0..200u16 {
        let seq = 65500u16.wrapping_add(i);
        rx.on_packet(ms(u64::from(i)), pkt(7, seq, false));
        if let Some(fb) = rx.poll_feedback(ms(u64::from(i))) {
            last = Some(fb);
        }
    }
    // The interval timer flushes the last few packets.
    let fb = rx.poll_feedback(ms(1000)).or(last).unwrap();
    assert_eq!(fb.reports.len(), 64, "report window is 64 sequence numbers");
    let expected: Vec<u16> = (136..200u16).map(|i| 65500u16.wrapping_add(i)).collect();
    assert_eq!(received_seqs(&fb), expected);
}

#[test]
fn losses_show_as_not_received_inside_the_window() {
    let mut rx = Receiver::new(ReceiverConfig::default()).unwrap();
    for seq in [0u16, 1, 3, 4] {
        rx.on_packet(ms(1), pkt(7, seq, false));
    }
    rx.on_packet(ms(1), pkt(7, 5, true));
    let fb = rx.poll_feedback(ms(1)).unwrap();
    let statuses: Vec<_> = fb
        .reports
        .iter()
        .map(|r| (r.seq, matches!(r.status, PacketStatus::Received { .. })))
        .collect();
    assert_eq!(
        statuses,
        vec![
            (0, true),
            (1, true),
            (2, false),
            (3, true),
            (4, true),
            (5, true)
        ]
    );
}

#[test]
fn several_ssrcs_are_reported_separately() {
    let mut rx = Receiver::new(ReceiverConfig::default()).unwrap();
    rx.on_packet(ms(1), pkt(1, 100, false));
    rx.on_packet(ms(1), pkt(2, 7, false));
    rx.on_packet(ms(1), pkt(1, 101, true));
    let fb = rx.poll_feedback(ms(1)).unwrap();
    let per: Vec<(u32, u16)> = fb.reports.iter().map(|r| (r.ssrc, r.seq)).collect();
    assert_eq!(per, vec![(1, 100), (1, 101), (2, 7)]);
}

#[test]
fn duplicates_and_stale_packets_are_counted_not_reported_twice() {
    let mut rx = Receiver::new(ReceiverConfig::default()).unwrap();
    rx.on_packet(ms(1), pkt(7, 1000, false));
    rx.on_packet(ms(2), pkt(7, 1000, false));
    rx.on_packet(ms(2), pkt(7, 900, false));
    let stats = rx.stats();
    assert_eq!(
        (stats.packets_received, stats.duplicates, stats.too_old),
        (1, 1, 1)
    );
}

#[test]
fn a_sequence_restart_is_followed_after_probation() {
    let mut rx = Receiver::new(ReceiverConfig::default()).unwrap();
    rx.on_packet(ms(1), pkt(7, 30000, false));
    // 1000.. lies far behind 30000: too old, until enough of them say the sender
    // restarted its sequence numbers.
    for i in 0..20u16 {
        rx.on_packet(ms(2), pkt(7, 1000 + i, false));
    }
    assert_eq!(rx.stats().restarts, 1);
    let fb = rx.poll_feedback(ms(100)).unwrap();
    assert!(received_seqs(&fb).contains(&1019));
    assert!(!received_seqs(&fb).contains(&30000));
}

#[test]
fn invalid_config_names_the_field() {
    let cfg = ReceiverConfig {
        report_window: 0,
        ..ReceiverConfig::default()
    };
    assert_eq!(Receiver::new(cfg).unwrap_err().field, "report_window");
    let cfg = ReceiverConfig {
        packets_per_report: 100,
        ..ReceiverConfig::default()
    };
    assert_eq!(Receiver::new(cfg).unwrap_err().field, "packets_per_report");
    for max_ssrcs in [0, 4097] {
        let cfg = ReceiverConfig {
            max_ssrcs,
            ..ReceiverConfig::default()
        };
        let err = Receiver::new(cfg).unwrap_err();
        assert_eq!(err.field, "max_ssrcs");
        assert!(err.to_string().contains("1..=4096"), "{err}");
    }
    // The history the peer can make the receiver hold is bounded as a whole too.
    let cfg = ReceiverConfig {
        max_ssrcs: 65,
        report_window: 16384,
        ..ReceiverConfig::default()
    };
    assert_eq!(Receiver::new(cfg).unwrap_err().field, "max_ssrcs");
    let cfg = ReceiverConfig {
        max_ssrcs: 64,
        report_window: 16384,
        ..ReceiverConfig::default()
    };
    assert!(Receiver::new(cfg).is_ok());
}

#[test]
fn a_sequence_restart_is_followed_while_another_stream_flows() {
    let mut rx = Receiver::new(ReceiverConfig::default()).unwrap();
    rx.on_packet(ms(1), pkt(7, 30000, false));
    // Stream 7 restarts at 1000 while stream 8 keeps sending in between: the too-old run
    // of one stream is its own, not broken by another stream's packets.
    for i in 0..20u16 {
        rx.on_packet(ms(2), pkt(7, 1000 + i, false));
        rx.on_packet(ms(2), pkt(8, i, false));
    }
    assert_eq!(rx.stats().restarts, 1);
    let fb = rx.poll_feedback(ms(100)).unwrap();
    let seven: Vec<u16> = fb
        .reports
        .iter()
        .filter(|r| r.ssrc == 7 && matches!(r.status, PacketStatus::Received { .. }))
        .map(|r| r.seq)
        .collect();
    assert_eq!(seven, (1015..1020).collect::<Vec<_>>());
}

#[test]
fn too_old_packets_of_one_stream_do_not_restart_another() {
    let mut rx = Receiver::new(ReceiverConfig::default()).unwrap();
    rx.on_packet(ms(1), pkt(7, 30000, false));
    rx.on_packet(ms(1), pkt(8, 30000, false));
    for i in 0..15u16 {
        rx.on_packet(ms(2), pkt(7, 1000 + i, false));
    }
    // One too-old packet on stream 8 after 15 on stream 7: no restart of stream 8.
    rx.on_packet(ms(2), pkt(8, 1000, false));
    assert_eq!(rx.stats().restarts, 0);
}
