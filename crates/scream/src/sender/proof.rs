//! Whether a feedback packet proves that its writer saw our media.
//!
//! Feedback travels over UDP, so anyone who knows the 4-tuple of a call can send the
//! sender a well-formed RFC 8888 packet from the receiver's address. What such a blind
//! forger does not know is the stream's SSRC (32 random bits, RFC 3550 §8.1) and which
//! sequence numbers it is at. A report proves itself when it names a packet of ours
//! sent recently (in flight, or among the last 4096 sent: as far back as a receiver's
//! overlapping reports reach) and claims no arrival of a packet we never sent. Only
//! then is it judged on its report time and used ([`FeedbackUse::Taken`] or
//! [`FeedbackUse::Stale`]). Any other report changes nothing at all, not the report
//! clock, not the loss detection, not the controller ([`FeedbackUse::Unproven`]).
//!
//! A genuine receiver loses nothing by this: it reports only when a packet arrived
//! since its last report (`receiver`), and names it. A blind forger has to guess the
//! SSRC, one chance in 2^32 per report: at 1,000 forged reports a second, once in 50
//! days; and with the SSRC right, its report still needs a report time that follows the
//! receiver's clock to within seconds, or three such reports in a row, to be used.
//!
//! The check reads each per-packet report once with O(1) lookups, allocates nothing and
//! writes nothing, so a stream of forged reports costs the sender time linear in the
//! bytes the forger sends, whatever their content.

use super::stream::Stream;
use crate::feedback::{PacketReport, PacketStatus};

/// What the sender made of one feedback packet ([`super::Sender::on_feedback`]).
///
/// A caller that extends the peer's 32-bit report timestamps (RFC 8888 §3.1) should
/// move its reference only on [`FeedbackUse::Taken`]
/// ([`crate::wire::ccfb::TimestampUnwrapper::accept`]): then no packet the sender
/// refused can shift how later ones are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FeedbackUse {
    /// Used: its report time is now the sender's reference for the receiver's clock.
    Taken,
    /// Named no packet of ours sent recently, or claimed the arrival of a packet never
    /// sent: it changed nothing. Counted in [`super::SenderStats::feedback_unproven`].
    Unproven,
    /// Proven, but its report time does not follow the receiver's clock as the
    /// sender knows it (reordered, replayed, or the first of a clock step): ignored
    /// whole. Its per-packet reports count in [`super::SenderStats::feedback_ignored`].
    Stale,
}

/// Whether `reports` prove their writer saw the media of `streams`.
pub(super) fn proven(streams: &[Stream], reports: &[PacketReport]) -> bool {
    let mut ours = false;
    for r in reports {
        // Reports of SSRCs we do not send are another sender's business (one RFC 8888
        // packet may cover several media senders): they neither prove nor disprove.
        let Some(s) = streams.iter().find(|s| s.config.ssrc == r.ssrc) else {
            continue;
        };
        let received = matches!(r.status, PacketStatus::Received { .. });
        if received && s.sent.never_sent(r.seq) {
            return false;
        }
        ours = ours || s.sent.sent_recently(r.seq);
    }
    ours
}
