//! Conversion between CCFB packets and abstract feedback.

use scream::wire::ccfb::{
    self, BlockRepr, MetricBlock, ParseOptions, Repr, TimestampUnwrapper, decode_feedback,
    encode_feedback, from_feedback, to_feedback,
};
use scream::{Duration, Ecn, Feedback, PacketReport, PacketStatus, RemoteInstant};

fn received(ssrc: u32, seq: u16, arrival: Option<RemoteInstant>, ecn: Ecn) -> PacketReport {
    PacketReport {
        ssrc,
        seq,
        status: PacketStatus::Received { arrival, ecn },
    }
}

fn lost(ssrc: u32, seq: u16) -> PacketReport {
    PacketReport {
        ssrc,
        seq,
        status: PacketStatus::NotReceived,
    }
}

const SECOND_Q16: u32 = 1 << 16;

#[test]
fn to_feedback_applies_offsets_and_special_values() {
    let repr = Repr {
        sender_ssrc: 1,
        report_timestamp: 3 * SECOND_Q16, // 3 s
        blocks: vec![BlockRepr {
            media_ssrc: 9,
            begin_seq: 65535,
            reports: vec![
                MetricBlock::received(Ecn::Ce, 512), // 0.5 s before the report
                MetricBlock::NOT_RECEIVED,
                MetricBlock::received(Ecn::Ect0, ccfb::ATO_UNAVAILABLE),
                MetricBlock::received(Ecn::Ect1, ccfb::ATO_MAX),
            ],
        }],
    };
    let fb = to_feedback(&repr, &TimestampUnwrapper::new());
    assert_eq!(fb.report_time, RemoteInstant::from_millis(3000));
    assert_eq!(
        fb.reports,
        vec![
            received(9, 65535, Some(RemoteInstant::from_millis(2500)), Ecn::Ce),
            lost(9, 0),
            received(9, 1, None, Ecn::Ect0),
            // 0x1FFE/1024 s = 7.998046875 s before 3 s saturates at the remote epoch.
            received(9, 2, Some(RemoteInstant::ZERO), Ecn::Ect1),
        ]
    );
}

#[test]
fn from_feedback_groups_runs_and_fills_gaps_with_not_received() {
    let t = RemoteInstant::from_millis(10_000);
    let fb = Feedback {
        report_time: t,
        reports: vec![
            received(1, 65534, Some(t - Duration::from_millis(250)), Ecn::Ect1),
            received(1, 0, Some(t), Ecn::Ce),  // 65535 skipped
            received(2, 7, None, Ecn::NotEct), // new SSRC
            lost(2, 8),
            received(2, 3, Some(t), Ecn::NotEct), // backwards: new block
        ],
    };
    let repr = from_feedback(&fb, 42);
    assert_eq!(repr.sender_ssrc, 42);
    assert_eq!(repr.report_timestamp, 10 * SECOND_Q16);
    assert_eq!(
        repr.blocks,
        vec![
            BlockRepr {
                media_ssrc: 1,
                begin_seq: 65534,
                reports: vec![
                    MetricBlock::received(Ecn::Ect1, 256),
                    MetricBlock::NOT_RECEIVED,
                    MetricBlock::received(Ecn::Ce, 0),
                ],
            },
            BlockRepr {
                media_ssrc: 2,
                begin_seq: 7,
                reports: vec![
                    MetricBlock::received(Ecn::NotEct, ccfb::ATO_UNAVAILABLE),
                    MetricBlock::NOT_RECEIVED,
                ],
            },
            BlockRepr {
                media_ssrc: 2,
                begin_seq: 3,
                reports: vec![MetricBlock::received(Ecn::NotEct, 0)],
            },
        ]
    );
}

#[test]
fn from_feedback_rounds_and_clamps_offsets() {
    let t = RemoteInstant::from_millis(20_000);
    let fb = Feedback {
        report_time: t,
        reports: vec![
            // 1.4/1024 s rounds to 1; 1.6/1024 s to 2.
            received(1, 0, Some(t - Duration::from_nanos(1_367_188)), Ecn::NotEct),
            received(1, 1, Some(t - Duration::from_nanos(1_562_500)), Ecn::NotEct),
            // 9 s is beyond 0x1FFE/1024 s: clamped.
            received(1, 2, Some(t - Duration::from_secs(9)), Ecn::NotEct),
            // An arrival after the report time (clock jitter) becomes offset 0.
            received(1, 3, Some(t + Duration::from_millis(1)), Ecn::NotEct),
        ],
    };
    let atos: Vec<u16> = from_feedback(&fb, 0).blocks[0]
        .reports
        .iter()
        .map(|m| m.ato)
        .collect();
    assert_eq!(atos, [1, 2, ccfb::ATO_MAX, 0]);
}

#[test]
fn long_runs_split_at_16384_reports() {
    let fb = Feedback {
        report_time: RemoteInstant::from_millis(1000),
        reports: (0..20_000u16).map(|s| lost(5, s)).collect(),
    };
    let repr = from_feedback(&fb, 0);
    let lens: Vec<usize> = repr.blocks.iter().map(|b| b.reports.len()).collect();
    assert_eq!(lens, [16384, 20_000 - 16384]);
    assert_eq!(repr.blocks[1].begin_seq, 16384);
}

#[test]
fn encode_decode_round_trip_within_quantisation() {
    let t = RemoteInstant::from_nanos(123_456_789_012);
    let reports = vec![
        received(100, 10, Some(t - Duration::from_micros(37_123)), Ecn::Ect1),
        lost(100, 11),
        received(100, 12, Some(t - Duration::from_micros(3)), Ecn::Ce),
        received(100, 13, None, Ecn::Ect0),
        received(
            200,
            60_000,
            Some(t - Duration::from_millis(1500)),
            Ecn::NotEct,
        ),
    ];
    let fb = Feedback {
        report_time: t,
        reports,
    };
    let mut bytes = vec![0xff; 3]; // encode_feedback replaces the contents
    encode_feedback(&fb, 77, &mut bytes);
    assert_eq!(bytes.len(), 12 + (8 + 8) + (8 + 4));
    let back = decode_feedback(&bytes, &ParseOptions::default(), &TimestampUnwrapper::new())
        .expect("decodes");
    // Report time: Q16 resolution (15.3 µs).
    assert!(back.report_time.as_nanos().abs_diff(t.as_nanos()) <= 7_630);
    assert_eq!(back.reports.len(), fb.reports.len());
    for (got, want) in back.reports.iter().zip(&fb.reports) {
        assert_eq!((got.ssrc, got.seq), (want.ssrc, want.seq));
        match (got.status, want.status) {
            (PacketStatus::NotReceived, PacketStatus::NotReceived) => {}
            (
                PacketStatus::Received { arrival: a, ecn: e },
                PacketStatus::Received { arrival: b, ecn: f },
            ) => {
                assert_eq!(e, f);
                match (a, b) {
                    (None, None) => {}
                    // Offset resolution 1/1024 s, plus the timestamp's rounding.
                    (Some(a), Some(b)) => {
                        assert!(a.as_nanos().abs_diff(b.as_nanos()) <= 488_282 + 7_630)
                    }
                    other => panic!("arrival mismatch {other:?}"),
                }
            }
            other => panic!("status mismatch {other:?}"),
        }
    }
}

#[test]
fn oversized_feedback_becomes_a_compound_of_ccfb_packets() {
    let t = RemoteInstant::from_millis(5000);
    // 9 SSRCs x 16384 reports = 9 blocks of 32776 bytes: more than one RTCP packet holds.
    let reports: Vec<PacketReport> = (0..9u32)
        .flat_map(|ssrc| (0..16384u16).map(move |s| received(ssrc, s, Some(t), Ecn::Ect1)))
        .collect();
    let fb = Feedback {
        report_time: t,
        reports,
    };
    let mut bytes = Vec::new();
    encode_feedback(&fb, 1, &mut bytes);
    let packets = ccfb::parse_compound(&bytes, &ParseOptions::RFC).expect("compound");
    assert_eq!(packets.len(), 2);
    assert!(
        packets
            .iter()
            .all(|p| p.buffer_len() <= ccfb::MAX_PACKET_LEN)
    );
    let back =
        decode_feedback(&bytes, &ParseOptions::RFC, &TimestampUnwrapper::new()).expect("decodes");
    assert_eq!(back.report_time, t);
    assert_eq!(back.reports, fb.reports);
}

/// A Q16 report time as the unwrapper's callers hand it back.
fn q16(ticks: u64) -> RemoteInstant {
    RemoteInstant::from_nanos(ccfb::q16_to_nanos(ticks))
}

#[test]
fn unwrapper_extends_across_the_32_bit_wrap() {
    let mut u = TimestampUnwrapper::new();
    assert_eq!(u.place(0xffff_0000), 0xffff_0000);
    u.accept(q16(0xffff_0000));
    assert_eq!(u.place(0x0000_1000), 0x1_0000_1000);
    u.accept(q16(0x1_0000_1000));
    // A late, reordered report from before the wrap stays before it.
    assert_eq!(u.place(0xffff_8000), 0xffff_8000);
    assert_eq!(u.reference(), Some(0x1_0000_1000));
    assert_eq!(u.place(0x0000_2000), 0x1_0000_2000);
}

#[test]
fn decoded_report_times_stay_monotonic_over_a_wrap() {
    let mut unwrapper = TimestampUnwrapper::new();
    let mut previous = RemoteInstant::ZERO;
    // 20 h of reports every 10 min: the 32-bit Q16 timestamp wraps after 18.2 h.
    for minute in (0..20 * 60).step_by(10) {
        let t = RemoteInstant::from_millis(minute * 60_000);
        let fb = Feedback {
            report_time: t,
            reports: vec![received(1, 0, Some(t), Ecn::NotEct)],
        };
        let mut bytes = Vec::new();
        encode_feedback(&fb, 0, &mut bytes);
        let back = decode_feedback(&bytes, &ParseOptions::RFC, &unwrapper).expect("decodes");
        unwrapper.accept(back.report_time);
        assert!(back.report_time >= previous, "went back at minute {minute}");
        assert!(back.report_time.as_nanos().abs_diff(t.as_nanos()) <= 7_630);
        previous = back.report_time;
    }
}

#[test]
fn placing_never_moves_the_reference() {
    let second: u64 = 0x1_0000;
    // 10 h into the receiver's clock, so that half a wrap back is still after zero.
    let t0 = 0x9000_0000u64;
    let mut u = TimestampUnwrapper::new();
    u.accept(q16(t0));
    // A thousand random timestamps, as a blind forger sends them, are each placed
    // somewhere within half a wrap; none is accepted, so a genuine report that follows,
    // even 2 s late or 9 h on, is still read on the genuine clock.
    let mut x: u32 = 0x2545_f491;
    for _ in 0..1_000 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        assert!(u.place(x).abs_diff(t0) <= 1 << 31);
    }
    assert_eq!(u.reference(), Some(t0));
    assert_eq!(u.place((t0 - 2 * second) as u32), t0 - 2 * second);
    let later = t0 + 9 * 3600 * second;
    assert_eq!(u.place(later as u32), later);
}

#[test]
fn the_unwrapper_follows_a_clock_that_really_jumped() {
    let second: u32 = 0x1_0000;
    let t0: u32 = 0xc000_0000;
    let six_hours = 6 * 3600 * second;
    for (name, jump) in [
        ("forward", i64::from(six_hours)),
        ("backward", -i64::from(six_hours)),
    ] {
        let mut u = TimestampUnwrapper::new();
        u.accept(q16(u64::from(t0)));
        let jumped = (i64::from(t0) + jump) as u32;
        let want = |i: u32| (i64::from(t0) + jump + i64::from(i * second)) as u64;
        // Once the caller accepts the first report on the new clock (the sender does
        // when a few agree), that clock is followed for longer than half a wrap.
        assert_eq!(u.place(jumped), want(0), "{name}: placed on the jump");
        u.accept(q16(want(0)));
        for i in 1..40_000u32 {
            let ts = jumped.wrapping_add(i * second);
            assert_eq!(u.place(ts), want(i), "{name}, {i} s after the jump");
            u.accept(q16(want(i)));
        }
    }
}
