//! A one-line progress bar on stderr for long simulations.

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
}

impl Progress {
    pub(crate) fn new(label: &str) -> Self {
        Self {
            enabled: std::io::stderr().is_terminal(),
            started: Instant::now(),
            last_percent: None,
            label: label.to_owned(),
        }
    }

    /// `fraction`: simulated time done, 0..=1.
    pub(crate) fn update(&mut self, fraction: f64) {
        if !self.enabled || self.started.elapsed() < SHOW_AFTER {
            return;
        }
        let fraction = fraction.clamp(0.0, 1.0);
        let percent = percent_of(fraction);
        if self.last_percent == Some(percent) {
            return;
        }
        self.last_percent = Some(percent);
        let line = bar(&self.label, fraction);
        let mut err = std::io::stderr().lock();
        // A progress bar that cannot be drawn is not worth failing the run for.
        let _ = write!(err, "\r{line}");
        let _ = err.flush();
    }

    /// Erases the bar if one was drawn.
    pub(crate) fn finish(&mut self) {
        if self.last_percent.take().is_some() {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r{}\r", " ".repeat(WIDTH + self.label.len() + 10));
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
}
