//! Unit and property tests of the RTP header codec.

use proptest::prelude::*;

use super::*;

/// V=2, P, X=1, CC=2, M=1, PT=96, seq 0x1234, ts 0xdeadbeef, SSRC 0x01020304,
/// CSRCs 0xa0a0a0a0 and 0xb0b0b0b0, a one-word extension with profile value 0xbede,
/// 3 payload bytes, and 2 padding octets when `padded`.
fn sample(padded: bool) -> Vec<u8> {
    let mut b = vec![0x80 | 0x10 | 0x02, 0x80 | 96, 0x12, 0x34];
    b.extend_from_slice(&0xdead_beef_u32.to_be_bytes());
    b.extend_from_slice(&0x0102_0304_u32.to_be_bytes());
    b.extend_from_slice(&0xa0a0_a0a0_u32.to_be_bytes());
    b.extend_from_slice(&0xb0b0_b0b0_u32.to_be_bytes());
    b.extend_from_slice(&[0xbe, 0xde, 0x00, 0x01, 0x11, 0x22, 0x33, 0x44]);
    b.extend_from_slice(&[7, 8, 9]);
    if padded {
        b[0] |= 0x20;
        b.extend_from_slice(&[0, 2]);
    }
    b
}

#[test]
fn accessors_read_every_field() {
    for padded in [false, true] {
        let bytes = sample(padded);
        let p = Packet::new_checked(&bytes[..]).expect("valid");
        assert_eq!(p.version(), 2);
        assert_eq!(p.padding(), padded);
        assert!(p.extension());
        assert_eq!(p.csrc_count(), 2);
        assert!(p.marker());
        assert_eq!(p.payload_type(), 96);
        assert_eq!(p.sequence_number(), 0x1234);
        assert_eq!(p.timestamp(), 0xdead_beef);
        assert_eq!(p.ssrc(), 0x0102_0304);
        assert_eq!(p.csrc(0), Some(0xa0a0_a0a0));
        assert_eq!(p.csrc(1), Some(0xb0b0_b0b0));
        assert_eq!(p.csrc(2), None);
        assert_eq!(p.extension_profile(), Some(0xbede));
        assert_eq!(p.extension_data(), Some(&[0x11, 0x22, 0x33, 0x44][..]));
        assert_eq!(p.header_len(), 12 + 8 + 8);
        assert_eq!(p.payload(), &[7, 8, 9]);
        assert_eq!(p.padding_len(), if padded { 2 } else { 0 });

        let repr = Repr::parse(&p).expect("valid");
        assert_eq!(repr.csrcs.as_slice(), &[0xa0a0_a0a0, 0xb0b0_b0b0]);
        assert_eq!(repr.payload_len, 3);
        assert!(repr.marker);
    }
}

#[test]
fn a_plain_header_has_no_extension() {
    let bytes = [0x80, 98, 0, 1, 0, 0, 0, 2, 0, 0, 0, 100, 0xff];
    let p = Packet::new_checked(&bytes[..]).expect("valid");
    assert_eq!(p.extension_profile(), None);
    assert_eq!(p.extension_data(), None);
    assert_eq!(p.header_len(), 12);
    assert_eq!(p.payload(), &[0xff]);
}

#[test]
fn each_malformation_has_its_error() {
    assert_eq!(Repr::parse_bytes(&[]), Err(Error::TooShort { len: 0 }));
    assert_eq!(
        Repr::parse_bytes(&sample(false)[..11]),
        Err(Error::TooShort { len: 11 })
    );

    let mut v1 = sample(false);
    v1[0] = (v1[0] & 0x3f) | 0x40;
    assert_eq!(Repr::parse_bytes(&v1), Err(Error::Version { version: 1 }));

    let csrcs = sample(false);
    assert_eq!(
        Repr::parse_bytes(&csrcs[..19]),
        Err(Error::CsrcTruncated {
            count: 2,
            needed: 20,
            available: 19
        })
    );

    // Extension header cut, then extension body cut.
    let ext = sample(false);
    assert_eq!(
        Repr::parse_bytes(&ext[..22]),
        Err(Error::ExtensionTruncated {
            offset: 20,
            needed: 4,
            available: 2
        })
    );
    assert_eq!(
        Repr::parse_bytes(&ext[..27]),
        Err(Error::ExtensionTruncated {
            offset: 20,
            needed: 8,
            available: 7
        })
    );

    let mut zero = sample(true);
    *zero.last_mut().expect("non-empty") = 0;
    assert_eq!(
        Repr::parse_bytes(&zero),
        Err(Error::BadPadding {
            count: 0,
            header_len: 28,
            max: 5
        })
    );
    let mut large = sample(true);
    *large.last_mut().expect("non-empty") = 6;
    assert_eq!(
        Repr::parse_bytes(&large),
        Err(Error::BadPadding {
            count: 6,
            header_len: 28,
            max: 5
        })
    );
    // P set on a bare header: the count octet would be the SSRC's last byte.
    let bare = [0xa0, 98, 0, 1, 0, 0, 0, 2, 0, 0, 0, 1];
    assert_eq!(
        Repr::parse_bytes(&bare),
        Err(Error::BadPadding {
            count: 1,
            header_len: 12,
            max: 0
        })
    );
}

#[test]
fn padding_may_fill_the_whole_payload() {
    // Padding-only packets probe bandwidth; the count equals everything after the header.
    let mut bytes = vec![0xa0, 98, 0, 1, 0, 0, 0, 2, 0, 0, 0, 100];
    bytes.extend_from_slice(&[0, 0, 0, 4]);
    let p = Packet::new_checked(&bytes[..]).expect("valid");
    assert!(p.payload().is_empty());
    assert_eq!(Repr::parse(&p).expect("valid").payload_len, 0);
}

#[test]
fn setters_write_what_getters_read() {
    let mut buf = [0xffu8; 20];
    let mut p = Packet::new_unchecked(&mut buf[..]);
    p.set_version(2);
    p.set_padding(false);
    p.set_extension(false);
    p.set_csrc_count(1);
    p.set_marker(false);
    p.set_payload_type(35);
    p.set_sequence_number(0xfffe);
    p.set_timestamp(90_000);
    p.set_ssrc(7);
    p.set_csrc(0, 9);
    assert_eq!(p.check_len(), Ok(()));
    assert_eq!(
        (p.version(), p.padding(), p.extension(), p.csrc_count()),
        (2, false, false, 1)
    );
    assert_eq!((p.marker(), p.payload_type()), (false, 35));
    assert_eq!(
        (p.sequence_number(), p.timestamp(), p.ssrc(), p.csrc(0)),
        (0xfffe, 90_000, 7, Some(9))
    );
    p.payload_mut().copy_from_slice(&[1, 2, 3, 4]);
    assert_eq!(p.payload(), &[1, 2, 3, 4]);
    // A setter only changes its own bits.
    p.set_marker(true);
    assert_eq!((p.marker(), p.payload_type()), (true, 35));
    p.set_csrc_count(15);
    assert!(matches!(p.check_len(), Err(Error::CsrcTruncated { .. })));
    assert!(
        p.payload().is_empty(),
        "inconsistent header yields no payload"
    );
}

#[test]
fn emit_checks_payload_type_and_room() {
    let mut repr = Repr {
        payload_type: 128,
        payload_len: 4,
        ..Repr::default()
    };
    let mut buf = [0u8; 16];
    assert_eq!(
        repr.emit_bytes(&mut buf),
        Err(EmitError::PayloadType { payload_type: 128 })
    );
    repr.payload_type = MAX_PAYLOAD_TYPE;
    assert_eq!(
        repr.emit_bytes(&mut buf[..15]),
        Err(EmitError::BufferTooSmall {
            needed: 16,
            available: 15
        })
    );
    assert_eq!(repr.emit_bytes(&mut buf), Ok(16));
    assert_eq!(Repr::parse_bytes(&buf), Ok(repr));
}

#[test]
fn emit_clears_padding_and_extension_bits() {
    let mut buf = sample(true);
    let repr = Repr {
        payload_len: buf.len() - 12,
        ..Repr::default()
    };
    assert_eq!(repr.emit_bytes(&mut buf), Ok(buf.len()));
    assert_eq!(buf[0], 0x80);
    assert_eq!(Repr::parse_bytes(&buf), Ok(repr));
}

#[test]
fn csrc_list_holds_at_most_fifteen() {
    let ids: Vec<u32> = (1..=16).collect();
    assert_eq!(CsrcList::from_slice(&ids), None);
    let mut list = CsrcList::from_slice(&ids[..15]).expect("fits");
    assert_eq!(list.len(), MAX_CSRCS);
    assert!(!list.push(99));
    assert_eq!(list.as_slice(), &ids[..15]);
    let mut built = CsrcList::new();
    assert!(built.is_empty());
    assert!(built.push(5));
    assert_eq!(built, CsrcList::from_slice(&[5]).expect("fits"));
}

#[test]
fn classify_follows_rfc_5761() {
    let rtp = [0x80, 0x80 | 98, 0, 1, 0, 0, 0, 2, 0, 0, 0, 100];
    assert_eq!(classify(&rtp), PacketKind::Rtp);
    // PT 63 and PT 96 with the marker sit just outside the RTCP range.
    assert_eq!(
        classify(&[0x80, 0x80 | 63, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
        PacketKind::Rtp
    );
    assert_eq!(
        classify(&[0x80, 0x80 | 96, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
        PacketKind::Rtp
    );
    // RTCP RR, CCFB, and a marked RTP PT 72 that is indistinguishable from an SR.
    assert_eq!(classify(&[0x81, 201, 0, 1, 0, 0, 0, 1]), PacketKind::Rtcp);
    assert_eq!(classify(&[0x8b, 205, 0, 2, 0, 0, 0, 1]), PacketKind::Rtcp);
    assert_eq!(classify(&[0x80, 0x80 | 72, 0, 0]), PacketKind::Rtcp);
    assert_eq!(classify(&[0x80, 192, 0, 0]), PacketKind::Rtcp);
    assert_eq!(classify(&[0x80, 223, 0, 0]), PacketKind::Rtcp);
    // Too short, other versions (STUN starts with 0b00, DTLS with 20..=63).
    assert_eq!(classify(&rtp[..11]), PacketKind::Other);
    assert_eq!(classify(&[0x81, 201, 0]), PacketKind::Other);
    assert_eq!(
        classify(&[0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
        PacketKind::Other
    );
    assert_eq!(
        classify(&[22, 0xfe, 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
        PacketKind::Other
    );
    assert_eq!(classify(&[]), PacketKind::Other);
}

/// Random bytes, and random bytes behind a version-2 first octet with few CSRCs, so that
/// the extension and padding checks are reached often.
fn input() -> impl Strategy<Value = Vec<u8>> {
    let raw = prop::collection::vec(any::<u8>(), 0..80);
    let framed = (
        0u8..4,
        any::<bool>(),
        any::<bool>(),
        prop::collection::vec(any::<u8>(), 11..80),
    )
        .prop_map(|(cc, padded, ext, mut rest)| {
            let mut bytes = vec![0x80 | u8::from(padded) << 5 | u8::from(ext) << 4 | cc];
            if ext {
                // A small extension length so that it fits now and then.
                let at = 11 + 4 * usize::from(cc) + 2;
                if let Some(len) = rest.get_mut(at..at + 2) {
                    len[0] = 0;
                    len[1] %= 8;
                }
            }
            if let Some(last) = rest.last_mut().filter(|_| padded) {
                *last %= 16;
            }
            bytes.append(&mut rest);
            bytes
        });
    prop_oneof![raw, framed]
}

fn any_repr() -> impl Strategy<Value = Repr> {
    (
        any::<bool>(),
        0..=MAX_PAYLOAD_TYPE,
        any::<u16>(),
        any::<u32>(),
        any::<u32>(),
        prop::collection::vec(any::<u32>(), 0..=MAX_CSRCS),
        0usize..1500,
    )
        .prop_map(
            |(marker, payload_type, sequence_number, timestamp, ssrc, csrcs, payload_len)| Repr {
                marker,
                payload_type,
                sequence_number,
                timestamp,
                ssrc,
                csrcs: CsrcList::from_slice(&csrcs).expect("at most 15"),
                payload_len,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_bytes_parse_or_error_without_panic(bytes in input()) {
        let parsed = Repr::parse_bytes(&bytes);
        match Packet::new_checked(&bytes[..]) {
            Ok(p) => {
                let repr = parsed.expect("checked packets parse");
                prop_assert_eq!(p.version(), 2);
                prop_assert_eq!(
                    p.header_len() + p.payload().len() + p.padding_len(),
                    p.total_len()
                );
                prop_assert_eq!(repr.payload_len, p.payload().len());
                prop_assert_eq!(repr.csrcs.len(), usize::from(p.csrc_count()));
                for i in 0..16 {
                    prop_assert_eq!(p.csrc(i), repr.csrcs.as_slice().get(i).copied());
                }
                prop_assert_eq!(p.extension_profile().is_some(), p.extension());
                prop_assert_eq!(p.extension_data().is_some(), p.extension());
                let _ = (p.marker(), p.payload_type(), p.sequence_number());
                let _ = (p.timestamp(), p.ssrc(), classify(&bytes));
            }
            Err(e) => prop_assert_eq!(parsed, Err(e)),
        }
    }

    #[test]
    fn emitted_reprs_parse_back_identically(repr in any_repr(), fill in any::<u8>()) {
        let mut buf = vec![fill; repr.buffer_len()];
        prop_assert_eq!(repr.emit_bytes(&mut buf), Ok(buf.len()));
        prop_assert_eq!(Repr::parse_bytes(&buf), Ok(repr));
        prop_assert_eq!(classify(&buf) == PacketKind::Rtcp,
            repr.marker && (64..=95).contains(&repr.payload_type));
    }

    #[test]
    fn plain_packets_reemit_byte_for_byte(bytes in input()) {
        let Ok(repr) = Repr::parse_bytes(&bytes) else { return Ok(()) };
        let plain = bytes[0] & 0x30 == 0;
        let mut out = bytes.clone();
        // Dropping an extension or padding only shortens the packet.
        let len = repr.buffer_len();
        prop_assert!(len <= bytes.len());
        prop_assert_eq!(repr.emit_bytes(&mut out), Ok(len));
        prop_assert_eq!(Repr::parse_bytes(&out[..len]), Ok(repr));
        if plain {
            prop_assert_eq!(len, bytes.len());
            prop_assert_eq!(out, bytes);
        }
    }
}
