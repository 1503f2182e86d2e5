//! Which controller (or kind of traffic) a flow runs.

use scream_traffic::rate_control::Tunable;
use scream_traffic::rate_control::gcc::GccConfig;
use scream_traffic::rate_control::nada::NadaConfig;
use serde::{Deserialize, Serialize};

/// Congestion controller of a flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Algorithm {
    /// SCReAM V2 (the `scream` crate's sender and receiver).
    #[default]
    ScreamV2,
    /// SCReAM V1: RFC 8298 as the Ericsson code ran it before V2 (the `scream`
    /// crate's sender with the `scream-v1` generation, and its receiver).
    ScreamV1,
    /// The 2014 SCReAM of draft-johansson-rmcat-scream-cc-00 (the `scream` crate's
    /// `scream-draft00` sender generation and the same receiver).
    #[serde(rename = "scream-draft00")]
    ScreamDraft00,
    /// No congestion control: packets of `mss_bytes` plus the RTP header, evenly paced
    /// at each stream's start bitrate; no feedback, no frames. A calibration and
    /// cross-traffic source. `fixed-rate` is an older name for it.
    #[serde(alias = "fixed-rate")]
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

impl Algorithm {
    /// The name used in summary.json.
    pub fn name(self) -> &'static str {
        match self {
            Self::ScreamV2 => "scream-v2",
            Self::ScreamV1 => "scream-v1",
            Self::ScreamDraft00 => "scream-draft00",
            Self::Cbr => "cbr",
            Self::TcpNewreno => "tcp-newreno",
            Self::TcpCubic => "tcp-cubic",
            Self::TcpPrague => "tcp-prague",
            Self::Gcc => "gcc",
            Self::Nada => "nada",
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
