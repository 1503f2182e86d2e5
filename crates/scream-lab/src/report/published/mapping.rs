//! How the published study's names meet ours: its parameter abbreviations to our axis
//! keys, its metrics to our results columns, its L4S modes to our sweep's bases. Kept in
//! one place so that every scorer (the idealised studies, the apparatus studies, a search
//! over setups) reads the same table.

use super::sensors2023::{L4s, PublishedMetric};

/// One of our axis keys that varies a published parameter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AxisKey {
    /// The dotted key, as in a sweep spec's `[[axis]] key`.
    pub key: &'static str,
    /// Our value = published value × `scale` (RAI is in ms there and s here: 0.001).
    pub scale: f64,
}

/// A published parameter and the axis keys that may carry it in a results file (the
/// first one present is used).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AxisMap {
    /// The abbreviation of the paper's Table 2 (`QDlow`, `RAI`, ...).
    pub abbreviation: &'static str,
    /// Our keys for it, in order of preference.
    pub keys: &'static [AxisKey],
}

/// A published metric and the results column that measures it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MetricMap {
    /// The paper's metric.
    pub metric: PublishedMetric,
    /// Our metric column (a bare name of `sweep::METRICS`; `f<i>_` prefixed columns of a
    /// multi-flow sweep are matched too, the first flow's first).
    pub column: &'static str,
    /// The unit of that column (`ms`, `Mbit/s`).
    pub unit: &'static str,
}

/// The whole correspondence between the paper and one family of our sweeps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mapping {
    /// Parameters.
    pub axes: &'static [AxisMap],
    /// Metrics.
    pub metrics: &'static [MetricMap],
    /// The sweep base of each L4S mode.
    pub bases: &'static [(L4s, &'static str)],
}

impl Mapping {
    /// The axis map of a published abbreviation.
    pub fn axis(&self, abbreviation: &str) -> Option<&AxisMap> {
        self.axes.iter().find(|a| a.abbreviation == abbreviation)
    }

    /// The metric map of a published metric.
    pub fn metric(&self, metric: PublishedMetric) -> Option<&MetricMap> {
        self.metrics.iter().find(|m| m.metric == metric)
    }

    /// The base of an L4S mode.
    pub fn base(&self, l4s: L4s) -> Option<&'static str> {
        self.bases.iter().find(|(m, _)| *m == l4s).map(|(_, b)| *b)
    }
}

const fn same(key: &'static str) -> AxisKey {
    AxisKey { key, scale: 1.0 }
}

/// Sensors 2023 against our V1 sender's keys (`studies/paper-standalone.toml`,
/// `studies/paper-hybrid.toml`). The metrics are the sender's own figures, as the paper
/// logged them: its queue delay is the sender's estimate (`est_qdelay_ms`), not the
/// link's sojourn.
pub const SENSORS2023_MAPPING: Mapping = Mapping {
    axes: &[
        AxisMap {
            abbreviation: "QDlow",
            keys: &[same("flows.0.params.qdelay_target_lo")],
        },
        AxisMap {
            abbreviation: "QDth",
            keys: &[same("flows.0.params.qdelay_trend_th")],
        },
        AxisMap {
            abbreviation: "MSS",
            keys: &[same("flows.0.params.mss_bytes")],
        },
        AxisMap {
            abbreviation: "RAI",
            // ms in the paper, seconds in our parameter.
            keys: &[AxisKey {
                key: "flows.0.params.rate_adjust_interval",
                scale: 1e-3,
            }],
        },
        AxisMap {
            abbreviation: "TBmin",
            keys: &[same("flows.0.min_bitrate_mbps")],
        },
        AxisMap {
            abbreviation: "TBmax",
            keys: &[same("flows.0.max_bitrate_mbps")],
        },
        AxisMap {
            abbreviation: "RUS",
            // Mbit/s per s in the paper, bit/s per s in our parameter.
            keys: &[AxisKey {
                key: "flows.0.params.ramp_up_speed",
                scale: 1e6,
            }],
        },
        AxisMap {
            abbreviation: "PCG",
            keys: &[same("flows.0.params.pre_congestion_guard")],
        },
        AxisMap {
            abbreviation: "QSF",
            keys: &[same("flows.0.params.tx_queue_size_factor")],
        },
        AxisMap {
            abbreviation: "RQth",
            keys: &[same("flows.0.params.rtp_qdelay_th")],
        },
        AxisMap {
            abbreviation: "TRS",
            keys: &[same("flows.0.params.target_rate_scale_rtp_qdelay")],
        },
    ],
    metrics: &[
        MetricMap {
            metric: PublishedMetric::QueueDelay,
            column: "est_qdelay_ms",
            unit: "ms",
        },
        MetricMap {
            metric: PublishedMetric::Srtt,
            column: "srtt_ms",
            unit: "ms",
        },
        MetricMap {
            metric: PublishedMetric::Throughput,
            column: "throughput_mbps",
            unit: "Mbit/s",
        },
    ],
    bases: &[(L4s::Off, "l4s-off"), (L4s::On, "l4s-on")],
};
