//! Interoperability with RTP headers captured from the Ericsson reference's
//! bandwidth-test sender: PT 98, SSRC 0x64, 90 kHz timestamps, one frame every 20 ms split
//! into 1200-byte payloads, the marker on each frame's last packet.
//!
//! The capture holds two excerpts of one session (about 0 to 0.2 s and 1.69 s on), and
//! one datagram that is not media: PT 127 with ASCII text where the sequence number,
//! timestamp and SSRC would be. The codec must read it like any other header; the stream
//! checks skip it.

use scream::wire::rtp::{Packet, PacketKind, Repr, classify};

/// Shipped in the repository (data/interop/).
const CAPTURE: &str = "interop/rtp-ericsson-bwtest-tx.txt";

/// Payload type and SSRC of the media stream.
const MEDIA_PT: u8 = 98;
const MEDIA_SSRC: u32 = 0x64;
/// Largest payload the sender puts in one packet, and its RTP header.
const MTU_PAYLOAD: usize = 1200;
const HEADER: usize = 12;
/// Clock rate of the timestamps.
const CLOCK_HZ: f64 = 90_000.0;
/// A silence longer than this between media packets is a cut between excerpts: the
/// sender emits a frame every 20 ms.
const EXCERPT_GAP_S: f64 = 0.5;

/// One captured datagram: capture time, and the UDP payload rebuilt from its header with
/// a zero payload of the captured length.
struct Datagram {
    line: usize,
    time: f64,
    bytes: Vec<u8>,
}

fn hex(s: &str) -> Vec<u8> {
    assert!(s.len() % 2 == 0, "odd hex length");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex digit"))
        .collect()
}

fn capture() -> Vec<Datagram> {
    let text = scream_data::read_to_string(CAPTURE).unwrap_or_else(|e| panic!("{e}"));
    let datagrams: Vec<Datagram> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.starts_with('#') && !l.trim().is_empty())
        .map(|(i, l)| {
            let cols: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(cols.len(), 4, "line {}: time, ECN, length, header", i + 1);
            let len: usize = cols[2].parse().expect("UDP payload length");
            let mut bytes = hex(cols[3]);
            assert_eq!(bytes.len(), HEADER, "line {}", i + 1);
            assert!(len >= HEADER, "line {}", i + 1);
            bytes.resize(len, 0);
            Datagram {
                line: i + 1,
                time: cols[0].parse().expect("capture time"),
                bytes,
            }
        })
        .collect();
    assert!(datagrams.len() >= 50, "capture looks truncated");
    datagrams
}

#[test]
fn every_datagram_parses_and_reemits_byte_for_byte() {
    for d in capture() {
        let packet =
            Packet::new_checked(&d.bytes[..]).unwrap_or_else(|e| panic!("line {}: {e}", d.line));
        assert_eq!(packet.header_len(), HEADER, "line {}", d.line);
        assert_eq!(
            packet.payload().len(),
            d.bytes.len() - HEADER,
            "line {}",
            d.line
        );
        assert_eq!(classify(&d.bytes), PacketKind::Rtp, "line {}", d.line);
        let repr = Repr::parse(&packet).expect("checked");
        assert_eq!(repr.buffer_len(), d.bytes.len(), "line {}", d.line);
        let mut out = vec![0xa5; repr.buffer_len()];
        assert_eq!(repr.emit_bytes(&mut out), Ok(d.bytes.len()));
        out[HEADER..].fill(0);
        assert_eq!(out, d.bytes, "line {}", d.line);
    }
}

/// The media packets with their parsed headers; asserts that everything else is the
/// one non-media datagram described at the top.
fn media() -> Vec<(Datagram, Repr)> {
    let mut media = Vec::new();
    let mut other = 0;
    for d in capture() {
        let repr = Repr::parse_bytes(&d.bytes).expect("parses");
        if repr.payload_type == MEDIA_PT {
            media.push((d, repr));
        } else {
            other += 1;
            assert_eq!(repr.payload_type, 127, "line {}", d.line);
            assert!(
                d.bytes[2..HEADER]
                    .iter()
                    .all(|b| b.is_ascii_graphic() || *b == b' '),
                "line {}: expected text after the first two octets",
                d.line
            );
        }
    }
    assert!(other <= 1, "{other} datagrams outside the media stream");
    media
}

#[test]
fn the_media_stream_is_one_ssrc_with_consecutive_sequence_numbers() {
    let media = media();
    let mut excerpts = 1;
    for pair in media.windows(2) {
        let [(a, ra), (b, rb)] = pair else {
            unreachable!()
        };
        assert_eq!(rb.ssrc, MEDIA_SSRC, "line {}", b.line);
        assert!(rb.csrcs.is_empty(), "line {}", b.line);
        let step = rb.sequence_number.wrapping_sub(ra.sequence_number);
        if b.time - a.time > EXCERPT_GAP_S {
            excerpts += 1;
            assert!(
                step < 0x8000,
                "line {}: sequence went back over the cut",
                b.line
            );
        } else {
            assert_eq!(step, 1, "line {}: sequence numbers not consecutive", b.line);
        }
    }
    assert_eq!(media[0].1.ssrc, MEDIA_SSRC);
    assert!(excerpts <= 2, "{excerpts} excerpts");
}

#[test]
fn timestamps_advance_per_frame_and_markers_end_frames() {
    let media = media();
    let mut frames_ended = 0;
    for pair in media.windows(2) {
        let [(a, ra), (b, rb)] = pair else {
            unreachable!()
        };
        let advance = rb.timestamp.wrapping_sub(ra.timestamp);
        assert!(
            advance < 0x8000_0000,
            "line {}: timestamp went back",
            b.line
        );
        if b.time - a.time > EXCERPT_GAP_S {
            continue; // frames may be cut at the excerpt boundary
        }
        if ra.marker {
            frames_ended += 1;
            assert!(
                advance > 0,
                "line {}: a marker did not end the frame",
                b.line
            );
        } else {
            assert_eq!(
                advance, 0,
                "line {}: timestamp changed without a marker",
                b.line
            );
            // Only a frame's last packet may be shorter than the MTU.
            assert_eq!(ra.payload_len, MTU_PAYLOAD, "line {}", a.line);
        }
        assert!(rb.payload_len <= MTU_PAYLOAD, "line {}", b.line);
    }
    assert!(frames_ended >= 5, "only {frames_ended} frame ends seen");
}

#[test]
fn timestamps_run_at_90_khz() {
    let media = media();
    let (first, last) = (&media[0], &media[media.len() - 1]);
    let media_s = f64::from(last.1.timestamp.wrapping_sub(first.1.timestamp)) / CLOCK_HZ;
    let capture_s = last.0.time - first.0.time;
    // Packets leave up to a few pacing intervals after their frame was stamped.
    assert!(
        (media_s - capture_s).abs() < 0.05,
        "{media_s:.3} s of media time over {capture_s:.3} s of capture"
    );
}
