//! Compound RTCP packets (RFC 3550 §6.1): several RTCP packets back to back in one
//! datagram, for example an SR, an SDES and a CCFB.

use super::error::Error;
use super::layout::rtcp_packet_len;
use super::options::ParseOptions;
use super::packet::Packet;
use super::repr::Repr;
use super::{FMT_CCFB, PT_RTPFB};

/// Splits a compound RTCP packet into its packets, each as `(offset, bytes)`.
///
/// Only the common RTCP header (version 2 and the length field) is checked; an error
/// ends the iteration.
pub fn rtcp_packets(bytes: &[u8]) -> RtcpPackets<'_> {
    RtcpPackets {
        bytes,
        offset: 0,
        failed: false,
    }
}

/// Iterator returned by [`rtcp_packets`].
#[derive(Clone, Debug)]
pub struct RtcpPackets<'a> {
    bytes: &'a [u8],
    offset: usize,
    failed: bool,
}

impl<'a> Iterator for RtcpPackets<'a> {
    type Item = Result<(usize, &'a [u8]), Error>;

    fn next(&mut self) -> Option<Self::Item> {
        let rest = self.bytes.get(self.offset..).filter(|r| !r.is_empty())?;
        if self.failed {
            return None;
        }
        match rtcp_packet_len(rest) {
            Ok(len) => {
                let at = self.offset;
                self.offset += len;
                Some(Ok((at, &rest[..len])))
            }
            Err(e) => {
                self.failed = true;
                Some(Err(e.shifted(self.offset)))
            }
        }
    }
}

/// Whether an RTCP packet is congestion control feedback (PT 205, FMT 11).
pub fn is_ccfb(packet: &[u8]) -> bool {
    matches!(packet, [first, pt, ..] if *pt == PT_RTPFB && first & 0x1f == FMT_CCFB)
}

/// The validated CCFB packets of a compound RTCP packet (or of a lone CCFB packet), each
/// with its offset, skipping other RTCP packets (SR, RR, SDES, other feedback ...).
/// Allocation-free; an error (with offsets into `bytes`) ends the iteration.
pub fn ccfb_packets<'a>(bytes: &'a [u8], options: &ParseOptions) -> CcfbPackets<'a> {
    CcfbPackets {
        inner: rtcp_packets(bytes),
        options: *options,
    }
}

/// Iterator returned by [`ccfb_packets`].
#[derive(Clone, Debug)]
pub struct CcfbPackets<'a> {
    inner: RtcpPackets<'a>,
    options: ParseOptions,
}

impl<'a> Iterator for CcfbPackets<'a> {
    type Item = Result<(usize, Packet<&'a [u8]>), Error>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let (offset, bytes) = match self.inner.next()? {
                Ok(item) => item,
                Err(e) => return Some(Err(e)),
            };
            if !is_ccfb(bytes) {
                continue;
            }
            let packet = Packet::new_checked(bytes, &self.options);
            if packet.is_err() {
                // Stop after a malformed CCFB packet as after a malformed header.
                self.inner = rtcp_packets(&[]);
            }
            return Some(packet.map(|p| (offset, p)).map_err(|e| e.shifted(offset)));
        }
    }
}

/// Parses every CCFB packet of a compound RTCP packet (or of a lone CCFB packet),
/// skipping other RTCP packets (SR, RR, SDES, other feedback ...).
///
/// Fails if any RTCP header is malformed, if a CCFB packet is, or if there is none.
pub fn parse_compound(bytes: &[u8], options: &ParseOptions) -> Result<Vec<Repr>, Error> {
    if bytes.is_empty() {
        return Err(Error::Empty);
    }
    let found = ccfb_packets(bytes, options)
        .map(|item| item.map(|(_, packet)| Repr::parse(&packet)))
        .collect::<Result<Vec<_>, _>>()?;
    if found.is_empty() {
        let packets = rtcp_packets(bytes).count();
        return Err(Error::NoCcfb { packets });
    }
    Ok(found)
}
