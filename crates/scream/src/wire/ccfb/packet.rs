//! Zero-copy view of one CCFB packet.

use super::error::Error;
use super::layout::{Layout, validate};
use super::options::{CountConvention, ParseOptions};
use super::repr::MetricBlock;

/// Byte positions of the fields (RFC 8888 §3.1).
pub mod field {
    /// A byte range in a packet or block.
    pub type Field = core::ops::Range<usize>;

    /// Version (2 bits), padding flag (1 bit), FMT (5 bits).
    pub const VER_PAD_FMT: usize = 0;
    /// RTCP packet type.
    pub const PACKET_TYPE: usize = 1;
    /// RTCP length in 32-bit words minus one.
    pub const LENGTH: Field = 2..4;
    /// SSRC of the RTCP packet sender.
    pub const SENDER_SSRC: Field = 4..8;
    /// The header every RTCP packet starts with (version to length), in bytes.
    pub const COMMON_HEADER_LEN: usize = 4;
    /// RTCP header plus sender SSRC, in bytes.
    pub const HEADER_LEN: usize = 8;
    /// Offset of the first SSRC block.
    pub const FIRST_BLOCK: usize = 8;
    /// Length of the trailing report timestamp.
    pub const REPORT_TIMESTAMP_LEN: usize = 4;
    /// Smallest CCFB packet: header, sender SSRC, report timestamp, no blocks.
    pub const MIN_LEN: usize = HEADER_LEN + REPORT_TIMESTAMP_LEN;
    /// Length of one metric block.
    pub const METRIC_LEN: usize = 2;

    /// Positions inside one SSRC block, relative to its start.
    pub mod block {
        use super::{Field, METRIC_LEN};

        /// SSRC of the media stream.
        pub const MEDIA_SSRC: Field = 0..4;
        /// First sequence number reported.
        pub const BEGIN_SEQ: Field = 4..6;
        /// Number of metric blocks (or that minus one, depending on the writer).
        pub const NUM_REPORTS: Field = 6..8;
        /// Length of the block header; the metric blocks follow.
        pub const HEADER_LEN: usize = 8;

        /// Byte range of metric block `index`.
        pub const fn metric(index: usize) -> Field {
            let start = HEADER_LEN + index * METRIC_LEN;
            start..start + METRIC_LEN
        }

        /// Length of a block of `count` metric blocks, padded to 32 bits.
        pub const fn len(count: usize) -> usize {
            HEADER_LEN + count.next_multiple_of(2) * METRIC_LEN
        }
    }
}

/// A CCFB packet over any byte buffer, validated on construction.
///
/// The buffer may be longer than the packet (the RTCP length field delimits it), as in a
/// compound packet.
#[derive(Clone, Debug)]
pub struct Packet<T: AsRef<[u8]>> {
    buffer: T,
    layout: Layout,
}

impl<T: AsRef<[u8]>> Packet<T> {
    /// Validates the whole packet: header, length, padding and every SSRC block, reading
    /// `num_reports` as `options` say. Afterwards no accessor can panic.
    pub fn new_checked(buffer: T, options: &ParseOptions) -> Result<Self, Error> {
        let layout = validate(buffer.as_ref(), options.count)?;
        Ok(Self { buffer, layout })
    }

    /// The underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    fn bytes(&self) -> &[u8] {
        &self.buffer.as_ref()[..self.layout.len]
    }

    fn u32_at(&self, range: field::Field) -> u32 {
        let b = &self.bytes()[range];
        u32::from_be_bytes([b[0], b[1], b[2], b[3]])
    }

    /// RTCP version; always 2 in a validated packet.
    pub fn version(&self) -> u8 {
        self.bytes()[field::VER_PAD_FMT] >> 6
    }

    /// Whether the RTCP padding flag is set.
    pub fn padding(&self) -> bool {
        self.bytes()[field::VER_PAD_FMT] & 0x20 != 0
    }

    /// Feedback message type; always 11 in a validated packet.
    pub fn fmt(&self) -> u8 {
        self.bytes()[field::VER_PAD_FMT] & 0x1f
    }

    /// RTCP packet type; always 205 in a validated packet.
    pub fn packet_type(&self) -> u8 {
        self.bytes()[field::PACKET_TYPE]
    }

    /// The RTCP length field: packet length in 32-bit words minus one.
    pub fn length_field(&self) -> u16 {
        let b = &self.bytes()[field::LENGTH];
        u16::from_be_bytes([b[0], b[1]])
    }

    /// Length of the packet in bytes, RTCP padding included.
    pub fn total_len(&self) -> usize {
        self.layout.len
    }

    /// Bytes of RTCP padding at the end (0 without the P bit).
    pub fn padding_len(&self) -> usize {
        self.layout.len - self.layout.content_end
    }

    /// SSRC of the RTCP packet sender.
    pub fn sender_ssrc(&self) -> u32 {
        self.u32_at(field::SENDER_SSRC)
    }

    /// Report timestamp: the middle 32 bits of an NTP timestamp, in 1/65536 s.
    pub fn report_timestamp(&self) -> u32 {
        let end = self.layout.content_end;
        self.u32_at(end - field::REPORT_TIMESTAMP_LEN..end)
    }

    /// How `num_reports` was read (the detected convention under automatic detection).
    pub fn count_convention(&self) -> CountConvention {
        self.layout.convention
    }

    /// The SSRC blocks in packet order.
    pub fn blocks(&self) -> Blocks<'_> {
        let end = self.layout.content_end - field::REPORT_TIMESTAMP_LEN;
        Blocks {
            rest: &self.bytes()[field::FIRST_BLOCK..end],
            convention: self.layout.convention,
        }
    }
}

/// Iterator over the SSRC blocks of a validated [`Packet`].
#[derive(Clone, Debug)]
pub struct Blocks<'a> {
    rest: &'a [u8],
    convention: CountConvention,
}

impl<'a> Iterator for Blocks<'a> {
    type Item = BlockView<'a>;

    fn next(&mut self) -> Option<BlockView<'a>> {
        // Validation guarantees whole blocks; `get` keeps this total regardless.
        let header = self.rest.get(..field::block::HEADER_LEN)?;
        let num_reports = u16::from_be_bytes([
            header[field::block::NUM_REPORTS.start],
            header[field::block::NUM_REPORTS.start + 1],
        ]);
        let count = self.convention.count(num_reports);
        let len = field::block::len(count);
        let bytes = self.rest.get(..len)?;
        self.rest = &self.rest[len..];
        Some(BlockView {
            bytes,
            num_reports,
            count,
        })
    }
}

/// One SSRC block of a validated [`Packet`].
#[derive(Clone, Copy, Debug)]
pub struct BlockView<'a> {
    bytes: &'a [u8],
    num_reports: u16,
    count: usize,
}

impl<'a> BlockView<'a> {
    /// SSRC of the media stream reported on.
    pub fn media_ssrc(&self) -> u32 {
        let b = &self.bytes[field::block::MEDIA_SSRC];
        u32::from_be_bytes([b[0], b[1], b[2], b[3]])
    }

    /// Sequence number of the first metric block.
    pub fn begin_seq(&self) -> u16 {
        let b = &self.bytes[field::block::BEGIN_SEQ];
        u16::from_be_bytes([b[0], b[1]])
    }

    /// The `num_reports` field as written.
    pub fn num_reports_field(&self) -> u16 {
        self.num_reports
    }

    /// Number of metric blocks (the field read under the packet's convention).
    pub fn report_count(&self) -> usize {
        self.count
    }

    /// Sequence number that metric block `index` reports on (wraps modulo 2^16).
    pub fn seq(&self, index: usize) -> u16 {
        // Truncation is the RFC's modulo-2^16 arithmetic.
        self.begin_seq().wrapping_add(index as u16)
    }

    /// Metric block `index`, or `None` past the end.
    pub fn metric(&self, index: usize) -> Option<MetricBlock> {
        if index >= self.count {
            return None;
        }
        let b = self.bytes.get(field::block::metric(index))?;
        Some(MetricBlock::from_word(u16::from_be_bytes([b[0], b[1]])))
    }

    /// The metric blocks in order.
    pub fn metrics(&self) -> Metrics<'a> {
        let end = field::block::HEADER_LEN + self.count * field::METRIC_LEN;
        Metrics {
            rest: self
                .bytes
                .get(field::block::HEADER_LEN..end)
                .unwrap_or_default(),
        }
    }
}

/// Iterator over the metric blocks of one [`BlockView`].
#[derive(Clone, Debug)]
pub struct Metrics<'a> {
    rest: &'a [u8],
}

impl Iterator for Metrics<'_> {
    type Item = MetricBlock;

    fn next(&mut self) -> Option<MetricBlock> {
        let (word, rest) = self.rest.split_first_chunk::<2>()?;
        self.rest = rest;
        Some(MetricBlock::from_word(u16::from_be_bytes(*word)))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.rest.len() / field::METRIC_LEN;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Metrics<'_> {}
