//! The queue at a link's input: its discipline and the keys each discipline reads.
//!
//! Each AQM key is declared once, next to the model it configures
//! (`scream_netmodel::queue`), and belongs to one discipline; a key written for another
//! one would be silently ignored, so the loader refuses it ([`QueueKind::owner_of`]),
//! and a queue is written back (to a manifest or `scream eval --scenarios`) with only
//! the keys its discipline reads, so that what is written can be read back.

use std::sync::LazyLock;

use scream_netmodel::QueueLimitKeys;
use scream_netmodel::keys::Key;
use scream_netmodel::queue::{
    CodelKeys, DualPi2Keys, EcnThresholdKeys, L4sCellularKeys, L4sRampKeys, NetQueueKeys,
};
use serde::de::{self, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize};

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
    /// The Ericsson test application's NetQueue (`netqueue_*` keys): its own release
    /// timing in place of the serializer, and its vintage's marker.
    #[serde(rename = "netqueue")]
    NetQueue,
    /// The L4S ramp on a cellular network's queue-delay estimate, queued bytes over
    /// the rate the link offered over `cellular_window_ms` (`cellular_*` keys), for
    /// ECT(1)/CE packets.
    L4sCellular,
}

/// The queue at a link's input: its discipline, the limit every discipline reads, and
/// the keys of each discipline, declared next to its model in
/// [`scream_netmodel::queue`] (only those of `kind` are used).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct QueueConfig {
    /// Discipline. Default tail-drop.
    pub kind: QueueKind,
    /// `limit_ms` (default 300, the RMCAT default, RFC 8867 §5.1) and `limit_bytes`
    /// (default 0 = unlimited); when both are set the smaller applies.
    pub limit: QueueLimitKeys,
    /// `codel_*` keys (kind `codel`).
    pub codel: CodelKeys,
    /// `ecn_threshold_ms` (kind `ecn-threshold`).
    pub ecn_threshold: EcnThresholdKeys,
    /// `ramp_*` keys (kind `l4s-ramp`).
    pub l4s_ramp: L4sRampKeys,
    /// `dualpi2_*` keys (kind `dualpi2`).
    pub dualpi2: DualPi2Keys,
    /// `netqueue_*` keys (kind `netqueue`).
    pub netqueue: NetQueueKeys,
    /// `cellular_*` keys (kind `l4s-cellular`).
    pub l4s_cellular: L4sCellularKeys,
}

impl QueueKind {
    /// Every discipline, for messages.
    pub const ALL: [Self; 7] = [
        Self::TailDrop,
        Self::Codel,
        Self::EcnThreshold,
        Self::L4sRamp,
        Self::DualPi2,
        Self::NetQueue,
        Self::L4sCellular,
    ];

    /// The name written in a scenario file (`tail-drop`, `codel`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Self::TailDrop => "tail-drop",
            Self::Codel => "codel",
            Self::EcnThreshold => "ecn-threshold",
            Self::L4sRamp => "l4s-ramp",
            Self::DualPi2 => "dualpi2",
            Self::NetQueue => "netqueue",
            Self::L4sCellular => "l4s-cellular",
        }
    }

    /// The discipline called `name` in a scenario file.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The keys of this discipline alone, as declared by its model (none for
    /// tail-drop).
    pub fn keys(self) -> &'static [Key] {
        match self {
            Self::TailDrop => &[],
            Self::Codel => CodelKeys::keys(),
            Self::EcnThreshold => EcnThresholdKeys::keys(),
            Self::L4sRamp => L4sRampKeys::keys(),
            Self::DualPi2 => DualPi2Keys::keys(),
            Self::NetQueue => NetQueueKeys::keys(),
            Self::L4sCellular => L4sCellularKeys::keys(),
        }
    }

    /// The discipline that reads the `[queue]` key `key`, or `None` for the keys every
    /// discipline reads (`kind`, `limit_ms`, `limit_bytes`) and for unknown keys.
    pub fn owner_of(key: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|kind| kind.keys().iter().any(|k| k.name == key))
    }
}

impl QueueConfig {
    /// Every numeric `[queue]` key: the limit's, then each discipline's, in
    /// declaration order.
    pub fn keys() -> impl Iterator<Item = &'static Key> {
        QueueLimitKeys::keys()
            .iter()
            .chain(QueueKind::ALL.into_iter().flat_map(QueueKind::keys))
    }

    /// The value of the numeric key `name`, in its unit.
    pub fn value(&self, name: &str) -> Option<f64> {
        self.limit
            .get(name)
            .or_else(|| self.codel.get(name))
            .or_else(|| self.ecn_threshold.get(name))
            .or_else(|| self.l4s_ramp.get(name))
            .or_else(|| self.dualpi2.get(name))
            .or_else(|| self.netqueue.get(name))
            .or_else(|| self.l4s_cellular.get(name))
    }

    /// The first numeric key out of its range, used or not: its name and why.
    pub fn check_ranges(&self) -> Result<(), (&'static str, String)> {
        self.limit.check()?;
        self.codel.check()?;
        self.ecn_threshold.check()?;
        self.l4s_ramp.check()?;
        self.dualpi2.check()?;
        self.netqueue.check()?;
        self.l4s_cellular.check()
    }
}

/// Every name a `[queue]` table may hold, for the schema's "unknown key" message.
fn key_names() -> &'static [&'static str] {
    static NAMES: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
        std::iter::once("kind")
            .chain(QueueConfig::keys().map(|k| k.name))
            .collect()
    });
    &NAMES
}

impl<'de> Deserialize<'de> for QueueConfig {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(QueueVisitor)
    }
}

struct QueueVisitor;

impl<'de> Visitor<'de> for QueueVisitor {
    type Value = QueueConfig;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("struct QueueConfig")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<QueueConfig, A::Error> {
        let mut q = QueueConfig::default();
        while let Some(name) = map.next_key::<String>()? {
            if name == "kind" {
                q.kind = map.next_value()?;
                continue;
            }
            let read = q
                .limit
                .deserialize_key(&name, &mut map)
                .or_else(|| q.codel.deserialize_key(&name, &mut map))
                .or_else(|| q.ecn_threshold.deserialize_key(&name, &mut map))
                .or_else(|| q.l4s_ramp.deserialize_key(&name, &mut map))
                .or_else(|| q.dualpi2.deserialize_key(&name, &mut map))
                .or_else(|| q.netqueue.deserialize_key(&name, &mut map))
                .or_else(|| q.l4s_cellular.deserialize_key(&name, &mut map));
            match read {
                Some(result) => result?,
                None => return Err(de::Error::unknown_field(&name, key_names())),
            }
        }
        Ok(q)
    }
}

/// A queue is written back with the keys of its own discipline only, in declaration
/// order, so that what is written can be read back.
impl Serialize for QueueConfig {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let own = self.kind.keys().len();
        let mut map = s.serialize_map(Some(1 + QueueLimitKeys::keys().len() + own))?;
        map.serialize_entry("kind", &self.kind)?;
        self.limit.serialize_keys(&mut map)?;
        match self.kind {
            QueueKind::TailDrop => {}
            QueueKind::Codel => self.codel.serialize_keys(&mut map)?,
            QueueKind::EcnThreshold => self.ecn_threshold.serialize_keys(&mut map)?,
            QueueKind::L4sRamp => self.l4s_ramp.serialize_keys(&mut map)?,
            QueueKind::DualPi2 => self.dualpi2.serialize_keys(&mut map)?,
            QueueKind::NetQueue => self.netqueue.serialize_keys(&mut map)?,
            QueueKind::L4sCellular => self.l4s_cellular.serialize_keys(&mut map)?,
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_queue_reads_back_the_same() {
        for kind in QueueKind::ALL {
            let mut q = QueueConfig {
                kind,
                ..QueueConfig::default()
            };
            q.limit.limit_bytes = 12_345;
            q.dualpi2.dualpi2_alpha = 0.5;
            q.l4s_ramp.ramp_max_ms = 20.0;
            q.l4s_cellular.cellular_window_ms = 50.0;
            let text = toml_edit::ser::to_string(&q).expect("toml");
            let back: QueueConfig = toml_edit::de::from_str(&text).expect("reads back");
            assert_eq!(back.limit, q.limit, "{text}");
            for key in kind.keys() {
                assert_eq!(back.value(key.name), q.value(key.name), "{text}");
            }
            assert_eq!(back.kind, kind);
        }
    }

    #[test]
    fn an_unknown_key_lists_every_declared_key() {
        let e = toml_edit::de::from_str::<QueueConfig>("dualpi2_alpah = 1.0")
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown field `dualpi2_alpah`"), "{e}");
        for key in QueueConfig::keys() {
            assert!(e.contains(&format!("`{}`", key.name)), "{e}");
        }
    }

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
