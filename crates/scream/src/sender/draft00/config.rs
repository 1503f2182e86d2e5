//! The parameters of the draft-00 generation.
//!
//! draft-johansson-rmcat-scream-cc-00 (Johansson, Sarker, 17 June 2014) gives its
//! algorithm in §9 as Java-like pseudo code. The window constants are the ones §9.1.4
//! declares; the frame-skip age is the one §10 ran its simulations with; the scale
//! factor bounds and the ramp-up time are `NOT_SPECIFIED` or undefined in §9.1.5 and
//! §9.1.6, so they are choices of this implementation, marked "chosen" in each field's
//! `source`. `docs/scream-draft00.md` lists those choices and why.

use crate::sender::params::{ConfigError, declare_params};
use crate::time::Duration;

declare_params! {
    /// The parameters of the 2014 draft-00 SCReAM
    /// ([`super::super::GenerationConfig::Draft00`]).
    pub struct Draft00Config {
        plain {}
        params {
            /// One-way queueing delay the congestion window steers to (§9.1.4
            /// `OWD_TARGET`): the window may grow while the queue delay is below it
            /// and shrinks above it, in proportion to the distance (`offTarget`).
            owd_target: Duration = ms(80),
                range incl(ms(1), secs(2)), source "draft-00 §9.1.4 OWD_TARGET = 0.08";
            /// Gain of the window increase below the OWD target (§9.1.4 `gainUp`): at
            /// an empty queue a window's worth of acknowledgements grows the window by
            /// `gain_up` packets.
            gain_up: f64 = 1.0,
                range above(0.0, 100.0), source "draft-00 §9.1.4 gainUp = 1.0";
            /// Gain of the window decrease at and above the OWD target (§9.1.4
            /// `gainDown`): at twice the target a window's worth of acknowledgements
            /// shrinks the window by `gain_down` packets (times the RTT factor while
            /// the one-way delay does not fall).
            gain_down: f64 = 1.0,
                range above(0.0, 100.0), source "draft-00 §9.1.4 gainDown = 1.0";
            /// Window scale factor on a loss event (§9.1.4 `beta`), at most one per
            /// RTT (§9.1.3); 1 ignores loss. When the packets are sent ECN-capable a
            /// CE mark counts as a loss (chosen, RFC 3168 §5: the draft leaves the use
            /// of its ECN echo "T.B.D.", §3).
            beta_loss: f64 = 0.8,
                range above(0.0, 1.0), source "draft-00 §9.1.4 beta = 0.8";
            /// Growth headroom at the OWD target (§9.1.4 `cwndHeadroomMin`): the
            /// window grows only while `bytes_in_flight · headroom > cwnd`, the
            /// headroom going from this value at the target to
            /// `cwnd_headroom_max` at an empty queue.
            cwnd_headroom_min: f64 = 1.0,
                range incl(1.0, 10.0), source "draft-00 §9.1.4 cwndHeadroomMin = 1.0";
            /// Growth headroom at an empty queue (§9.1.4 `cwndHeadroomMax`): the
            /// window may grow while at least `1 / cwnd_headroom_max` of it is in
            /// flight.
            cwnd_headroom_max: f64 = 2.0,
                range incl(1.0, 10.0), source "draft-00 §9.1.4 cwndHeadroomMax = 2.0";
            /// Congestion window before any feedback, bytes. §9 never sets the
            /// initial `cwnd`.
            initial_cwnd_bytes: u32 = 10_000,
                range incl(100, 1_000_000_000), source "chosen: §9 gives no initial cwnd; as scream-v2";
            /// RTP-queue age above which a new frame is skipped instead of queued
            /// (§9.1.6 `skipFrameTh`, whose value §9 does not give; §10 skips frames
            /// once the sender queue delay exceeds 100 ms).
            frame_skip_delay: Duration = ms(100),
                range incl(ms(1), secs(60)), source "draft-00 §10: frame skipping above 100 ms";
            /// Lowest media-rate scale factor, relative to the stream's
            /// `max_bitrate` (§9.1.5 `scaleFactorMin`, NOT_SPECIFIED_1); also the
            /// factor a stream starts with. 0.1: §10's video ran 150 to 1500 kbit/s.
            scale_factor_min: f64 = 0.1,
                range incl(0.001, 1.0), source "chosen: §9.1.5 NOT_SPECIFIED_1; §10 video 150-1500 kbit/s";
            /// Highest media-rate scale factor (§9.1.5 `scaleFactorMax`,
            /// NOT_SPECIFIED_2): the target is `scale · max_bitrate`, so 1 lets a
            /// stream reach its `max_bitrate`.
            scale_factor_max: f64 = 1.0,
                range incl(0.001, 1.0), source "chosen: §9.1.5 NOT_SPECIFIED_2; 1 = the stream's max_bitrate";
            /// Time the scale factor takes from 0 to `scale_factor_max` at the fastest
            /// (§9.1.6 `rampUpTime`, used but never defined): each adjustment adds at
            /// most `frame_period · scale_factor_max / ramp_up_time`.
            ramp_up_time: Duration = secs(4),
                range incl(ms(100), secs(600)), source "chosen: §9.1.6 leaves rampUpTime undefined; §3.1 ramps up in 3 to 5 s";
        }
    }
}

impl Draft00Config {
    /// Checks every field against its range, and the limits between fields.
    pub(crate) fn validate(&self) -> Result<(), ConfigError> {
        self.check_ranges()?;
        // Both limits name the upper field, as SCReAM V2 does for its own pair.
        if self.cwnd_headroom_max < self.cwnd_headroom_min {
            return Err(ConfigError {
                field: "cwnd_headroom_max",
                value: self.cwnd_headroom_max.to_string(),
                reason: format!(
                    "must be in [{}, 10] (at least cwnd_headroom_min)",
                    self.cwnd_headroom_min
                ),
            });
        }
        if self.scale_factor_max < self.scale_factor_min {
            return Err(ConfigError {
                field: "scale_factor_max",
                value: self.scale_factor_max.to_string(),
                reason: format!(
                    "must be in [{}, 1] (at least scale_factor_min)",
                    self.scale_factor_min
                ),
            });
        }
        Ok(())
    }
}
