//! `scream-draft00`: the early SCReAM of draft-johansson-rmcat-scream-cc-00
//! (Johansson, Sarker, 17 June 2014), kept small for historical comparison. Each rule
//! follows the draft's §9 pseudo code; the section is cited where it is implemented.
//!
//! - **Congestion window** (`window`, §9.1.3-§9.1.4): LEDBAT's law on the one-way
//!   queue delay with an 80 ms target. It grows (`gainUp`) only while
//!   `bytesInFlight · cwndHeadroom > cwnd`, the headroom going from 2 at an empty
//!   queue to 1 at the target; it shrinks (`gainDown`) at and above the target, up to
//!   twice as fast on RTTs above 100 ms while the delay does not fall; a loss event
//!   scales it by 0.8, at most once per RTT; it never goes below three packets.
//! - **Transmission** (§9.1.2): a packet leaves only while `bytesInFlight + size <
//!   cwnd`, paced at the window's rate `8 · cwnd / rtt` (at least 50 kbit/s), and no
//!   closer than 1 ms to the previous one.
//! - **Video rate** (`rate`, §9.1.5-§9.1.6): each stream's target is a scale factor
//!   times its `max_bitrate`. The factor follows the average RTP-queue age of the last
//!   five frames: down in proportion to it above half a frame period, otherwise up by
//!   a limited step that a high one-way delay slows down.
//! - **Frame skipping** (§9.1.6, threshold from §10): a frame that arrives while its
//!   stream's RTP queue is older than `frame_skip_delay` (100 ms) is not queued; the
//!   sender counts it and raises [`crate::sender::Event::FrameSkipped`].
//!
//! # What the draft leaves open, and what is chosen here
//!
//! §9 lists fast start, congestion window validation, adjustment to competing flows
//! and the discard of old frames as missing, and leaves the video constants
//! `NOT_SPECIFIED`. The choices are stated at each parameter ([`Draft00Config`]) and
//! in `docs/scream-draft00.md`:
//!
//! - no fast start, no window validation, no adjustment to competing flows (the
//!   OWD target stays put); the discard of old frames is the chassis' (at
//!   `max_rtp_queue_delay`), shared with every generation;
//! - the scale factor is relative to the stream's `max_bitrate`, between 0.1 (§10's
//!   video ran 150 to 1500 kbit/s) and 1; `rampUpTime`, used but never defined, is 4 s
//!   (§3.1: the ramp-up takes 3 to 5 s); the frame period is measured;
//! - `mtuMax` of the window floor is the draft's `mss`, the largest packet sent;
//! - CE counts as a loss (RFC 3168 §5), as the draft leaves its ECN echo "T.B.D."; a
//!   sender that sends Not-ECT ignores CE reports;
//! - the skip decision uses the RTP-queue age when the frame arrives (the draft's
//!   loop decides it one frame earlier, after queueing the previous frame), and key
//!   frames are never skipped: without them the receiver cannot decode again;
//! - the one-way delay is the chassis' latest queue delay sample, its RTT the
//!   smoothed RTT; its RTP-queue discard, stall guard and base delay refresh (whose
//!   rate reduction applies here too) are shared with every generation.

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
use super::stream::{MediaFrame, Stream};
use crate::time::{Duration, Instant};
use crate::units::Bitrate;
use rate::VideoRate;
use stats::Draft00Stats;

/// Lowest pacing rate, bit/s (§9.1.2: "we assume a min bw of 50kbps").
const RATE_PACE_MIN_BPS: f64 = 50_000.0;
/// Shortest time between two packets (§9.1.2: "a min tp of 1ms").
const TP_MIN: Duration = Duration::from_millis(1);
/// EWMA gain of the averaged queue delay the chassis keeps; draft-00 does not use it,
/// it only appears in the statistics.
const QDELAY_AVG_G: f64 = 1.0 / 8.0;

/// The state of the draft-00 generation.
#[derive(Debug, Clone)]
pub(crate) struct Draft00 {
    pub(crate) cfg: Draft00Config,
    pub(crate) window: window::Cwnd,
    /// Per-stream video rate adaptation, indexed like the streams.
    pub(crate) streams: Vec<VideoRate>,
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
        self.streams.push(VideoRate::new(&self.cfg));
    }

    /// Frame skipping (§9.1.6 `skipFrame`): whether a frame arriving at `now` enters
    /// stream `idx`'s RTP queue, which is `queue_delay` old. Every frame, skipped or
    /// not, then adjusts the stream's scale factor (§9.1.5 `encodeVideoFrame` calls
    /// `adjustVideoBitrate` either way).
    fn admit_frame(
        &mut self,
        idx: usize,
        frame: MediaFrame,
        queue_delay: Duration,
        now: Instant,
    ) -> bool {
        let owd = self.window.owd();
        let Some(s) = self.streams.get_mut(idx) else {
            return true;
        };
        s.on_frame(&self.cfg, now, queue_delay, owd);
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
            s.clear_ages();
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

    fn on_packet_sent(&mut self, _idx: usize, _now: Instant, size: u32, _bytes_in_flight: u64) {
        self.window.on_sent(size);
    }

    fn window_bytes(&self) -> u64 {
        self.window.cwnd_bytes()
    }

    fn send_limit_bytes(&self, _steadiness: f64, _mss: u64) -> u64 {
        self.window.send_limit_bytes()
    }

    /// §9.1.5: the encoder scales its frames by the stream's scale factor; here the
    /// target is that factor times the stream's `max_bitrate` (chosen reading of
    /// `encode(..., scaleFactor)`), times the chassis' base delay refresh factor.
    fn update_targets(&mut self, streams: &mut [Stream], input: &TargetInput) {
        self.srtt = input.srtt;
        for (s, d) in streams.iter_mut().zip(&self.streams) {
            let wanted = s.config.max_bitrate.scale(d.scale() * input.rate_factor);
            s.rate_share = wanted;
            s.target = wanted.clamp(s.config.min_bitrate, s.config.max_bitrate);
        }
    }

    /// §9.1.2 packet pacing: `tp = max(1 ms, size · 8 / max(50 kbit/s, cwnd · 8 /
    /// rtt))`. The pacer spaces packets by size over rate, so the 1 ms floor becomes a
    /// rate ceiling of one largest packet per millisecond.
    fn pacing_rate(
        &self,
        _streams: &[Stream],
        _media_rate: Bitrate,
        _peak: Option<Bitrate>,
    ) -> Bitrate {
        let rtt = self.srtt.max(Duration::from_millis(1)).as_secs_f64();
        let bw = (8.0 * self.window.cwnd_bytes() as f64 / rtt).max(RATE_PACE_MIN_BPS);
        let ceiling = 8.0 * self.window.mss() as f64 / TP_MIN.as_secs_f64();
        Bitrate::from_bps(bw.min(ceiling))
    }

    // Draft-00 follows every RTT sample alike (never application-limited), has no
    // reaction of its own to a stall and no L4S: those keep the defaults.

    fn stats(&self, _steadiness: f64) -> Draft00Stats {
        Draft00Stats {
            owd_target: self.cfg.owd_target,
            off_target: self.window.off_target(),
            cwnd_headroom: self.window.headroom(),
            scale_factors: self.streams.iter().map(VideoRate::scale).collect(),
            frames_skipped: self.frames_skipped,
        }
    }
}
