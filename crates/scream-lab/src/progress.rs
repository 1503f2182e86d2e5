//! Progress of long simulations and batches of runs, on stderr (stdout carries only
//! results, so a redirected stdout is the same with or without it).
//!
//! On a terminal an `indicatif` bar redraws in place. Anywhere else (a log file, CI) a
//! bar would be a smear of carriage returns, so plain lines are written instead, one
//! per [`LINE_STEP_PERCENT`] of progress or every [`LINE_EVERY`], whichever comes
//! first: a log shows the batch advancing without growing with every run.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Work shorter than this shows nothing, so quick runs and scripts stay quiet.
const SHOW_AFTER: Duration = Duration::from_secs(1);
/// Without a terminal: a line at least at every multiple of this percentage...
pub const LINE_STEP_PERCENT: u32 = 10;
/// ...and at least this often while work goes on.
pub const LINE_EVERY: Duration = Duration::from_secs(10);
/// Resolution of a bar driven by a fraction (simulated time done).
const FRACTION_STEPS: u64 = 1000;

/// How far some work has come, shown on stderr.
#[derive(Debug)]
pub struct Progress {
    label: String,
    started: Instant,
    sink: Sink,
}

#[derive(Debug)]
enum Sink {
    /// stderr is a terminal: the bar, once [`SHOW_AFTER`] has passed.
    Bar(Option<ProgressBar>),
    /// stderr is a file or a pipe: plain lines.
    Lines(Lines),
}

/// When the plain lines were written.
#[derive(Debug, Default)]
struct Lines {
    /// The percentage and time of the last line written.
    last: Option<(u32, Instant)>,
}

impl Lines {
    /// Whether a line at `percent` is due at `now`.
    fn due(&self, percent: u32, now: Instant) -> bool {
        match self.last {
            None => true,
            Some((p, _)) if p == percent => false,
            Some((p, at)) => {
                percent / LINE_STEP_PERCENT > p / LINE_STEP_PERCENT
                    || now.duration_since(at) >= LINE_EVERY
            }
        }
    }
}

impl Progress {
    /// Progress labelled `label` (`sweeping`, `suite`, ...), bar or lines as stderr is
    /// a terminal or not.
    pub fn new(label: &str) -> Self {
        let sink = if std::io::stderr().is_terminal() {
            Sink::Bar(None)
        } else {
            Sink::Lines(Lines::default())
        };
        Self {
            label: label.to_owned(),
            started: Instant::now(),
            sink,
        }
    }

    /// `fraction`: simulated time done, 0..=1.
    pub fn update(&mut self, fraction: f64) {
        let fraction = fraction.clamp(0.0, 1.0);
        #[expect(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "0..=FRACTION_STEPS"
        )]
        let pos = (fraction * FRACTION_STEPS as f64).floor() as u64;
        self.show(pos, FRACTION_STEPS, false);
    }

    /// `done` of `total` jobs finished: the bar with the count and the time left at the
    /// rate so far.
    pub fn update_counted(&mut self, done: usize, total: usize) {
        self.show(done as u64, total as u64, true);
    }

    fn show(&mut self, pos: u64, len: u64, counted: bool) {
        let elapsed = self.started.elapsed();
        if elapsed < SHOW_AFTER {
            return;
        }
        let pos = pos.min(len);
        match &mut self.sink {
            Sink::Bar(bar) => {
                let bar = bar.get_or_insert_with(|| new_bar(&self.label, len, counted));
                bar.set_length(len);
                bar.set_position(pos);
            }
            Sink::Lines(lines) => {
                let percent = percent_of(pos, len);
                let now = Instant::now();
                if !lines.due(percent, now) {
                    return;
                }
                lines.last = Some((percent, now));
                let line = if counted {
                    counted_line(&self.label, pos, len, elapsed)
                } else {
                    format!(
                        "{}: {percent:>3}%, {} elapsed",
                        self.label,
                        duration_text(elapsed)
                    )
                };
                let mut err = std::io::stderr().lock();
                // Progress that cannot be written is not worth failing the run for.
                let _ = writeln!(err, "{line}");
            }
        }
    }

    /// Clears the bar if one was drawn. Plain lines stay: they are the log.
    pub fn finish(&mut self) {
        if let Sink::Bar(Some(bar)) = &self.sink {
            bar.finish_and_clear();
        }
    }
}

fn new_bar(label: &str, len: u64, counted: bool) -> ProgressBar {
    let template = if counted {
        "{msg} [{bar:30}] {percent:>3}%  {pos}/{len}  ETA {eta}"
    } else {
        "{msg} [{bar:30}] {percent:>3}%"
    };
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    // The templates above are fixed and valid; should one not parse, the default style
    // still shows the bar.
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style.progress_chars("#-"));
    }
    bar.set_message(label.to_owned());
    bar
}

/// `suite:  40% (4/10), ETA 15s, 10s elapsed`.
fn counted_line(label: &str, done: u64, total: u64, elapsed: Duration) -> String {
    format!(
        "{label}: {:>3}% ({done}/{total}), ETA {}, {} elapsed",
        percent_of(done, total),
        eta(elapsed, done, total),
        duration_text(elapsed)
    )
}

fn percent_of(pos: u64, len: u64) -> u32 {
    if len == 0 {
        return 100;
    }
    // pos <= len, so at most 100.
    u32::try_from(pos.min(len) * 100 / len).unwrap_or(100)
}

/// Time left if the remaining jobs go at the rate of those done: `1m05s`, `42s`, or
/// `?` before the first is done.
fn eta(elapsed: Duration, done: u64, total: u64) -> String {
    if done == 0 {
        return "?".to_owned();
    }
    let left_s = elapsed.as_secs_f64() / done as f64 * total.saturating_sub(done) as f64;
    duration_text(Duration::from_secs_f64(left_s.max(0.0)))
}

/// `42s`, `1m05s`, `2h46m`, rounded to the second.
fn duration_text(d: Duration) -> String {
    let s = d.as_secs() + u64::from(d.subsec_millis() >= 500);
    match (s / 3600, s / 60 % 60, s % 60) {
        (0, 0, s) => format!("{s}s"),
        (0, m, s) => format!("{m}m{s:02}s"),
        (h, m, _) => format!("{h}h{m:02}m"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eta_extrapolates_the_rate_so_far() {
        let ten_s = Duration::from_secs(10);
        assert_eq!(eta(ten_s, 0, 10), "?");
        assert_eq!(eta(ten_s, 5, 10), "10s");
        assert_eq!(eta(ten_s, 1, 10), "1m30s");
        assert_eq!(eta(ten_s, 1, 1000), "2h46m");
        assert_eq!(eta(ten_s, 10, 10), "0s");
    }

    #[test]
    fn a_plain_line_says_the_count_the_eta_and_the_time_so_far() {
        assert_eq!(
            counted_line("suite", 4, 10, Duration::from_secs(10)),
            "suite:  40% (4/10), ETA 15s, 10s elapsed"
        );
        assert_eq!(percent_of(0, 0), 100);
        assert_eq!(percent_of(7, 7), 100);
    }

    #[test]
    fn plain_lines_come_every_tenth_or_after_a_quiet_while() {
        let t0 = Instant::now();
        let mut lines = Lines::default();
        assert!(lines.due(0, t0), "the first line is always due");
        lines.last = Some((3, t0));
        assert!(
            !lines.due(3, t0 + LINE_EVERY * 2),
            "no line without progress"
        );
        assert!(!lines.due(9, t0), "still within the same tenth");
        assert!(lines.due(10, t0), "a new tenth");
        assert!(lines.due(4, t0 + LINE_EVERY), "quiet for long enough");
    }
}
