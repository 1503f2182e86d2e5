//! Cross-check against an independent RFC 8888 implementation (the `rtc-rtcp` crate of
//! webrtc-rs): random reports written by one side must read the same on the other.

use proptest::prelude::*;
use rtc_rtcp::packet::{marshal, unmarshal};
use rtc_rtcp::sender_report::SenderReport;
use rtc_rtcp::transport_feedbacks::cc_feedback_report::{
    CcFeedbackMetricBlock, CcFeedbackReport, CcFeedbackReportBlock, Ecn as TheirEcn,
};
use scream::Ecn;
use scream::wire::ccfb::{BlockRepr, MetricBlock, ParseOptions, Repr, parse_compound};

fn their_ecn(e: Ecn) -> TheirEcn {
    match e {
        Ecn::NotEct => TheirEcn::NotEct,
        Ecn::Ect1 => TheirEcn::Ect1,
        Ecn::Ect0 => TheirEcn::Ect0,
        Ecn::Ce => TheirEcn::Ce,
    }
}

fn to_theirs(repr: &Repr) -> CcFeedbackReport {
    CcFeedbackReport {
        sender_ssrc: repr.sender_ssrc,
        report_timestamp: repr.report_timestamp,
        report_blocks: repr
            .blocks
            .iter()
            .map(|b| CcFeedbackReportBlock {
                media_ssrc: b.media_ssrc,
                begin_sequence: b.begin_seq,
                metric_blocks: b
                    .reports
                    .iter()
                    .map(|m| CcFeedbackMetricBlock {
                        received: m.received,
                        ecn: their_ecn(m.ecn),
                        arrival_time_offset: m.ato,
                    })
                    .collect(),
            })
            .collect(),
    }
}

fn metric() -> impl Strategy<Value = MetricBlock> {
    prop_oneof![
        1 => Just(MetricBlock::NOT_RECEIVED),
        4 => (0u8..4, 0u16..=0x1fff)
            .prop_map(|(e, ato)| MetricBlock::received(Ecn::from_bits(e), ato)),
    ]
}

fn repr() -> impl Strategy<Value = Repr> {
    let block = (
        any::<u32>(),
        any::<u16>(),
        prop::collection::vec(metric(), 0..80),
    )
        .prop_map(|(media_ssrc, begin_seq, reports)| BlockRepr {
            media_ssrc,
            begin_seq,
            reports,
        });
    (
        any::<u32>(),
        any::<u32>(),
        prop::collection::vec(block, 0..5),
    )
        .prop_map(|(sender_ssrc, report_timestamp, blocks)| Repr {
            sender_ssrc,
            report_timestamp,
            blocks,
        })
}

fn theirs_from_bytes(bytes: &[u8]) -> CcFeedbackReport {
    let packets = unmarshal(&mut &bytes[..]).expect("rtc-rtcp parses our bytes");
    assert_eq!(packets.len(), 1);
    packets[0]
        .as_any()
        .downcast_ref::<CcFeedbackReport>()
        .expect("rtc-rtcp sees a CCFB packet")
        .clone()
}

proptest! {
    #[test]
    fn our_bytes_read_the_same_in_rtc_rtcp(repr in repr()) {
        let mut ours = vec![0; repr.buffer_len()];
        repr.emit(&mut ours).expect("emit");
        prop_assert_eq!(theirs_from_bytes(&ours), to_theirs(&repr));
    }

    #[test]
    fn rtc_rtcp_bytes_read_the_same_here(repr in repr()) {
        let theirs = to_theirs(&repr);
        let bytes = marshal(&[Box::new(theirs)]).expect("rtc-rtcp marshals");
        let mut ours = vec![0; repr.buffer_len()];
        repr.emit(&mut ours).expect("emit");
        prop_assert_eq!(&bytes[..], &ours[..], "byte-identical encodings");
        prop_assert_eq!(Repr::parse_bytes(&bytes, &ParseOptions::RFC), Ok(repr.clone()));
        prop_assert_eq!(Repr::parse_bytes(&bytes, &ParseOptions::AUTO), Ok(repr));
    }

    #[test]
    fn rtc_rtcp_compound_with_sender_report(repr in repr(), ssrc in any::<u32>()) {
        let sr = SenderReport { ssrc, ..SenderReport::default() };
        let bytes = marshal(&[Box::new(sr), Box::new(to_theirs(&repr))]).expect("marshal");
        prop_assert_eq!(parse_compound(&bytes, &ParseOptions::AUTO), Ok(vec![repr]));
    }
}
