//! A media stream inside a sending endpoint: its source and the clock of its frames.

use crate::source::Source;
use scream::{Duration, Instant};

/// When a stream's frames (or audio packets) are produced: `first + k * period`, up to
/// (not including) `stop`.
#[derive(Debug, Clone)]
pub(crate) struct FrameClock {
    first: Instant,
    /// Frame period, ns (fractional, so 30 fps does not drift).
    period_ns: f64,
    stop: Instant,
    produced: u64,
    /// When the next frame is due, if before the stop (kept: it is asked for often).
    next: Option<Instant>,
}

impl FrameClock {
    pub(crate) fn new(first: Instant, period_ns: f64, stop: Instant) -> Self {
        let mut clock = Self {
            first,
            period_ns,
            stop,
            produced: 0,
            next: None,
        };
        clock.next = clock.due();
        clock
    }

    fn due(&self) -> Option<Instant> {
        let offset = (self.produced as f64 * self.period_ns).round();
        let at = self.first + Duration::from_nanos(offset.min(u64::MAX as f64) as u64);
        (at < self.stop).then_some(at)
    }

    /// When the next frame is due, if before the stop.
    pub(crate) fn next(&self) -> Option<Instant> {
        self.next
    }

    /// Frames produced so far.
    pub(crate) fn produced(&self) -> u64 {
        self.produced
    }

    /// The next frame was produced.
    pub(crate) fn tick(&mut self) {
        self.produced += 1;
        self.next = self.due();
    }
}

/// One stream of a sending endpoint.
#[derive(Debug)]
pub(crate) struct MediaStream {
    /// Global stream index (the metrics' and the samples' index).
    pub(crate) global: u32,
    /// Its media source.
    pub(crate) source: Source,
    /// Its frame clock.
    pub(crate) clock: FrameClock,
}
