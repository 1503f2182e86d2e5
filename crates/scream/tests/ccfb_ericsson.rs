//! Interoperability with feedback captured from the Ericsson reference receiver, which
//! writes `num_reports` as the number of metric blocks minus one.

use scream::wire::ccfb::{
    CountConvention, Packet, ParseOptions, Repr, TimestampUnwrapper, decode_feedback,
};
use scream::{PacketStatus, RemoteInstant};

/// Shipped in the repository (data/interop/).
const CAPTURE: &str = "interop/ccfb-ericsson-bwtest-rx.txt";

fn hex(s: &str) -> Vec<u8> {
    assert!(s.len() % 2 == 0, "odd hex length");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex digit"))
        .collect()
}

/// The captured packets in order.
fn capture() -> Vec<Vec<u8>> {
    let text = scream_data::read_to_string(CAPTURE).unwrap_or_else(|e| panic!("{e}"));
    let packets: Vec<Vec<u8>> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| hex(l.split_whitespace().nth(1).expect("time then hex")))
        .collect();
    assert!(packets.len() >= 10, "capture looks truncated");
    packets
}

#[test]
fn every_captured_packet_decodes_with_64_reports_per_block() {
    for (i, bytes) in capture().iter().enumerate() {
        let auto = Packet::new_checked(&bytes[..], &ParseOptions::AUTO)
            .unwrap_or_else(|e| panic!("packet {i}: {e}"));
        assert_eq!(
            auto.count_convention(),
            CountConvention::MinusOne,
            "packet {i}"
        );
        assert_eq!(auto.total_len(), bytes.len());
        let repr = Repr::parse(&auto);
        assert_eq!(
            Repr::parse_bytes(bytes, &ParseOptions::MINUS_ONE).as_ref(),
            Ok(&repr)
        );
        assert_eq!(repr.sender_ssrc, 0x0a);
        assert!(!repr.blocks.is_empty());
        for b in &repr.blocks {
            assert_eq!(b.media_ssrc, 0x64, "packet {i}");
            assert_eq!(b.reports.len(), 64, "packet {i}");
        }
    }
}

#[test]
fn strict_rfc_reading_loses_the_newest_report() {
    // The reason automatic detection exists: read by the RFC, each block has 63 reports
    // and the newest one (received, ECT(1)) lands in the padding slot.
    for bytes in capture() {
        let rfc = Repr::parse_bytes(&bytes, &ParseOptions::RFC).expect("structurally valid");
        assert!(rfc.blocks.iter().all(|b| b.reports.len() == 63));
        let tail = &bytes[bytes.len() - 6..bytes.len() - 4];
        assert_ne!(tail, [0, 0], "newest report is in the padding slot");
    }
}

#[test]
fn blocks_within_a_packet_tile_or_overlap() {
    for (i, bytes) in capture().iter().enumerate() {
        let repr = Repr::parse_bytes(bytes, &ParseOptions::AUTO).expect("valid");
        for pair in repr.blocks.windows(2) {
            let step = pair[1].begin_seq.wrapping_sub(pair[0].begin_seq);
            assert!((1..=64).contains(&step), "packet {i}: step {step}");
        }
    }
}

#[test]
fn overlapping_windows_agree_on_arrival_times() {
    // Consecutive reports repeat recent packets. Where windows overlap, a packet reported
    // received twice must have the same ECN and, via report time minus offset, the same
    // arrival time to within the 1/1024 s offset resolution.
    let mut unwrapper = TimestampUnwrapper::new();
    let feedbacks: Vec<_> = capture()
        .iter()
        .map(|b| {
            let fb = decode_feedback(b, &ParseOptions::AUTO, &unwrapper).expect("valid");
            unwrapper.accept(fb.report_time);
            fb
        })
        .collect();
    let mut compared = 0;
    for pair in feedbacks.windows(2) {
        assert!(
            pair[1].report_time > pair[0].report_time,
            "report times increase"
        );
        for old in &pair[0].reports {
            let Some(new) = pair[1].reports.iter().find(|r| r.seq == old.seq) else {
                continue;
            };
            if let (
                PacketStatus::Received {
                    arrival: Some(a),
                    ecn: e,
                },
                PacketStatus::Received {
                    arrival: Some(b),
                    ecn: f,
                },
            ) = (old.status, new.status)
            {
                assert_eq!(e, f, "seq {}", old.seq);
                assert!(
                    a.as_nanos().abs_diff(b.as_nanos()) <= 1_000_000,
                    "seq {}",
                    old.seq
                );
                compared += 1;
            }
        }
    }
    assert!(
        compared >= 20,
        "only {compared} overlapping reports compared"
    );
}

#[test]
fn arrivals_precede_their_report_within_the_offset_range() {
    let mut unwrapper = TimestampUnwrapper::new();
    for bytes in capture() {
        let fb = decode_feedback(&bytes, &ParseOptions::AUTO, &unwrapper).expect("valid");
        unwrapper.accept(fb.report_time);
        for r in &fb.reports {
            if let PacketStatus::Received {
                arrival: Some(a), ..
            } = r.status
            {
                assert!(a <= fb.report_time);
                assert!(fb.report_time - a < std::time::Duration::from_secs(8));
                assert!(
                    a > RemoteInstant::ZERO,
                    "arrival after the receiver started"
                );
            }
        }
    }
}
