//! Validation of a CCFB packet: everything [`Packet`](super::Packet) accessors rely on.

use super::error::Error;
use super::options::{CountConvention, CountMode};
use super::packet::field;
use super::{FMT_CCFB, MAX_REPORTS_PER_BLOCK, PT_RTPFB, RTCP_VERSION};

/// Byte extents of a validated packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    /// Length of the RTCP packet, padding included (from the length field).
    pub(crate) len: usize,
    /// End of the report timestamp (`len` minus RTCP padding).
    pub(crate) content_end: usize,
    /// How `num_reports` is read.
    pub(crate) convention: CountConvention,
}

/// Checks the RTCP header common to all packets of a compound packet and returns the
/// packet's length in bytes. `bytes` starts at the header.
pub(crate) fn rtcp_packet_len(bytes: &[u8]) -> Result<usize, Error> {
    let header = bytes
        .get(..field::COMMON_HEADER_LEN)
        .ok_or(Error::Truncated {
            offset: 0,
            needed: field::COMMON_HEADER_LEN,
            available: bytes.len(),
        })?;
    let version = header[field::VER_PAD_FMT] >> 6;
    if version != RTCP_VERSION {
        return Err(Error::Version { offset: 0, version });
    }
    let words = u16::from_be_bytes([header[field::LENGTH.start], header[field::LENGTH.start + 1]]);
    let len = (usize::from(words) + 1) * 4;
    if len > bytes.len() {
        return Err(Error::LengthExceedsBuffer {
            offset: 0,
            declared: len,
            available: bytes.len(),
        });
    }
    Ok(len)
}

/// Validates a CCFB packet at the start of `bytes` (which may hold more after it).
pub(crate) fn validate(bytes: &[u8], mode: CountMode) -> Result<Layout, Error> {
    let len = rtcp_packet_len(bytes)?;
    let pt = bytes[field::PACKET_TYPE];
    let fmt = bytes[field::VER_PAD_FMT] & 0x1f;
    if pt != PT_RTPFB || fmt != FMT_CCFB {
        return Err(Error::NotCcfb { offset: 0, pt, fmt });
    }
    let content_end = content_end(bytes, len)?;
    match mode {
        CountMode::Fixed(convention) => {
            walk(bytes, content_end, convention)?;
            Ok(Layout {
                len,
                content_end,
                convention,
            })
        }
        CountMode::Auto { fallback } => {
            let rfc = walk(bytes, content_end, CountConvention::Rfc);
            let minus_one = walk(bytes, content_end, CountConvention::MinusOne);
            let convention = match (rfc, minus_one) {
                (Ok(rfc_padding), Ok(_)) if rfc_padding.nonzero => CountConvention::MinusOne,
                (Ok(_), Ok(_)) => fallback,
                (Ok(_), Err(_)) => CountConvention::Rfc,
                (Err(_), Ok(_)) => CountConvention::MinusOne,
                (Err(rfc_err), Err(minus_one_err)) => {
                    return Err(match fallback {
                        CountConvention::Rfc => rfc_err,
                        CountConvention::MinusOne => minus_one_err,
                    });
                }
            };
            Ok(Layout {
                len,
                content_end,
                convention,
            })
        }
    }
}

/// End of the CCFB content: the packet length less RTCP padding (RFC 3550 §6.4.1: with
/// the P bit set, the last octet counts the padding octets, itself included).
fn content_end(bytes: &[u8], len: usize) -> Result<usize, Error> {
    let padded = bytes[field::VER_PAD_FMT] & 0x20 != 0;
    let end = if padded {
        let count = bytes[len - 1];
        let end = len.checked_sub(usize::from(count)).filter(|_| count != 0);
        end.ok_or(Error::BadPadding {
            offset: len - 1,
            count,
            len,
        })?
    } else {
        len
    };
    if end < field::MIN_LEN {
        return Err(Error::TooShort {
            offset: 0,
            len: end,
        });
    }
    Ok(end)
}

/// What the padding slots of odd blocks hold, under one convention.
#[derive(Clone, Copy, Debug)]
struct PaddingSeen {
    nonzero: bool,
}

/// Walks the SSRC blocks between the sender SSRC and the report timestamp and checks that
/// they tile that space exactly.
fn walk(
    bytes: &[u8],
    content_end: usize,
    convention: CountConvention,
) -> Result<PaddingSeen, Error> {
    let blocks_end = content_end - field::REPORT_TIMESTAMP_LEN;
    let mut offset = field::FIRST_BLOCK;
    let mut seen = PaddingSeen { nonzero: false };
    while offset < blocks_end {
        let remaining = blocks_end - offset;
        if remaining < field::block::HEADER_LEN {
            return Err(Error::PartialBlockHeader { offset, remaining });
        }
        let at = offset + field::block::NUM_REPORTS.start;
        let num_reports = u16::from_be_bytes([bytes[at], bytes[at + 1]]);
        let count = convention.count(num_reports);
        if count > MAX_REPORTS_PER_BLOCK {
            return Err(Error::TooManyReports {
                offset,
                num_reports,
                count,
            });
        }
        let needed = field::block::len(count);
        if needed > remaining {
            return Err(Error::ReportsOverflow {
                offset,
                num_reports,
                count,
                needed,
                available: remaining,
            });
        }
        if count % 2 == 1 {
            let pad = offset + needed - field::METRIC_LEN;
            seen.nonzero |= bytes[pad] != 0 || bytes[pad + 1] != 0;
        }
        offset += needed;
    }
    Ok(seen)
}
