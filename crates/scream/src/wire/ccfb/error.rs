//! What can be wrong with CCFB bytes, and with a [`Repr`](super::Repr) to emit.

/// Why bytes are not a valid RFC 8888 packet (or compound RTCP packet holding one).
///
/// Offsets are byte offsets from the start of the buffer handed to the parser (for a
/// compound packet: from the start of the datagram).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The buffer ends before a field that must be there.
    #[error("truncated at offset {offset}: need {needed} bytes, {available} available")]
    Truncated {
        /// Where the missing field starts.
        offset: usize,
        /// Bytes the field needs.
        needed: usize,
        /// Bytes left in the buffer from `offset`.
        available: usize,
    },
    /// The RTCP version is not 2.
    #[error("RTCP version {version} at offset {offset}, expected 2")]
    Version {
        /// Start of the RTCP packet.
        offset: usize,
        /// The two version bits found.
        version: u8,
    },
    /// A well-formed RTCP packet that is not congestion control feedback.
    #[error("RTCP packet at offset {offset} has PT {pt} FMT {fmt}, expected PT 205 FMT 11")]
    NotCcfb {
        /// Start of the RTCP packet.
        offset: usize,
        /// Packet type found.
        pt: u8,
        /// Five-bit FMT (count) field found.
        fmt: u8,
    },
    /// The RTCP length field claims more bytes than the buffer holds.
    #[error(
        "RTCP length field at offset {offset} declares {declared} bytes, only {available} available"
    )]
    LengthExceedsBuffer {
        /// Start of the RTCP packet.
        offset: usize,
        /// Packet length implied by the length field, in bytes.
        declared: usize,
        /// Bytes left in the buffer from `offset`.
        available: usize,
    },
    /// The length field (less padding) leaves no room for the fixed CCFB fields.
    #[error(
        "CCFB packet at offset {offset} has {len} bytes of content, less than the 12-byte minimum"
    )]
    TooShort {
        /// Start of the RTCP packet.
        offset: usize,
        /// Bytes of content (packet length minus RTCP padding).
        len: usize,
    },
    /// The P bit is set but the last byte is not a usable padding count.
    #[error("RTCP padding count {count} at offset {offset} is invalid for a {len}-byte packet")]
    BadPadding {
        /// Offset of the padding count byte.
        offset: usize,
        /// The count found.
        count: u8,
        /// Length of the packet in bytes.
        len: usize,
    },
    /// Fewer bytes remain before the report timestamp than a block header needs, so the
    /// length field and the blocks disagree.
    #[error(
        "length field inconsistent: {remaining} bytes left at offset {offset} before the \
         report timestamp, too few for an 8-byte SSRC block header"
    )]
    PartialBlockHeader {
        /// Where the block header would start.
        offset: usize,
        /// Bytes left before the report timestamp.
        remaining: usize,
    },
    /// A block claims more metric blocks than RFC 8888 §3.1 allows.
    #[error(
        "SSRC block at offset {offset}: num_reports {num_reports} means {count} reports, \
         more than the RFC 8888 limit of 16384"
    )]
    TooManyReports {
        /// Start of the SSRC block.
        offset: usize,
        /// The field as written.
        num_reports: u16,
        /// Metric blocks it means under the count convention in use.
        count: usize,
    },
    /// A block's metric blocks run past the report timestamp.
    #[error(
        "SSRC block at offset {offset}: num_reports {num_reports} ({count} reports) needs \
         {needed} bytes, only {available} left before the report timestamp"
    )]
    ReportsOverflow {
        /// Start of the SSRC block.
        offset: usize,
        /// The field as written.
        num_reports: u16,
        /// Metric blocks it means under the count convention in use.
        count: usize,
        /// Bytes the block needs, header and padding included.
        needed: usize,
        /// Bytes left before the report timestamp.
        available: usize,
    },
    /// A compound RTCP packet without any congestion control feedback in it.
    #[error("no CCFB packet (PT 205, FMT 11) among the {packets} RTCP packets")]
    NoCcfb {
        /// Number of RTCP packets walked.
        packets: usize,
    },
    /// The buffer is empty.
    #[error("empty buffer")]
    Empty,
}

impl Error {
    /// The same error with every offset moved by `base` bytes, for errors found inside a
    /// sub-packet of a compound packet.
    #[must_use]
    pub(crate) fn shifted(self, base: usize) -> Self {
        match self {
            Self::Truncated {
                offset,
                needed,
                available,
            } => Self::Truncated {
                offset: offset + base,
                needed,
                available,
            },
            Self::Version { offset, version } => Self::Version {
                offset: offset + base,
                version,
            },
            Self::NotCcfb { offset, pt, fmt } => Self::NotCcfb {
                offset: offset + base,
                pt,
                fmt,
            },
            Self::LengthExceedsBuffer {
                offset,
                declared,
                available,
            } => Self::LengthExceedsBuffer {
                offset: offset + base,
                declared,
                available,
            },
            Self::TooShort { offset, len } => Self::TooShort {
                offset: offset + base,
                len,
            },
            Self::BadPadding { offset, count, len } => Self::BadPadding {
                offset: offset + base,
                count,
                len,
            },
            Self::PartialBlockHeader { offset, remaining } => Self::PartialBlockHeader {
                offset: offset + base,
                remaining,
            },
            Self::TooManyReports {
                offset,
                num_reports,
                count,
            } => Self::TooManyReports {
                offset: offset + base,
                num_reports,
                count,
            },
            Self::ReportsOverflow {
                offset,
                num_reports,
                count,
                needed,
                available,
            } => Self::ReportsOverflow {
                offset: offset + base,
                num_reports,
                count,
                needed,
                available,
            },
            other @ (Self::NoCcfb { .. } | Self::Empty) => other,
        }
    }
}

/// Why a [`Repr`](super::Repr) cannot be written.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EmitError {
    /// The output buffer is smaller than [`Repr::buffer_len`](super::Repr::buffer_len).
    #[error("buffer of {available} bytes too small for a {needed}-byte CCFB packet")]
    BufferTooSmall {
        /// Bytes the packet needs.
        needed: usize,
        /// Bytes in the buffer.
        available: usize,
    },
    /// A block has more reports than RFC 8888 §3.1 allows.
    #[error("block {block} has {count} reports, more than the RFC 8888 limit of 16384")]
    TooManyReports {
        /// Index of the block in [`Repr::blocks`](super::Repr::blocks).
        block: usize,
        /// Its number of reports.
        count: usize,
    },
    /// The minus-one convention cannot express a block without reports.
    #[error("block {block} is empty, which num_reports written as count-1 cannot express")]
    EmptyBlockMinusOne {
        /// Index of the block.
        block: usize,
    },
    /// The packet would exceed what the 16-bit RTCP length field can describe.
    #[error("a {len}-byte packet exceeds the RTCP maximum of 262144 bytes")]
    TooLong {
        /// Bytes the packet would need.
        len: usize,
    },
}
