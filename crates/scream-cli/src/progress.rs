//! A one-line progress bar on stderr for long simulations and sweeps.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// Runs shorter than this never show a bar, so quick runs and scripts stay quiet.
const SHOW_AFTER: Duration = Duration::from_secs(1);
const WIDTH: usize = 30;

/// Draws `[#####-----]  42%` with `\r` updates, only when stderr is a terminal.
#[derive(Debug)]
pub(crate) struct Progress {
    enabled: bool,
    started: Instant,
    last_percent: Option<u32>,
    label: String,
    /// Widest line drawn, to erase it all.
    width: usize,
}

impl Progress {
    pub(crate) fn new(label: &str) -> Self {
        Self {
            enabled: std::io::stderr().is_terminal(),
            started: Instant::now(),
            last_percent: None,
            label: label.to_owned(),
            width: 0,
        }
    }

    /// `fraction`: simulated time done, 0..=1.
    pub(crate) fn update(&mut self, fraction: f64) {
        self.draw(fraction, String::new);
    }

    /// `done` of `total` jobs finished: the bar with the count and the time left at the
    /// rate so far.
    pub(crate) fn update_counted(&mut self, done: usize, total: usize) {
        let fraction = if total == 0 {
            1.0
        } else {
            done as f64 / total as f64
        };
        let elapsed = self.started.elapsed();
        self.draw(fraction, || {
            format!("  {done}/{total}  ETA {}", eta(elapsed, done, total))
        });
    }

    fn draw(&mut self, fraction: f64, suffix: impl FnOnce() -> String) {
        if !self.enabled || self.started.elapsed() < SHOW_AFTER {
            return;
        }
        let fraction = fraction.clamp(0.0, 1.0);
        let percent = percent_of(fraction);
        if self.last_percent == Some(percent) {
            return;
        }
        self.last_percent = Some(percent);
        let line = bar(&self.label, fraction) + &suffix();
        self.width = self.width.max(line.chars().count());
        let mut err = std::io::stderr().lock();
        // A progress bar that cannot be drawn is not worth failing the run for.
        let _ = write!(err, "\r{line}");
        let _ = err.flush();
    }

    /// Erases the bar if one was drawn.
    pub(crate) fn finish(&mut self) {
        if self.last_percent.take().is_some() {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r{}\r", " ".repeat(self.width));
            let _ = err.flush();
        }
    }
}

fn percent_of(fraction: f64) -> u32 {
    // Clamped to 0..=1 above, so the product fits.
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "0..=100"
    )]
    let p = (fraction * 100.0).floor() as u32;
    p.min(100)
}

/// Time left if the remaining jobs go at the rate of those done: `1m05s`, `42s`, or
/// `?` before the first is done.
fn eta(elapsed: Duration, done: usize, total: usize) -> String {
    if done == 0 {
        return "?".to_owned();
    }
    let left_s = elapsed.as_secs_f64() / done as f64 * total.saturating_sub(done) as f64;
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "a non-negative number of seconds, rounded"
    )]
    let s = left_s.round() as u64;
    match (s / 3600, s / 60 % 60, s % 60) {
        (0, 0, s) => format!("{s}s"),
        (0, m, s) => format!("{m}m{s:02}s"),
        (h, m, _) => format!("{h}h{m:02}m"),
    }
}

fn bar(label: &str, fraction: f64) -> String {
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "0..=WIDTH"
    )]
    let filled = ((fraction * WIDTH as f64).round() as usize).min(WIDTH);
    format!(
        "{label} [{}{}] {:>3}%",
        "#".repeat(filled),
        "-".repeat(WIDTH - filled),
        percent_of(fraction)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bar_fills_in_proportion_to_progress() {
        assert_eq!(bar("x", 0.0), format!("x [{}]   0%", "-".repeat(WIDTH)));
        assert_eq!(bar("x", 1.0), format!("x [{}] 100%", "#".repeat(WIDTH)));
        let half = bar("x", 0.5);
        assert_eq!(half.matches('#').count(), WIDTH / 2);
        assert!(half.ends_with(" 50%"));
    }

    #[test]
    fn eta_extrapolates_the_rate_so_far() {
        let ten_s = Duration::from_secs(10);
        assert_eq!(eta(ten_s, 0, 10), "?");
        assert_eq!(eta(ten_s, 5, 10), "10s");
        assert_eq!(eta(ten_s, 1, 10), "1m30s");
        assert_eq!(eta(ten_s, 1, 1000), "2h46m");
        assert_eq!(eta(ten_s, 10, 10), "0s");
    }
}
