//! Freshness of feedback, judged by the report time (RFC 8888 §3.1: the report
//! timestamp, on the receiver's clock) against the sender's own clock.
//!
//! A report is taken when its report time has not gone back since the last report
//! taken and has not advanced much more than our own clock did meanwhile. Anything
//! else is a reordered or replayed report, a forged or corrupted timestamp, or a
//! receiver clock that stepped. A single such report is ignored; when several in a row
//! agree with each other on a new clock, the receiver's clock stepped and the sender
//! follows it. So one bad report costs itself, and a clock step costs
//! [`RESYNC_REPORTS`]` - 1` reports, instead of every report until the receiver's clock
//! catches up with the bad value (hours, for a report from far in the future).
//!
//! The draft (draft-ietf-ccwg-rfc8298bis-screamv2, §"Feedback") leaves this to the
//! implementation; the reference lists robustness to sudden jumps of either clock among
//! its fixes.

use crate::time::{Duration, Instant, RemoteInstant};

/// How much further the receiver's clock may advance between two reports than ours
/// did. Covers the return path's delay variation (a report that queued behind media
/// followed by one that did not) and callers that hand in feedback late. A report
/// beyond it is taken only as part of a confirmed clock step, so a tighter value costs
/// a few reports after an extreme delay swing, a looser one lets a forged report a
/// little ahead in (which then costs the same few reports).
pub(crate) const AHEAD_SLACK: Duration = Duration::from_secs(2);

/// Consecutive reports that must agree on a new receiver clock before it replaces the
/// old one. Three: one report out of line is a stray (reordered, replayed, forged); two
/// in a row may be a reordered burst; three consistent ones that are all out of line
/// with the last accepted report mean the reference point itself is wrong.
pub(crate) const RESYNC_REPORTS: u32 = 3;

/// What to do with a report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Consistent with the last report taken: use it.
    Fresh,
    /// Inconsistent with the last report taken, but the last few reports agree on a new
    /// receiver clock: use it, and measure later reports against it.
    Resync,
    /// Inconsistent: ignore the whole report.
    Stale,
}

/// A report time and when (on our clock) it arrived.
#[derive(Clone, Copy, Debug)]
struct Point {
    remote: RemoteInstant,
    local: Instant,
}

impl Point {
    /// Whether a report at `remote`, arriving at `local`, continues from this one: not
    /// earlier, and not further ahead than our own clock advanced plus the slack.
    fn continued_by(&self, remote: RemoteInstant, local: Instant) -> bool {
        let Some(advance) = remote.checked_duration_since(self.remote) else {
            return false;
        };
        let ours = local.saturating_duration_since(self.local);
        advance <= ours.saturating_add(AHEAD_SLACK)
    }
}

/// Tracks the report times of taken reports and a candidate new clock.
#[derive(Clone, Debug, Default)]
pub(crate) struct ReportClock {
    /// When the last report taken arrived, on our clock. Its report time is the
    /// sender's `last_report_time`.
    taken_at: Option<Instant>,
    /// The latest of a run of reports that were inconsistent with the last one taken
    /// but consistent with each other, and how many.
    candidate: Option<(Point, u32)>,
}

impl ReportClock {
    /// Judges a report with `report_time` arriving at `now`; `last` is the report time of
    /// the last report taken. The caller takes the report (and remembers its report time
    /// as `last`) unless the verdict is [`Verdict::Stale`].
    pub(crate) fn judge(
        &mut self,
        now: Instant,
        last: Option<RemoteInstant>,
        report_time: RemoteInstant,
    ) -> Verdict {
        let taken = match (last, self.taken_at) {
            (Some(remote), Some(local)) => Point { remote, local },
            _ => {
                self.take(now);
                return Verdict::Fresh;
            }
        };
        if taken.continued_by(report_time, now) {
            self.take(now);
            return Verdict::Fresh;
        }
        let run = match self.candidate {
            Some((c, n)) if c.continued_by(report_time, now) => n + 1,
            _ => 1,
        };
        if run >= RESYNC_REPORTS {
            self.take(now);
            return Verdict::Resync;
        }
        let point = Point {
            remote: report_time,
            local: now,
        };
        self.candidate = Some((point, run));
        Verdict::Stale
    }

    fn take(&mut self, now: Instant) {
        self.taken_at = Some(now);
        self.candidate = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Instant {
        Instant::from_millis(v)
    }

    /// Judges reports `(arrival on our clock ms, report time ms)` in order, keeping
    /// `last` as a sender does.
    fn judge_all(reports: &[(u64, u64)]) -> Vec<Verdict> {
        let mut clock = ReportClock::default();
        let mut last = None;
        reports
            .iter()
            .map(|&(local, remote)| {
                let remote = RemoteInstant::from_millis(remote);
                let v = clock.judge(ms(local), last, remote);
                if v != Verdict::Stale {
                    last = Some(remote);
                }
                v
            })
            .collect()
    }

    use Verdict::{Fresh, Resync, Stale};

    #[test]
    fn reports_that_follow_our_clock_are_fresh() {
        let v = judge_all(&[(100, 5_000), (120, 5_020), (120, 5_030), (500, 5_100)]);
        assert_eq!(v, [Fresh; 4]);
    }

    #[test]
    fn one_report_out_of_line_is_stale_and_costs_nothing_else() {
        // Far ahead, then a reordered older one, then back to normal.
        let v = judge_all(&[
            (100, 5_000),
            (120, 32_405_000),
            (140, 5_040),
            (160, 5_030),
            (180, 5_080),
        ]);
        assert_eq!(v, [Fresh, Stale, Fresh, Stale, Fresh]);
    }

    #[test]
    fn a_clock_step_is_followed_after_a_few_reports() {
        for step in [-3_600_000i64, 3_600_000, 5_500] {
            let mut reports = vec![(100, 10_000_000)];
            for i in 1..=5u64 {
                let remote = 10_000_000 + 20 * i as i64 + step;
                reports.push((100 + 20 * i, remote as u64));
            }
            let v = judge_all(&reports);
            assert_eq!(v, [Fresh, Stale, Stale, Resync, Fresh, Fresh], "{step}");
        }
    }

    #[test]
    fn after_a_report_a_little_ahead_the_genuine_clock_returns() {
        // 1.5 s ahead is within the slack: taken. The genuine reports, now behind it,
        // agree with each other and win after a few.
        let v = judge_all(&[
            (100, 5_000),
            (120, 6_520),
            (140, 5_040),
            (160, 5_060),
            (180, 5_080),
            (200, 5_100),
        ]);
        assert_eq!(v, [Fresh, Fresh, Stale, Stale, Resync, Fresh]);
    }
}
