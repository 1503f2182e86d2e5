//! The scenario data model (serde). Every key is optional except `duration_s`; unknown
//! keys are errors except inside `[flows.params]`. Times carry `_s`/`_ms` suffixes,
//! rates `_mbps`/`_kbps`.

use crate::clock::ClockKeys;
use scream_netmodel::{RateUnit, TimeUnit, TraceEnd, TraceFormat};
use scream_traffic::rate_control::gcc::{GccEstimator, GccVariant};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

mod algorithm;
mod pairs;
mod queue;
mod source;
mod tcp;

pub use algorithm::{Algorithm, Generation};
pub use queue::{QueueConfig, QueueKind};
pub use source::{DEFAULT_NOMINAL_GAIN, SourceConfig, SourceKind};
pub use tcp::{TcpFlowConfig, TcpTraffic};

/// One simulation scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Shown in titles and the summary. Default: the file stem (set by the loader).
    #[serde(default)]
    pub name: String,
    /// Free text.
    #[serde(default)]
    pub description: String,
    /// Simulated time, s. Required.
    pub duration_s: f64,
    /// Sampling period of the time series, ms. Default 20.
    #[serde(default = "defaults::sample_interval_ms")]
    pub sample_interval_ms: f64,
    /// Default master seed (a command-line seed overrides it). Default 1.
    #[serde(default = "defaults::seed")]
    pub seed: u64,
    /// Optional `[from, to]` window (s) summarised separately.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "pairs::window"
    )]
    pub report_window_s: Option<[f64; 2]>,
    /// The test set-up this scenario reproduces (`scenario::apparatus`): its profile
    /// supplies every key the scenario does not write.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub apparatus: Option<ApparatusConfig>,
    /// Whether feedback goes through the RFC 8888 codec. Default true.
    #[serde(default = "defaults::yes")]
    pub feedback_as_bytes: bool,
    /// The loop clock (`[clock]`): a grid of steps for every event and whole ticks
    /// for the SCReAM sender's time, as a discrete-time test application runs.
    /// Default: continuous time.
    #[serde(
        default,
        skip_serializing_if = "ClockKeys::is_default",
        with = "crate::clock"
    )]
    pub clock: ClockKeys,
    /// Shorthand for a single link (named "bottleneck" unless named).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<LinkConfig>,
    /// Several links, each with its own `name`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<LinkConfig>,
    /// The flows.
    #[serde(default)]
    pub flows: Vec<FlowConfig>,
    /// Directory that relative trace paths are resolved against (set by the loader to
    /// the scenario file's directory; `None`: the current directory).
    #[serde(skip)]
    pub base_dir: Option<PathBuf>,
}

/// `[apparatus]`: a profile of `scenario::apparatus::PROFILES`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApparatusConfig {
    /// The apparatus (`ericsson-testapp`).
    pub kind: String,
    /// The reference commit it mirrors (`ac89024`, `0924c0b`).
    pub vintage: String,
}

impl Default for Scenario {
    /// One 10 Mbit/s bottleneck and one SCReAM video flow for 20 s.
    fn default() -> Self {
        Self {
            name: String::new(),
            description: String::new(),
            duration_s: 20.0,
            sample_interval_ms: defaults::sample_interval_ms(),
            seed: defaults::seed(),
            report_window_s: None,
            apparatus: None,
            feedback_as_bytes: true,
            clock: ClockKeys::default(),
            link: Some(LinkConfig::default()),
            links: Vec::new(),
            flows: vec![FlowConfig::default()],
            base_dir: None,
        }
    }
}

impl Scenario {
    /// The links, whichever of `[link]` and `[[links]]` was used.
    pub fn link_configs(&self) -> &[LinkConfig] {
        match &self.link {
            Some(l) => std::slice::from_ref(l),
            None => &self.links,
        }
    }

    /// The dotted key prefix of link `i` as written in the scenario.
    pub fn link_key(&self, i: usize) -> String {
        if self.link.is_some() {
            "link".to_owned()
        } else {
            format!("links[{i}]")
        }
    }

    /// The name of link `i`: its `name`, or "bottleneck" for an unnamed `[link]`.
    pub fn link_name(&self, i: usize) -> String {
        match self.link_configs().get(i) {
            Some(l) if !l.name.is_empty() => l.name.clone(),
            _ if self.link.is_some() => "bottleneck".to_owned(),
            _ => format!("link{i}"),
        }
    }

    /// Whether anything in the scenario draws random numbers, i.e. whether the seed
    /// can change the outcome.
    pub fn has_random_element(&self) -> bool {
        let links = self
            .link_configs()
            .iter()
            .any(|l| l.has_random_element() || l.reverse_config().has_random_element());
        let tcp = self
            .flows
            .iter()
            .any(|f| f.algorithm.is_tcp() && f.tcp_config().traffic == TcpTraffic::OnOff);
        let phases = self.flows.iter().any(|f| {
            f.algorithm != Algorithm::Cbr
                && !f.algorithm.is_tcp()
                && f.effective_streams("")
                    .iter()
                    .any(|s| s.source.phase_ms.is_none())
        });
        links || phases || tcp
    }

    /// The name of flow `i` (`flow<i>` when unnamed).
    pub fn flow_name(&self, i: usize) -> String {
        match self.flows.get(i) {
            Some(f) if !f.name.is_empty() => f.name.clone(),
            _ => format!("flow{i}"),
        }
    }

    /// The highest target bitrate of every stream, Mbit/s, in global stream order
    /// (flows in order, each flow's streams in order): what the run plots draw as each
    /// stream's ceiling.
    pub fn stream_max_bitrates(&self) -> Vec<f64> {
        (0..self.flows.len())
            .flat_map(|i| {
                let name = self.flow_name(i);
                self.flows[i]
                    .effective_streams(&name)
                    .into_iter()
                    .map(|s| s.max_bitrate_mbps)
            })
            .collect()
    }
}

/// A link. The keys describe its forward direction; `reverse` describes the way back
/// with the same keys (except `name` and `reverse`), defaulting to an unlimited,
/// loss-free direction with the forward propagation delay.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LinkConfig {
    /// Name flows use in `path`. Default "bottleneck" for `[link]`; required for each
    /// of `[[links]]`; not allowed in a `reverse` table.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// Constant capacity, or the capacity before the first step, Mbit/s; `inf` =
    /// unlimited. Default 10 forward, unlimited reverse.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capacity_mbps: Option<f64>,
    /// `[from_s, mbps]` steps, in increasing time; 0 Mbit/s is an outage. At most
    /// [`MAX_STEPS`](crate::scenario::validate::MAX_STEPS).
    #[serde(deserialize_with = "pairs::capacity_steps")]
    pub capacity_steps: Vec<[f64; 2]>,
    /// Capacity trace file (relative to the scenario's directory, or absolute), or
    /// `synthetic:<name>` for a generated trace; overrides the constant and steps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<String>,
    /// `[from_s, until_s]`: the trace gives the capacity only between these times,
    /// starting from its own time 0 at `from_s` (and looping within the window if it is
    /// shorter); before and after, `capacity_mbps` and `capacity_steps` apply. A 5G
    /// trace in place of one interval of a step experiment. Table and synthetic traces
    /// only. Default: the trace for the whole run.
    #[serde(
        skip_serializing_if = "Option::is_none",
        deserialize_with = "pairs::window"
    )]
    pub trace_window_s: Option<[f64; 2]>,
    /// Trace format. Default auto.
    pub trace_format: TraceFormat,
    /// Table traces: zero-based column of the time. Default 0.
    pub trace_time_column: usize,
    /// Table traces: unit of the time column, `s` or `ms`. Default s.
    pub trace_time_unit: TimeUnit,
    /// Table traces: zero-based column of the rate. Default 1.
    pub trace_rate_column: usize,
    /// Table traces: unit of the rate. Default mbps.
    pub trace_rate_unit: RateUnit,
    /// Table traces: loop or hold the last value. Default loop (mahimahi always loops).
    pub trace_end: TraceEnd,
    /// Table and synthetic-free traces: row `i` applies during `[i x S, (i + 1) x S)`
    /// seconds and the time column is not read (a trace replayed at another pace than it
    /// was recorded; `trace_end` still applies). Default: the time column.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace_seconds_per_row: Option<f64>,
    /// Bytes per mahimahi delivery opportunity. Default 1500.
    pub mahimahi_packet_bytes: u32,
    /// Propagation delay, ms. Default 25 forward; the forward delay reverse.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub one_way_delay_ms: Option<f64>,
    /// Jitter standard deviation, ms (RFC 8868 truncated Gaussian). Default 0.
    pub jitter_ms: f64,
    /// Jitter truncation bound, ms. Default 3 x `jitter_ms`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jitter_max_ms: Option<f64>,
    /// Whether jitter keeps packet order. Default true.
    pub jitter_keep_order: bool,
    /// Loss probability per packet after the serializer. Default 0.
    pub loss: f64,
    /// `[from_s, probability]` steps of the loss probability, in increasing time; 1 is
    /// a dead path (a blackout). At most
    /// [`MAX_STEPS`](crate::scenario::validate::MAX_STEPS).
    #[serde(deserialize_with = "pairs::loss_steps")]
    pub loss_steps: Vec<[f64; 2]>,
    /// Mean length of a loss burst, packets: 1 = independent losses; above 1, losses
    /// come in bursts (Gilbert model) at the same mean probability. Default 1.
    pub loss_burst_packets: f64,
    /// The queue at the input.
    pub queue: QueueConfig,
    /// The reverse direction (from the far end back).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reverse: Option<Box<LinkConfig>>,
}

/// Forward capacity when none is given, Mbit/s.
pub const DEFAULT_CAPACITY_MBPS: f64 = 10.0;
/// Forward propagation delay when none is given, ms.
pub const DEFAULT_ONE_WAY_DELAY_MS: f64 = 25.0;

impl Default for LinkConfig {
    fn default() -> Self {
        Self {
            name: String::new(),
            capacity_mbps: None,
            capacity_steps: Vec::new(),
            trace: None,
            trace_window_s: None,
            trace_format: TraceFormat::Auto,
            trace_time_column: 0,
            trace_time_unit: TimeUnit::S,
            trace_rate_column: 1,
            trace_rate_unit: RateUnit::Mbps,
            trace_end: TraceEnd::Loop,
            trace_seconds_per_row: None,
            mahimahi_packet_bytes: 1500,
            one_way_delay_ms: None,
            jitter_ms: 0.0,
            jitter_max_ms: None,
            jitter_keep_order: true,
            loss: 0.0,
            loss_steps: Vec::new(),
            loss_burst_packets: 1.0,
            queue: QueueConfig::default(),
            reverse: None,
        }
    }
}

impl LinkConfig {
    /// The forward propagation delay in ms.
    pub fn forward_delay_ms(&self) -> f64 {
        self.one_way_delay_ms.unwrap_or(DEFAULT_ONE_WAY_DELAY_MS)
    }

    /// The reverse direction as configured, or the default one.
    pub fn reverse_config(&self) -> LinkConfig {
        self.reverse.as_deref().cloned().unwrap_or_default()
    }

    /// `trace_seconds_per_row` in ns, as a table trace reads it.
    pub fn trace_row_ns(&self) -> Option<u64> {
        self.trace_seconds_per_row
            .map(|s| (s * 1e9).round().clamp(1.0, u64::MAX as f64) as u64)
    }

    /// The jitter bound in ms (defaults to 3 standard deviations).
    pub fn effective_jitter_max_ms(&self) -> f64 {
        self.jitter_max_ms.unwrap_or(3.0 * self.jitter_ms)
    }

    /// Whether any random element acts on this direction: a synthetic capacity trace,
    /// jitter, loss, or an AQM that draws random numbers.
    pub fn has_random_element(&self) -> bool {
        let synthetic = self
            .trace
            .as_deref()
            .is_some_and(|t| t.starts_with(crate::scenario::load::SYNTHETIC_TRACE_PREFIX));
        synthetic
            || self.jitter_ms > 0.0
            || self.loss > 0.0
            || self.loss_steps.iter().any(|[_, p]| *p > 0.0)
            || matches!(
                self.queue.kind,
                QueueKind::L4sRamp | QueueKind::DualPi2 | QueueKind::L4sCellular
            )
    }
}

/// ECN use of a flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EcnSetting {
    /// Not-ECT.
    #[default]
    None,
    /// ECT(0), classic ECN.
    Classic,
    /// ECT(1), L4S.
    L4s,
}

/// Which way a flow's media travels over its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Over the forward directions of the path's links, in path order; feedback returns
    /// over their reverse directions.
    #[default]
    Forward,
    /// Over the reverse directions, from the last link of the path to the first;
    /// feedback returns over the forward directions (media both ways, RFC 8867 §5.3).
    Reverse,
}

/// One flow: a sender with one or more streams, a receiver, and the way between them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FlowConfig {
    /// Name (default `flow<i>`).
    pub name: String,
    /// Controller. Default scream-v2.
    pub algorithm: Algorithm,
    /// ECN use of the media. Default none.
    pub ecn: EcnSetting,
    /// ECN codepoint of the feedback packets. Default none.
    pub feedback_ecn: EcnSetting,
    /// Start time, s. Default 0.
    pub start_s: f64,
    /// Stop time, s; 0 = until the end. Default 0.
    pub stop_s: f64,
    /// `[from_s, to_s]` windows in which the encoder produces no frames (media pause and
    /// resume, RFC 8867 §5.8); the sender keeps its state. Increasing, not overlapping,
    /// inside the active time. Default none.
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "pairs::pauses"
    )]
    pub pauses: Vec<[f64; 2]>,
    /// Links crossed in order; empty = all links in declaration order.
    pub path: Vec<String>,
    /// Which way the media goes over the path. Default forward.
    pub direction: Direction,
    /// Stream priority (single-stream flows). Default 1.
    pub priority: f64,
    /// Lowest target bitrate, Mbit/s (single-stream flows). Default 0.1.
    pub min_bitrate_mbps: f64,
    /// Target before feedback, Mbit/s (single-stream flows); the sending rate of `cbr`.
    /// Default 1.
    pub start_bitrate_mbps: f64,
    /// Highest target bitrate, Mbit/s (single-stream flows). Default 20.
    pub max_bitrate_mbps: f64,
    /// Receiver: report after this many packets. Default 16.
    pub packets_per_report: u32,
    /// Receiver: report at least this often while packets arrive, ms. Default 40.
    pub max_report_interval_ms: f64,
    /// Receiver: the sequence numbers each report covers, the newest ones. Default 64.
    pub report_window: u16,
    /// The media source (single-stream flows).
    pub source: SourceConfig,
    /// Several streams sharing the flow's sender; when given, the flow-level stream
    /// keys (`priority`, bitrates, `source`) must be left at their defaults.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub streams: Vec<StreamConfig>,
    /// `SenderConfig` fields by name (Duration in seconds, Bitrate in bit/s); for gcc and
    /// nada flows, their own tunables by name (docs/baselines.md).
    pub params: BTreeMap<String, f64>,
    /// Options of a gcc flow.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gcc: Option<GccOptions>,
    /// Opt-in improvements of the sender by name (`scream::sender::Improvements::names`),
    /// or `"all"`; scream-v2 flows only. A single string is read as a one-name list, so
    /// that `--set flows.0.improvements=all` works. Default none (the faithful algorithm).
    #[serde(
        deserialize_with = "one_or_many",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub improvements: Vec<String>,
    /// The TCP connection of a `tcp-*` flow (`[flows.tcp]`); defaults when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tcp: Option<TcpFlowConfig>,
}

/// The improvements name that turns every improvement on.
pub const ALL_IMPROVEMENTS: &str = "all";

/// A list of strings, or one string as a list of one.
fn one_or_many<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged, expecting = "a name or a list of names")]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    Ok(match OneOrMany::deserialize(d)? {
        OneOrMany::One(s) => vec![s],
        OneOrMany::Many(v) => v,
    })
}

impl Default for FlowConfig {
    fn default() -> Self {
        let stream = StreamConfig::default();
        Self {
            name: String::new(),
            algorithm: Algorithm::default(),
            ecn: EcnSetting::None,
            feedback_ecn: EcnSetting::None,
            start_s: 0.0,
            stop_s: 0.0,
            pauses: Vec::new(),
            path: Vec::new(),
            direction: Direction::Forward,
            priority: stream.priority,
            min_bitrate_mbps: stream.min_bitrate_mbps,
            start_bitrate_mbps: stream.start_bitrate_mbps,
            max_bitrate_mbps: stream.max_bitrate_mbps,
            packets_per_report: 16,
            max_report_interval_ms: 40.0,
            report_window: 64,
            source: stream.source,
            streams: Vec::new(),
            params: BTreeMap::new(),
            gcc: None,
            improvements: Vec::new(),
            tcp: None,
        }
    }
}

/// The `[flows.gcc]` table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GccOptions {
    /// Which GCC: `"draft-02"` (the default, the draft as written) or `"libwebrtc"`
    /// (probing, the trendline's threshold gains, additive increase per second).
    pub variant: GccVariant,
    /// Arrival-time filter; by default the variant's (kalman for draft-02, trendline
    /// for libwebrtc).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimator: Option<GccEstimator>,
}

impl GccOptions {
    /// The arrival-time filter in use: the one named, else the variant's.
    pub fn estimator(&self) -> GccEstimator {
        self.estimator
            .unwrap_or_else(|| self.variant.default_estimator())
    }
}

impl FlowConfig {
    /// The `[flows.tcp]` table, or its defaults.
    pub fn tcp_config(&self) -> TcpFlowConfig {
        self.tcp.clone().unwrap_or_default()
    }

    /// The flow's streams: `streams` if given, else one stream named after the flow
    /// (`flow_name`) made of the flow-level keys.
    pub fn effective_streams(&self, flow_name: &str) -> Vec<StreamConfig> {
        if !self.streams.is_empty() {
            return self
                .streams
                .iter()
                .enumerate()
                .map(|(j, s)| StreamConfig {
                    name: if s.name.is_empty() {
                        format!("stream{j}")
                    } else {
                        s.name.clone()
                    },
                    ..s.clone()
                })
                .collect();
        }
        vec![StreamConfig {
            name: flow_name.to_owned(),
            priority: self.priority,
            min_bitrate_mbps: self.min_bitrate_mbps,
            start_bitrate_mbps: self.start_bitrate_mbps,
            max_bitrate_mbps: self.max_bitrate_mbps,
            source: self.source.clone(),
        }]
    }
}

/// One media stream of a flow.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct StreamConfig {
    /// Name (default `stream<j>`).
    pub name: String,
    /// Share of the flow's rate relative to the other streams. Default 1.
    pub priority: f64,
    /// Lowest target bitrate, Mbit/s. Default 0.1.
    pub min_bitrate_mbps: f64,
    /// Target before feedback, Mbit/s. Default 1.
    pub start_bitrate_mbps: f64,
    /// Highest target bitrate, Mbit/s. Default 20.
    pub max_bitrate_mbps: f64,
    /// The media source.
    pub source: SourceConfig,
}

impl Default for StreamConfig {
    fn default() -> Self {
        Self {
            name: String::new(),
            priority: 1.0,
            min_bitrate_mbps: 0.1,
            start_bitrate_mbps: 1.0,
            max_bitrate_mbps: 20.0,
            source: SourceConfig::default(),
        }
    }
}

mod defaults {
    pub(super) fn sample_interval_ms() -> f64 {
        20.0
    }
    pub(super) fn seed() -> u64 {
        1
    }
    pub(super) fn yes() -> bool {
        true
    }
}
