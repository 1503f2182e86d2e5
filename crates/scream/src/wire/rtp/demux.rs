//! Telling RTP from RTCP on a shared port (RFC 5761 §4).

use super::RTP_VERSION;
use super::packet::field::FIXED_HEADER_LEN;

/// Second octets that mean RTCP when RTP and RTCP share a port: RTCP packet types
/// 192..=223 (RFC 5761 §4). RTP payload types 64..=95 with the marker set would collide
/// with them, which is why RFC 5761 §4 forbids those payload types on a shared port.
const RTCP_PACKET_TYPES: core::ops::RangeInclusive<u8> = 192..=223;

/// Smallest RTCP packet: the 4-byte common header (a BYE without sources, RFC 3550
/// §6.6).
const RTCP_MIN_LEN: usize = 4;

/// What a datagram on a port shared by RTP and RTCP holds, judged by its first two
/// octets and its length alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PacketKind {
    /// An RTP data packet, to be validated with
    /// [`Packet::new_checked`](super::Packet::new_checked).
    Rtp,
    /// An RTCP packet (possibly compound), for example RFC 8888 feedback for
    /// [`ccfb`](crate::wire::ccfb).
    Rtcp,
    /// Neither: a version other than 2 (STUN, DTLS ...) or too short for either.
    Other,
}

/// Classifies a datagram received on a port that RTP and RTCP share (RFC 5761 §4): with
/// version 2, a second octet in 192..=223 is an RTCP packet type, anything else the
/// marker bit and payload type of RTP.
///
/// Constant time and no validation beyond the length each kind needs at least.
pub fn classify(bytes: &[u8]) -> PacketKind {
    match bytes {
        [first, second, ..] if first >> 6 == RTP_VERSION => {
            if RTCP_PACKET_TYPES.contains(second) {
                if bytes.len() >= RTCP_MIN_LEN {
                    PacketKind::Rtcp
                } else {
                    PacketKind::Other
                }
            } else if bytes.len() >= FIXED_HEADER_LEN {
                PacketKind::Rtp
            } else {
                PacketKind::Other
            }
        }
        _ => PacketKind::Other,
    }
}
