//! The matrix of `scream eval v2`: which links, ECN modes and option sets, and the
//! scenario each case runs. Every value a case uses is a named constant here, so the
//! matrix is read in one place and documented in docs/evaluation.md.

use scream_data::{DataPath, Missing};
use std::fmt;

use super::options::OptionSet;

use scream_netmodel::queue::{EcnThresholdKeys, L4sCellularKeys, L4sRampKeys};
use scream_netmodel::{RateUnit, TraceEnd, TraceFormat};

use scream_sim::scenario::{
    Algorithm, EcnSetting, FlowConfig, LinkConfig, QueueConfig, QueueKind, Scenario, SourceConfig,
};

/// Frame rate of every video source, frames/s (the published SCReAM studies use 50).
pub(crate) const FPS: f64 = 50.0;
/// Lowest target of every flow, Mbit/s.
pub(crate) const MIN_BITRATE_MBPS: f64 = 0.1;
/// Target before feedback, Mbit/s.
pub(crate) const START_BITRATE_MBPS: f64 = 1.0;
/// Highest target, Mbit/s: above every synthetic capacity, so the links limit the flows.
pub(crate) const MAX_BITRATE_MBPS: f64 = 100.0;

/// Flow `i` of an evaluation case: SCReAM V2 at `FPS`, between the evaluation's bitrate
/// limits, in `mode`, with the improvements of `options`; the matrix of `eval v2` and
/// the drawn links of `eval robust` run the same flow.
pub(crate) fn eval_flow(i: usize, mode: Mode, start_s: f64, options: OptionSet) -> FlowConfig {
    FlowConfig {
        name: format!("flow{i}"),
        algorithm: Algorithm::default(),
        ecn: mode.ecn(),
        start_s,
        min_bitrate_mbps: MIN_BITRATE_MBPS,
        start_bitrate_mbps: START_BITRATE_MBPS,
        max_bitrate_mbps: MAX_BITRATE_MBPS,
        source: SourceConfig {
            fps: FPS,
            ..SourceConfig::default()
        },
        improvements: options.names(),
        ..FlowConfig::default()
    }
}
/// Propagation delay each way of the single-flow cases, ms (a cellular round trip of
/// about 20 ms, as the built-in `5g-synthetic` and `lte-synthetic` scenarios).
pub(crate) const SINGLE_ONE_WAY_MS: f64 = 10.0;
/// Propagation delay each way of the shared-bottleneck cases, ms (RFC 8867's 50 ms RTT).
pub(crate) const SHARED_ONE_WAY_MS: f64 = 25.0;
/// Queue limit in time of every mode, ms (the RMCAT default, RFC 8867 §5.1).
pub(crate) const QUEUE_LIMIT_MS: f64 = 300.0;
/// L4S mode: sojourn (on a cellular link: estimated queue delay) where the marking
/// probability starts rising from 0, ms.
pub(crate) const L4S_RAMP_MIN_MS: f64 = 2.0;
/// L4S mode: sojourn (estimated queue delay) where every ECT(1) packet is marked, ms.
pub(crate) const L4S_RAMP_MAX_MS: f64 = 6.0;
/// Classic-ECN mode: sojourn above which ECT(0) packets are marked, ms. A step at the
/// 5 ms a classic AQM aims for (CoDel's target, RFC 8289 §4.3).
pub(crate) const CLASSIC_THRESHOLD_MS: f64 = 5.0;
/// Length of the synthetic single-flow cases, s.
pub(crate) const SYNTHETIC_S: f64 = 60.0;
/// Length of the trace cases, s (the traces are longer; they start at their beginning).
pub(crate) const TRACE_S: f64 = 100.0;
/// Length of the shared-bottleneck cases, s.
pub(crate) const SHARED_S: f64 = 120.0;
/// The last flow of a shared case starts this late, s; the others evenly before it.
pub(crate) const SHARED_LAST_START_S: f64 = 10.0;
/// Window over which Jain's index of the shared cases is taken, s.
pub(crate) const JAIN_WINDOW_S: [f64; 2] = [60.0, 120.0];
/// Step case: capacity before and after the step, Mbit/s, and when it steps, s.
pub(crate) const STEP_MBPS: [f64; 2] = [5.0, 20.0];
/// When the step case steps up, s.
pub(crate) const STEP_AT_S: f64 = 30.0;
/// Outage case: capacity outside the outages, Mbit/s.
pub(crate) const OUTAGE_MBPS: f64 = 20.0;
/// Outage case: `[start_s, length_s]` of each outage (zero capacity).
pub(crate) const OUTAGES: [[f64; 2]; 2] = [[20.0, 1.0], [40.0, 2.0]];
/// Master seed of every case.
pub(crate) const SEED: u64 = 1;

/// The link (or shared bottleneck) of a case.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LinkCase {
    /// A Lumos5G walking mmWave trace, by its number in the file name.
    Lumos5g(u32),
    /// A mahimahi LTE downlink trace, by operator as the file name spells it.
    Lte(&'static str),
    /// A constant capacity, Mbit/s.
    Constant(f64),
    /// `STEP_MBPS` at `STEP_AT_S`.
    Step,
    /// `OUTAGE_MBPS` with the `OUTAGES`.
    Outage,
    /// `flows` flows over a constant `mbps` bottleneck.
    Shared {
        /// Number of flows.
        flows: usize,
        /// Capacity, Mbit/s.
        mbps: f64,
    },
}

impl LinkCase {
    /// The trace file it reads, relative to the data folder.
    pub fn trace_file(self) -> Option<String> {
        match self {
            Self::Lumos5g(n) => Some(format!("links/lumos5g-5g_trace_{n}_walking.tsv")),
            Self::Lte(op) => Some(format!("links/mahimahi-{op}-LTE-short.down")),
            _ => None,
        }
    }

    fn duration_s(self) -> f64 {
        match self {
            Self::Lumos5g(_) | Self::Lte(_) => TRACE_S,
            Self::Shared { .. } => SHARED_S,
            _ => SYNTHETIC_S,
        }
    }

    fn flows(self) -> usize {
        match self {
            Self::Shared { flows, .. } => flows,
            _ => 1,
        }
    }
}

impl fmt::Display for LinkCase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Lumos5g(n) => write!(f, "lumos5g-{n}"),
            Self::Lte(op) => write!(f, "lte-{}", op.to_lowercase()),
            Self::Constant(mbps) => write!(f, "const-{mbps}M"),
            Self::Step => write!(f, "step-{}-{}M", STEP_MBPS[0], STEP_MBPS[1]),
            Self::Outage => write!(f, "outage-{OUTAGE_MBPS}M"),
            Self::Shared { flows, mbps } => write!(f, "{flows}x{mbps}M"),
        }
    }
}

/// How the bottleneck signals congestion, and how the flows use ECN.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// ECT(1) media through an `l4s-ramp` queue.
    L4s,
    /// ECT(0) media through an `ecn-threshold` queue.
    Classic,
    /// Not-ECT media through a tail-drop queue: delay and loss are the only signals.
    Delay,
}

impl Mode {
    /// Every mode, in table order.
    pub const ALL: [Self; 3] = [Self::L4s, Self::Classic, Self::Delay];

    pub(crate) fn queue(self) -> QueueConfig {
        let mut base = QueueConfig::default();
        base.limit.limit_ms = QUEUE_LIMIT_MS;
        match self {
            Self::L4s => QueueConfig {
                kind: QueueKind::L4sRamp,
                l4s_ramp: L4sRampKeys {
                    ramp_min_ms: L4S_RAMP_MIN_MS,
                    ramp_max_ms: L4S_RAMP_MAX_MS,
                },
                ..base
            },
            Self::Classic => QueueConfig {
                kind: QueueKind::EcnThreshold,
                ecn_threshold: EcnThresholdKeys {
                    ecn_threshold_ms: CLASSIC_THRESHOLD_MS,
                },
                ..base
            },
            Self::Delay => QueueConfig {
                kind: QueueKind::TailDrop,
                ..base
            },
        }
    }

    /// The queue of this mode on a cellular link whose radio access network marks L4S
    /// on its own queue-delay estimate (`l4s-cellular`, the same ramp as `l4s-ramp`
    /// on queued bytes over the rate recently offered); the other modes are
    /// unchanged.
    pub(crate) fn cellular_queue(self) -> QueueConfig {
        let queue = self.queue();
        match self {
            Self::L4s => QueueConfig {
                kind: QueueKind::L4sCellular,
                l4s_cellular: L4sCellularKeys {
                    cellular_min_ms: L4S_RAMP_MIN_MS,
                    cellular_max_ms: L4S_RAMP_MAX_MS,
                    ..L4sCellularKeys::default()
                },
                ..queue
            },
            Self::Classic | Self::Delay => queue,
        }
    }

    pub(crate) fn ecn(self) -> EcnSetting {
        match self {
            Self::L4s => EcnSetting::L4s,
            Self::Classic => EcnSetting::Classic,
            Self::Delay => EcnSetting::None,
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::L4s => "l4s",
            Self::Classic => "classic",
            Self::Delay => "delay",
        })
    }
}

/// One cell of the matrix.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Case {
    /// The link.
    pub link: LinkCase,
    /// The ECN mode.
    pub mode: Mode,
    /// The improvements.
    pub options: OptionSet,
}

/// Every case, in table order: links, then modes, then option sets.
pub fn matrix() -> Vec<Case> {
    let mut links = vec![
        LinkCase::Lumos5g(32),
        LinkCase::Lumos5g(54),
        LinkCase::Lumos5g(100),
        LinkCase::Lte("TMobile"),
        LinkCase::Lte("Verizon"),
        LinkCase::Constant(10.0),
        LinkCase::Constant(100.0),
        LinkCase::Step,
        LinkCase::Outage,
    ];
    for mbps in [10.0, 50.0] {
        for flows in [2, 4, 8] {
            links.push(LinkCase::Shared { flows, mbps });
        }
    }
    let options = OptionSet::every();
    let mut out = Vec::new();
    for &link in &links {
        for mode in Mode::ALL {
            for &options in &options {
                out.push(Case {
                    link,
                    mode,
                    options,
                });
            }
        }
    }
    out
}

impl Case {
    /// `link/mode/options`, e.g. `const-10M/l4s/faithful`: the row's name, and what
    /// `--filter` matches.
    pub fn id(&self) -> String {
        format!("{}/{}/{}", self.link, self.mode, self.options)
    }

    /// The `[from, to]` window of Jain's index, for cases with several flows.
    pub fn jain_window_s(&self) -> Option<[f64; 2]> {
        (self.link.flows() > 1).then_some(JAIN_WINDOW_S)
    }

    /// The scenario of this case; trace files are looked for along `data`.
    pub fn scenario(&self, data: &DataPath) -> Result<Scenario, Missing> {
        let n = self.link.flows();
        let one_way = if n > 1 {
            SHARED_ONE_WAY_MS
        } else {
            SINGLE_ONE_WAY_MS
        };
        let mut link = LinkConfig {
            name: "bottleneck".to_owned(),
            one_way_delay_ms: Some(one_way),
            queue: self.mode.queue(),
            ..LinkConfig::default()
        };
        match self.link {
            LinkCase::Lumos5g(_) | LinkCase::Lte(_) => {
                let file = self.link.trace_file().unwrap_or_default();
                let path = data.find(&file)?;
                link.trace = Some(path.to_string_lossy().into_owned());
                let lumos = matches!(self.link, LinkCase::Lumos5g(_));
                link.trace_format = if lumos {
                    TraceFormat::Table
                } else {
                    TraceFormat::Mahimahi
                };
                link.trace_rate_unit = RateUnit::Mbps;
                link.trace_end = TraceEnd::Loop;
            }
            LinkCase::Constant(mbps) | LinkCase::Shared { mbps, .. } => {
                link.capacity_mbps = Some(mbps);
            }
            LinkCase::Step => {
                link.capacity_mbps = Some(STEP_MBPS[0]);
                link.capacity_steps = vec![[STEP_AT_S, STEP_MBPS[1]]];
            }
            LinkCase::Outage => {
                link.capacity_mbps = Some(OUTAGE_MBPS);
                link.capacity_steps = OUTAGES
                    .iter()
                    .flat_map(|[at, len]| [[*at, 0.0], [at + len, OUTAGE_MBPS]])
                    .collect();
            }
        }
        let flows = (0..n)
            .map(|i| {
                let start_s = if n > 1 {
                    SHARED_LAST_START_S * i as f64 / (n - 1) as f64
                } else {
                    0.0
                };
                eval_flow(i, self.mode, start_s, self.options)
            })
            .collect();
        Ok(Scenario {
            name: self.id(),
            duration_s: self.link.duration_s(),
            seed: SEED,
            link: Some(link),
            flows,
            ..Scenario::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use scream::sender::Improvements;

    use super::*;

    #[test]
    fn every_case_is_a_valid_scenario_with_a_unique_name() {
        let cases = matrix();
        let mut ids: Vec<String> = cases.iter().map(Case::id).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), cases.len());
        for c in cases.iter().filter(|c| c.link.trace_file().is_none()) {
            let s = c.scenario(&DataPath::new(vec![])).expect("no data needed");
            assert_eq!(s.validate(), Ok(()), "{}", c.id());
        }
    }

    #[test]
    fn option_sets_follow_the_library_names() {
        let sets = OptionSet::every();
        assert_eq!(sets.len(), Improvements::names().len() + 2);
        let per_link = Mode::ALL.len() * sets.len();
        assert_eq!(matrix().len() % per_link, 0);
        let middle: Vec<String> = sets[1..sets.len() - 1]
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(middle, Improvements::names());
    }

    #[test]
    fn a_missing_trace_names_the_file_it_looked_for() {
        let case = Case {
            link: LinkCase::Lte("Verizon"),
            mode: Mode::Delay,
            options: OptionSet::faithful(),
        };
        let e = case
            .scenario(&DataPath::new(vec!["/nowhere".into()]))
            .unwrap_err();
        assert_eq!(e.name, "links/mahimahi-Verizon-LTE-short.down");
        assert_eq!(e.searched, [std::path::PathBuf::from("/nowhere")]);
    }

    #[test]
    fn shared_flows_start_evenly_until_the_last_start() {
        let case = Case {
            link: LinkCase::Shared {
                flows: 4,
                mbps: 10.0,
            },
            mode: Mode::L4s,
            options: OptionSet::all(),
        };
        let s = case.scenario(&DataPath::new(vec![])).unwrap();
        let starts: Vec<f64> = s.flows.iter().map(|f| f.start_s).collect();
        assert_eq!(starts[0], 0.0);
        assert_eq!(starts[3], SHARED_LAST_START_S);
        assert!((starts[1] - SHARED_LAST_START_S / 3.0).abs() < 1e-12);
        assert!(s.flows.iter().all(|f| f.improvements == ["all"]));
    }
}
