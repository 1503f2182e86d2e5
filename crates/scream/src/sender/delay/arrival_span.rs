//! Whether the return path loses reports: the arrival span of what one report newly
//! acknowledges.
//!
//! A receiver that reports at least every [`REPORT_DELAY`] while packets arrive (this
//! crate's and the reference's) never lets the packets that one report is the first to
//! acknowledge arrive further apart than that: the first of them made the next report
//! due. A report whose new acknowledgements arrived further apart followed reports
//! that were lost on the way back. Packets that waited in a queue on the way there do
//! not look like that: they arrive late, but close together, and are reported at once.
//!
//! The span needs no synchronised clocks: for a packet sent `age` before the feedback
//! arrived, with one-way delay sample `owd` (arrival on the receiver's clock minus
//! send time on ours), `age − owd` is the feedback's arrival time minus the packet's
//! arrival time, plus the constant offset of the two clocks, so the spread of
//! `age − owd` over one feedback is the spread of its packets' arrival times.

use crate::sender::late_feedback::REPORT_DELAY;
use crate::time::{Duration, Instant};

/// How long one report with a wide arrival span marks the return path as losing
/// reports: a path that lost reports once is likely to lose more, and at the usual
/// cadence of 25 to 75 reports a second this spans hundreds of them, so even a path
/// that loses one report in twenty stays marked.
const MEMORY: Duration = Duration::from_secs(5);
/// Arrival times come in units of 1/1024 s (RFC 8888 §3.1), so two of them may lie
/// up to about this much further apart than the arrivals did.
const RESOLUTION_SLACK: Duration = Duration::from_millis(2);

/// The arrival span of the feedback being processed, and the last feedback whose span
/// showed lost reports.
#[derive(Debug, Clone, Default)]
pub(crate) struct ArrivalSpan {
    /// Lowest and highest `age − owd` of this feedback's samples, nanoseconds.
    range: Option<(i64, i64)>,
    /// When the latest feedback arrived that followed lost reports.
    lost_seen: Option<Instant>,
}

impl ArrivalSpan {
    /// A plausible one-way delay sample of a packet this feedback newly acknowledges.
    pub(crate) fn sample(&mut self, age: Duration, owd_nanos: i64) {
        let age = i64::try_from(age.as_nanos()).unwrap_or(i64::MAX);
        let v = age.saturating_sub(owd_nanos);
        self.range = Some(self.range.map_or((v, v), |(lo, hi)| (lo.min(v), hi.max(v))));
    }

    /// The feedback that arrived at `now` is done.
    pub(crate) fn end_feedback(&mut self, now: Instant) {
        let Some((lo, hi)) = self.range.take() else {
            return;
        };
        let limit = REPORT_DELAY.saturating_add(RESOLUTION_SLACK);
        let span = u64::try_from(hi.saturating_sub(lo)).unwrap_or(0);
        if Duration::from_nanos(span) > limit {
            self.lost_seen = Some(now);
        }
    }

    /// Whether a feedback in the last [`MEMORY`] before `now` followed lost reports.
    pub(crate) fn reports_lost_lately(&self, now: Instant) -> bool {
        self.lost_seen
            .is_some_and(|t| now.saturating_duration_since(t) < MEMORY)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    /// One feedback at `now` whose packets arrived `arrivals` ms after some origin (each
    /// sent 100 ms before its arrival, the clocks 1 s apart).
    fn feedback(span: &mut ArrivalSpan, now: Instant, arrivals: &[u64]) {
        let now_ms = now.as_nanos() / 1_000_000;
        for a in arrivals {
            let sent = a - 100;
            let owd = i64::try_from((1_000 + a - sent) * 1_000_000).unwrap();
            span.sample(ms(now_ms - sent), owd);
        }
        span.end_feedback(now);
    }

    #[test]
    fn arrivals_within_the_report_delay_show_no_lost_report() {
        let mut s = ArrivalSpan::default();
        let now = Instant::from_millis(5_000);
        feedback(&mut s, now, &[4_000, 4_020, 4_040]);
        assert!(!s.reports_lost_lately(now));
        // A feedback without samples changes nothing.
        s.end_feedback(now);
        assert!(!s.reports_lost_lately(now));
    }

    #[test]
    fn arrivals_further_apart_mark_lost_reports_for_a_while() {
        let mut s = ArrivalSpan::default();
        let now = Instant::from_millis(5_000);
        feedback(&mut s, now, &[4_000, 4_030, 4_060]);
        assert!(s.reports_lost_lately(now));
        assert!(s.reports_lost_lately(now + MEMORY - ms(1)));
        assert!(!s.reports_lost_lately(now + MEMORY));
        // Each feedback is judged on its own samples.
        let later = now + MEMORY;
        feedback(&mut s, later, &[4_900, 4_910]);
        assert!(!s.reports_lost_lately(later));
    }
}
