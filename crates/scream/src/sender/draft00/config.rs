//! The parameters of the draft-00 generation.
//!
//! draft-johansson-rmcat-scream-cc-00 (Johansson, Sarker, February 2014) gives its
//! algorithm as pseudo code with a handful of named constants. Each field's `source`
//! says where its default comes from: the draft (OWD target, loss back-off, frame-skip
//! age; values as the project's design notes give them, see the module documentation
//! of `draft00`), RFC 6817 (LEDBAT, whose window law the draft adopts), or a choice of
//! this implementation where no value could be taken from the draft.
//! `docs/scream-draft00.md` lists those choices and why.

use crate::sender::params::{ConfigError, declare_params};
use crate::time::Duration;

declare_params! {
    /// The parameters of the 2014 draft-00 SCReAM
    /// ([`super::super::GenerationConfig::Draft00`]).
    pub struct Draft00Config {
        plain {}
        params {
            /// One-way queueing delay the congestion window steers to (draft-00 OWD
            /// target): the window grows while the queue delay is below it and shrinks
            /// above it, in proportion to the distance.
            owd_target: Duration = ms(80),
                range incl(ms(1), secs(2)), source "draft-00 OWD target, 80 ms";
            /// Gain of the window increase below the OWD target (draft-00 `gainUp`):
            /// at an empty queue a window's worth of acknowledgements grows the window
            /// by `gain_up` packets. The draft's value could not be checked; LEDBAT's
            /// is used.
            gain_up: f64 = 1.0,
                range above(0.0, 100.0), source "RFC 6817 §2.4.2 GAIN (draft-00 gainUp)";
            /// Gain of the window decrease above the OWD target (draft-00 `gainDown`):
            /// at twice the target a window's worth of acknowledgements shrinks the
            /// window by `gain_down` packets. The draft's value could not be checked;
            /// LEDBAT's is used.
            gain_down: f64 = 1.0,
                range above(0.0, 100.0), source "RFC 6817 §2.4.2 GAIN (draft-00 gainDown)";
            /// Window scale factor on a loss (draft-00 loss back-off), applied at most
            /// once per smoothed RTT; 1 ignores loss. When the packets are sent
            /// ECN-capable a CE mark counts as a loss (RFC 3168 §5): no ECN reaction
            /// of the draft's own is known here.
            beta_loss: f64 = 0.8,
                range above(0.0, 1.0), source "draft-00 loss back-off, 0.8";
            /// How far bytes in flight may exceed the congestion window (draft-00
            /// window headroom): the send window is `cwnd_headroom · cwnd`. The draft's
            /// value could not be checked; later revisions use 1.5 for the same purpose.
            cwnd_headroom: f64 = 1.5,
                range incl(1.0, 10.0), source "this implementation (later REF_WND_OVERHEAD 1.5)";
            /// Smallest congestion window, bytes; never below two full packets.
            min_cwnd_bytes: u32 = 3000,
                range incl(100, 1_000_000_000), source "this implementation (RFC 8298 MIN_CWND)";
            /// Congestion window before any feedback, bytes.
            initial_cwnd_bytes: u32 = 10_000,
                range incl(100, 1_000_000_000), source "this implementation (as scream-v2)";
            /// RTP-queue age above which a new frame is skipped instead of queued
            /// (draft-00 frame skipping; 100 ms in the draft's LTE simulations). The
            /// scale factor reaches `scale_factor_min` at this age.
            frame_skip_delay: Duration = ms(100),
                range incl(ms(1), secs(60)), source "draft-00 LTE simulations, 100 ms";
            /// Lowest media-rate scale factor: the one at an RTP-queue age of
            /// `frame_skip_delay` and above. The factor falls linearly from 1 at an
            /// empty queue.
            scale_factor_min: f64 = 0.5,
                range incl(0.0, 1.0), source "this implementation";
            /// Pacing rate over the window's rate `8 · cwnd / sRTT` (draft-00 packet
            /// pacing, whose rate the draft does not fix; later revisions'
            /// PACKET_PACING_HEADROOM).
            pacing_headroom: f64 = 1.5,
                range incl(1.0, 10.0), source "this implementation (later PACKET_PACING_HEADROOM 1.5)";
        }
    }
}

impl Draft00Config {
    /// Checks every field against its range, and the limits between fields.
    pub(crate) fn validate(&self) -> Result<(), ConfigError> {
        self.check_ranges()
    }
}
