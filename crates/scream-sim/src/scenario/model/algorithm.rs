//! Which controller (or kind of traffic) a flow runs.
//!
//! The SCReAM algorithms are the `scream` crate's sender generations, named as its
//! [`GENERATION_NAMES`] name them: a generation added to the library is a scenario
//! algorithm at once, and a name the library does not know is an error, never a silent
//! fallback to another generation.

use std::fmt;
use std::sync::LazyLock;

use scream::sender::{GENERATION_NAMES, SenderConfig};
use scream_traffic::rate_control::Tunable;
use scream_traffic::rate_control::gcc::GccConfig;
use scream_traffic::rate_control::nada::NadaConfig;
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

/// One of the `scream` crate's sender generations, by its name in [`GENERATION_NAMES`]
/// (only names from that list are ever held).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Generation(&'static str);

impl Generation {
    /// The generation called `name`, if the library has it.
    pub fn named(name: &str) -> Option<Self> {
        GENERATION_NAMES
            .iter()
            .find(|n| **n == name)
            .map(|n| Self(n))
    }

    /// The library's default generation (that of `SenderConfig::default()`).
    pub fn library_default() -> Self {
        Self(SenderConfig::default().generation.name())
    }

    /// Its name (`scream-v2`, ...).
    pub fn name(self) -> &'static str {
        self.0
    }

    /// The default sender configuration of this generation.
    pub fn sender_config(self) -> SenderConfig {
        SenderConfig::for_generation(self.0)
            .unwrap_or_else(|| unreachable!("{} is one of GENERATION_NAMES", self.0))
    }
}

/// Congestion controller of a flow. In a scenario file it is written by its
/// [`name`](Self::name) (`fixed-rate` is also accepted for `cbr`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Algorithm {
    /// SCReAM of this generation: the `scream` crate's sender and receiver. The
    /// default is the library's default generation (SCReAM V2).
    Scream(Generation),
    /// No congestion control: packets of `mss_bytes` plus the RTP header, evenly paced
    /// at each stream's start bitrate; no feedback, no frames. A calibration and
    /// cross-traffic source. `fixed-rate` is an older name for it.
    Cbr,
    /// TCP NewReno (RFC 5681, RFC 6582) bulk or on-off cross traffic, with classic ECN
    /// when `ecn = "classic"`.
    TcpNewreno,
    /// TCP CUBIC (RFC 9438), with classic ECN when `ecn = "classic"`.
    TcpCubic,
    /// A Prague-style L4S TCP (ECT(1), accurate CE echo, DCTCP-like α; RFC 9331);
    /// needs `ecn = "l4s"`.
    TcpPrague,
    /// Google Congestion Control (draft-ietf-rmcat-gcc-02), run at the sender from the
    /// SCReAM receiver's RFC 8888 feedback; a baseline (docs/baselines.md).
    Gcc,
    /// NADA (RFC 8698), likewise a sender-side baseline over RFC 8888 feedback.
    Nada,
}

/// The algorithms that are not SCReAM generations, in the order names are listed.
const OTHERS: [Algorithm; 6] = [
    Algorithm::Cbr,
    Algorithm::TcpNewreno,
    Algorithm::TcpCubic,
    Algorithm::TcpPrague,
    Algorithm::Gcc,
    Algorithm::Nada,
];

/// An older name of `cbr`, still read.
const CBR_ALIAS: &str = "fixed-rate";

/// Every algorithm name: the generations, then the others; built once, so that serde's
/// error can quote it.
static NAMES: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    GENERATION_NAMES
        .iter()
        .copied()
        .chain(OTHERS.iter().map(|a| a.name()))
        .collect()
});

impl Default for Algorithm {
    fn default() -> Self {
        Self::Scream(Generation::library_default())
    }
}

impl Algorithm {
    /// The name used in scenario files and summary.json.
    pub fn name(self) -> &'static str {
        match self {
            Self::Scream(g) => g.name(),
            Self::Cbr => "cbr",
            Self::TcpNewreno => "tcp-newreno",
            Self::TcpCubic => "tcp-cubic",
            Self::TcpPrague => "tcp-prague",
            Self::Gcc => "gcc",
            Self::Nada => "nada",
        }
    }

    /// The algorithm called `name` (or `fixed-rate`, the older name of `cbr`).
    pub fn named(name: &str) -> Option<Self> {
        if name == CBR_ALIAS {
            return Some(Self::Cbr);
        }
        Generation::named(name)
            .map(Self::Scream)
            .or_else(|| OTHERS.into_iter().find(|a| a.name() == name))
    }

    /// Every algorithm name, the SCReAM generations first.
    pub fn names() -> &'static [&'static str] {
        &NAMES
    }

    /// Names of the algorithms that control a video flow's rate: the SCReAM
    /// generations and the rate-based baselines (no TCP, no `cbr`).
    pub fn video_names() -> Vec<&'static str> {
        NAMES
            .iter()
            .copied()
            .filter(|n| Self::named(n).is_some_and(Self::controls_video))
            .collect()
    }

    /// Whether the algorithm sets a video encoder's rate (SCReAM or a baseline).
    pub fn controls_video(self) -> bool {
        matches!(self, Self::Scream(_)) || self.is_rate_based()
    }

    /// The SCReAM generation the flow runs, if it is a SCReAM flow.
    pub fn generation(self) -> Option<Generation> {
        match self {
            Self::Scream(g) => Some(g),
            _ => None,
        }
    }

    /// Whether the flow is a TCP connection (`tcp-*`).
    pub fn is_tcp(self) -> bool {
        matches!(self, Self::TcpNewreno | Self::TcpCubic | Self::TcpPrague)
    }

    /// Whether the flow runs a baseline rate controller (gcc, nada) on the rate-based
    /// sender: one controller for the flow's video streams, its own `params`, no SCReAM
    /// improvements.
    pub fn is_rate_based(self) -> bool {
        matches!(self, Self::Gcc | Self::Nada)
    }

    /// The tunables a rate-based algorithm takes in `params`, as the traffic crate
    /// declares them next to the controller; `None` for other algorithms.
    pub fn tunables(self) -> Option<&'static [Tunable]> {
        match self {
            Self::Gcc => Some(GccConfig::TUNABLES),
            Self::Nada => Some(NadaConfig::TUNABLES),
            _ => None,
        }
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Algorithm {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Algorithm {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Name;
        impl Visitor<'_> for Name {
            type Value = Algorithm;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an algorithm name")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Algorithm, E> {
                // serde's own wording, which the scenario loader turns into a
                // suggestion of the nearest name.
                Algorithm::named(v).ok_or_else(|| E::unknown_variant(v, Algorithm::names()))
            }
        }
        d.deserialize_str(Name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_library_generation_is_an_algorithm_of_its_own_name() {
        for name in GENERATION_NAMES {
            let a = Algorithm::named(name).expect(name);
            assert_eq!(a.name(), *name);
            assert_eq!(
                a.generation().map(|g| g.sender_config().generation.name()),
                Some(*name)
            );
        }
    }

    #[test]
    fn every_name_reads_back_to_the_algorithm_that_wrote_it() {
        for name in Algorithm::names() {
            let json = serde_json::Value::String((*name).to_owned());
            let a: Algorithm = serde_json::from_value(json).expect(name);
            assert_eq!(serde_json::to_value(a).unwrap(), *name);
        }
        let old: Algorithm = serde_json::from_value("fixed-rate".into()).unwrap();
        assert_eq!(old, Algorithm::Cbr);
    }

    #[test]
    fn an_unknown_name_is_an_error_that_lists_the_known_ones() {
        let err = serde_json::from_value::<Algorithm>("scream-v9".into()).unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with("unknown variant `scream-v9`"), "{text}");
        for name in Algorithm::names() {
            assert!(text.contains(&format!("`{name}`")), "{text}");
        }
        assert_eq!(Algorithm::named("scream-v9"), None);
    }

    #[test]
    fn the_default_is_the_library_default_generation() {
        let default = SenderConfig::default().generation.name();
        assert_eq!(Algorithm::default().name(), default);
    }

    #[test]
    fn video_names_are_the_generations_and_the_baselines() {
        let names = Algorithm::video_names();
        assert_eq!(&names[..GENERATION_NAMES.len()], GENERATION_NAMES);
        assert_eq!(&names[GENERATION_NAMES.len()..], ["gcc", "nada"]);
    }
}
