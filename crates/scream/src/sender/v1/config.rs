//! SCReAM V1's own parameters.
//!
//! Names follow RFC 8298's constants in snake case (§4.1.1 "Constants and parameter
//! values"); the per-stream knobs the Ericsson code takes when a stream is registered
//! (`registerNewStream`) and its constructor arguments (`ScreamTx(...)`) are named in
//! the same style. Defaults are those of the Ericsson library at commit 0924c0b
//! (`code/ScreamTx.h`, `ScreamTx.cpp`), not those its simulator passes; each field says
//! what the simulator (`scream_v_a.cpp`) and the published 5G studies used where it
//! differs. Per-stream knobs apply to every stream of the sender.

use crate::sender::params::{ConfigError, declare_params};
use crate::time::Duration;
use crate::units::Bitrate;

declare_params! {
    /// The parameters of SCReAM V1 ([`super::super::GenerationConfig::V1`]).
    pub struct V1Config {
        plain {}
        params {
            /// Queue delay target (RFC 8298 `QDELAY_TARGET_LO`): the one-way queue delay
            /// the LEDBAT-like window law steers to. Without competing-flows
            /// compensation it is the fixed target. The reference simulator and the
            /// studies use 0.06 s.
            qdelay_target_lo: Duration = ms(100),
                range incl(ms(1), secs(2)), source "RFC 8298 QDELAY_TARGET_LO; ScreamTx queueDelayTargetMin";
            /// Highest queue delay target the competing-flows compensation may raise
            /// the target to (RFC 8298 `QDELAY_TARGET_HI`, 0.4 s; the code uses 0.3 s).
            qdelay_target_hi: Duration = ms(300),
                range incl(ms(1), secs(2)), source "ScreamTx kQueueDelayTargetMax (RFC 8298 QDELAY_TARGET_HI 0.4 s)";
            /// Turns the competing-flows compensation on (1) or off (0): the queue
            /// delay target then rises towards `qdelay_target_hi` when the delay
            /// statistics say a loss-based flow shares the bottleneck.
            competing_flows_compensation: bool = false,
                range incl(false, true), source "ScreamTx enableSbd";
            /// Queue delay trend above which fast increase stops and below which it
            /// may resume (RFC 8298 `QDELAY_TREND_TH`, a literal in the code).
            qdelay_trend_th: f64 = 0.2,
                range incl(0.0, 1.0), source "RFC 8298 QDELAY_TREND_TH; ScreamTx literal 0.2";
            /// EWMA gain of the averaged queue delay fraction (RFC 8298
            /// `QDELAY_WEIGHT`), per window update.
            qdelay_weight: f64 = 0.1,
                range above(0.0, 1.0), source "RFC 8298 QDELAY_WEIGHT; ScreamTx literal 0.1";
            /// How often a stream's media rate is adjusted (RFC 8298
            /// `RATE_ADJUST_INTERVAL`, 0.2 s; the code adjusts every 20 ms).
            rate_adjust_interval: Duration = ms(20),
                range incl(ms(1), secs(1)), source "ScreamTx kRateAdjustInterval (RFC 8298 0.2 s)";
            /// Fraction of `rate_adjust_interval` a frame may come early and still
            /// adjust the rate. The code compares exactly (0; `updateTargetBitrateOld`,
            /// `time_ntp - lastBitrateAdjustT_ntp < kRateAdjustInterval_ntp`): with the
            /// interval equal to the frame period, a frame a few microseconds early on
            /// a real clock then skips its adjustment and the ramp runs at half speed,
            /// hence the default 0.1. An interval of whole 1/65536 s ticks compares
            /// exactly at 0 (see `rate::adjust_due`).
            rate_adjust_tolerance: f64 = 0.1,
                range incl(0.0, 0.5), source "ScreamTx updateTargetBitrateOld compares exactly (0)";
            /// Largest increase of a stream's target per second (RFC 8298
            /// `RAMP_UP_SPEED`), bit/s per second. The simulator and the studies use
            /// 10 Mbit/s/s.
            ramp_up_speed: Bitrate = kbps(200.0),
                range incl(kbps(1.0), mbps(10_000.0)), source "ScreamTx registerNewStream rampUpSpeed";
            /// The increase per second is also at most this fraction of the target.
            /// The simulator and the studies use 1.0.
            ramp_up_scale: f64 = 0.2,
                range above(0.0, 100.0), source "ScreamTx registerNewStream rampUpScale";
            /// How much a rising queue delay trend lowers the target (RFC 8298
            /// `PRE_CONGESTION_GUARD`): the measured rate is scaled by
            /// `1 - pre_congestion_guard * qdelay_trend`.
            pre_congestion_guard: f64 = 0.1,
                range incl(0.0, 1.0), source "RFC 8298 PRE_CONGESTION_GUARD; ScreamTx queueDelayGuard";
            /// Weight of the smoothed RTP queue backlog (bits, at most 20 ms of target)
            /// subtracted from the target (RFC 8298 `TX_QUEUE_SIZE_FACTOR`, 1.0).
            tx_queue_size_factor: f64 = 0.2,
                range incl(0.0, 10.0), source "ScreamTx registerNewStream txQueueSizeFactor (RFC 8298 1.0)";
            /// RTP queue delay below which the rate may increase fast (RFC 8298
            /// `RTP_QDELAY_TH`; the code's fixed 0.1 s gate on the rate fast increase).
            rtp_qdelay_th: Duration = ms(100),
                range incl(ms(1), secs(10)), source "ScreamTx literal 0.1 s (RFC 8298 RTP_QDELAY_TH)";
            /// Factor applied to the target while the window stays full (bytes in
            /// flight above 0.9 window), at most every 100 ms. The code has no
            /// `TARGET_RATE_SCALE_RTP_QDELAY` reaction to the RTP queue delay; this
            /// window-full nudge is the reduction in its place.
            target_rate_scale_rtp_qdelay: f64 = 0.95,
                range above(0.0, 1.0), source "ScreamTx literal 0.95 (RFC 8298 TARGET_RATE_SCALE_RTP_QDELAY)";
            /// Target scale factor on a loss event (RFC 8298 `BETA_R`).
            loss_event_rate_scale: f64 = 0.9,
                range above(0.0, 1.0), source "RFC 8298 BETA_R; ScreamTx lossEventRateScale";
            /// Target scale factor on a classic ECN-CE event.
            ecn_ce_event_rate_scale: f64 = 0.95,
                range above(0.0, 1.0), source "ScreamTx registerNewStream ecnCeEventRateScale";
            /// Turns on (1) the output scale that compensates an encoder whose
            /// average rate stays above or below its target (0.8 to 1.1).
            adaptive_target_rate_scale: bool = true,
                range incl(false, true), source "ScreamTx isAdaptiveTargetRateScale";
            /// Relative change below which the announced target stays unchanged
            /// (decreases need a quarter of it). The simulator uses 0.1.
            target_hysteresis: f64 = 0.0,
                range incl(0.0, 1.0), source "ScreamTx registerNewStream hysteresis";
            /// Window scale factor on a loss event (RFC 8298 `BETA_LOSS`); 1 ignores
            /// loss.
            beta_loss: f64 = 0.8,
                range above(0.0, 1.0), source "RFC 8298 BETA_LOSS; ScreamTx lossBeta";
            /// Window scale factor on a classic ECN-CE event (RFC 8298 `BETA_ECN`).
            beta_ecn: f64 = 0.9,
                range above(0.0, 1.0), source "ScreamTx ecnCeBeta (RFC 8298 BETA_ECN 0.8)";
            /// LEDBAT gain of the window increase (RFC 8298 `GAIN`).
            gain_up: f64 = 1.0,
                range above(0.0, 100.0), source "RFC 8298 GAIN; ScreamTx gainUp";
            /// LEDBAT gain of the window decrease (RFC 8298 has one `GAIN`). The
            /// simulator and the studies use 5.
            gain_down: f64 = 2.0,
                range above(0.0, 100.0), source "ScreamTx gainDown";
            /// Pacing rate over the sum of the targets. The simulator and the studies
            /// use 1.2.
            packet_pacing_headroom: f64 = 1.25,
                range incl(1.0, 10.0), source "ScreamTx packetPacingHeadroom";
            /// Largest factor by which a frame larger than the average (or an RTP
            /// queue backlog) raises the pacing rate and the send window; 1 disables.
            /// The simulator and the studies use 4.
            max_adaptive_pacing_scale: f64 = 1.0,
                range incl(1.0, 10.0), source "ScreamTx maxAdaptivePacingRateScale";
            /// Congestion window before any feedback, bytes (the code's default 0
            /// means two initial MSS, 200 bytes). The simulator uses 10 000.
            initial_cwnd_bytes: u32 = 200,
                range incl(100, 1_000_000_000), source "ScreamTx cwnd 0 -> 2 x kInitMss";
            /// Floor of the minimum congestion window, bytes (RFC 8298 `MIN_CWND`,
            /// 3000); the window never falls below two of the largest recent packets
            /// either. The simulator uses 10 000.
            min_cwnd_bytes: u32 = 0,
                range incl(0, 1_000_000_000), source "ScreamTx cwndMinLow";
            /// Send window validation: bytes in flight may exceed their recent
            /// maximum by this factor (RFC 8298 `MAX_BYTES_IN_FLIGHT_HEAD_ROOM`, 1.1).
            max_bytes_in_flight_head_room: f64 = 1.25,
                range incl(1.0, 10.0), source "ScreamTx kMaxBytesInFlightHeadRoom (RFC 8298 1.1)";
            /// Seconds (one-second slots) of bytes-in-flight history the window is
            /// validated against, a count. The simulator uses 20.
            bytes_in_flight_history_size: f64 = 30.0,
                range incl(1.0, 60.0), source "ScreamTx bytesInFlightHistSize";
            /// Time after a congestion event over which the fast increase returns
            /// from zero to full speed.
            post_congestion_delay: Duration = ms(100),
                range incl(ms(1), secs(10)), source "ScreamTx setPostCongestionDelay";
            /// Time without congestion after which fast increase resumes (RFC 8298
            /// `T_RESUME_FAST_INCREASE`, 5 s; the code waits 0.25 s while its comments
            /// say 1 s).
            t_resume_fast_increase: Duration = ms(250),
                range incl(ms(1), secs(60)), source "ScreamTx literal 16384 ticks (RFC 8298 5 s)";
            /// EWMA gain of `l4s_alpha`, the averaged CE fraction (L4S only, not in
            /// RFC 8298).
            l4s_avg_g: f64 = 0.125,
                range above(0.0, 1.0), source "ScreamTx kL4sG";
            /// Largest value of `l4s_alpha` (L4S only): the code caps the averaged CE
            /// fraction at 1.0 at 0924c0b and at 0.25 at ac89024, so that a window or
            /// rate back-off there is never deeper than an eighth.
            l4s_alpha_max: f64 = 1.0,
                range above(0.0, 1.0), source "ScreamTx kL4sAlphaMax";
        }
    }
}

impl V1Config {
    /// Checks every field against its range. A `qdelay_target_hi` below
    /// `qdelay_target_lo` is taken as `qdelay_target_lo`.
    pub(crate) fn validate(&self) -> Result<(), ConfigError> {
        self.check_ranges()
    }
}
