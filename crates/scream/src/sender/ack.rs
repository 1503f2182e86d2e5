//! Feedback processing: per-packet acknowledgements, ECN, delay samples and loss
//! detection, then the congestion controller and media rate control.
//!
//! Feedback comes from the peer and is never trusted. A report that does not prove its
//! writer saw the media (`proof`) changes nothing. Of a proven report, per-packet
//! reports that cannot be matched to a sent packet, or whose times are impossible, are
//! skipped and counted in [`super::SenderStats::feedback_ignored`]. Repeats from
//! overlapping reports are recognised and skipped without counting. A whole report
//! whose report time does not follow the sender's own clock is ignored
//! (`delay::report_clock`); a delay sample that does not fit what the sender knows
//! about the packet is not used (`delay`); a packet no report covered is not taken for
//! lost (`in_flight`).

use super::delay::{PLAUSIBILITY_MARGIN, Verdict};
use super::generation::{AckSummary, Measurements};
use super::in_flight::Lookup;
use super::proof::{FeedbackUse, proven};
use super::{CongestionEventKind, Sender};
use crate::ecn::Ecn;
use crate::feedback::{Feedback, PacketReport, PacketStatus};
use crate::time::{Duration, Instant, RemoteInstant};

/// `outage-recovery`: losses reported within this many RTTs of feedback returning
/// after an outage are counted but do not count as congestion.
const OUTAGE_GRACE_RTTS: u32 = 2;

impl Sender {
    /// Feedback arrived from the receiver; returns what the sender made of it (which
    /// tells a caller that extends report timestamps whether to move its reference).
    pub fn on_feedback(&mut self, now: Instant, feedback: &Feedback) -> FeedbackUse {
        let now = self.clock(now);
        if let Err(refused) = self.screen_report(now, feedback) {
            return refused;
        }
        let (mut ack, newest_sent) = self.take_reports(now, feedback);
        self.note_acknowledged(now, &ack);
        if let Some(t) = newest_sent {
            self.take_rtt_sample(now, t);
        }
        self.detect_losses(now, &mut ack);
        if self.outage_grace_until.is_some_and(|t| now < t) {
            ack.packets_lost = 0;
        }
        self.run_window(now, &ack);
        self.have_feedback = true;
        self.update_targets(now);
        self.update_pacing_rate();
        FeedbackUse::Taken
    }

    /// Whether the report as a whole may be used: it proves it saw our media, and its
    /// report time fits the sender's clock. Counts what it refuses.
    fn screen_report(&mut self, now: Instant, feedback: &Feedback) -> Result<(), FeedbackUse> {
        // Before anything else reads it, not even the report clock: a report that does
        // not prove it saw our media is all a blind forger can send.
        if !proven(&self.streams, &feedback.reports) {
            self.counters.feedback_unproven += 1;
            return Err(FeedbackUse::Unproven);
        }
        let reports = u64::try_from(feedback.reports.len()).unwrap_or(u64::MAX);
        // A report time earlier than the last report's (overtaken on the way, replayed,
        // or the receiver clock went back) or far ahead of how much our clock advanced
        // (forged, corrupted, or the receiver clock jumped): its per-packet times cannot
        // be compared with what we have. Unless a few reports in a row agree on a new
        // receiver clock, which is then followed (see `delay::report_clock`).
        let verdict = self
            .delay
            .judge_report(now, self.last_report_time, feedback.report_time);
        if verdict == Verdict::Stale {
            self.counters.feedback_ignored += reports;
            return Err(FeedbackUse::Stale);
        }
        self.last_report_time = Some(feedback.report_time);
        Ok(())
    }

    /// Acknowledges every packet the report says arrived; returns what was acknowledged
    /// and when the newest of those packets was sent.
    fn take_reports(&mut self, now: Instant, feedback: &Feedback) -> (AckSummary, Option<Instant>) {
        let target = self
            .generation
            .delay_params(self.delay.srtt())
            .qdelay_target;
        let mut ack = AckSummary::default();
        let mut newest_sent: Option<Instant> = None;
        for r in &feedback.reports {
            if let Some(sent_at) = self.take_packet_report(now, feedback, r, target, &mut ack) {
                newest_sent = Some(newest_sent.map_or(sent_at, |t| t.max(sent_at)));
            }
        }
        for s in &mut self.streams {
            s.sent.end_report();
            s.sent.trim();
        }
        (ack, newest_sent)
    }

    /// One per-packet report: acknowledges the packet it names if it may, adding it to
    /// `ack`; returns when that packet was sent.
    fn take_packet_report(
        &mut self,
        now: Instant,
        feedback: &Feedback,
        r: &PacketReport,
        target: Duration,
        ack: &mut AckSummary,
    ) -> Option<Instant> {
        let Some(stream_idx) = self.streams.iter().position(|s| s.config.ssrc == r.ssrc) else {
            self.counters.feedback_ignored += 1;
            return None;
        };
        let s = &mut self.streams[stream_idx];
        let lookup = s.sent.lookup(r.seq);
        s.sent.note_reported(lookup);
        let idx = match lookup {
            Lookup::Tracked(i) => i,
            Lookup::Stale => return None,
            Lookup::Unknown => {
                self.counters.feedback_ignored += 1;
                return None;
            }
        };
        let PacketStatus::Received { arrival, ecn } = r.status else {
            return None;
        };
        if arrival.is_some_and(|a| a > feedback.report_time) {
            self.counters.feedback_ignored += 1;
            return None;
        }
        if s.sent.get(idx).is_some_and(|rec| rec.sent_at > now) {
            self.counters.feedback_ignored += 1;
            return None;
        }
        // `None`: already acknowledged (or declared lost), a repeat.
        let rec = s.sent.ack(idx)?;
        let size = u64::from(rec.size_bytes);
        self.bytes_in_flight = self.bytes_in_flight.saturating_sub(size);
        ack.bytes_acked += size;
        ack.packets_acked += 1;
        if ecn == Ecn::Ce {
            ack.bytes_acked_ce += size;
            ack.packets_ce += 1;
        }
        let owd_used = arrival
            .and_then(|a| self.take_owd_sample(now, feedback.report_time, a, rec.sent_at, target));
        self.generation
            .on_packet_acked(stream_idx, now, rec.size_bytes, owd_used);
        Some(rec.sent_at)
    }

    /// The one-way delay of a packet sent at `sent_at` that arrived at `arrival`, by a
    /// report made at `report_time`, if the delay estimator took it.
    fn take_owd_sample(
        &mut self,
        now: Instant,
        report_time: RemoteInstant,
        arrival: RemoteInstant,
        sent_at: Instant,
        target: Duration,
    ) -> Option<i64> {
        let age = now.saturating_duration_since(sent_at);
        // The packet arrived `held` before the report was made, and the report was made
        // before it reached us: `held` cannot exceed the packet's age. A larger one (an
        // arrival time offset of 0x1FFE, "8 s or more", on a packet sent 50 ms ago;
        // RFC 8888 §3.1) contradicts the report itself: the acknowledgement stands, the
        // arrival time is ignored and counted.
        let held = report_time.saturating_duration_since(arrival);
        if held > age.saturating_add(PLAUSIBILITY_MARGIN) {
            self.counters.feedback_ignored += 1;
            return None;
        }
        let owd = i128::from(arrival.as_nanos()) - i128::from(sent_at.as_nanos());
        let owd = i64::try_from(owd).unwrap_or(if owd < 0 { i64::MIN } else { i64::MAX });
        // A sample the estimator finds implausible against its history (a clock step) is
        // dropped there, not counted here: the report is consistent in itself.
        self.delay
            .on_owd_sample(now, owd, age, target)
            .then_some(owd)
    }

    /// Counts what the report acknowledged and feeds the rate meters; progress after
    /// an outage opens the grace for its losses.
    fn note_acknowledged(&mut self, now: Instant, ack: &AckSummary) {
        self.counters.packets_acked += ack.packets_acked;
        if ack.packets_acked > 0 {
            if self.silent_stalls > 0 && self.config.improvements.outage_recovery {
                // Feedback is back after an outage. It will report the packets the
                // last bursts into the dead path lost there; those losses tell of the
                // outage, not of the capacity now, and must not end the regrowth.
                self.outage_grace_until = Some(now + self.delay.srtt() * OUTAGE_GRACE_RTTS);
            }
            self.silent_stalls = 0;
            self.last_ack_progress = Some(now);
        }
        self.counters.packets_ce += ack.packets_ce;
        self.rate_acked.add(now, ack.bytes_acked);
        // Only `l4s-pacing` reads the delivery peak.
        if self.config.improvements.l4s_pacing {
            self.delivery
                .on_feedback(now, ack.bytes_acked, ack.packets_acked);
        }
        self.rate_ce.add(now, ack.bytes_acked_ce);
    }

    /// An RTT sample from the newest packet this report acknowledged, sent at `sent_at`.
    fn take_rtt_sample(&mut self, now: Instant, sent_at: Instant) {
        let app_limited = self.generation.app_limited();
        // A packet in flight across a leap of the caller's clock (or a stall of its
        // loop) would time the leap, not the path.
        if sent_at >= self.time.last_leap() {
            // `outage-recovery`, `delay-convergence` and `media-deadline` each spring
            // the application-limited sRTT trap that `fresh-srtt` undoes (a queue they
            // leave behind, the wider swings they allow, media held back after an
            // outage): each carries the fix, so that it is safe alone.
            let imp = &self.config.improvements;
            let fresh = imp.fresh_srtt
                || imp.outage_recovery
                || imp.delay_convergence
                || imp.media_deadline;
            let rtt = now.saturating_duration_since(sent_at);
            self.delay.on_rtt_sample(now, rtt, app_limited, fresh);
        }
        let newest = self
            .newest_acked_sent_at
            .map_or(sent_at, |n| n.max(sent_at));
        self.newest_acked_sent_at = Some(newest);
    }

    /// The generation's window law on this report's acknowledgements and losses, with
    /// what the sender measured; a back-off becomes a congestion event.
    fn run_window(&mut self, now: Instant, ack: &AckSummary) {
        let params = self.generation.delay_params(self.delay.srtt());
        self.delay.on_feedback_end(now, &params);
        let m = Measurements {
            now,
            srtt: self.delay.srtt(),
            qdelay_avg: self.delay.qdelay_avg(),
            queue_delay: self.delay.queue_delay(),
            rtt_falling: self.delay.srtt_falling(),
            rate_acked: self.rate_acked.rate(),
            bytes_in_flight: self.bytes_in_flight,
            steadiness: self.delay.steadiness(),
            total_target: self.total_target(),
            total_max: self.total_max(),
            mss_bytes: self.largest_packet,
            newest_acked_sent_at: self.newest_acked_sent_at,
        };
        if let Some((cause, window_before, window_after)) = self.generation.on_feedback(ack, &m) {
            let kind = CongestionEventKind::BackOff {
                cause,
                window_before,
                window_after,
            };
            self.cc_event(now, kind);
        }
    }

    /// RFC 8985-style: a packet is lost once a packet sent more than the reordering
    /// window after it was acknowledged, if a report said it was missing. One that no
    /// report covered (its reports were lost) leaves the bytes in flight at the same
    /// point, as neither acknowledged nor lost (see `in_flight`).
    fn detect_losses(&mut self, now: Instant, ack: &mut AckSummary) {
        let Some(newest) = self.newest_acked_sent_at else {
            return;
        };
        let Some(limit) = newest.checked_sub(self.config.reorder_time) else {
            return;
        };
        for s in &mut self.streams {
            let resolved = s.sent.declare_lost_before(limit);
            self.bytes_in_flight = self
                .bytes_in_flight
                .saturating_sub(resolved.unreported.bytes);
            let t = resolved.lost;
            if t.packets > 0 {
                self.bytes_in_flight = self.bytes_in_flight.saturating_sub(t.bytes);
                self.counters.packets_lost += t.packets;
                self.rate_lost.add(now, t.bytes);
                ack.packets_lost += t.packets;
            }
        }
    }
}
