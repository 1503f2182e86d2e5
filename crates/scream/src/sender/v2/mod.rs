//! SCReAM V2, as specified in **draft-ietf-ccwg-rfc8298bis-screamv2-00** (May 2026):
//! the reference window (`window`), the target bitrate derived from it (`rate`), the
//! RTP-queue-driven rate adjustment and frame-size-adaptive pacing (`streams`,
//! `pacing`), and its parameters ([`V2Config`]).
//!
//! The sender runs the faithful algorithm unless [`SenderConfig::improvements`] turns on
//! some of the opt-in [`Improvements`], which fix weaknesses that the draft and the
//! reference share.
//!
//! # Deviations from the draft, and why
//!
//! - **`MUL_INCREASE_FACTOR` defaults to 0.05** (draft: 0.02), the reference
//!   simulator's value; with 0.02 the ramp-up is markedly slower than the reference's.
//! - **`POST_CONGESTION_DELAY_RTT` defaults to 200** (draft: 100), the reference's
//!   value: the multiplicative increase returns over ~5 s after a congestion event
//!   instead of ~2.5 s. With 100 the window doubled within 0.8 s once the capacity came
//!   back in the reference scenario and the classic-ECN queue overshot to ~40 ms
//!   (reference: < 10 ms).
//! - **Initial reference window 10 000 bytes** (draft: `MIN_REF_WND`), as in the
//!   reference simulator, so the first target is near typical start bitrates.
//! - **Send window headroom is adaptive** between `REF_WND_OVERHEAD` (1.5) and 3.0 by
//!   the steadiness of the queue delay, plus one MSS, as in the reference; the draft
//!   multiplies by `rel_framesize_high` instead. The frame-size histogram
//!   (`rel_framesize_high`) is not kept: the reference's simulator disables it, and its
//!   target bitrate uses the fixed margin `frame_size_margin` (1.1) instead.
//! - **Virtual L4S uses `qdelay_avg`** both as trigger and as level (the draft's trigger
//!   is the instantaneous qdelay), and each back-off is divided by
//!   `max(1, s_rtt / VIRTUAL_RTT)` because up to that many back-offs fit in one RTT.
//!   The same division applies to the L4S back-off (reference implementation). The
//!   virtual alpha is divided once more when it is computed, as in the reference.
//! - **`s_rtt` is followed once per RTT** (the per-sample EWMA with gain 1/8, RFC 6298,
//!   is itself averaged with gain 1/8 once per RTT), and while the window is
//!   application-limited a falling RTT is followed with gain 1/1024 only, as the
//!   reference's `sRtt`. This `s_rtt` drives everything: the target bitrate
//!   (`8 · ref_wnd / s_rtt`), the congestion interval, the back-off scaling and the
//!   window growth; the per-sample one only tells whether the queue drains (L4S CE
//!   drain check). A per-sample `s_rtt` swells with the very queue a back-off is to
//!   drain, so the target fell mostly through the RTT while the window barely shrank,
//!   and the delay-only queue p95 was ~20 % above the reference's.
//! - **`qdelay_avg` is updated once per congestion interval** `min(VIRTUAL_RTT, s_rtt)`
//!   (draft: once per RTT), as the reference; at 50 ms RTTs the once-per-RTT average
//!   lags so much that the delay-only queue p95 is ~30 % above the reference's.
//! - **`l4s_alpha` rises with gain 1/8 and decays with 1/128** (`l4s_avg_g`,
//!   `l4s_avg_g_down`; draft: `L4S_AVG_G` = 1/16 both ways), as the reference; the
//!   slow decay keeps the back-off ready for the next marking episode.
//! - **One reaction per congestion event**, the strongest signal first: loss, else CE,
//!   else virtual CE (the draft applies every signal present), as the reference.
//! - **L4S back-off restraint** (reference implementation): the back-off is ×0.25 when
//!   the total target is already below 0.8 × the acknowledged rate (the encoder lags
//!   the window), and, when the queue delay is below a quarter of the target, scaled by
//!   the inflection-point scale and the queue-delay steadiness (each ≥ 0.25). The same
//!   ×0.25 applies to the virtual back-off. In L4S mode CE is ignored when every
//!   packet of a feedback was marked while the RTT falls: the queue already drains.
//! - **Inflection-point scale** `(8 · (ref_wnd − ref_wnd_i) / ref_wnd_i)²` in [0.1, 1]
//!   (draft: gain 4), and the additive increase is scaled by at least 0.25 of it
//!   (draft: 0.1); the draft's L4S exemption for windows over 50 MSS is not applied.
//!   As the reference; with the draft's values the window needs 6–8 s to regain the
//!   rate after the capacity returns in the reference scenario (reference: ~1.5 s).
//! - **Long-uncongested L4S back-off** only caps the window at the recent bytes in
//!   flight (reference); the draft's extra minimum back-off of 25 % and `l4s_alpha`
//!   restart cut the rate by a quarter at the first mark after a calm period, which
//!   took 8 s to recover in the reference scenario.
//! - **Bytes in flight** are the packets neither acknowledged nor declared lost (the
//!   draft counts everything above the highest acknowledged sequence number);
//!   `bytes_newly_acked` counts acknowledged bytes only (the draft also adds lost ones).
//! - **Loss detection** uses a fixed time reordering window (`reorder_time`, 30 ms as in
//!   the reference) in the manner of RFC 8985; the draft's adaptive window is not
//!   implemented. Packets unresolved after `in_flight_timeout` leave the bytes in flight
//!   as lost without a back-off. The reference's stall guard is kept too: when media
//!   waits behind a closed send window `stall_timeout` (0.5 s) after the last
//!   transmission, every packet in flight leaves the bytes in flight the same way. The
//!   reference resets them whether or not the window is what holds the packet back;
//!   here only the window counts, so a slow pacing rate never discards the flight.
//!   While the return path is seen to lose reports, the window does not wait for
//!   reports that are overdue and lets a probe through to a receiver that has fallen
//!   silent (the chassis's `late_feedback`); with every report delivered nothing
//!   changes.
//! - **The window cap at the maximum rate**, the adaptive growth restraint from the
//!   queue-delay variation, relaxed and frame-size-adaptive pacing, the RTP-queue-driven
//!   target reduction and the base delay refresh (halve the rate for a few RTTs, then
//!   restart the base delay history, when the queue delay never gets near zero for
//!   10 s) follow the reference; the draft mentions them without detail.
//! - **Adaptive pacing follows the RTP queue backlog**: the pacing scale is the larger of
//!   the last frame and all bytes waiting in the RTP queue, over the nominal frame size
//!   (capped by `max_adaptive_pacing_scale`), as the reference's frame-size measure; the
//!   draft scales by the frame size only. After a capacity drop the target falls faster
//!   than the queue that built up meanwhile drains, and pacing at 1.5 × the reduced
//!   target released it below the path's rate: the delay-only RTP queue needed ~0.15 s
//!   longer to empty after the 10 → 5 Mbit/s step of the reference scenario.
//! - **Small-RTT growth factor** `min(1, s_rtt / VIRTUAL_RTT)` scales the window
//!   increase once, as the reference (`ScreamV2Tx::updateCwnd`); the draft squares it.
//! - **Both smoothed RTTs start at 50 ms** and average the first samples in with gain
//!   1/8, as the reference's `sRttSh` and `sRtt`; the draft (after RFC 6298) starts
//!   from the first sample.
//! - **The pacing rate is recomputed on feedback** (and before the first feedback on
//!   frames), as the reference computes its pacing interval in `updateCwnd`; frames
//!   update the targets only.
//! - **Not implemented**: competing-flows compensation (adaptive qdelay target; the
//!   reference disables it by default), clock drift compensation, MSS adaptation.
//! - **Sequence numbers are assigned at transmission**, so a discarded RTP queue leaves
//!   no gap that the receiver would report as loss.

pub(crate) mod config;
pub(crate) mod pacing;
pub(crate) mod rate;
pub(crate) mod stats;
pub(crate) mod streams;
pub(crate) mod window;

pub use config::V2Config;

use super::config::{EcnMode, SenderConfig};
use super::generation::contract::{
    AckSummary, BackOffCause, DelayParams, Measurements, TargetInput,
};
use super::generation::controller::Controller;
use super::improvements::Improvements;
use super::stream::Stream;
use crate::time::{Duration, Instant};
use crate::units::Bitrate;
use stats::V2Stats;

/// What SCReAM V2 reads of the configuration: its own parameters (through `Deref`,
/// so the code reads `cfg.qdelay_target` as the draft names it) and the two shared
/// settings that change its reactions and its target.
#[derive(Clone, Debug)]
pub(crate) struct V2Settings {
    pub(crate) ecn: EcnMode,
    pub(crate) improvements: Improvements,
    pub(crate) packet_overhead_bytes: u32,
    params: V2Config,
}

impl V2Settings {
    pub(crate) fn new(cfg: &SenderConfig, params: &V2Config) -> Self {
        Self {
            ecn: cfg.ecn,
            improvements: cfg.improvements,
            packet_overhead_bytes: cfg.packet_overhead_bytes,
            params: params.clone(),
        }
    }

    /// The settings of a default V2 configuration changed by `cfg`'s shared fields
    /// (tests).
    #[cfg(test)]
    pub(crate) fn of(cfg: &SenderConfig) -> Self {
        Self::new(cfg, cfg.v2().expect("a SCReAM V2 configuration"))
    }
}

impl core::ops::Deref for V2Settings {
    type Target = V2Config;
    fn deref(&self) -> &V2Config {
        &self.params
    }
}

/// The state of SCReAM V2.
#[derive(Debug, Clone)]
pub(crate) struct V2 {
    pub(crate) cfg: V2Settings,
    pub(crate) window: window::RefWindow,
    /// Per-stream rate adjustment and pacing scale, indexed like the sender's streams.
    pub(crate) streams: Vec<streams::V2Stream>,
}

impl Controller for V2 {
    type Config = V2Config;
    type Stats = V2Stats;

    fn new(cfg: &SenderConfig, params: &V2Config, _srtt: Duration) -> Self {
        let cfg = V2Settings::new(cfg, params);
        Self {
            window: window::RefWindow::new(&cfg),
            cfg,
            streams: Vec::new(),
        }
    }

    fn on_stream_added(&mut self, _stream: &Stream) {
        self.streams.push(streams::V2Stream::default());
    }

    fn on_frame(&mut self, idx: usize, stream: &Stream, size_bytes: u32, queue_delay: Duration) {
        if let Some(s) = self.streams.get_mut(idx) {
            s.on_frame(stream, size_bytes, queue_delay);
        }
    }

    fn on_discard(&mut self, idx: usize) {
        if let Some(s) = self.streams.get_mut(idx) {
            s.on_discard();
        }
    }

    fn delay_params(&self, srtt: Duration) -> DelayParams {
        DelayParams {
            qdelay_target: self.cfg.qdelay_target,
            qdelay_avg_g: self.cfg.qdelay_avg_g,
            interval: self.cfg.virtual_rtt.min(srtt),
        }
    }

    fn on_feedback(
        &mut self,
        ack: &AckSummary,
        m: &Measurements,
    ) -> Option<(BackOffCause, u64, u64)> {
        self.window.on_feedback(&self.cfg, ack, m)
    }

    fn on_stall(&mut self, in_a_row: u32) -> Option<(u64, u64)> {
        self.window.on_stall(in_a_row)
    }

    fn on_packet_sent(&mut self, _idx: usize, _now: Instant, _size: u32, bytes_in_flight: u64) {
        self.window.on_sent(bytes_in_flight);
    }

    /// The reference window.
    fn window_bytes(&self) -> u64 {
        self.window.ref_wnd_bytes()
    }

    fn send_limit_bytes(&self, steadiness: f64, mss: u64) -> u64 {
        self.window.send_limit_bytes(&self.cfg, steadiness, mss)
    }

    /// Media rate control: the window per sRTT, split by priority, each share lowered
    /// by its stream's RTP-queue adjustment.
    fn update_targets(&mut self, streams: &mut [Stream], input: &TargetInput) {
        let total = rate::total_target(
            &self.cfg,
            self.window.ref_wnd_bytes(),
            input.srtt,
            input.mss_bytes,
        )
        .scale(input.rate_factor);
        super::scheduler::allocate(total, streams);
        for (s, v2) in streams.iter_mut().zip(&self.streams) {
            let share = s.rate_share.scale(1.0 / (1.0 + v2.rate_adjust));
            s.target = share.clamp(s.config.min_bitrate, s.config.max_bitrate);
        }
    }

    /// The pacing rate for the streams' targets and frame sizes.
    fn pacing_rate(
        &self,
        streams: &[Stream],
        media_rate: Bitrate,
        delivery_peak: Option<Bitrate>,
    ) -> Bitrate {
        pacing::pacing_rate(
            &self.cfg,
            streams,
            &self.streams,
            media_rate,
            self.window.l4s_alpha(),
            delivery_peak,
        )
    }

    fn app_limited(&self) -> bool {
        self.window.app_limited()
    }

    fn l4s_alpha(&self) -> f64 {
        self.window.l4s_alpha()
    }

    fn stats(&self, steadiness: f64) -> V2Stats {
        V2Stats {
            window_headroom: window::headroom(&self.cfg, steadiness),
        }
    }
}
