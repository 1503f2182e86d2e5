//! Hand-built RFC 8888 packets: every byte written from the §3.1 layout, not by the codec.

use scream::Ecn;
use scream::wire::ccfb::{
    BlockRepr, CountConvention, CountMode, EmitError, Error, MetricBlock, Packet, ParseOptions,
    Repr, parse_compound,
};

/// Builds a byte vector from big-endian 16- and 32-bit words written as a list of chunks.
fn bytes(chunks: &[&[u8]]) -> Vec<u8> {
    chunks.concat()
}

const fn be16(v: u16) -> [u8; 2] {
    v.to_be_bytes()
}

const fn be32(v: u32) -> [u8; 4] {
    v.to_be_bytes()
}

/// V=2, P=0, FMT=11, PT=205 followed by the length field.
fn ccfb_header(length_words_minus_one: u16, padding: bool) -> Vec<u8> {
    let first = 0x80 | if padding { 0x20 } else { 0 } | 11;
    bytes(&[&[first, 205], &be16(length_words_minus_one)])
}

fn rx(ecn: Ecn, ato: u16) -> MetricBlock {
    MetricBlock::received(ecn, ato)
}

/// One block, 3 reports (odd: one zero padding word), received / lost / received.
fn odd_count_packet() -> Vec<u8> {
    bytes(&[
        &ccfb_header(6, false),                // 7 words = 28 bytes
        &be32(0x0102_0304),                    // sender SSRC
        &be32(0xdead_beef),                    // media SSRC
        &be16(1000),                           // begin_seq
        &be16(3),                              // num_reports
        &be16(0x8000 | (0b01 << 13) | 17),     // R=1 ECT(1) ato 17
        &be16(0),                              // R=0
        &be16(0x8000 | (0b11 << 13) | 0x1fff), // R=1 CE unavailable
        &be16(0),                              // padding to 32 bits
        &be32(0x0001_8000),                    // report timestamp: 1.5 s
    ])
}

fn odd_count_repr() -> Repr {
    Repr {
        sender_ssrc: 0x0102_0304,
        report_timestamp: 0x0001_8000,
        blocks: vec![BlockRepr {
            media_ssrc: 0xdead_beef,
            begin_seq: 1000,
            reports: vec![
                rx(Ecn::Ect1, 17),
                MetricBlock::NOT_RECEIVED,
                rx(Ecn::Ce, 0x1fff),
            ],
        }],
    }
}

#[test]
fn odd_count_is_padded_and_parses_field_by_field() {
    let buf = odd_count_packet();
    let packet = Packet::new_checked(&buf[..], &ParseOptions::RFC).expect("valid packet");
    assert_eq!(packet.version(), 2);
    assert_eq!(packet.fmt(), 11);
    assert_eq!(packet.packet_type(), 205);
    assert_eq!(packet.total_len(), 28);
    assert_eq!(packet.padding_len(), 0);
    assert_eq!(packet.sender_ssrc(), 0x0102_0304);
    assert_eq!(packet.report_timestamp(), 0x0001_8000);
    let blocks: Vec<_> = packet.blocks().collect();
    assert_eq!(blocks.len(), 1);
    assert_eq!(blocks[0].num_reports_field(), 3);
    assert_eq!(blocks[0].report_count(), 3);
    assert_eq!(blocks[0].seq(2), 1002);
    assert_eq!(blocks[0].metric(0), Some(rx(Ecn::Ect1, 17)));
    assert_eq!(
        blocks[0].metric(3),
        None,
        "the padding word is not a report"
    );
    assert_eq!(Repr::parse(&packet), odd_count_repr());
}

#[test]
fn emit_reproduces_the_hand_built_bytes() {
    let repr = odd_count_repr();
    assert_eq!(repr.buffer_len(), 28);
    let mut buf = vec![0xaa; 28]; // dirty buffer: padding must still come out zero
    assert_eq!(repr.emit(&mut buf), Ok(28));
    assert_eq!(buf, odd_count_packet());
}

#[test]
fn not_received_entries_ignore_stray_ecn_and_ato_bits() {
    let mut buf = odd_count_packet();
    // R=0 but ECN=CE and an offset: RFC 8888 §3.1 says those bits carry nothing.
    buf[18..20].copy_from_slice(&be16((0b11 << 13) | 0x123));
    let repr = Repr::parse_bytes(&buf, &ParseOptions::RFC).expect("valid packet");
    assert_eq!(repr.blocks[0].reports[1], MetricBlock::NOT_RECEIVED);
    let mut out = vec![0; repr.buffer_len()];
    repr.emit(&mut out).expect("emit");
    assert_eq!(&out[18..20], &[0, 0], "R=0 is written as an all-zero word");
}

#[test]
fn several_blocks_and_sequence_wrap() {
    let buf = bytes(&[
        &ccfb_header(2 + 4 + 2 + 1 - 1, false), // 2 header, 4 (block 1), 2 (block 2), 1 ts
        &be32(7),
        &be32(100),
        &be16(65534),
        &be16(4),
        &be16(0x8000 | (0b10 << 13) | 1),
        &be16(0x8000 | (0b10 << 13) | 2),
        &be16(0x8000 | 3),
        &be16(0x8000 | (0b01 << 13) | 0x1ffe),
        &be32(200),
        &be16(5),
        &be16(0), // an empty block is legal under RFC counting
        &be32(0xffff_ffff),
    ]);
    let packet = Packet::new_checked(&buf[..], &ParseOptions::RFC).expect("valid packet");
    let blocks: Vec<_> = packet.blocks().collect();
    assert_eq!(blocks.len(), 2);
    let seqs: Vec<u16> = (0..4).map(|i| blocks[0].seq(i)).collect();
    assert_eq!(seqs, [65534, 65535, 0, 1]);
    assert_eq!(blocks[1].media_ssrc(), 200);
    assert_eq!(blocks[1].report_count(), 0);
    let repr = Repr::parse(&packet);
    assert_eq!(repr.blocks[0].reports[2], rx(Ecn::NotEct, 3));
    assert_eq!(repr.blocks[0].reports[3], rx(Ecn::Ect1, 0x1ffe));
    let mut out = vec![0; repr.buffer_len()];
    repr.emit(&mut out).expect("emit");
    assert_eq!(out, buf);
}

fn sender_report() -> Vec<u8> {
    // SR, RC=0: header, SSRC, NTP (2 words), RTP ts, packet count, octet count = 7 words.
    bytes(&[&[0x80, 200], &be16(6), &be32(7), &[0x11; 20]])
}

fn sdes() -> Vec<u8> {
    // SDES, SC=1: header, SSRC, CNAME "ab", end, padding to a word = 4 words.
    bytes(&[
        &[0x81, 202],
        &be16(3),
        &be32(7),
        &[1, 2, b'a', b'b', 0, 0, 0, 0],
    ])
}

#[test]
fn compound_packet_skips_sr_and_sdes() {
    let buf = bytes(&[&sender_report(), &odd_count_packet(), &sdes()]);
    let reprs = parse_compound(&buf, &ParseOptions::RFC).expect("valid compound");
    assert_eq!(reprs, vec![odd_count_repr()]);
}

#[test]
fn compound_packet_without_ccfb_is_an_error() {
    let buf = bytes(&[&sender_report(), &sdes()]);
    assert_eq!(
        parse_compound(&buf, &ParseOptions::RFC),
        Err(Error::NoCcfb { packets: 2 })
    );
    assert_eq!(parse_compound(&[], &ParseOptions::RFC), Err(Error::Empty));
}

#[test]
fn compound_errors_report_offsets_in_the_datagram() {
    let mut ccfb = odd_count_packet();
    ccfb[15] = 9; // num_reports 9 cannot fit
    let buf = bytes(&[&sender_report(), &ccfb]);
    let err = parse_compound(&buf, &ParseOptions::RFC).expect_err("overflowing block");
    assert_eq!(
        err,
        Error::ReportsOverflow {
            offset: 28 + 8,
            num_reports: 9,
            count: 9,
            needed: 8 + 20,
            available: 16,
        }
    );
    // A broken header after a good packet.
    let buf = bytes(&[&sender_report(), &[0x40, 200, 0, 0]]);
    assert_eq!(
        parse_compound(&buf, &ParseOptions::RFC),
        Err(Error::Version {
            offset: 28,
            version: 1
        })
    );
}

#[test]
fn rtcp_padding_is_stripped() {
    let mut buf = odd_count_packet();
    buf[0] |= 0x20;
    buf[3] += 1; // one more word
    buf.extend_from_slice(&[0, 0, 0, 4]);
    let packet = Packet::new_checked(&buf[..], &ParseOptions::RFC).expect("valid packet");
    assert!(packet.padding());
    assert_eq!(packet.padding_len(), 4);
    assert_eq!(packet.report_timestamp(), 0x0001_8000);
    assert_eq!(Repr::parse(&packet), odd_count_repr());
}

#[test]
fn bad_padding_counts_are_rejected() {
    for count in [0u8, 40] {
        let mut buf = odd_count_packet();
        buf[0] |= 0x20;
        buf[3] += 1;
        buf.extend_from_slice(&[0, 0, 0, count]);
        let err = Repr::parse_bytes(&buf, &ParseOptions::RFC).expect_err("bad padding");
        assert_eq!(
            err,
            Error::BadPadding {
                offset: 31,
                count,
                len: 32
            }
        );
    }
}

#[test]
fn header_errors_name_the_problem() {
    let good = odd_count_packet();
    let rfc = ParseOptions::RFC;
    assert_eq!(
        Repr::parse_bytes(&good[..3], &rfc),
        Err(Error::Truncated {
            offset: 0,
            needed: 4,
            available: 3
        })
    );
    let mut v1 = good.clone();
    v1[0] = (v1[0] & 0x3f) | 0x40;
    assert_eq!(
        Repr::parse_bytes(&v1, &rfc),
        Err(Error::Version {
            offset: 0,
            version: 1
        })
    );
    let mut tcc = good.clone();
    tcc[0] = 0x8f; // FMT 15: transport-wide CC, not RFC 8888
    assert_eq!(
        Repr::parse_bytes(&tcc, &rfc),
        Err(Error::NotCcfb {
            offset: 0,
            pt: 205,
            fmt: 15
        })
    );
    assert_eq!(
        Repr::parse_bytes(&good[..20], &rfc),
        Err(Error::LengthExceedsBuffer {
            offset: 0,
            declared: 28,
            available: 20
        })
    );
    let tiny = bytes(&[&ccfb_header(1, false), &be32(1)]);
    assert_eq!(
        Repr::parse_bytes(&tiny, &rfc),
        Err(Error::TooShort { offset: 0, len: 8 })
    );
}

#[test]
fn length_field_inconsistent_with_blocks_is_rejected() {
    // Length says 4 words: header, sender SSRC, one stray word, timestamp.
    let buf = bytes(&[&ccfb_header(3, false), &be32(1), &be32(2), &be32(3)]);
    assert_eq!(
        Repr::parse_bytes(&buf, &ParseOptions::RFC),
        Err(Error::PartialBlockHeader {
            offset: 8,
            remaining: 4
        })
    );
}

#[test]
fn more_than_16384_reports_is_rejected() {
    let buf = bytes(&[
        &ccfb_header(4, false),
        &be32(1),
        &be32(2),
        &be16(0),
        &be16(16385),
        &be32(3),
    ]);
    assert_eq!(
        Repr::parse_bytes(&buf, &ParseOptions::RFC),
        Err(Error::TooManyReports {
            offset: 8,
            num_reports: 16385,
            count: 16385
        })
    );
    // 16384 written minus one is fine as a count, then fails only for lack of room.
    let buf = bytes(&[
        &ccfb_header(4, false),
        &be32(1),
        &be32(2),
        &be16(0),
        &be16(16383),
        &be32(3),
    ]);
    assert!(matches!(
        Repr::parse_bytes(&buf, &ParseOptions::MINUS_ONE),
        Err(Error::ReportsOverflow { count: 16384, .. })
    ));
}

/// A block of `count` received reports written the Ericsson way (num_reports = count-1),
/// with the last word chosen by the caller.
fn minus_one_packet(count: u16, last: u16) -> Vec<u8> {
    let slots = count.next_multiple_of(2);
    let mut words: Vec<u16> = (0..count).map(|i| 0x8000 | (0b01 << 13) | i).collect();
    if let Some(w) = words.last_mut() {
        *w = last;
    }
    words.resize(usize::from(slots), 0);
    let mut buf = ccfb_header(2 + 2 + slots / 2 + 1 - 1, false);
    buf.extend_from_slice(&be32(10));
    buf.extend_from_slice(&be32(100));
    buf.extend_from_slice(&be16(500));
    buf.extend_from_slice(&be16(count - 1));
    for w in words {
        buf.extend_from_slice(&be16(w));
    }
    buf.extend_from_slice(&be32(12345));
    buf
}

#[test]
fn auto_detects_minus_one_from_the_length_field() {
    // 3 reports written as 2: under RFC counting the block would be 2 words shorter.
    let buf = minus_one_packet(3, 0x8000);
    let auto = Packet::new_checked(&buf[..], &ParseOptions::AUTO).expect("valid packet");
    assert_eq!(auto.count_convention(), CountConvention::MinusOne);
    assert_eq!(Repr::parse(&auto).blocks[0].reports.len(), 3);
    assert!(matches!(
        Repr::parse_bytes(&buf, &ParseOptions::RFC),
        Err(Error::PartialBlockHeader { .. })
    ));
}

#[test]
fn auto_detects_minus_one_from_a_nonzero_padding_slot() {
    // 4 reports written as 3: same size both ways, but the RFC reading would make the
    // fourth report (non-zero) a padding word.
    let buf = minus_one_packet(4, 0xa000);
    let auto = Packet::new_checked(&buf[..], &ParseOptions::AUTO).expect("valid packet");
    assert_eq!(auto.count_convention(), CountConvention::MinusOne);
    assert_eq!(
        Repr::parse(&auto),
        Repr::parse_bytes(&buf, &ParseOptions::MINUS_ONE).expect("valid packet")
    );
}

#[test]
fn ambiguous_packets_use_the_callers_fallback() {
    // 4 reports written as 3 with the last one lost (zero word): indistinguishable from
    // 3 RFC-counted reports plus padding.
    let buf = minus_one_packet(4, 0);
    for (fallback, count) in [(CountConvention::Rfc, 3), (CountConvention::MinusOne, 4)] {
        let options = ParseOptions {
            count: CountMode::Auto { fallback },
        };
        let packet = Packet::new_checked(&buf[..], &options).expect("valid packet");
        assert_eq!(packet.count_convention(), fallback);
        assert_eq!(Repr::parse(&packet).blocks[0].reports.len(), count);
    }
}

#[test]
fn emit_minus_one_round_trips_and_refuses_empty_blocks() {
    let repr = odd_count_repr();
    let mut buf = vec![0; repr.buffer_len() + 4];
    let n = repr
        .emit_with(&mut buf, CountConvention::MinusOne)
        .expect("emit");
    assert_eq!(&buf[14..16], &[0, 2]);
    assert_eq!(
        Repr::parse_bytes(&buf[..n], &ParseOptions::MINUS_ONE),
        Ok(repr)
    );

    let empty = Repr {
        blocks: vec![BlockRepr::default()],
        ..Repr::default()
    };
    let mut buf = vec![0; empty.buffer_len()];
    assert_eq!(
        empty.emit_with(&mut buf, CountConvention::MinusOne),
        Err(EmitError::EmptyBlockMinusOne { block: 0 })
    );
}

#[test]
fn emit_checks_buffer_and_report_limits() {
    let repr = odd_count_repr();
    let mut small = vec![0; 27];
    assert_eq!(
        repr.emit(&mut small),
        Err(EmitError::BufferTooSmall {
            needed: 28,
            available: 27
        })
    );
    let big = Repr {
        blocks: vec![BlockRepr {
            reports: vec![MetricBlock::NOT_RECEIVED; 16385],
            ..BlockRepr::default()
        }],
        ..Repr::default()
    };
    let mut buf = vec![0; big.buffer_len()];
    assert_eq!(
        big.emit(&mut buf),
        Err(EmitError::TooManyReports {
            block: 0,
            count: 16385
        })
    );
}
