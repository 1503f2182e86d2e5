//! Sender configuration: what every generation shares ([`SenderConfig`]) plus the
//! configuration of the generation the sender runs ([`GenerationConfig`]).
//!
//! Every numeric field is declared once (see `params`), with its unit, default, range
//! and source; draft sections are named by title because their numbers shift between
//! revisions.

use super::draft00::config::Draft00Config;
use super::improvements::Improvements;
use super::params::{self, ConfigError, ParamInfo, declare_params};
use super::v1::config::V1Config;
use super::v2::config::V2Config;
use crate::time::Duration;

/// Which congestion signal the sender asks the network for and reacts to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum EcnMode {
    /// Packets are sent Not-ECT; delay and loss are the only signals.
    #[default]
    None,
    /// Packets are sent ECT(0); CE is a classic ECN signal (RFC 3168 reaction).
    Classic,
    /// Packets are sent ECT(1); CE fraction drives an L4S back-off (RFC 9330/9331).
    L4s,
}

declare_params! {
    /// Sender parameters: those every SCReAM generation shares, and the generation's
    /// own in [`SenderConfig::generation`]. Start from [`SenderConfig::default`] (SCReAM
    /// V2) or [`SenderConfig::for_generation`] and change what you need;
    /// [`SenderConfig::set_param`] sets any numeric parameter, shared or the
    /// generation's, by its name.
    pub struct SenderConfig {
        plain {
            /// Which generation of SCReAM runs, with its own parameters. Default
            /// SCReAM V2.
            generation: GenerationConfig = GenerationConfig::default();
            /// ECN mode. Default [`EcnMode::None`] (delay and loss only).
            ecn: EcnMode = EcnMode::None;
            /// Opt-in improvements over the faithful algorithm. Default: none.
            /// `delay-convergence` and `l4s-pacing` act on SCReAM V2 only;
            /// `outage-recovery` shrinks only SCReAM V2's window.
            improvements: Improvements = Improvements::default();
        }
        params {
            /// Maximum RTP payload per packet (draft §"Constants" `MSS`), bytes.
            mss_bytes: u32 = 1000,
                range incl(100, 65_000), source "draft §Constants MSS; reference simulator 1000";
            /// RTP header bytes added to every payload in the size the controller
            /// accounts for, bytes.
            rtp_overhead_bytes: u32 = 12,
                range incl(0, 1000), source "RFC 3550 fixed header";
            /// Per-packet overhead (RTP 12 + UDP 8 bytes) that the target bitrate
            /// discounts so that the encoder's output plus headers fits the window,
            /// bytes.
            packet_overhead_bytes: u32 = 20,
                range incl(0, 1000), source "reference kPacketOverhead";
            /// RTP queue age above which the queue is discarded and a key frame
            /// requested. The default is the value the reference simulator gives its
            /// video stream.
            max_rtp_queue_delay: Duration = secs(1),
                range incl(ms(10), secs(60)), source "reference simulator";
            /// How late a caller may poll without losing pacing slots: when
            /// [`super::Sender::poll_transmit`] comes after the [`super::Transmit::At`]
            /// instant it gave, the slots that passed meanwhile, back to at most this
            /// long before `now`, may still be used, and their packets leave
            /// back-to-back. A caller on a coarse timer (1 ms, or 4 ms and worse) thus
            /// keeps the pacing rate instead of sending one packet per wake-up. Not in
            /// the draft, which assumes exact timers. Set it to at least the caller's
            /// timer period; 0 gives no credit for late polls.
            pacing_catch_up: Duration = ms(10),
                range incl(ms(0), ms(100)), source "this implementation";
            /// Reordering window (draft §"Network Congestion Control" lost packet
            /// detection, RFC 8985 RACK): a packet is lost once a packet sent more than
            /// this later has been acknowledged.
            reorder_time: Duration = ms(30),
                range incl(ms(0), secs(10)), source "reference kReorderTime";
            /// A packet still unresolved this long after it was sent is dropped from
            /// the bytes in flight (counted lost, without a back-off), so that lost
            /// feedback cannot stall the sender.
            in_flight_timeout: Duration = secs(1),
                range incl(ms(10), secs(3600)), source "this implementation";
            /// When media waits behind a closed send window and nothing has been sent
            /// for this long, every packet still in flight leaves the bytes in flight
            /// (counted lost, without a back-off), so the send window opens again.
            /// After a capacity collapse the packets tail-dropped at the bottleneck are
            /// never reported, because nothing behind them arrives; without this the
            /// sender waits for `in_flight_timeout` with a closed window while its RTP
            /// queue grows.
            stall_timeout: Duration = ms(500),
                range incl(ms(10), secs(3600)),
                source "reference ScreamV2Tx::isOkToTransmit, 0.5 s after the last transmission";
            /// Relative change of a stream's target that raises
            /// [`super::Event::TargetBitrate`].
            target_event_threshold: f64 = 0.01,
                range incl(0.0, 1.0), source "this implementation";
            /// Span of the base (minimum one-way) delay history, kept in 10 buckets
            /// (draft §"Network Congestion Control", as in RFC 6817 LEDBAT).
            base_delay_window: Duration = secs(600),
                range incl(secs(1), secs(3600)), source "RFC 6817 BASE_HISTORY 10 min";
        }
    }
}

/// Every generation a sender can run, listed once: `generations!(then! args)` calls
/// `then!` with `[args]` followed by one entry per generation,
///
/// ```text
/// /// What the generation is (the doc of its variants).
/// Variant = "name" in module (State, Config, Stats);
/// ```
///
/// where `module` is the generation's folder under `sender/`, `State` (in that module)
/// implements `generation::controller::Controller`, `Config` sits in its `config`
/// submodule and `Stats` in its `stats` submodule. [`GenerationConfig`],
/// [`GENERATION_NAMES`] and the sender's `Generation` and [`GenerationStats`] are all
/// written from this list, so they cannot fall out of step.
///
/// [`GenerationStats`]: super::GenerationStats
macro_rules! generations {
    ($then:ident ! $($args:tt)*) => {
        $then! {
            [$($args)*]
            /// SCReAM V2 (draft-ietf-ccwg-rfc8298bis-screamv2), the default.
            V2 = "scream-v2" in v2 (V2, V2Config, V2Stats);
            /// SCReAM V1: RFC 8298 as the Ericsson code ran it before V2 (`scream-v1`).
            V1 = "scream-v1" in v1 (V1, V1Config, V1Stats);
            /// The 2014 SCReAM of draft-johansson-rmcat-scream-cc-00, for historical
            /// comparison (`scream-draft00`).
            Draft00 = "scream-draft00" in draft00 (Draft00, Draft00Config, Draft00Stats);
        }
    };
}
pub(crate) use generations;

/// Writes [`GenerationConfig`], [`GENERATION_NAMES`] and the configuration's dispatch
/// to each generation's parameters from the list of [`generations!`].
macro_rules! generation_config {
    ([] $(
        $(#[$doc:meta])*
        $variant:ident = $name:literal in $m:ident ($state:ident, $config:ident, $stats:ident);
    )+) => {
        /// The generation of SCReAM a sender runs, with that generation's parameters.
        #[derive(Clone, Debug, PartialEq)]
        #[non_exhaustive]
        pub enum GenerationConfig {
            $($(#[$doc])* $variant(super::$m::config::$config),)+
        }

        /// Names of the generations, as [`SenderConfig::for_generation`] takes them.
        pub const GENERATION_NAMES: &[&str] = &[$($name),+];

        impl GenerationConfig {
            /// The generation's name (`scream-v2`, ...), as in [`GENERATION_NAMES`].
            pub fn name(&self) -> &'static str {
                match self {
                    $(Self::$variant(_) => $name,)+
                }
            }

            /// The default parameters of the generation called `name`.
            fn named(name: &str) -> Option<Self> {
                match name {
                    $($name => Some(Self::$variant(Default::default())),)+
                    _ => None,
                }
            }

            fn param_names(&self) -> &'static [&'static str] {
                match self {
                    $(Self::$variant(_) => super::$m::config::$config::PARAM_NAMES,)+
                }
            }

            fn infos(&self) -> Vec<ParamInfo> {
                match self {
                    $(Self::$variant(_) => super::$m::config::$config::infos(),)+
                }
            }

            fn validate(&self) -> Result<(), ConfigError> {
                match self {
                    $(Self::$variant(c) => c.validate(),)+
                }
            }

            fn set_value(&mut self, name: &str, v: f64) -> Option<Result<(), ConfigError>> {
                match self {
                    $(Self::$variant(c) => c.set_value(name, v),)+
                }
            }

            fn value(&self, name: &str) -> Option<f64> {
                match self {
                    $(Self::$variant(c) => c.value(name),)+
                }
            }
        }
    };
}

generations!(generation_config!);

impl Default for GenerationConfig {
    fn default() -> Self {
        Self::V2(V2Config::default())
    }
}

impl SenderConfig {
    /// The default configuration of the generation called `name` (one of
    /// [`GENERATION_NAMES`]).
    pub fn for_generation(name: &str) -> Option<Self> {
        Some(Self {
            generation: GenerationConfig::named(name)?,
            ..Self::default()
        })
    }

    /// The SCReAM V2 parameters, if the sender runs SCReAM V2.
    pub fn v2(&self) -> Option<&V2Config> {
        match &self.generation {
            GenerationConfig::V2(c) => Some(c),
            _ => None,
        }
    }

    /// The SCReAM V2 parameters for changing them, if the sender runs SCReAM V2.
    pub fn v2_mut(&mut self) -> Option<&mut V2Config> {
        match &mut self.generation {
            GenerationConfig::V2(c) => Some(c),
            _ => None,
        }
    }

    /// The draft-00 parameters, if the sender runs `scream-draft00`.
    pub fn draft00(&self) -> Option<&Draft00Config> {
        match &self.generation {
            GenerationConfig::Draft00(c) => Some(c),
            _ => None,
        }
    }

    /// The draft-00 parameters for changing them, if the sender runs `scream-draft00`.
    pub fn draft00_mut(&mut self) -> Option<&mut Draft00Config> {
        match &mut self.generation {
            GenerationConfig::Draft00(c) => Some(c),
            _ => None,
        }
    }

    /// The SCReAM V1 parameters, if the sender runs SCReAM V1.
    pub fn v1(&self) -> Option<&V1Config> {
        match &self.generation {
            GenerationConfig::V1(c) => Some(c),
            _ => None,
        }
    }

    /// The SCReAM V1 parameters for changing them, if the sender runs SCReAM V1.
    pub fn v1_mut(&mut self) -> Option<&mut V1Config> {
        match &mut self.generation {
            GenerationConfig::V1(c) => Some(c),
            _ => None,
        }
    }

    /// Checks every field against its allowed range.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.check_ranges()?;
        self.generation.validate()
    }

    /// Names of every parameter [`SenderConfig::set_param`] accepts: the shared ones,
    /// then the generation's.
    pub fn param_names(&self) -> Vec<&'static str> {
        Self::PARAM_NAMES
            .iter()
            .chain(self.generation.param_names())
            .copied()
            .collect()
    }

    /// Every parameter [`SenderConfig::set_param`] accepts, with unit, default, range
    /// and source: the shared ones, then the generation's.
    pub fn params(&self) -> Vec<ParamInfo> {
        let mut all = Self::infos();
        all.extend(self.generation.infos());
        all
    }

    /// The parameters every generation shares (the first part of
    /// [`SenderConfig::params`]).
    pub fn shared_params() -> Vec<ParamInfo> {
        Self::infos()
    }

    /// The parameters of the configured generation alone (the second part of
    /// [`SenderConfig::params`]).
    pub fn generation_params(&self) -> Vec<ParamInfo> {
        self.generation.infos()
    }

    /// The current value of parameter `name`, in the unit [`SenderConfig::set_param`]
    /// takes; `None` for an unknown name.
    pub fn get_param(&self, name: &str) -> Option<f64> {
        self.value(name).or_else(|| self.generation.value(name))
    }

    /// Sets the numeric parameter called `name` to `value`: durations in seconds,
    /// bitrates in bit/s, byte sizes in bytes (rounded to the nearest integer), ratios
    /// as they are. The value is range-checked like [`SenderConfig::validate`] does; on
    /// error the configuration is unchanged.
    pub fn set_param(&mut self, name: &str, value: f64) -> Result<(), ConfigError> {
        let names = self.param_names();
        let Some(field) = names.iter().copied().find(|n| *n == name) else {
            return Err(ConfigError {
                field: "<unknown>",
                value: name.to_owned(),
                reason: format!(
                    "unknown parameter of {}; known: {}",
                    self.generation.name(),
                    names.join(", ")
                ),
            });
        };
        if !value.is_finite() {
            return Err(params::err(field, value, "must be a finite number"));
        }
        let mut next = self.clone();
        match next.set_value(field, value) {
            Some(result) => result?,
            None => next.generation.set_value(field, value).unwrap_or(Ok(()))?,
        }
        next.validate()?;
        *self = next;
        Ok(())
    }
}

#[cfg(test)]
mod tests;
