//! SCReAM V2's own parameters.
//!
//! Sections are named by title in draft-ietf-ccwg-rfc8298bis-screamv2-00 (May 2026):
//! §"Constants", §"Network Congestion Control", §"Send Window", §"Packet Pacing",
//! §"Media Rate Control". Where a default differs from the draft's recommendation, the
//! field says why (see also the deviations list in [`crate::sender`]).

use crate::sender::params::{ConfigError, declare_params, err};
use crate::time::Duration;
use crate::units::Bitrate;

declare_params! {
    /// The parameters of SCReAM V2 ([`super::super::GenerationConfig::V2`]).
    pub struct V2Config {
        plain {}
        params {
            /// Queue delay target (draft §"Constants" `QDELAY_TARGET_LO`): virtual L4S
            /// marking sets in at half of it and reaches 100 % at it.
            qdelay_target: Duration = ms(60),
                range incl(ms(1), secs(1)), source "draft §Constants QDELAY_TARGET_LO";
            /// Minimum reference window (draft §"Constants" `MIN_REF_WND`), bytes. The
            /// effective minimum is never below two full packets.
            min_ref_wnd_bytes: u32 = 3000,
                range incl(100, 1_000_000_000), source "draft §Constants MIN_REF_WND";
            /// Reference window before any feedback, bytes. The draft starts at
            /// `MIN_REF_WND`, which would make the first target far lower than the
            /// streams' start bitrates.
            initial_ref_wnd_bytes: u32 = 10_000,
                range incl(100, 1_000_000_000), source "reference simulator";
            /// Reference window scale factor on a loss event (draft §"Constants"
            /// `BETA_LOSS`); 1 ignores loss.
            beta_loss: f64 = 0.7,
                range above(0.0, 1.0), source "draft §Constants BETA_LOSS";
            /// Reference window scale factor on a classic ECN-CE event (draft
            /// §"Constants" `BETA_ECN`).
            beta_ecn: f64 = 0.8,
                range above(0.0, 1.0), source "draft §Constants BETA_ECN";
            /// EWMA gain of `l4s_alpha`, the averaged CE fraction, when the CE fraction
            /// is at or above it (draft §"Constants" `L4S_AVG_G`). The default is the
            /// reference implementation's rise gain; the draft recommends 1/16 both
            /// ways, with which the L4S queue p95 in the reference scenario is ~20 %
            /// above the reference's.
            l4s_avg_g: f64 = 1.0 / 8.0,
                range above(0.0, 1.0), source "reference (draft L4S_AVG_G 1/16)";
            /// EWMA gain of `l4s_alpha` when the CE fraction is below it, so that
            /// `l4s_alpha` rises quickly and decays slowly (the draft uses `L4S_AVG_G`
            /// both ways).
            l4s_avg_g_down: f64 = 1.0 / 128.0,
                range above(0.0, 1.0), source "reference implementation";
            /// EWMA gain (on increase) of the averaged queue delay (draft §"Constants"
            /// `QDELAY_AVG_G`).
            qdelay_avg_g: f64 = 1.0 / 4.0,
                range above(0.0, 1.0), source "draft §Constants QDELAY_AVG_G";
            /// How many RTTs (of at least `virtual_rtt`) after a congestion event the
            /// multiplicative increase stays restrained (draft §"Constants"
            /// `POST_CONGESTION_DELAY_RTT`). The draft's 100 lets the window regrow so
            /// fast after a capacity recovery that the classic ECN queue overshoots
            /// past the marking threshold.
            post_congestion_delay_rtts: f64 = 200.0,
                range incl(1.0, 1e5), source "reference (draft POST_CONGESTION_DELAY_RTT 100)";
            /// Fraction of the reference window it may grow by per RTT when far from
            /// congestion (draft §"Constants" `MUL_INCREASE_FACTOR`). The draft's 0.02
            /// ramps up markedly slower than the reference.
            mul_increase_factor: f64 = 0.05,
                range incl(0.0, 1.0), source "reference simulator (draft MUL_INCREASE_FACTOR 0.02)";
            /// Virtual RTT (draft §"Constants" `VIRTUAL_RTT`): the congestion interval
            /// is `min(virtual_rtt, srtt)`, and window growth is slowed for RTTs below
            /// it.
            virtual_rtt: Duration = ms(25),
                range incl(ms(1), secs(1)), source "draft §Constants VIRTUAL_RTT";
            /// Pacing rate relative to the target bitrate (draft §"Constants"
            /// `PACKET_PACING_HEADROOM`).
            packet_pacing_headroom: f64 = 1.5,
                range incl(1.0, 10.0), source "draft §Constants PACKET_PACING_HEADROOM";
            /// Minimum pacing rate (draft §"Constants" `RATE_PACE_MIN`).
            rate_pace_min: Bitrate = kbps(50.0),
                range incl(kbps(1.0), mbps(10_000.0)), source "draft §Constants RATE_PACE_MIN";
            /// Largest factor by which pacing is relaxed when the total target
            /// approaches the streams' total maximum (none below 80 % of the maximum,
            /// full at 100 %); 1 disables.
            relaxed_pacing_max_factor: f64 = 5.0,
                range incl(1.0, 100.0), source "reference relaxed pacing";
            /// Largest factor by which the pacing rate follows frames larger than the
            /// average, or an RTP queue backlog larger than one average frame; 1
            /// disables.
            max_adaptive_pacing_scale: f64 = 1.5,
                range incl(1.0, 10.0), source "reference maxAdaptivePacingRateScale";
            /// How far bytes in flight may exceed the reference window (draft
            /// §"Constants" `REF_WND_OVERHEAD`), the send window's headroom when the
            /// queue delay varies.
            ref_wnd_overhead: f64 = 1.5,
                range incl(1.0, 10.0), source "draft §Constants REF_WND_OVERHEAD";
            /// Headroom of the send window when the queue delay is steady; at least
            /// `ref_wnd_overhead`.
            ref_wnd_overhead_max: f64 = 3.0,
                range incl(1.0, 10.0), source "reference maxWindowHeadroom";
            /// How far the reference window may grow beyond the recent maximum of bytes
            /// in flight (draft §"Constants" `BYTES_IN_FLIGHT_HEAD_ROOM`).
            bytes_in_flight_head_room: f64 = 2.0,
                range incl(1.0, 10.0), source "draft §Constants BYTES_IN_FLIGHT_HEAD_ROOM";
            /// Margin the target bitrate leaves for frame-size variation (the reference
            /// divides by 1.1).
            frame_size_margin: f64 = 1.1,
                range incl(1.0, 10.0), source "reference implementation";
        }
    }
}

impl V2Config {
    /// Checks every field against its range, and the limits between fields.
    pub(crate) fn validate(&self) -> Result<(), ConfigError> {
        self.check_ranges()?;
        if self.ref_wnd_overhead_max < self.ref_wnd_overhead {
            return Err(err(
                "ref_wnd_overhead_max",
                self.ref_wnd_overhead_max,
                &format!(
                    "must be in [{}, 10] (at least ref_wnd_overhead)",
                    self.ref_wnd_overhead
                ),
            ));
        }
        Ok(())
    }
}
