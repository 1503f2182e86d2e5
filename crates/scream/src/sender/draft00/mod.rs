//! `scream-draft00`: the early SCReAM of draft-johansson-rmcat-scream-cc-00
//! (Johansson, Sarker, February 2014), kept small for historical comparison.
//!
//! - **Congestion window** (`window`): LEDBAT's law (RFC 6817) on the one-way queue
//!   delay, with a gain up below the OWD target (80 ms) and a gain down above it; loss
//!   scales the window by `beta_loss` (0.8) at most once per smoothed RTT; bytes in
//!   flight may exceed the window by `cwnd_headroom`.
//! - **Media rate control** (`rate`): each stream's target is its share of the
//!   window's rate `8 · cwnd / sRTT`, times a scale factor that falls from 1 as the
//!   largest RTP-queue age of the last five RTTs grows.
//! - **Frame skipping**: a frame that arrives while its stream's RTP queue is older
//!   than `frame_skip_delay` (100 ms) is not queued; the sender counts it and raises
//!   [`crate::sender::Event::FrameSkipped`].
//! - **Packet pacing**: at `pacing_headroom` times the window's rate (or the total
//!   target, if higher).
//!
//! # Sources
//!
//! The text of the -00 revision could not be consulted when this was written (later
//! revisions and RFC 8298 changed the algorithm, so they are no substitute). The
//! draft's constants as the project's design notes give them are the defaults: OWD
//! target 80 ms, loss back-off 0.8, frame skipping at an RTP-queue age of 100 ms (the
//! draft's LTE simulations), an RTP-queue history of about five RTTs. Check them
//! against the draft before quoting results as the draft's.
//!
//! # What the draft leaves open, and what is chosen here
//!
//! Where no value could be taken from the draft, the choice is stated at the parameter
//! ([`Draft00Config`]) and in `docs/scream-draft00.md`:
//!
//! - `gain_up` = `gain_down` = 1, LEDBAT's `GAIN`;
//! - the window headroom 1.5 and the pacing headroom 1.5, the values later SCReAM
//!   revisions give the same quantities;
//! - the scale factor is linear in the RTP-queue age, from 1 at an empty queue to
//!   `scale_factor_min` (0.5) at the frame-skip age;
//! - the window grows only up to one packet beyond the largest recent bytes in flight
//!   (RFC 6817 `ALLOWED_INCREASE`), so an application-limited sender keeps its window;
//! - CE counts as a loss (RFC 3168 §5), as no ECN reaction of the draft's own is known
//!   here; a sender that sends Not-ECT ignores CE reports (no network marks them);
//! - key frames are never skipped: without them the receiver cannot decode again;
//! - the queue delay is the latest sample, the smoothed RTT and the base delay are the
//!   chassis' (shared with every generation), and so are its RTP-queue discard, stall
//!   guard and base delay refresh (whose rate reduction applies here too).

pub(crate) mod config;
pub(crate) mod rate;
pub(crate) mod stats;
pub(crate) mod window;

pub use config::Draft00Config;

use super::config::{EcnMode, SenderConfig};
use super::generation::contract::{
    AckSummary, BackOffCause, DelayParams, Measurements, TargetInput,
};
use super::generation::controller::Controller;
use super::scheduler;
use super::stream::{MediaFrame, Stream};
use crate::time::{Duration, Instant};
use crate::units::Bitrate;
use rate::AgeHistory;
use stats::Draft00Stats;

/// Lowest pacing rate, bit/s (RFC 8298 `RATE_PACE_MIN`; draft-00 gives none).
const RATE_PACE_MIN_BPS: f64 = 50_000.0;
/// EWMA gain of the averaged queue delay the chassis keeps; draft-00 does not use it,
/// it only appears in the statistics.
const QDELAY_AVG_G: f64 = 1.0 / 8.0;

/// One stream's draft-00 state.
#[derive(Debug, Clone)]
pub(crate) struct Draft00Stream {
    ages: AgeHistory,
    /// The scale factor of the latest target update.
    scale: f64,
}

impl Default for Draft00Stream {
    fn default() -> Self {
        Self {
            ages: AgeHistory::default(),
            scale: 1.0,
        }
    }
}

/// The state of the draft-00 generation.
#[derive(Debug, Clone)]
pub(crate) struct Draft00 {
    pub(crate) cfg: Draft00Config,
    pub(crate) window: window::Cwnd,
    /// Per-stream RTP-queue age history and scale factor, indexed like the streams.
    pub(crate) streams: Vec<Draft00Stream>,
    /// The smoothed RTT of the latest feedback or target update (the chassis' initial
    /// one before either).
    srtt: Duration,
    frames_skipped: u64,
}

impl Controller for Draft00 {
    type Config = Draft00Config;
    type Stats = Draft00Stats;

    fn new(cfg: &SenderConfig, params: &Draft00Config, srtt: Duration) -> Self {
        Self {
            // CE can only mean congestion on packets sent ECN-capable.
            window: window::Cwnd::new(params, cfg.ecn != EcnMode::None),
            cfg: params.clone(),
            streams: Vec::new(),
            srtt,
            frames_skipped: 0,
        }
    }

    fn on_stream_added(&mut self, _stream: &Stream) {
        self.streams.push(Draft00Stream::default());
    }

    /// Frame skipping: whether a frame arriving at `now` enters stream `idx`'s RTP
    /// queue, which is `queue_delay` old. Records the age for the rate control either
    /// way.
    fn admit_frame(
        &mut self,
        idx: usize,
        frame: MediaFrame,
        queue_delay: Duration,
        now: Instant,
    ) -> bool {
        let Some(s) = self.streams.get_mut(idx) else {
            return true;
        };
        s.ages.record(now, queue_delay, self.srtt);
        let skip = queue_delay > self.cfg.frame_skip_delay && !frame.key_frame;
        if skip {
            self.frames_skipped += 1;
        }
        !skip
    }

    // Draft-00 looks at the RTP queue in `admit_frame` only, so `on_frame` keeps the
    // default.

    /// Stream `idx`'s RTP queue was discarded: its ages no longer describe it.
    fn on_discard(&mut self, idx: usize) {
        if let Some(s) = self.streams.get_mut(idx) {
            s.ages.clear();
        }
    }

    fn delay_params(&self, srtt: Duration) -> DelayParams {
        DelayParams {
            qdelay_target: self.cfg.owd_target,
            qdelay_avg_g: QDELAY_AVG_G,
            interval: srtt,
        }
    }

    fn on_feedback(
        &mut self,
        ack: &AckSummary,
        m: &Measurements,
    ) -> Option<(BackOffCause, u64, u64)> {
        self.srtt = m.srtt;
        self.window.on_feedback(&self.cfg, ack, m)
    }

    fn on_packet_sent(&mut self, _idx: usize, _now: Instant, _size: u32, bytes_in_flight: u64) {
        self.window.on_sent(bytes_in_flight);
    }

    fn window_bytes(&self) -> u64 {
        self.window.cwnd_bytes()
    }

    fn send_limit_bytes(&self, _steadiness: f64, _mss: u64) -> u64 {
        self.window.send_limit_bytes(&self.cfg)
    }

    /// Each stream's share of the window's rate, scaled by its RTP-queue age.
    fn update_targets(&mut self, streams: &mut [Stream], input: &TargetInput) {
        self.srtt = input.srtt;
        let rate = rate::window_rate_bps(self.window.cwnd_bytes(), input.srtt);
        let total = Bitrate::from_bps(rate * input.rate_factor);
        scheduler::allocate(total, streams);
        for (s, d) in streams.iter_mut().zip(&mut self.streams) {
            d.scale = rate::scale_factor(
                d.ages.max(),
                self.cfg.frame_skip_delay,
                self.cfg.scale_factor_min,
            );
            s.target = s
                .rate_share
                .scale(d.scale)
                .clamp(s.config.min_bitrate, s.config.max_bitrate);
        }
    }

    /// `pacing_headroom` times the window's rate, or the total target if that is
    /// higher (before the first feedback, or at the streams' minimum bitrates).
    fn pacing_rate(
        &self,
        streams: &[Stream],
        _media_rate: Bitrate,
        _peak: Option<Bitrate>,
    ) -> Bitrate {
        let window = rate::window_rate_bps(self.window.cwnd_bytes(), self.srtt);
        let total = streams
            .iter()
            .fold(Bitrate::ZERO, |acc, s| acc + s.target)
            .bps();
        Bitrate::from_bps((self.cfg.pacing_headroom * window.max(total)).max(RATE_PACE_MIN_BPS))
    }

    // Draft-00 follows every RTT sample alike (never application-limited), has no
    // reaction of its own to a stall and no L4S: those keep the defaults.

    fn stats(&self, _steadiness: f64) -> Draft00Stats {
        Draft00Stats {
            owd_target: self.cfg.owd_target,
            off_target: self.window.off_target(),
            cwnd_headroom: self.cfg.cwnd_headroom,
            scale_factors: self.streams.iter().map(|s| s.scale).collect(),
            frames_skipped: self.frames_skipped,
        }
    }
}
