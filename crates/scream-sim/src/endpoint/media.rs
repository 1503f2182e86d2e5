//! A media stream inside a sending endpoint: its source and the clock of its frames.

use scream::{Duration, Instant};
use scream_traffic::source::Source;

/// When a stream's frames (or audio packets) are produced: `first + k * period`, up to
/// (not including) `stop`, leaving out the instants inside a pause.
#[derive(Debug, Clone)]
pub(crate) struct FrameClock {
    first: Instant,
    /// Frame period, ns (fractional, so 30 fps does not drift).
    period_ns: f64,
    stop: Instant,
    /// `[from, to)` windows without frames, in increasing order.
    pauses: Vec<(Instant, Instant)>,
    /// Frames produced; the sender and the metrics number frames by this count, so a
    /// pause leaves no gap in the numbers.
    produced: u64,
    /// Frame periods passed since `first`, pauses included: the clock's phase.
    slot: u64,
    /// When the next frame is due, if before the stop (kept: it is asked for often).
    next: Option<Instant>,
}

impl FrameClock {
    pub(crate) fn new(first: Instant, period_ns: f64, stop: Instant) -> Self {
        let mut clock = Self {
            first,
            period_ns,
            stop,
            pauses: Vec::new(),
            produced: 0,
            slot: 0,
            next: None,
        };
        clock.next = clock.due();
        clock
    }

    /// The same clock with no frames in `pauses` (`[from, to)`, increasing): the
    /// encoder resumes on its own frame grid, at the first period at or after `to`.
    pub(crate) fn with_pauses(mut self, pauses: Vec<(Instant, Instant)>) -> Self {
        self.pauses = pauses;
        self.next = self.due();
        self
    }

    fn at(&self, slot: u64) -> Instant {
        let offset = (slot as f64 * self.period_ns).round();
        self.first + Duration::from_nanos(offset.min(u64::MAX as f64) as u64)
    }

    /// The next frame instant at or after the current slot, moving the slot past the
    /// pauses it falls in.
    fn due(&mut self) -> Option<Instant> {
        let mut at = self.at(self.slot);
        while let Some(&(_, to)) = self
            .pauses
            .iter()
            .find(|(from, to)| at >= *from && at < *to)
        {
            // The first slot at or after the pause's end; a period of 0 cannot occur
            // (the frame rate is bounded), but guard the division anyway.
            let resume = if self.period_ns > 0.0 {
                (to.saturating_duration_since(self.first).as_nanos() as f64 / self.period_ns).ceil()
                    as u64
            } else {
                self.slot + 1
            };
            self.slot = resume.max(self.slot + 1);
            at = self.at(self.slot);
        }
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
        self.slot += 1;
        self.next = self.due();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn instants(mut clock: FrameClock) -> Vec<u64> {
        let mut out = Vec::new();
        while let Some(t) = clock.next() {
            out.push(t.as_nanos() / 1_000_000);
            clock.tick();
        }
        out
    }

    #[test]
    fn a_pause_leaves_out_its_frames_and_resumes_on_the_frame_grid() {
        let ms = Instant::from_millis;
        // 100 ms period from 5 ms, stop at 1 s; paused for [300, 620) ms.
        let clock = FrameClock::new(ms(5), 1e8, ms(1000)).with_pauses(vec![(ms(300), ms(620))]);
        assert_eq!(instants(clock), [5, 105, 205, 705, 805, 905]);
    }

    #[test]
    fn frames_are_numbered_without_gaps_across_a_pause() {
        let ms = Instant::from_millis;
        let mut clock = FrameClock::new(ms(0), 1e8, ms(1000))
            .with_pauses(vec![(ms(0), ms(250)), (ms(400), ms(500))]);
        let mut seen = Vec::new();
        while let Some(t) = clock.next() {
            seen.push((clock.produced(), t.as_nanos() / 1_000_000));
            clock.tick();
        }
        assert_eq!(
            seen,
            [(0, 300), (1, 500), (2, 600), (3, 700), (4, 800), (5, 900)]
        );
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
