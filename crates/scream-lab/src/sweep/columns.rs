//! The columns of results.csv, declared once: the header, the rows, the report's
//! reading of the file and docs/sweeps.md (checked by a test) all follow these lists.
//!
//! A results file is `ID_COLUMNS`, then one column per varied parameter (named by its
//! dotted key), then `RUN_COLUMNS`, then the metric columns, then `TIMING_COLUMNS`.

/// A fixed column of results.csv.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    /// Header name.
    pub name: &'static str,
    /// What a cell holds.
    pub description: &'static str,
}

/// The columns before the parameters: which run, and where it sits in the design.
pub const ID_COLUMNS: [Column; 5] = [
    Column {
        name: "run_id",
        description: "`<base>/p<point>/s<seed>`; unique in the sweep, the key of resume",
    },
    Column {
        name: "base",
        description: "name of the base scenario",
    },
    Column {
        name: "point",
        description: "index of the design point (0-based; the same point on every base)",
    },
    Column {
        name: "axis",
        description: "one-at-a-time: the key of the axis this point varies; empty otherwise",
    },
    Column {
        name: "transition",
        description: "one-at-a-time: index of the value on its axis, 0..n-1; empty otherwise",
    },
];

/// The columns between the parameters and the metrics.
pub const RUN_COLUMNS: [Column; 3] = [
    Column {
        name: "seed",
        description: "master seed of the run",
    },
    Column {
        name: "status",
        description: "`ok`, or `error` when the point could not be loaded or run",
    },
    Column {
        name: "error",
        description: "why the run failed (one line); empty when `ok`",
    },
];

/// The columns after the metrics.
pub const TIMING_COLUMNS: [Column; 1] = [Column {
    name: "wall_time_s",
    description: "wall-clock time of the run (load, simulate, measure), s; the only \
                  column that differs between two sweeps of the same spec",
}];

/// Which way a metric improves, for the report's best and worst points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Better {
    /// More is better (throughput).
    Higher,
    /// Less is better (delay, loss).
    Lower,
    /// Neither (a CE ratio is a signal, not a cost).
    Neither,
}

/// What a metric is measured over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// One value per selected flow (prefixed `f<i>_` when several flows are selected).
    Flow,
    /// One value per run.
    Run,
}

/// How a metric is computed from a run (see `measure`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Measure {
    Throughput,
    Target,
    EstQueueDelay,
    Srtt,
    QueueDelayMean,
    QueueDelayP50,
    QueueDelayP95,
    FrameDelayP95,
    LossRatio,
    CeRatio,
    Utilization,
}

/// A summary metric of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Metric {
    /// Column name (per-flow metrics get a `f<i>_` prefix when several flows are
    /// selected).
    pub name: &'static str,
    /// Unit, for tables and axis labels (empty: a ratio).
    pub unit: &'static str,
    /// How it is computed.
    pub description: &'static str,
    /// Which way it improves.
    pub better: Better,
    /// Per flow or per run.
    pub scope: Scope,
    pub(super) measure: Measure,
}

/// Every metric a sweep can record, in column order.
pub const METRICS: [Metric; 11] = [
    Metric {
        name: "throughput_mbps",
        unit: "Mbit/s",
        description: "mean of the periodic samples (every `sample_interval_ms`, 20 ms by \
                      default) of the rate the flow's streams delivered, over the flow's \
                      active period",
        better: Better::Higher,
        scope: Scope::Flow,
        measure: Measure::Throughput,
    },
    Metric {
        name: "target_mbps",
        unit: "Mbit/s",
        description: "mean of the periodic samples of the sum of the streams' target \
                      bitrates",
        better: Better::Neither,
        scope: Scope::Flow,
        measure: Measure::Target,
    },
    Metric {
        name: "est_qdelay_ms",
        unit: "ms",
        description: "mean of the periodic samples of the controller's own queue-delay \
                      estimate (`scream sim`'s est.qd); empty for a flow without one",
        better: Better::Lower,
        scope: Scope::Flow,
        measure: Measure::EstQueueDelay,
    },
    Metric {
        name: "srtt_ms",
        unit: "ms",
        description: "mean of the periodic samples of the sender's smoothed RTT; empty \
                      for a flow without one",
        better: Better::Lower,
        scope: Scope::Flow,
        measure: Measure::Srtt,
    },
    Metric {
        name: "qdelay_mean_ms",
        unit: "ms",
        description: "true path queueing delay (sojourn at every link), mean over the \
                      delivered packets",
        better: Better::Lower,
        scope: Scope::Flow,
        measure: Measure::QueueDelayMean,
    },
    Metric {
        name: "qdelay_p50_ms",
        unit: "ms",
        description: "median of the same per-packet distribution: the delay of a typical \
                      packet, which the mean, pulled up by rare long sojourns, is not",
        better: Better::Lower,
        scope: Scope::Flow,
        measure: Measure::QueueDelayP50,
    },
    Metric {
        name: "qdelay_p95_ms",
        unit: "ms",
        description: "95th percentile of the same per-packet distribution",
        better: Better::Lower,
        scope: Scope::Flow,
        measure: Measure::QueueDelayP95,
    },
    Metric {
        name: "frame_delay_p95_ms",
        unit: "ms",
        description: "95th percentile of the frame delay (frame enqueued at the sender \
                      to its last packet received) over the frames delivered whole; \
                      empty when none was",
        better: Better::Lower,
        scope: Scope::Flow,
        measure: Measure::FrameDelayP95,
    },
    Metric {
        name: "loss_ratio",
        unit: "",
        description: "packets dropped or lost in the network / packets sent",
        better: Better::Lower,
        scope: Scope::Flow,
        measure: Measure::LossRatio,
    },
    Metric {
        name: "ce_ratio",
        unit: "",
        description: "packets received CE-marked / packets received",
        better: Better::Neither,
        scope: Scope::Flow,
        measure: Measure::CeRatio,
    },
    Metric {
        name: "link_utilization",
        unit: "",
        description: "bytes sent / bytes the capacity allowed, on the forward direction \
                      of the link with the lowest mean capacity (the bottleneck)",
        better: Better::Higher,
        scope: Scope::Run,
        measure: Measure::Utilization,
    },
];

/// The metric a results.csv column records: `throughput_mbps` and `f1_throughput_mbps`
/// are both throughput.
pub fn metric_of_column(column: &str) -> Option<&'static Metric> {
    let bare = column
        .strip_prefix('f')
        .and_then(|rest| {
            let (digits, tail) = rest.split_once('_')?;
            digits.bytes().all(|b| b.is_ascii_digit()).then_some(tail)
        })
        .filter(|tail| METRICS.iter().any(|m| m.name == *tail))
        .unwrap_or(column);
    METRICS.iter().find(|m| m.name == bare)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixed_and_bare_metric_columns_are_recognised() {
        assert_eq!(metric_of_column("srtt_ms").map(|m| m.name), Some("srtt_ms"));
        assert_eq!(
            metric_of_column("f12_srtt_ms").map(|m| m.name),
            Some("srtt_ms")
        );
        assert_eq!(metric_of_column("flows.0.x"), None);
        assert_eq!(metric_of_column("fx_srtt_ms"), None);
    }

    #[test]
    fn every_name_is_unique() {
        let mut names: Vec<&str> = ID_COLUMNS
            .iter()
            .chain(&RUN_COLUMNS)
            .chain(&TIMING_COLUMNS)
            .map(|c| c.name)
            .chain(METRICS.iter().map(|m| m.name))
            .collect();
        let n = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), n);
    }
}
