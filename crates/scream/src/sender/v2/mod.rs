//! SCReAM V2 (draft-ietf-ccwg-rfc8298bis-screamv2-00): the reference window
//! ([`window`]), the target bitrate derived from it ([`rate`]), the RTP-queue-driven
//! rate adjustment and frame-size-adaptive pacing ([`streams`], [`pacing`]), and its
//! parameters ([`config`]).

pub(crate) mod config;
pub(crate) mod pacing;
pub(crate) mod rate;
pub(crate) mod streams;
pub(crate) mod window;

pub use config::V2Config;

use super::cc_events::BackOffCause;
use super::config::{EcnMode, SenderConfig};
use super::generation::{AckSummary, Measurements, TargetInput};
use super::improvements::Improvements;
use super::stream::Stream;
use crate::units::Bitrate;

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

impl V2 {
    pub(crate) fn new(cfg: &SenderConfig, params: &V2Config) -> Self {
        let cfg = V2Settings::new(cfg, params);
        Self {
            window: window::RefWindow::new(&cfg),
            cfg,
            streams: Vec::new(),
        }
    }

    pub(crate) fn on_feedback(
        &mut self,
        ack: &AckSummary,
        m: &Measurements,
    ) -> Option<(BackOffCause, u64, u64)> {
        self.window.on_feedback(&self.cfg, ack, m)
    }

    pub(crate) fn send_limit_bytes(&self, steadiness: f64, mss: u64) -> u64 {
        self.window.send_limit_bytes(&self.cfg, steadiness, mss)
    }

    /// Media rate control: the window per sRTT, split by priority, each share lowered
    /// by its stream's RTP-queue adjustment.
    pub(crate) fn update_targets(&mut self, streams: &mut [Stream], input: &TargetInput) {
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
    pub(crate) fn pacing_rate(
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
}
