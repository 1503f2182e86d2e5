//! Owned, high-level form of a CCFB packet.

use super::RTCP_VERSION;
use super::error::{EmitError, Error};
use super::options::{CountConvention, ParseOptions};
use super::packet::{Packet, field};
use super::{ATO_UNAVAILABLE, FMT_CCFB, MAX_PACKET_LEN, MAX_REPORTS_PER_BLOCK, PT_RTPFB};
use crate::ecn::Ecn;

/// One 16-bit metric block: the fate of one RTP packet (RFC 8888 §3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct MetricBlock {
    /// R bit: the packet was received.
    pub received: bool,
    /// ECN codepoint the packet carried. `NotEct` when not received.
    pub ecn: Ecn,
    /// Arrival time offset before the report timestamp, in 1/1024 s (13 bits).
    /// [`ATO_MAX`](super::ATO_MAX) means "that long or longer",
    /// [`ATO_UNAVAILABLE`](super::ATO_UNAVAILABLE) "unknown". Zero when not received.
    pub ato: u16,
}

impl MetricBlock {
    /// A packet that was not received.
    pub const NOT_RECEIVED: Self = Self {
        received: false,
        ecn: Ecn::NotEct,
        ato: 0,
    };

    /// A received packet; `ato` is masked to 13 bits.
    pub const fn received(ecn: Ecn, ato: u16) -> Self {
        Self {
            received: true,
            ecn,
            ato: ato & ATO_UNAVAILABLE,
        }
    }

    /// Decodes a wire word. With R=0 the other bits carry nothing (RFC 8888 §3.1) and
    /// are ignored, so a lost packet never looks as if it carried a mark.
    pub const fn from_word(word: u16) -> Self {
        if word & 0x8000 == 0 {
            return Self::NOT_RECEIVED;
        }
        Self::received(Ecn::from_bits((word >> 13) as u8), word)
    }

    /// Encodes to a wire word; a not-received block is all zero.
    pub const fn word(self) -> u16 {
        if !self.received {
            return 0;
        }
        0x8000 | ((self.ecn.bits() as u16) << 13) | (self.ato & ATO_UNAVAILABLE)
    }
}

/// The reports for one media SSRC.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct BlockRepr {
    /// SSRC of the media stream.
    pub media_ssrc: u32,
    /// Sequence number of `reports[0]`; report `i` is about `begin_seq + i` modulo 2^16.
    pub begin_seq: u16,
    /// One metric block per sequence number, at most
    /// [`MAX_REPORTS_PER_BLOCK`](super::MAX_REPORTS_PER_BLOCK).
    pub reports: Vec<MetricBlock>,
}

impl BlockRepr {
    /// Sequence number of report `index` (wraps modulo 2^16).
    pub fn seq(&self, index: usize) -> u16 {
        // Truncation is the RFC's modulo-2^16 arithmetic.
        self.begin_seq.wrapping_add(index as u16)
    }

    pub(crate) fn buffer_len(&self) -> usize {
        #[cfg(test)]
        work::count_block_len();
        field::block::len(self.reports.len())
    }
}

/// Counts block-length evaluations on the current thread, so that a unit test can tell
/// a linear encoder from a quadratic one by the work done rather than by timing it.
#[cfg(test)]
pub(crate) mod work {
    use std::cell::Cell;

    thread_local! {
        static BLOCK_LENS: Cell<u64> = const { Cell::new(0) };
    }

    pub(crate) fn count_block_len() {
        BLOCK_LENS.with(|c| c.set(c.get() + 1));
    }

    /// Evaluations since the last call.
    pub(crate) fn take_block_lens() -> u64 {
        BLOCK_LENS.with(|c| c.replace(0))
    }
}

/// A whole CCFB packet.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Repr {
    /// SSRC of the RTCP packet sender (the media receiver).
    pub sender_ssrc: u32,
    /// Middle 32 bits of an NTP timestamp (1/65536 s) when the report was made.
    pub report_timestamp: u32,
    /// One block per media SSRC, in packet order.
    pub blocks: Vec<BlockRepr>,
}

impl Repr {
    /// Reads a validated packet.
    pub fn parse<T: AsRef<[u8]>>(packet: &Packet<T>) -> Self {
        let blocks = packet
            .blocks()
            .map(|b| BlockRepr {
                media_ssrc: b.media_ssrc(),
                begin_seq: b.begin_seq(),
                reports: b.metrics().collect(),
            })
            .collect();
        Self {
            sender_ssrc: packet.sender_ssrc(),
            report_timestamp: packet.report_timestamp(),
            blocks,
        }
    }

    /// Validates and reads one CCFB packet at the start of `bytes`.
    pub fn parse_bytes(bytes: &[u8], options: &ParseOptions) -> Result<Self, Error> {
        Ok(Self::parse(&Packet::new_checked(bytes, options)?))
    }

    /// Bytes [`emit`](Self::emit) writes (no RTCP padding is ever added: the packet is
    /// 32-bit aligned by construction).
    pub fn buffer_len(&self) -> usize {
        field::MIN_LEN + self.blocks.iter().map(BlockRepr::buffer_len).sum::<usize>()
    }

    /// Writes the packet with `num_reports` as RFC 8888 defines it; returns its length.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, EmitError> {
        self.emit_with(buf, CountConvention::Rfc)
    }

    /// Writes the packet with `num_reports` in the given convention (count−1 only to
    /// talk to a peer that expects it); returns its length.
    pub fn emit_with(
        &self,
        buf: &mut [u8],
        convention: CountConvention,
    ) -> Result<usize, EmitError> {
        let len = self.buffer_len();
        if len > MAX_PACKET_LEN {
            return Err(EmitError::TooLong { len });
        }
        let available = buf.len();
        let out = buf.get_mut(..len).ok_or(EmitError::BufferTooSmall {
            needed: len,
            available,
        })?;
        let mut num_reports = Vec::with_capacity(self.blocks.len());
        for (block, b) in self.blocks.iter().enumerate() {
            let count = b.reports.len();
            if count > MAX_REPORTS_PER_BLOCK {
                return Err(EmitError::TooManyReports { block, count });
            }
            num_reports.push(
                convention
                    .field(count)
                    .ok_or(EmitError::EmptyBlockMinusOne { block })?,
            );
        }

        let words = u16::try_from(len / 4 - 1).map_err(|_| EmitError::TooLong { len })?;
        out[field::VER_PAD_FMT] = (RTCP_VERSION << 6) | FMT_CCFB;
        out[field::PACKET_TYPE] = PT_RTPFB;
        out[field::LENGTH].copy_from_slice(&words.to_be_bytes());
        out[field::SENDER_SSRC].copy_from_slice(&self.sender_ssrc.to_be_bytes());
        let mut at = field::FIRST_BLOCK;
        for (b, n) in self.blocks.iter().zip(num_reports) {
            let block = &mut out[at..at + b.buffer_len()];
            block[field::block::MEDIA_SSRC].copy_from_slice(&b.media_ssrc.to_be_bytes());
            block[field::block::BEGIN_SEQ].copy_from_slice(&b.begin_seq.to_be_bytes());
            block[field::block::NUM_REPORTS].copy_from_slice(&n.to_be_bytes());
            let metrics = &mut block[field::block::HEADER_LEN..];
            metrics.fill(0); // the padding slot of an odd count is zero (RFC 8888 §3.1)
            for (slot, m) in metrics.chunks_exact_mut(field::METRIC_LEN).zip(&b.reports) {
                slot.copy_from_slice(&m.word().to_be_bytes());
            }
            at += b.buffer_len();
        }
        out[at..at + field::REPORT_TIMESTAMP_LEN]
            .copy_from_slice(&self.report_timestamp.to_be_bytes());
        debug_assert_eq!(at + field::REPORT_TIMESTAMP_LEN, len);
        Ok(len)
    }

    /// Appends the packet to `out` (RFC convention).
    pub fn emit_to_vec(&self, out: &mut Vec<u8>) -> Result<usize, EmitError> {
        self.emit_to_vec_with(out, CountConvention::Rfc)
    }

    /// Appends the packet to `out` with `num_reports` in `convention`.
    pub fn emit_to_vec_with(
        &self,
        out: &mut Vec<u8>,
        convention: CountConvention,
    ) -> Result<usize, EmitError> {
        let len = self.buffer_len();
        if len > MAX_PACKET_LEN {
            return Err(EmitError::TooLong { len });
        }
        let start = out.len();
        out.resize(start + len, 0);
        let result = self.emit_with(&mut out[start..], convention);
        if result.is_err() {
            out.truncate(start);
        }
        result
    }

    /// Total number of metric blocks over all SSRC blocks.
    pub fn report_count(&self) -> usize {
        self.blocks.iter().map(|b| b.reports.len()).sum()
    }
}
