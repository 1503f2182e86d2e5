//! Conversion between CCFB packets and the abstract [`Feedback`].

use super::compound::parse_compound;
use super::error::Error;
use super::options::{CountConvention, ParseOptions};
use super::packet::field;
use super::repr::{BlockRepr, MetricBlock, Repr};
use super::timestamp::{
    Q16_TICKS_PER_ATO, TimestampUnwrapper, duration_to_ato, nanos_to_q16, q16_to_nanos,
};
use super::{ATO_UNAVAILABLE, MAX_PACKET_LEN, MAX_REPORTS_PER_BLOCK};
use crate::feedback::{Feedback, PacketReport, PacketStatus};
use crate::time::{Duration, RemoteInstant};

/// Converts a parsed packet to abstract feedback.
///
/// `report_time` is the report timestamp extended by `unwrapper` (keep one unwrapper per
/// feedback sender for the whole session, and accept into it the reports that count). A received packet arrived `ato`/1024 s before
/// it; ATO 0x1FFF gives `arrival: None`; 0x1FFE ("that long or longer") is taken at face
/// value (the sender uses no arrival time that is older than the packet). R=0 gives
/// [`PacketStatus::NotReceived`].
pub fn to_feedback(repr: &Repr, unwrapper: &TimestampUnwrapper) -> Feedback {
    let mut feedback = Feedback::default();
    to_feedback_into(repr, unwrapper, &mut feedback);
    feedback
}

/// Like [`to_feedback`], but appends the reports to `feedback` (whose allocation can be
/// reused) and sets its `report_time`.
pub fn to_feedback_into(repr: &Repr, unwrapper: &TimestampUnwrapper, feedback: &mut Feedback) {
    let report_ticks = unwrapper.place(repr.report_timestamp);
    feedback.report_time = RemoteInstant::from_nanos(q16_to_nanos(report_ticks));
    feedback.reports.reserve(repr.report_count());
    for block in &repr.blocks {
        for (index, metric) in block.reports.iter().enumerate() {
            let status = if metric.received {
                let arrival = (metric.ato != ATO_UNAVAILABLE).then(|| {
                    let ticks =
                        report_ticks.saturating_sub(u64::from(metric.ato) * Q16_TICKS_PER_ATO);
                    RemoteInstant::from_nanos(q16_to_nanos(ticks))
                });
                PacketStatus::Received {
                    arrival,
                    ecn: metric.ecn,
                }
            } else {
                PacketStatus::NotReceived
            };
            feedback.reports.push(PacketReport {
                ssrc: block.media_ssrc,
                seq: block.seq(index),
                status,
            });
        }
    }
}

/// Most sequence numbers [`encode_feedback`] fills with R=0 entries between two
/// consecutive reports of a block; a wider gap starts a new block. A receiver's default
/// report window (64 numbers) lists every number it covers, so its reports never have
/// gaps; the limit is for sparse input, which would otherwise cost up to 32 KiB per
/// report.
const MAX_FILLED_GAP: usize = 64;

/// Builds a packet from abstract feedback.
///
/// Consecutive reports of one SSRC in increasing sequence order share a block; sequence
/// numbers skipped inside a run become R=0 entries. A new block starts when the SSRC
/// changes, the sequence number does not move forward, or the block would exceed
/// [`MAX_REPORTS_PER_BLOCK`](super::MAX_REPORTS_PER_BLOCK). The report timestamp is
/// `report_time` in Q16 seconds (low 32 bits); offsets are measured from that rounded
/// timestamp, rounded to 1/1024 s and clamped to 0x1FFE; an unknown arrival gives 0x1FFF.
///
/// Every gap short of a whole block is filled, so sparse input makes a large packet;
/// [`encode_feedback`] bounds its output instead.
pub fn from_feedback(feedback: &Feedback, sender_ssrc: u32) -> Repr {
    blocks_of(feedback, sender_ssrc, MAX_REPORTS_PER_BLOCK)
}

/// [`from_feedback`], filling gaps of at most `max_gap` sequence numbers.
fn blocks_of(feedback: &Feedback, sender_ssrc: u32, max_gap: usize) -> Repr {
    let report_ticks = nanos_to_q16(feedback.report_time.as_nanos());
    let report_time = RemoteInstant::from_nanos(q16_to_nanos(report_ticks));
    let mut blocks: Vec<BlockRepr> = Vec::new();
    for report in &feedback.reports {
        let metric = metric_block(report.status, report_time);
        let run = blocks.last_mut().and_then(|b| {
            // Sequence numbers the report skips after the block's last one.
            let gap = usize::from(report.seq.wrapping_sub(b.seq(b.reports.len())));
            let fits = gap <= max_gap && b.reports.len() + gap < MAX_REPORTS_PER_BLOCK;
            (b.media_ssrc == report.ssrc && fits).then_some((b, gap))
        });
        match run {
            Some((block, gap)) => {
                let filled = block.reports.len() + gap;
                block.reports.resize(filled, MetricBlock::NOT_RECEIVED);
                block.reports.push(metric);
            }
            None => blocks.push(BlockRepr {
                media_ssrc: report.ssrc,
                begin_seq: report.seq,
                reports: vec![metric],
            }),
        }
    }
    Repr {
        sender_ssrc,
        // The report timestamp is the low 32 bits of the extended Q16 time.
        report_timestamp: report_ticks as u32,
        blocks,
    }
}

fn metric_block(status: PacketStatus, report_time: RemoteInstant) -> MetricBlock {
    match status {
        PacketStatus::NotReceived => MetricBlock::NOT_RECEIVED,
        PacketStatus::Received { arrival, ecn } => {
            let ato = arrival.map_or(ATO_UNAVAILABLE, |a| {
                duration_to_ato(
                    report_time
                        .checked_duration_since(a)
                        .unwrap_or(Duration::ZERO),
                )
            });
            MetricBlock::received(ecn, ato)
        }
    }
}

/// Encodes `feedback` as RFC 8888 bytes, replacing the contents of `out`.
///
/// Blocks are built as by [`from_feedback`], except that a gap of more than 64
/// sequence numbers between two reports of one SSRC starts a new block instead of
/// being filled with R=0 entries: the numbers in such a gap are not reported at all
/// (neither received nor lost), as if the feedback had not covered them. Every report
/// given is written, in the order given, and [`decode_feedback`] gives each of them
/// back (with its arrival rounded to 1/1024 s), plus R=0 entries for the gaps it
/// filled.
///
/// **Size bound**: for `n` reports the output has at most `12 + 131·n` bytes, whatever
/// their sequence numbers (sparse, unsorted, duplicate, wrapping) or SSRCs. A report
/// costs at most 130 bytes: 2 for its entry plus 2 per filled number (at most 64), or
/// 12 when it starts a block (8-byte header, its entry, padding). Each RTCP packet has
/// a 12-byte header and timestamp; the first is the 12, and a further one is only
/// started when a packet holds over 229 KB, that is over 1 700 reports, so each adds
/// less than a byte per report.
///
/// Normally one CCFB packet; feedback too large for one RTCP packet (over 262144 bytes)
/// becomes a compound of several CCFB packets with the same timestamp, which
/// [`decode_feedback`] reassembles.
pub fn encode_feedback(feedback: &Feedback, sender_ssrc: u32, out: &mut Vec<u8>) {
    encode_feedback_with(feedback, sender_ssrc, CountConvention::Rfc, out);
}

/// [`encode_feedback`] with `num_reports` written in `convention`: count − 1 only for
/// a peer that reads it so (the Ericsson reference; see [`CountConvention`]).
pub fn encode_feedback_with(
    feedback: &Feedback,
    sender_ssrc: u32,
    convention: CountConvention,
    out: &mut Vec<u8>,
) {
    out.clear();
    let repr = blocks_of(feedback, sender_ssrc, MAX_FILLED_GAP);
    if repr.buffer_len() <= MAX_PACKET_LEN {
        emit_infallible(&repr, convention, out);
        return;
    }
    let mut chunk = Repr {
        sender_ssrc,
        report_timestamp: repr.report_timestamp,
        blocks: Vec::new(),
    };
    // The chunk's length is kept as a running sum: sizing the whole chunk again for
    // every block made large feedback quadratic in its number of blocks.
    let mut chunk_len = field::MIN_LEN;
    for block in repr.blocks {
        let block_len = block.buffer_len();
        if chunk_len + block_len > MAX_PACKET_LEN && !chunk.blocks.is_empty() {
            emit_infallible(&chunk, convention, out);
            chunk.blocks.clear();
            chunk_len = field::MIN_LEN;
        }
        chunk_len += block_len;
        chunk.blocks.push(block);
    }
    emit_infallible(&chunk, convention, out);
}

fn emit_infallible(repr: &Repr, convention: CountConvention, out: &mut Vec<u8>) {
    let written = repr.emit_to_vec_with(out, convention);
    // Blocks hold at most MAX_REPORTS_PER_BLOCK reports and packets at most
    // MAX_PACKET_LEN bytes by construction, and a report never has an empty block
    // (count − 1 cannot write one), so emitting cannot fail.
    debug_assert!(written.is_ok(), "CCFB emit failed: {written:?}");
}

/// Decodes RFC 8888 bytes (one CCFB packet, or a compound RTCP packet holding one or
/// more) into abstract feedback.
///
/// Reports of all CCFB packets are concatenated; `report_time` is the latest of their
/// timestamps. Pass the same `unwrapper` for every packet of a session; decoding does
/// not change it ([`TimestampUnwrapper::accept`] does).
pub fn decode_feedback(
    bytes: &[u8],
    options: &ParseOptions,
    unwrapper: &TimestampUnwrapper,
) -> Result<Feedback, Error> {
    let reprs = parse_compound(bytes, options)?;
    let mut feedback = Feedback::default();
    let mut latest = RemoteInstant::ZERO;
    for repr in &reprs {
        to_feedback_into(repr, unwrapper, &mut feedback);
        latest = latest.max(feedback.report_time);
    }
    feedback.report_time = latest;
    Ok(feedback)
}

#[cfg(test)]
mod tests {
    use super::super::repr::work::take_block_lens;
    use super::*;
    use crate::ecn::Ecn;

    #[test]
    fn encode_feedback_is_linear_in_its_size() {
        // One report per SSRC: 40 000 blocks of 12 bytes, two RTCP packets' worth.
        let t = RemoteInstant::from_millis(1);
        let blocks = 40_000u32;
        let feedback = Feedback {
            report_time: t,
            reports: (0..blocks)
                .map(|ssrc| PacketReport {
                    ssrc,
                    seq: 0,
                    status: PacketStatus::Received {
                        arrival: Some(t),
                        ecn: Ecn::NotEct,
                    },
                })
                .collect(),
        };
        let mut out = Vec::new();
        take_block_lens();
        encode_feedback(&feedback, 1, &mut out);
        let work = take_block_lens();
        assert_eq!(out.len(), 2 * field::MIN_LEN + 40_000 * 12, "two packets");
        // Sizing each block a bounded number of times is linear; re-adding up every
        // block so far for each new one is quadratic (about 2.4e8 here).
        assert!(
            work <= 8 * u64::from(blocks),
            "{work} block-length evaluations for {blocks} blocks"
        );
    }

    /// `n` reports in five runs: sparse (gaps of up to 16 000), random, duplicate,
    /// wrapping (65 500 onwards in steps of 3) and backward sequence numbers, over three
    /// SSRCs, received with every ECN codepoint or not received.
    fn adversarial(n: usize, report_time: RemoteInstant) -> Feedback {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut seq = 0u16;
        let reports = (0..n)
            .map(|i| {
                let r = next();
                let run = i * 5 / n;
                seq = match run {
                    0 => seq.wrapping_add(1000 + (r % 15_000) as u16),
                    1 => r as u16,
                    2 => seq,
                    3 => 65_500u16.wrapping_add((3 * i) as u16),
                    _ => seq.wrapping_sub(1),
                };
                let status = if r % 3 == 0 {
                    PacketStatus::NotReceived
                } else {
                    PacketStatus::Received {
                        arrival: Some(report_time - Duration::from_millis(r % 1000)),
                        ecn: Ecn::from_bits((r >> 8) as u8 & 3),
                    }
                };
                PacketReport {
                    ssrc: if run == 1 { (r >> 32) as u32 % 3 } else { 7 },
                    seq,
                    status,
                }
            })
            .collect();
        Feedback {
            report_time,
            reports,
        }
    }

    #[test]
    fn encoded_feedback_is_bounded_by_its_reports_and_decodes_to_every_one() {
        let t = RemoteInstant::from_millis(90_000);
        for n in [0, 1, 2, 5, 100, 20_000] {
            let feedback = adversarial(n, t);
            let mut out = Vec::new();
            encode_feedback(&feedback, 1, &mut out);
            assert!(
                out.len() <= 12 + 131 * n,
                "{n} reports: {} bytes",
                out.len()
            );
            let back = decode_feedback(&out, &ParseOptions::RFC, &TimestampUnwrapper::new())
                .expect("own bytes decode");
            // At most 64 filled numbers per report.
            assert!(back.reports.len() <= 65 * n, "{n}: {}", back.reports.len());
            // Every report, in order, with its status, ECN and arrival (to 1/1024 s).
            let mut cursor = back.reports.iter();
            for want in &feedback.reports {
                let got = cursor
                    .find(|r| (r.ssrc, r.seq) == (want.ssrc, want.seq))
                    .unwrap_or_else(|| panic!("{n}: {want:?} missing"));
                match (want.status, got.status) {
                    (PacketStatus::NotReceived, PacketStatus::NotReceived) => {}
                    (
                        PacketStatus::Received {
                            arrival: Some(a),
                            ecn: e,
                        },
                        PacketStatus::Received {
                            arrival: Some(b),
                            ecn: f,
                        },
                    ) => {
                        assert_eq!(e, f, "{want:?}");
                        let off = a.as_nanos().abs_diff(b.as_nanos());
                        assert!(off <= 1_000_000, "{want:?} came back at {b:?}");
                    }
                    other => panic!("{n}: status changed: {other:?}"),
                }
            }
        }
    }

    #[test]
    fn count_minus_one_encoding_reads_back_in_that_convention() {
        let t = RemoteInstant::from_millis(5);
        let feedback = Feedback {
            report_time: t,
            reports: (10..13u16)
                .map(|seq| PacketReport {
                    ssrc: 0x64,
                    seq,
                    status: PacketStatus::Received {
                        arrival: Some(t),
                        ecn: Ecn::Ect1,
                    },
                })
                .collect(),
        };
        let (mut rfc, mut minus_one) = (Vec::new(), Vec::new());
        encode_feedback(&feedback, 0x0a, &mut rfc);
        encode_feedback_with(&feedback, 0x0a, CountConvention::MinusOne, &mut minus_one);
        // The same bytes but for the count field of the one block (3 reports).
        assert_eq!(rfc.len(), minus_one.len());
        let count = field::FIRST_BLOCK + 6;
        assert_eq!((rfc[count], rfc[count + 1]), (0, 3));
        assert_eq!((minus_one[count], minus_one[count + 1]), (0, 2));
        let rfc_back =
            decode_feedback(&rfc, &ParseOptions::RFC, &TimestampUnwrapper::new()).expect("decodes");
        assert_eq!(rfc_back.reports.len(), 3);
        for opts in [ParseOptions::MINUS_ONE, ParseOptions::AUTO] {
            let back =
                decode_feedback(&minus_one, &opts, &TimestampUnwrapper::new()).expect("decodes");
            assert_eq!(back, rfc_back, "{opts:?}");
        }
    }
}
