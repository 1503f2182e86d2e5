//! The scenario data model (serde). Every key is optional except `duration_s`; unknown
//! keys are errors except inside `[flows.params]`. Times carry `_s`/`_ms` suffixes,
//! rates `_mbps`/`_kbps`.

use crate::link::{RateUnit, TraceEnd, TraceFormat};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report_window_s: Option<[f64; 2]>,
    /// Whether feedback goes through the RFC 8888 codec. Default true.
    #[serde(default = "defaults::yes")]
    pub feedback_as_bytes: bool,
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
            feedback_as_bytes: true,
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

    /// The name of flow `i` (`flow<i>` when unnamed).
    pub fn flow_name(&self, i: usize) -> String {
        match self.flows.get(i) {
            Some(f) if !f.name.is_empty() => f.name.clone(),
            _ => format!("flow{i}"),
        }
    }
}

/// A link (both directions).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LinkConfig {
    /// Name flows use in `path`. Default "bottleneck".
    pub name: String,
    /// Constant capacity, or the capacity before the first step, Mbit/s. Default 10.
    pub capacity_mbps: f64,
    /// `[from_s, mbps]` steps, in increasing time.
    pub capacity_steps: Vec<[f64; 2]>,
    /// Capacity trace file (relative to the scenario's directory, or absolute);
    /// overrides the constant and steps.
    pub trace: Option<String>,
    /// Trace format. Default auto.
    pub trace_format: TraceFormat,
    /// Table traces: zero-based column of the time in seconds. Default 0.
    pub trace_time_column: usize,
    /// Table traces: zero-based column of the rate. Default 1.
    pub trace_rate_column: usize,
    /// Table traces: unit of the rate. Default mbps.
    pub trace_rate_unit: RateUnit,
    /// Table traces: loop or hold the last value. Default loop (mahimahi always loops).
    pub trace_end: TraceEnd,
    /// Bytes per mahimahi delivery opportunity. Default 1500.
    pub mahimahi_packet_bytes: u32,
    /// Forward propagation delay, ms. Default 25.
    pub one_way_delay_ms: f64,
    /// Return propagation delay, ms. Default: `one_way_delay_ms`.
    pub return_delay_ms: Option<f64>,
    /// Return path capacity, Mbit/s; 0 = unlimited. Default 0.
    pub return_capacity_mbps: f64,
    /// Jitter standard deviation, ms (RFC 8868 truncated Gaussian). Default 0.
    pub jitter_ms: f64,
    /// Jitter truncation bound, ms. Default 3 x `jitter_ms`.
    pub jitter_max_ms: Option<f64>,
    /// Whether jitter keeps packet order. Default true.
    pub jitter_keep_order: bool,
    /// Random loss probability per forward packet. Default 0.
    pub loss: f64,
    /// The queue at the link's input.
    pub queue: QueueConfig,
}

impl Default for LinkConfig {
    fn default() -> Self {
        Self {
            name: "bottleneck".to_owned(),
            capacity_mbps: 10.0,
            capacity_steps: Vec::new(),
            trace: None,
            trace_format: TraceFormat::Auto,
            trace_time_column: 0,
            trace_rate_column: 1,
            trace_rate_unit: RateUnit::Mbps,
            trace_end: TraceEnd::Loop,
            mahimahi_packet_bytes: 1500,
            one_way_delay_ms: 25.0,
            return_delay_ms: None,
            return_capacity_mbps: 0.0,
            jitter_ms: 0.0,
            jitter_max_ms: None,
            jitter_keep_order: true,
            loss: 0.0,
            queue: QueueConfig::default(),
        }
    }
}

impl LinkConfig {
    /// The return delay in ms (defaults to the forward delay).
    pub fn effective_return_delay_ms(&self) -> f64 {
        self.return_delay_ms.unwrap_or(self.one_way_delay_ms)
    }

    /// The jitter bound in ms (defaults to 3 standard deviations).
    pub fn effective_jitter_max_ms(&self) -> f64 {
        self.jitter_max_ms.unwrap_or(3.0 * self.jitter_ms)
    }
}

/// Queue discipline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum QueueKind {
    /// FIFO with tail drop.
    #[default]
    TailDrop,
    /// CoDel (RFC 8289).
    Codel,
    /// CE (or drop) when the sojourn exceeds `ecn_threshold_ms`.
    EcnThreshold,
    /// L4S ramp between `ramp_min_ms` and `ramp_max_ms` for ECT(1)/CE packets.
    L4sRamp,
    /// DualPI2 (RFC 9332).
    #[serde(rename = "dualpi2")]
    DualPi2,
}

/// The queue at a link's input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct QueueConfig {
    /// Discipline. Default tail-drop.
    pub kind: QueueKind,
    /// Limit in time, ms, converted to bytes at the link's current capacity when a
    /// packet arrives (mahimahi: its mean capacity); 0 = unlimited. Default 300 (the
    /// RMCAT default, RFC 8867 §5.1).
    pub limit_ms: f64,
    /// Limit in bytes; 0 = unlimited. When both limits are set the smaller applies.
    pub limit_bytes: u64,
    /// CoDel target, ms. Default 5 (RFC 8289 §4.3).
    pub codel_target_ms: f64,
    /// CoDel interval, ms. Default 100 (RFC 8289 §4.4).
    pub codel_interval_ms: f64,
    /// ecn-threshold: sojourn above which packets are marked, ms. Default 30.
    pub ecn_threshold_ms: f64,
    /// l4s-ramp: sojourn of marking probability 0, ms. Default 8.
    pub ramp_min_ms: f64,
    /// l4s-ramp: sojourn of marking probability 1, ms. Default 12.
    pub ramp_max_ms: f64,
    /// DualPI2 target, ms. Default 15 (RFC 9332 §A.1).
    pub dualpi2_target_ms: f64,
    /// DualPI2 L4S step threshold, ms. Default 1.
    pub dualpi2_step_ms: f64,
    /// DualPI2 coupling factor k. Default 2.
    pub dualpi2_coupling: f64,
    /// DualPI2 update interval, ms. Default 16.
    pub dualpi2_tupdate_ms: f64,
    /// DualPI2 integral gain, Hz. Default 0.16.
    pub dualpi2_alpha: f64,
    /// DualPI2 proportional gain, Hz. Default 3.2.
    pub dualpi2_beta: f64,
}

impl Default for QueueConfig {
    fn default() -> Self {
        Self {
            kind: QueueKind::TailDrop,
            limit_ms: 300.0,
            limit_bytes: 0,
            codel_target_ms: 5.0,
            codel_interval_ms: 100.0,
            ecn_threshold_ms: 30.0,
            ramp_min_ms: 8.0,
            ramp_max_ms: 12.0,
            dualpi2_target_ms: 15.0,
            dualpi2_step_ms: 1.0,
            dualpi2_coupling: 2.0,
            dualpi2_tupdate_ms: 16.0,
            dualpi2_alpha: 0.16,
            dualpi2_beta: 3.2,
        }
    }
}

/// Congestion controller of a flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Algorithm {
    /// SCReAM V2 (the `scream` crate's sender and receiver).
    #[default]
    ScreamV2,
    /// No congestion control: every frame is sent at once as MSS-sized packets at the
    /// source's start bitrate; no feedback. A calibration and cross-traffic source.
    FixedRate,
}

impl Algorithm {
    /// The name used in summary.json.
    pub fn name(self) -> &'static str {
        match self {
            Self::ScreamV2 => "scream-v2",
            Self::FixedRate => "fixed-rate",
        }
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

/// One media flow.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FlowConfig {
    /// Name (default `flow<i>`).
    pub name: String,
    /// Controller. Default scream-v2.
    pub algorithm: Algorithm,
    /// ECN use. Default none.
    pub ecn: EcnSetting,
    /// Stream priority. Default 1.
    pub priority: f64,
    /// Start time, s. Default 0.
    pub start_s: f64,
    /// Stop time, s; 0 = until the end. Default 0.
    pub stop_s: f64,
    /// Links crossed in order; empty = all links in declaration order.
    pub path: Vec<String>,
    /// Lowest target bitrate, Mbit/s. Default 0.1.
    pub min_bitrate_mbps: f64,
    /// Target before feedback, Mbit/s. Default 1.
    pub start_bitrate_mbps: f64,
    /// Highest target bitrate, Mbit/s. Default 20.
    pub max_bitrate_mbps: f64,
    /// Receiver: report after this many packets. Default 16.
    pub packets_per_report: u32,
    /// Receiver: report at least this often while packets arrive, ms. Default 40.
    pub max_report_interval_ms: f64,
    /// The media source.
    pub source: SourceConfig,
    /// `SenderConfig` fields by name (Duration in seconds, Bitrate in bit/s).
    pub params: BTreeMap<String, f64>,
}

impl Default for FlowConfig {
    fn default() -> Self {
        Self {
            name: String::new(),
            algorithm: Algorithm::ScreamV2,
            ecn: EcnSetting::None,
            priority: 1.0,
            start_s: 0.0,
            stop_s: 0.0,
            path: Vec::new(),
            min_bitrate_mbps: 0.1,
            start_bitrate_mbps: 1.0,
            max_bitrate_mbps: 20.0,
            packets_per_report: 16,
            max_report_interval_ms: 40.0,
            source: SourceConfig::default(),
            params: BTreeMap::new(),
        }
    }
}

/// Kind of media source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SourceKind {
    /// Frame sizes from a trace file scaled to the target bitrate.
    #[default]
    VideoTrace,
    /// Frames of size target / fps.
    VideoConstant,
    /// Constant-bitrate audio packets.
    Audio,
}

/// The media source of a flow.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SourceConfig {
    /// Kind. Default video-trace.
    pub kind: SourceKind,
    /// Frame-size trace (`builtin:<name>` or a path). Default `builtin:trace_no_key`.
    pub trace: String,
    /// Frame rate, frames/s. Default 50.
    pub fps: f64,
    /// Time constant of the encoder's EWMA towards the target, s; 0 = follows at once.
    #[serde(alias = "sluggishness")]
    pub sluggishness_s: f64,
    /// Audio bitrate, kbit/s. Default 64.
    pub audio_bitrate_kbps: f64,
    /// Audio packet interval, ms. Default 20.
    pub audio_packet_interval_ms: f64,
}

impl Default for SourceConfig {
    fn default() -> Self {
        Self {
            kind: SourceKind::VideoTrace,
            trace: "builtin:trace_no_key".to_owned(),
            fps: 50.0,
            sluggishness_s: 0.0,
            audio_bitrate_kbps: 64.0,
            audio_packet_interval_ms: 20.0,
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
