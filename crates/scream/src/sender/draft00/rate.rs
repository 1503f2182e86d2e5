//! draft-00 video rate adaptation (draft-johansson-rmcat-scream-cc-00 §9.1.5,
//! §9.1.6): each stream's bitrate is a scale factor times its highest bitrate. At every
//! frame the age of the stream's RTP queue joins a history of the last
//! [`AGE_HIST_SIZE_MAX`] samples; once it is full, its average lowers the factor in
//! proportion to the age when it is above half a frame period, and otherwise raises it
//! by a step limited in size and slowed down while the one-way delay is high.

use super::config::Draft00Config;
use crate::time::{Duration, Instant};
use std::collections::VecDeque;

/// Samples of the RTP-queue age the average is taken over (§9.1.6 `ageHistSizeMax`).
pub(crate) const AGE_HIST_SIZE_MAX: usize = 5;
/// An increase step is at most this fraction of the current factor (§9.1.6
/// `scaleLimit = max(scaleFactor, scaleFactorMax*0.1)*0.2`) ...
const SCALE_LIMIT_FRACTION: f64 = 0.2;
/// ... and the current factor counts as at least this fraction of the highest.
const SCALE_LIMIT_FLOOR: f64 = 0.1;
/// The ramp-up slows down at most this many times (§9.1.6 `min(5.0, ...)`) ...
const RAMP_UP_SLOW_DOWN_MAX: f64 = 5.0;
/// ... relaxes by this factor per adjustment (`rampUpSlowDown*0.9`) ...
const RAMP_UP_SLOW_DOWN_DECAY: f64 = 0.9;
/// ... and grows with the OWD above this fraction of the target, by
/// [`RAMP_UP_SLOW_DOWN_MAX`] per target (`1.0+5.0*max(0.0,owdFraction-0.2)`).
const RAMP_UP_OWD_FRACTION: f64 = 0.2;
/// Frame period assumed until a stream's second frame (chosen: 50 fps; §9.1.5 leaves
/// `framePeriod` NOT_SPECIFIED_3).
const INITIAL_FRAME_PERIOD: Duration = Duration::from_millis(20);
/// Weight of the newest inter-frame time in the frame period (chosen: the period is
/// measured, so a little smoothing keeps one late frame from halving the threshold).
const FRAME_PERIOD_GAIN: f64 = 0.25;

/// The rate adaptation state of one stream.
#[derive(Debug, Clone)]
pub(crate) struct VideoRate {
    /// RTP-queue ages of the latest frames, oldest first (§9.1.6 `ageHist`).
    ages: VecDeque<Duration>,
    /// §9.1.5 `scaleFactor`: starts at `scaleFactorMin`.
    scale: f64,
    /// §9.1.6 `rampUpSlowDown` (chosen start: 1, no slow-down).
    slow_down: f64,
    /// §9.1.5 `framePeriod`, measured between this stream's frames.
    frame_period: Duration,
    last_frame: Option<Instant>,
}

impl VideoRate {
    pub(crate) fn new(cfg: &Draft00Config) -> Self {
        Self {
            ages: VecDeque::with_capacity(AGE_HIST_SIZE_MAX),
            scale: cfg.scale_factor_min,
            slow_down: 1.0,
            frame_period: INITIAL_FRAME_PERIOD,
            last_frame: None,
        }
    }

    /// The current scale factor.
    pub(crate) fn scale(&self) -> f64 {
        self.scale
    }

    /// The measured frame period.
    #[cfg(test)]
    pub(crate) fn frame_period(&self) -> Duration {
        self.frame_period
    }

    /// §9.1.6 `adjustVideoBitrate`, run for every frame the stream hands in (skipped
    /// or not) at `now`, its RTP queue then `age` old; `owd` is the latest one-way
    /// queue delay. The draft's check `now - lastTimeAdjustVideoBitrate < framePeriod`
    /// never holds after the start, as the draft never updates that time: the factor
    /// is adjusted at every frame.
    pub(crate) fn on_frame(
        &mut self,
        cfg: &Draft00Config,
        now: Instant,
        age: Duration,
        owd: Duration,
    ) {
        if let Some(prev) = self.last_frame {
            let dt = now.saturating_duration_since(prev).as_secs_f64();
            if dt > 0.0 {
                let fp = self.frame_period.as_secs_f64();
                self.frame_period = Duration::from_secs_f64(
                    FRAME_PERIOD_GAIN * dt + (1.0 - FRAME_PERIOD_GAIN) * fp,
                );
            }
        }
        self.last_frame = Some(now);

        self.ages.push_back(age);
        if self.ages.len() < AGE_HIST_SIZE_MAX {
            return;
        }
        let avg = self.ages.iter().map(|a| a.as_secs_f64()).sum::<f64>() / self.ages.len() as f64;
        let period = self.frame_period.as_secs_f64();
        let (min, max) = (cfg.scale_factor_min, cfg.scale_factor_max);
        if avg > period / 2.0 {
            // Down in proportion to the age in seconds: at 100 ms, 10 % per frame.
            self.scale = (self.scale * (1.0 - avg)).max(min);
        } else {
            let limit = self.scale.max(max * SCALE_LIMIT_FLOOR) * SCALE_LIMIT_FRACTION;
            let owd_fraction = owd.as_secs_f64() / cfg.owd_target.as_secs_f64();
            self.slow_down = (self.slow_down * RAMP_UP_SLOW_DOWN_DECAY)
                .max(1.0 + RAMP_UP_SLOW_DOWN_MAX * (owd_fraction - RAMP_UP_OWD_FRACTION).max(0.0))
                .min(RAMP_UP_SLOW_DOWN_MAX);
            let step = period * max / (cfg.ramp_up_time.as_secs_f64() * self.slow_down);
            self.scale = (self.scale + step.min(limit)).min(max);
        }
        self.ages.pop_front();
    }

    /// The queue was discarded: the ages it reached no longer describe it (chosen).
    pub(crate) fn clear_ages(&mut self) {
        self.ages.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sender::config::SenderConfig;

    fn cfg() -> Draft00Config {
        let c = SenderConfig::for_generation("scream-draft00").expect("known");
        c.draft00().expect("draft-00").clone()
    }

    const fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    /// Frames every 20 ms from t = 0 with RTP-queue ages `ages`, at OWD `owd`.
    fn feed(r: &mut VideoRate, cfg: &Draft00Config, from: usize, ages: &[u64], owd: u64) {
        for (i, a) in ages.iter().enumerate() {
            let t = Instant::from_millis(20 * (from + i) as u64);
            r.on_frame(cfg, t, ms(*a), ms(owd));
        }
    }

    #[test]
    fn nothing_moves_before_five_ages_are_in() {
        let c = cfg();
        let mut r = VideoRate::new(&c);
        assert_eq!(r.scale(), 0.1);
        feed(&mut r, &c, 0, &[0, 0, 0, 0], 0);
        assert_eq!(r.scale(), 0.1);
        feed(&mut r, &c, 4, &[0], 0);
        assert!(r.scale() > 0.1);
    }

    #[test]
    fn the_increase_is_limited_to_a_fifth_of_the_factor() {
        // From 0.1: at most max(0.1, 0.1) · 0.2 = 0.02; the ramp-up step is
        // 0.02 · 1 / (4 · 1) = 0.005, the smaller.
        let c = cfg();
        let mut r = VideoRate::new(&c);
        feed(&mut r, &c, 0, &[0; 5], 0);
        assert!((r.scale() - 0.105).abs() < 1e-9, "{}", r.scale());
        // With a 0.1 s ramp-up the step (0.2) exceeds the limit (0.021).
        let mut fast = c.clone();
        fast.ramp_up_time = ms(100);
        let mut r = VideoRate::new(&fast);
        feed(&mut r, &fast, 0, &[0; 5], 0);
        assert!((r.scale() - 0.12).abs() < 1e-9, "{}", r.scale());
        feed(&mut r, &fast, 5, &[0], 0);
        assert!((r.scale() - 0.144).abs() < 1e-9, "{}", r.scale());
    }

    #[test]
    fn the_average_age_not_the_latest_decides() {
        let c = cfg();
        let mut r = VideoRate::new(&c);
        r.scale = 0.8;
        // One old sample among young ones: average 12 ms > 10 ms, half the period.
        feed(&mut r, &c, 0, &[0, 0, 0, 0, 60], 0);
        assert!(
            (r.scale() - 0.8 * (1.0 - 0.012)).abs() < 1e-9,
            "{}",
            r.scale()
        );
        // It stays in the average for four more frames although the queue is empty.
        for i in 5..9 {
            let before = r.scale();
            feed(&mut r, &c, i, &[0], 0);
            assert!(r.scale() < before, "frame {i}");
        }
        let before = r.scale();
        feed(&mut r, &c, 9, &[0], 0);
        assert!(r.scale() > before);
        // A latest age of 40 ms averages to 8 ms, below half the period: up again.
        let mut r = VideoRate::new(&c);
        r.scale = 0.8;
        feed(&mut r, &c, 0, &[0, 0, 0, 0, 40], 0);
        assert!(r.scale() > 0.8, "{}", r.scale());
    }

    #[test]
    fn an_old_queue_lowers_the_factor_in_proportion_to_its_age_down_to_the_minimum() {
        let c = cfg();
        let mut r = VideoRate::new(&c);
        r.scale = 1.0;
        feed(&mut r, &c, 0, &[100; 5], 0);
        assert!((r.scale() - 0.9).abs() < 1e-9, "{}", r.scale());
        feed(&mut r, &c, 5, &[500; 40], 0);
        assert_eq!(r.scale(), 0.1);
    }

    #[test]
    fn a_high_owd_slows_the_ramp_up() {
        let c = cfg();
        let step = |owd| {
            let mut r = VideoRate::new(&c);
            r.scale = 0.5;
            feed(&mut r, &c, 0, &[0; 5], owd);
            r.scale() - 0.5
        };
        let free = step(0);
        assert!((free - 0.005).abs() < 1e-9, "{free}");
        // OWD at 0.6 of the target: slow-down 1 + 5 · 0.4 = 3.
        let slowed = step(48);
        assert!((free / slowed - 3.0).abs() < 1e-6, "{free} vs {slowed}");
        // At the target and beyond the slow-down is capped at 5.
        assert!((free / step(80) - 5.0).abs() < 1e-6);
        assert!((free / step(400) - 5.0).abs() < 1e-6);
    }

    #[test]
    fn the_frame_period_is_measured() {
        let c = cfg();
        let mut r = VideoRate::new(&c);
        for i in 0..40 {
            r.on_frame(&c, Instant::from_millis(40 * i), ms(0), ms(0));
        }
        assert!((r.frame_period().as_secs_f64() - 0.04).abs() < 1e-4);
    }
}
