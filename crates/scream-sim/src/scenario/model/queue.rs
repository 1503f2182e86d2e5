//! The queue at a link's input: its discipline and the keys each discipline reads.
//!
//! Each AQM key belongs to one discipline, and a key written for another one would be
//! silently ignored; the loader refuses it ([`QueueKind::owner_of`]), and a queue is
//! written back (to a manifest or `scream eval --scenarios`) with only the keys its
//! discipline reads, so that what is written can be read back.

use serde::{Deserialize, Serialize};

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
#[serde(default, deny_unknown_fields, into = "WrittenQueue")]
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

impl QueueKind {
    /// Every discipline, for messages.
    pub const ALL: [Self; 5] = [
        Self::TailDrop,
        Self::Codel,
        Self::EcnThreshold,
        Self::L4sRamp,
        Self::DualPi2,
    ];

    /// The name written in a scenario file (`tail-drop`, `codel`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Self::TailDrop => "tail-drop",
            Self::Codel => "codel",
            Self::EcnThreshold => "ecn-threshold",
            Self::L4sRamp => "l4s-ramp",
            Self::DualPi2 => "dualpi2",
        }
    }

    /// The discipline called `name` in a scenario file.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The discipline that reads the `[queue]` key `key`, or `None` for the keys every
    /// discipline reads (`kind`, `limit_ms`, `limit_bytes`) and for unknown keys.
    pub fn owner_of(key: &str) -> Option<Self> {
        Some(match key {
            "codel_target_ms" | "codel_interval_ms" => Self::Codel,
            "ecn_threshold_ms" => Self::EcnThreshold,
            "ramp_min_ms" | "ramp_max_ms" => Self::L4sRamp,
            k if k.starts_with("dualpi2_") => Self::DualPi2,
            _ => return None,
        })
    }
}

/// A queue as written back: the keys of its own discipline only, in declaration order.
struct WrittenQueue {
    kind: QueueKind,
    limit_ms: f64,
    limit_bytes: u64,
    own: Vec<(&'static str, f64)>,
}

impl Serialize for WrittenQueue {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(3 + self.own.len()))?;
        map.serialize_entry("kind", &self.kind)?;
        map.serialize_entry("limit_ms", &self.limit_ms)?;
        map.serialize_entry("limit_bytes", &self.limit_bytes)?;
        for (key, value) in &self.own {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

impl From<QueueConfig> for WrittenQueue {
    fn from(q: QueueConfig) -> Self {
        let own = match q.kind {
            QueueKind::TailDrop => vec![],
            QueueKind::Codel => vec![
                ("codel_target_ms", q.codel_target_ms),
                ("codel_interval_ms", q.codel_interval_ms),
            ],
            QueueKind::EcnThreshold => vec![("ecn_threshold_ms", q.ecn_threshold_ms)],
            QueueKind::L4sRamp => vec![
                ("ramp_min_ms", q.ramp_min_ms),
                ("ramp_max_ms", q.ramp_max_ms),
            ],
            QueueKind::DualPi2 => vec![
                ("dualpi2_target_ms", q.dualpi2_target_ms),
                ("dualpi2_step_ms", q.dualpi2_step_ms),
                ("dualpi2_coupling", q.dualpi2_coupling),
                ("dualpi2_tupdate_ms", q.dualpi2_tupdate_ms),
                ("dualpi2_alpha", q.dualpi2_alpha),
                ("dualpi2_beta", q.dualpi2_beta),
            ],
        };
        Self {
            kind: q.kind,
            limit_ms: q.limit_ms,
            limit_bytes: q.limit_bytes,
            own,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_aqm_key_has_the_discipline_that_reads_it() {
        let written = serde_json::to_value(QueueConfig::default()).expect("json");
        assert_eq!(written.as_object().map(|o| o.len()), Some(3), "{written}");
        for kind in QueueKind::ALL {
            let q = QueueConfig {
                kind,
                ..QueueConfig::default()
            };
            let value = serde_json::to_value(q).expect("json");
            for key in value.as_object().expect("table").keys() {
                let owner = QueueKind::owner_of(key);
                assert!(owner.is_none() || owner == Some(kind), "{key} in {kind:?}");
            }
            assert_eq!(QueueKind::from_name(kind.name()), Some(kind));
        }
    }
}
