//! Late feedback: what the send window does while the return path loses reports.
//!
//! Lost feedback is not lost media (`in_flight`), but until a later report arrives,
//! the packets that a lost report acknowledged stay in the bytes in flight and the
//! send window waits for them. A receiver reports each frame or every few packets
//! (this crate's and the reference's: on a frame's last packet, every 16 packets, and
//! at least every [`REPORT_DELAY`] while packets arrive), so each lost report keeps
//! about one report interval of delivered media in the count; with half of the
//! reports lost, runs of two or three are common. At 4 Mbit/s, where one report
//! covers a whole 20 ms frame, the window (about 70 ms of media) then closed for tens
//! of milliseconds at a time, frames waited in the RTP queue, and the RTP-queue rate
//! adjustment lowered the target. Worse, when the reports about the last packets of a
//! full window were all lost, nothing new reached the receiver, so it had nothing more
//! to report: the sender waited for the stall guard (`stall_timeout`, 0.5 s), which
//! gave up the whole flight and counted 50 to 60 delivered packets as lost. Together
//! they cost 15 % of the goodput (3.25 of 3.84 Mbit/s, four stalls in 30 s).
//!
//! Two measures act while the return path is seen to lose reports (the delay
//! estimator's `reports_lost_lately`: a report whose new acknowledgements arrived
//! further apart than [`REPORT_DELAY`] followed lost ones), so a sender whose feedback
//! all arrives behaves exactly as without them:
//!
//! - **Overdue packets leave the count.** Once nothing has been acknowledged for
//!   [`REPORT_DELAY`], a packet sent more than one RTT plus that delay ago and still
//!   unacknowledged is overdue: its report should have come. The send window lets as
//!   many more bytes through, at most its own size again, and only until the silence
//!   reaches the probe timeout: longer silence may be an outage, so a sender that
//!   hears nothing at all sends at most one more window, once. The packets stay in
//!   flight for loss detection and for the bytes-in-flight figures; the next report
//!   that arrives resolves them as usual, and a packet it reports missing is lost as
//!   before.
//! - **A probe when the window stays shut.** When nothing has been acknowledged for a
//!   probe timeout after the later of the last transmission and the last
//!   acknowledgement, the next packet leaves although the window is closed: the tail
//!   loss probe of RACK-TLP (RFC 8985 §7) applied to feedback. It is new media (there
//!   is nothing to retransmit), and the report it draws covers the whole flight (the
//!   receiver's last 64 sequence numbers). Each probe timeout without an
//!   acknowledgement sends another; the stall guard keeps counting from the last
//!   packet the window allowed, so an outage, through which no probe draws a report,
//!   ends in a stall as before.
//!
//! With half of the reports lost the goodput is 96-98 % of the loss-free run's at
//! 4 Mbit/s and 98-100 % at 10 Mbit/s, with no stall in most runs (the figures, with
//! the commands, are in docs/design.md).

use super::Sender;
use crate::time::{Duration, Instant};

/// The longest a receiver holds an arrival before it reports it: 40 ms for this
/// crate's receiver and the reference's (a report at least every 40 ms while packets
/// arrive). Feedback later than this is late; RFC 8985 §7.2 allows for the peer's
/// delayed-ACK time in the same way.
pub(crate) const REPORT_DELAY: Duration = Duration::from_millis(40);
/// The probe timeout is twice the smoothed RTT (RFC 8985 §7.2, `PTO = 2 · SRTT`), and
/// at least one RTT plus [`REPORT_DELAY`].
const PROBE_RTTS: u32 = 2;

impl Sender {
    /// How many bytes more than `limit` the send window lets through because reports
    /// are overdue, and when that may grow if nothing else happens first.
    pub(super) fn late_feedback_allowance(&self, limit: u64) -> (u64, Option<Instant>) {
        let now = self.time.now();
        let Some(acked) = self.last_ack_progress else {
            // Nothing was ever acknowledged: no report has come late yet.
            return (0, None);
        };
        if !self.delay.reports_lost_lately(now) {
            return (0, None);
        }
        // A packet's report is due one RTT after it left, plus what the receiver may
        // hold it. The latest sample counts too: while a queue builds, the smoothed
        // RTT lags, and queued packets must not look overdue.
        let rtt = self.delay.srtt_fast().max(self.delay.last_rtt());
        let due_after = rtt.saturating_add(REPORT_DELAY);
        let (mut overdue, mut next_sent) = (0u64, None::<Instant>);
        for s in &self.streams {
            let (bytes, next) = s.sent.in_flight_sent_before(now.saturating_sub(due_after));
            overdue += bytes;
            next_sent = match (next_sent, next) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
        }
        // Silence longer than a probe timeout is no longer a report or two lost but
        // maybe an outage: then the window waits, and probes ask (see above).
        let silent_from = acked + self.probe_timeout();
        if now >= silent_from {
            return (0, None);
        }
        let next_overdue = next_sent
            .map(|t| t + due_after)
            .filter(|t| *t < silent_from);
        let late_from = acked + REPORT_DELAY;
        if now < late_from {
            // Feedback is not late yet: it may be from `late_from` on.
            let grows = if overdue > 0 {
                Some(late_from)
            } else {
                next_overdue.map(|t| t.max(late_from))
            };
            return (0, grows);
        }
        if overdue >= limit {
            return (limit, None);
        }
        (overdue, next_overdue)
    }

    /// When a probe may leave if the send window stays closed: a probe timeout after
    /// the latest of the last transmission, the last probe and the last
    /// acknowledgement. `None` before anything was sent, or while the return path is
    /// not seen to lose reports — unless `outage-recovery` is on, which probes for a
    /// lost tail of media as well (see [`super::Improvements::outage_recovery`]).
    pub(super) fn probe_deadline(&self) -> Option<Instant> {
        let last = self.last_sent?;
        if !self.config.improvements.outage_recovery
            && !self.delay.reports_lost_lately(self.time.now())
        {
            return None;
        }
        let since = [self.last_probe, self.last_ack_progress]
            .into_iter()
            .flatten()
            .fold(last, Instant::max);
        Some(since + self.probe_timeout())
    }

    /// The probe timeout: twice the smoothed RTT, and at least one RTT plus
    /// [`REPORT_DELAY`].
    pub(super) fn probe_timeout(&self) -> Duration {
        let srtt = self.delay.srtt_fast();
        (srtt * PROBE_RTTS).max(srtt.saturating_add(REPORT_DELAY))
    }

    /// While the send window holds the next packet back: the earliest instant at which
    /// late feedback opens it further or lets a probe through.
    pub(super) fn late_feedback_deadline(&self) -> Option<Instant> {
        let (_, _, blocked) = self.next_packet()?;
        if !blocked {
            return None;
        }
        let grows = self.late_feedback_allowance(u64::MAX).1;
        [grows, self.probe_deadline()].into_iter().flatten().min()
    }
}
