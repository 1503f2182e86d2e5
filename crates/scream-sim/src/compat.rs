//! The simulator's adapters to the `scream` API: feedback through the RFC 8888 codec,
//! and sender parameters by name.

use scream::Feedback;
use scream::sender::SenderConfig;
use scream::wire::ccfb::{ParseOptions, TimestampUnwrapper, decode_feedback, encode_feedback};

/// Feedback as it crosses the return path.
#[derive(Debug, Clone, PartialEq)]
pub enum FeedbackMsg {
    /// RFC 8888 bytes.
    Bytes(Vec<u8>),
    /// The abstract report, handed over as is.
    Report(Feedback),
}

/// RFC 8888 size of a report: RTCP header and sender SSRC (8 bytes), per SSRC block a
/// 8-byte header and 2 bytes per packet padded to 4, and the 4-byte report timestamp
/// (RFC 8888 §3.1).
pub fn rfc8888_len(fb: &Feedback) -> u32 {
    let mut len = 8 + 4;
    let mut i = 0;
    while i < fb.reports.len() {
        let ssrc = fb.reports[i].ssrc;
        let n = fb.reports[i..]
            .iter()
            .take_while(|r| r.ssrc == ssrc)
            .count();
        len += 8 + (2 * n as u32).div_ceil(4) * 4;
        i += n;
    }
    len
}

/// Prepares a report for the return path: RFC 8888 bytes when `as_bytes`, else the
/// report itself. Returns it with its size on the wire in bytes.
pub fn encode(fb: Feedback, as_bytes: bool, rtcp_sender_ssrc: u32) -> (FeedbackMsg, u32) {
    if as_bytes {
        let mut out = Vec::with_capacity(rfc8888_len(&fb) as usize);
        encode_feedback(&fb, rtcp_sender_ssrc, &mut out);
        let len = u32::try_from(out.len()).unwrap_or(u32::MAX);
        (FeedbackMsg::Bytes(out), len)
    } else {
        let len = rfc8888_len(&fb);
        (FeedbackMsg::Report(fb), len)
    }
}

/// The report at the sender; `None` for bytes the codec rejects. `unwrapper` extends
/// the 32-bit report timestamps of one feedback session; the caller accepts into it
/// the reports it takes.
pub fn decode(msg: FeedbackMsg, unwrapper: &TimestampUnwrapper) -> Option<Feedback> {
    match msg {
        FeedbackMsg::Report(fb) => Some(fb),
        FeedbackMsg::Bytes(bytes) => {
            decode_feedback(&bytes, &ParseOptions::default(), unwrapper).ok()
        }
    }
}

/// Sets one `SenderConfig` field by name (Duration in seconds, Bitrate in bit/s).
pub fn set_param(cfg: &mut SenderConfig, name: &str, value: f64) -> Result<(), String> {
    cfg.set_param(name, value).map_err(|e| e.to_string())
}
