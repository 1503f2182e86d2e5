//! The sweep spec as written: serde types only. Whether the pieces fit together (an axis
//! with values for a grid design, a range for a sampling one) is checked in `plan`,
//! where the line of each key is known.

use serde::Deserialize;

use super::DesignKind;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};

/// The whole file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSpec {
    /// Default: the file stem.
    #[serde(default)]
    pub(super) name: Option<String>,
    #[serde(default)]
    pub(super) description: String,
    pub(super) design: RawDesign,
    /// Absent: each base scenario's own `seed`.
    #[serde(default)]
    pub(super) seeds: Option<Seeds>,
    /// Absent: flow 0.
    #[serde(default)]
    pub(super) flows: Option<FlowSelection>,
    /// Absent: every metric.
    #[serde(default)]
    pub(super) metrics: Option<Vec<String>>,
    #[serde(default, rename = "base")]
    pub(super) bases: Vec<RawBase>,
    #[serde(default, rename = "axis")]
    pub(super) axes: Vec<RawAxis>,
    #[serde(default, rename = "point")]
    pub(super) points: Vec<RawPoint>,
}

/// `[design]`. One table for every kind, so that a key the kind does not take is
/// refused by `plan` with the keys it does take, rather than ignored (serde's tagged
/// enums drop unknown keys of a variant without fields).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawDesign {
    pub(super) kind: DesignKind,
    /// Sampled designs: the number of points.
    #[serde(default)]
    pub(super) samples: Option<u64>,
    /// Sampled designs: the seed of the sampling (default 1).
    #[serde(default)]
    pub(super) seed: Option<u64>,
}

/// One `[[base]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawBase {
    #[serde(default)]
    pub(super) name: Option<String>,
    pub(super) scenario: String,
    /// `dotted.key=value`, exactly as `scream sim --set` takes them.
    #[serde(default)]
    pub(super) set: Vec<String>,
}

/// How the values of a sampled axis are spread over its range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(super) enum Scale {
    #[default]
    Linear,
    Log,
}

/// One `[[axis]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawAxis {
    pub(super) key: String,
    #[serde(default)]
    pub(super) values: Option<Vec<TomlValue>>,
    #[serde(default)]
    pub(super) range: Option<[f64; 2]>,
    #[serde(default)]
    pub(super) steps: Option<u64>,
    #[serde(default)]
    pub(super) scale: Option<Scale>,
    #[serde(default)]
    pub(super) integer: bool,
    #[serde(default)]
    pub(super) base: Option<TomlValue>,
}

/// One `[[point]]` of a list design.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawPoint {
    pub(super) set: Vec<String>,
}

/// `seeds = 3` (seeds 1, 2, 3) or `seeds = [7, 11]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Seeds {
    Count(u64),
    List(Vec<u64>),
}

impl<'de> Deserialize<'de> for Seeds {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Seeds;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a count of seeds or a list of seeds")
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<Seeds, E> {
                Ok(Seeds::Count(n))
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> Result<Seeds, E> {
                u64::try_from(n)
                    .map(Seeds::Count)
                    .map_err(|_| E::custom(format!("seeds must be 0 or more, not {n}")))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Seeds, A::Error> {
                let mut list = Vec::new();
                while let Some(s) = seq.next_element::<u64>()? {
                    list.push(s);
                }
                Ok(Seeds::List(list))
            }
        }
        d.deserialize_any(V)
    }
}

/// `flows = [0, 2]` or `flows = "all"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum FlowSelection {
    All,
    List(Vec<usize>),
}

impl<'de> Deserialize<'de> for FlowSelection {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = FlowSelection;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a list of flow indexes or \"all\"")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<FlowSelection, E> {
                if s == "all" {
                    Ok(FlowSelection::All)
                } else {
                    Err(E::custom(format!(
                        "flows must be a list of flow indexes or \"all\", not \"{s}\""
                    )))
                }
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<FlowSelection, A::Error> {
                let mut list = Vec::new();
                while let Some(i) = seq.next_element::<usize>()? {
                    list.push(i);
                }
                Ok(FlowSelection::List(list))
            }
        }
        d.deserialize_any(V)
    }
}

/// Any TOML value, kept as TOML so that it becomes an override exactly as written.
#[derive(Debug, Clone)]
pub(super) struct TomlValue(pub(super) toml_edit::Value);

impl TomlValue {
    /// The value as `--set key=VALUE` takes it.
    pub(super) fn toml(&self) -> String {
        self.0.to_string().trim().to_owned()
    }
}

impl<'de> Deserialize<'de> for TomlValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = TomlValue;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a TOML value")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<TomlValue, E> {
                Ok(TomlValue(v.into()))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<TomlValue, E> {
                Ok(TomlValue(v.into()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<TomlValue, E> {
                i64::try_from(v)
                    .map(|v| TomlValue(v.into()))
                    .map_err(|_| E::custom(format!("{v} is too large for a TOML integer")))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<TomlValue, E> {
                Ok(TomlValue(v.into()))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<TomlValue, E> {
                Ok(TomlValue(v.into()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<TomlValue, A::Error> {
                let mut array = toml_edit::Array::new();
                while let Some(TomlValue(v)) = seq.next_element()? {
                    array.push(v);
                }
                Ok(TomlValue(array.into()))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TomlValue, A::Error> {
                let mut table = toml_edit::InlineTable::new();
                while let Some((k, TomlValue(v))) = map.next_entry::<String, TomlValue>()? {
                    table.insert(&k, v);
                }
                Ok(TomlValue(table.into()))
            }
        }
        d.deserialize_any(V)
    }
}
