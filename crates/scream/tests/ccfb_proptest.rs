//! Properties of the codec over arbitrary input: no panic, and parse/emit agreement.

use proptest::prelude::*;
use scream::wire::ccfb::{
    BlockRepr, CountConvention, CountMode, MetricBlock, Packet, ParseOptions, Repr,
    TimestampUnwrapper, decode_feedback, parse_compound,
};
use scream::{Ecn, Feedback, PacketReport, PacketStatus, RemoteInstant};

const ALL_OPTIONS: [ParseOptions; 4] = [
    ParseOptions::RFC,
    ParseOptions::MINUS_ONE,
    ParseOptions::AUTO,
    ParseOptions {
        count: CountMode::Auto {
            fallback: CountConvention::MinusOne,
        },
    },
];

/// Random bytes, and random bytes behind a plausible CCFB header whose length field
/// matches the buffer (so the block walk is reached, not just the header checks).
fn input() -> impl Strategy<Value = Vec<u8>> {
    let raw = prop::collection::vec(any::<u8>(), 0..300);
    let framed =
        (any::<bool>(), prop::collection::vec(any::<u8>(), 0..75)).prop_map(|(padding, words)| {
            let body: Vec<u8> = words
                .iter()
                .flat_map(|w| [0, *w % 4, *w, w.rotate_left(3)])
                .collect();
            let len_words = (body.len() / 4) as u16;
            let mut bytes = vec![0x8b | if padding { 0x20 } else { 0 }, 205];
            bytes.extend_from_slice(&len_words.to_be_bytes());
            bytes.extend_from_slice(&body);
            bytes
        });
    // Valid packets (either count convention) with a few bytes overwritten.
    let mutated = (
        valid_repr(),
        any::<bool>(),
        prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..3),
    )
        .prop_map(|(repr, minus_one, edits)| {
            let convention = if minus_one {
                CountConvention::MinusOne
            } else {
                CountConvention::Rfc
            };
            let mut bytes = vec![0; repr.buffer_len()];
            if repr.emit_with(&mut bytes, convention).is_err() {
                repr.emit(&mut bytes).expect("RFC emit of a small repr");
            }
            for (at, value) in edits {
                let i = at.index(bytes.len());
                bytes[i] = value;
            }
            bytes
        });
    prop_oneof![raw, framed, mutated]
}

fn valid_repr() -> impl Strategy<Value = Repr> {
    let report = (any::<bool>(), 0u8..4, 0u16..0x2000).prop_map(|(r, e, ato)| {
        if r {
            MetricBlock::received(Ecn::from_bits(e), ato)
        } else {
            MetricBlock::NOT_RECEIVED
        }
    });
    let block = (
        any::<u32>(),
        any::<u16>(),
        prop::collection::vec(report, 0..40),
    )
        .prop_map(|(media_ssrc, begin_seq, reports)| BlockRepr {
            media_ssrc,
            begin_seq,
            reports,
        });
    (
        any::<u32>(),
        any::<u32>(),
        prop::collection::vec(block, 0..4),
    )
        .prop_map(|(sender_ssrc, report_timestamp, blocks)| Repr {
            sender_ssrc,
            report_timestamp,
            blocks,
        })
}

/// Touches every accessor of a validated packet.
fn read_everything(packet: &Packet<&[u8]>) -> usize {
    let mut n = usize::from(packet.version())
        + usize::from(packet.fmt())
        + usize::from(packet.packet_type())
        + usize::from(packet.length_field())
        + packet.total_len()
        + packet.padding_len()
        + usize::from(packet.padding());
    n = n.wrapping_add(packet.sender_ssrc() as usize ^ packet.report_timestamp() as usize);
    for block in packet.blocks() {
        n = n.wrapping_add(block.media_ssrc() as usize + usize::from(block.begin_seq()));
        n = n.wrapping_add(usize::from(block.num_reports_field()));
        for i in 0..=block.report_count() {
            n = n.wrapping_add(block.metric(i).map_or(0, |m| usize::from(m.word())));
            n = n.wrapping_add(usize::from(block.seq(i)));
        }
        n = n.wrapping_add(block.metrics().len());
    }
    n
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in input()) {
        for options in &ALL_OPTIONS {
            if let Ok(packet) = Packet::new_checked(&bytes[..], options) {
                read_everything(&packet);
                prop_assert!(packet.total_len() <= bytes.len());
            }
            let _ = parse_compound(&bytes, options);
            let _ = decode_feedback(&bytes, options, &TimestampUnwrapper::new());
        }
    }

    #[test]
    fn parsed_packets_reemit_to_the_same_repr(bytes in input()) {
        for options in &ALL_OPTIONS {
            let Ok(packet) = Packet::new_checked(&bytes[..], options) else { continue };
            let repr = Repr::parse(&packet);
            // In RFC counting (the default writer).
            let mut out = vec![0; repr.buffer_len()];
            prop_assert_eq!(repr.emit(&mut out), Ok(out.len()));
            prop_assert_eq!(Repr::parse_bytes(&out, &ParseOptions::RFC), Ok(repr.clone()));
            prop_assert_eq!(Repr::parse_bytes(&out, &ParseOptions::AUTO), Ok(repr.clone()));
            // In the convention the packet was read with.
            let convention = packet.count_convention();
            let fixed = ParseOptions { count: CountMode::Fixed(convention) };
            prop_assert_eq!(repr.emit_with(&mut out, convention), Ok(out.len()));
            prop_assert_eq!(Repr::parse_bytes(&out, &fixed), Ok(repr));
        }
    }

    #[test]
    fn emitted_reprs_parse_back_identically(repr in valid_repr()) {
        let mut out = vec![0; repr.buffer_len()];
        prop_assert_eq!(repr.emit(&mut out), Ok(out.len()));
        prop_assert_eq!(Repr::parse_bytes(&out, &ParseOptions::RFC), Ok(repr.clone()));
        prop_assert_eq!(Repr::parse_bytes(&out, &ParseOptions::AUTO), Ok(repr));
    }

    #[test]
    fn feedback_survives_encode_decode(
        report_ms in 10_000u64..100_000_000,
        reports in prop::collection::vec((0u32..3, any::<u16>(), any::<bool>(), 0u8..4, 0u64..9_000), 0..60),
    ) {
        let report_time = RemoteInstant::from_millis(report_ms);
        let reports: Vec<PacketReport> = reports
            .into_iter()
            .map(|(ssrc, seq, rx, ecn, age_ms)| PacketReport {
                ssrc,
                seq,
                status: if rx {
                    PacketStatus::Received {
                        arrival: Some(report_time - std::time::Duration::from_millis(age_ms)),
                        ecn: Ecn::from_bits(ecn),
                    }
                } else {
                    PacketStatus::NotReceived
                },
            })
            .collect();
        let fb = Feedback { report_time, reports };
        let mut bytes = Vec::new();
        scream::wire::ccfb::encode_feedback(&fb, 1, &mut bytes);
        prop_assert!(bytes.len() <= 12 + 131 * fb.reports.len(), "{} bytes", bytes.len());
        let back = decode_feedback(&bytes, &ParseOptions::default(), &TimestampUnwrapper::new())
            .expect("own bytes decode");
        // Every original report is present with the same status kind and ECN; the codec
        // may add NotReceived entries for skipped sequence numbers.
        let mut cursor = back.reports.iter();
        for want in &fb.reports {
            let got = cursor
                .find(|r| (r.ssrc, r.seq) == (want.ssrc, want.seq))
                .expect("report present in order");
            match (want.status, got.status) {
                (PacketStatus::NotReceived, PacketStatus::NotReceived) => {}
                (PacketStatus::Received { ecn: a, .. }, PacketStatus::Received { ecn: b, .. }) => {
                    prop_assert_eq!(a, b);
                }
                other => prop_assert!(false, "status changed: {:?}", other),
            }
        }
    }

    /// Sequence numbers that step by amounts around the encoder's limits: duplicates,
    /// small steps, gaps just under and over the 64 numbers it fills, steps back and
    /// across the wrap, and anything; a few SSRCs interleaved.
    #[test]
    fn encoded_size_stays_within_its_bound_whatever_the_sequence_numbers(
        start in any::<u16>(),
        steps in prop::collection::vec(
            (0u32..3, prop_oneof![Just(0u16), 1u16..4, 62u16..68, 65_530u16..=65_535, any::<u16>()], any::<bool>()),
            0..400,
        ),
    ) {
        let report_time = RemoteInstant::from_millis(60_000);
        let mut seq = start;
        let reports: Vec<PacketReport> = steps
            .into_iter()
            .map(|(ssrc, step, rx)| {
                seq = seq.wrapping_add(step);
                PacketReport {
                    ssrc,
                    seq,
                    status: if rx {
                        PacketStatus::Received { arrival: Some(report_time), ecn: Ecn::Ect1 }
                    } else {
                        PacketStatus::NotReceived
                    },
                }
            })
            .collect();
        let fb = Feedback { report_time, reports };
        let mut bytes = Vec::new();
        scream::wire::ccfb::encode_feedback(&fb, 1, &mut bytes);
        let n = fb.reports.len();
        prop_assert!(bytes.len() <= 12 + 131 * n, "{} bytes for {} reports", bytes.len(), n);
        let back = decode_feedback(&bytes, &ParseOptions::RFC, &TimestampUnwrapper::new())
            .expect("own bytes decode");
        prop_assert!(back.reports.len() <= 65 * n);
        let mut cursor = back.reports.iter();
        for want in &fb.reports {
            let got = cursor.find(|r| (r.ssrc, r.seq) == (want.ssrc, want.seq));
            let received = |s: PacketStatus| matches!(s, PacketStatus::Received { .. });
            prop_assert!(got.is_some_and(|g| received(g.status) == received(want.status)), "{:?}", want);
        }
    }
}
