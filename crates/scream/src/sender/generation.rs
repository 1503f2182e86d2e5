//! What differs between SCReAM generations, behind one small trait.
//!
//! The chassis ([`super::Sender`]) owns what every generation shares: streams and
//! their RTP queues, sent packets and loss detection, base delay and sRTT, the
//! scheduler and the pacer's spacing. A generation owns the rest: the congestion
//! window law, the media rate control, the pacing rate, and its own per-stream state.
//!
//! - [`contract`]: the data the chassis and a generation hand each other. It imports
//!   neither side, so neither depends on the other through it.
//! - [`controller`]: the trait [`Controller`] every generation implements, with
//!   defaults for what a generation may leave alone.
//! - This file: [`Generation`], the enum the sender holds. Each of its methods is one
//!   `match` that calls the running generation's [`Controller`] method of the same
//!   name, written once by `dispatch!` from the list of generations in `config.rs`
//!   (`generations!`). There is no trait object on the per-packet path: every call is
//!   a direct one.
//!
//! # Adding a generation
//!
//! 1. Its own folder `sender/<module>/`: `mod.rs` with its state, which implements
//!    [`Controller`] (only the methods where it differs from the defaults);
//!    `config.rs` with its parameters, declared once with `declare_params!`;
//!    `stats.rs` with its statistics. `mod.rs` makes the configuration and the
//!    statistics public (`pub use config::…; pub use stats::…;`).
//! 2. `sender/mod.rs`: `pub mod <module>;`.
//! 3. `sender/config.rs`: one entry in `generations!`, with its doc comment:
//!    `Variant = "scream-<name>" in <module> (State, Config, Stats);`.
//!
//! The variants of [`Generation`], [`GenerationConfig`] and [`GenerationStats`], the
//! name list [`super::GENERATION_NAMES`], `SenderConfig::for_generation` and every
//! dispatch follow from that entry.

pub(crate) mod contract;
pub(crate) mod controller;

use super::config::{GenerationConfig, SenderConfig, generations};
use super::stream::{MediaFrame, Stream};
use crate::time::{Duration, Instant};
use crate::units::Bitrate;
use contract::{BackOffCause, TargetInput};
use controller::Controller;

// The chassis files that read feedback and estimate delay name these here.
pub(crate) use contract::{AckSummary, DelayParams, Measurements};

/// Writes [`Generation`], [`GenerationStats`] and the two calls that differ by type
/// (construction, statistics) from the list of `generations!`.
macro_rules! generation_enums {
    ([] $(
        $(#[$doc:meta])*
        $variant:ident = $name:literal in $m:ident ($state:ident, $config:ident, $stats:ident);
    )+) => {
        /// The generation-specific congestion and rate control of a sender.
        #[derive(Debug, Clone)]
        pub(crate) enum Generation {
            $($(#[$doc])* $variant(super::$m::$state),)+
        }

        /// The generation's own state, in
        /// [`SenderStats::generation`](super::SenderStats::generation).
        #[derive(Clone, Debug, PartialEq)]
        #[non_exhaustive]
        pub enum GenerationStats {
            $($(#[$doc])* $variant(super::$m::stats::$stats),)+
        }

        impl Generation {
            /// The generation `cfg` asks for; `srtt` is the chassis' smoothed RTT
            /// before any sample.
            pub(crate) fn new(cfg: &SenderConfig, srtt: Duration) -> Self {
                match &cfg.generation {
                    $(GenerationConfig::$variant(p) => {
                        Self::$variant(Controller::new(cfg, p, srtt))
                    })+
                }
            }

            /// The generation's own part of [`super::SenderStats`].
            pub(crate) fn stats(&self, steadiness: f64) -> GenerationStats {
                match self {
                    $(Self::$variant(g) => GenerationStats::$variant(g.stats(steadiness)),)+
                }
            }
        }
    };
}

generations!(generation_enums!);

impl Default for GenerationStats {
    fn default() -> Self {
        Self::V2(super::v2::stats::V2Stats::default())
    }
}

/// The `match` behind `dispatch!`: one arm per entry of `generations!`.
macro_rules! dispatch_arms {
    ([$on:expr, $g:ident => $call:expr] $(
        $(#[$doc:meta])*
        $variant:ident = $name:literal in $m:ident ($state:ident, $config:ident, $stats:ident);
    )+) => {
        match $on {
            $(Generation::$variant($g) => $call,)+
        }
    };
}

/// `dispatch!(self, g => g.method(..))`: the call, with `g` bound to the running
/// generation's state.
macro_rules! dispatch {
    ($on:expr, $g:ident => $call:expr) => {
        generations!(dispatch_arms! $on, $g => $call)
    };
}

/// Every method calls the running generation's [`Controller`] method of the same name,
/// which documents it.
impl Generation {
    pub(crate) fn on_stream_added(&mut self, stream: &Stream) {
        dispatch!(self, g => g.on_stream_added(stream))
    }

    pub(crate) fn admit_frame(
        &mut self,
        idx: usize,
        frame: MediaFrame,
        queue_delay: Duration,
        now: Instant,
    ) -> bool {
        dispatch!(self, g => g.admit_frame(idx, frame, queue_delay, now))
    }

    pub(crate) fn on_frame(
        &mut self,
        idx: usize,
        stream: &Stream,
        size_bytes: u32,
        queue_delay: Duration,
    ) {
        dispatch!(self, g => g.on_frame(idx, stream, size_bytes, queue_delay))
    }

    pub(crate) fn on_discard(&mut self, idx: usize) {
        dispatch!(self, g => g.on_discard(idx))
    }

    pub(crate) fn delay_params(&self, srtt: Duration) -> DelayParams {
        dispatch!(self, g => g.delay_params(srtt))
    }

    pub(crate) fn on_feedback(
        &mut self,
        ack: &AckSummary,
        m: &Measurements,
    ) -> Option<(BackOffCause, u64, u64)> {
        dispatch!(self, g => g.on_feedback(ack, m))
    }

    pub(crate) fn on_stall(&mut self, in_a_row: u32) -> Option<(u64, u64)> {
        dispatch!(self, g => g.on_stall(in_a_row))
    }

    pub(crate) fn on_packet_sent(
        &mut self,
        idx: usize,
        now: Instant,
        size: u32,
        bytes_in_flight: u64,
    ) {
        dispatch!(self, g => g.on_packet_sent(idx, now, size, bytes_in_flight))
    }

    pub(crate) fn on_packet_acked(
        &mut self,
        idx: usize,
        now: Instant,
        size: u32,
        owd_nanos: Option<i64>,
    ) {
        dispatch!(self, g => g.on_packet_acked(idx, now, size, owd_nanos))
    }

    pub(crate) fn queue_delay(&self) -> Option<Duration> {
        dispatch!(self, g => g.queue_delay())
    }

    pub(crate) fn window_bytes(&self) -> u64 {
        dispatch!(self, g => g.window_bytes())
    }

    pub(crate) fn send_limit_bytes(&self, steadiness: f64, mss: u64) -> u64 {
        dispatch!(self, g => g.send_limit_bytes(steadiness, mss))
    }

    pub(crate) fn next_timeout(&self) -> Option<Instant> {
        dispatch!(self, g => g.next_timeout())
    }

    pub(crate) fn on_timeout(&mut self, now: Instant) -> bool {
        dispatch!(self, g => g.on_timeout(now))
    }

    pub(crate) fn update_targets(&mut self, streams: &mut [Stream], input: &TargetInput) {
        dispatch!(self, g => g.update_targets(streams, input))
    }

    pub(crate) fn pacing_rate(
        &self,
        streams: &[Stream],
        media_rate: Bitrate,
        delivery_peak: Option<Bitrate>,
    ) -> Bitrate {
        dispatch!(self, g => g.pacing_rate(streams, media_rate, delivery_peak))
    }

    pub(crate) fn app_limited(&self) -> bool {
        dispatch!(self, g => g.app_limited())
    }

    pub(crate) fn l4s_alpha(&self) -> f64 {
        dispatch!(self, g => g.l4s_alpha())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sender::{GENERATION_NAMES, Sender};

    /// The list of generations wires each name to its own state and statistics.
    #[test]
    fn each_named_generation_runs_and_reports_itself() {
        for name in GENERATION_NAMES {
            let config = SenderConfig::for_generation(name).unwrap();
            let sender = Sender::new(config).unwrap();
            let reported = match sender.stats().generation {
                GenerationStats::V2(_) => "scream-v2",
                GenerationStats::V1(_) => "scream-v1",
                GenerationStats::Draft00(_) => "scream-draft00",
            };
            assert_eq!(reported, *name);
        }
    }
}
