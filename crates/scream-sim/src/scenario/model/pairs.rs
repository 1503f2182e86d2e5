//! Two-number keys (`[from_s, mbps]` steps, `[from_s, to_s]` windows) read strictly.
//!
//! serde reads a `[f64; 2]` by taking two elements, and the TOML deserializer does not
//! check that nothing follows, so `capacity_steps = [[1, 5, 7]]` would load as
//! `[[1, 5]]` and the 7 would vanish without a word. These readers refuse any other
//! length, naming what the two numbers are.

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, SeqAccess, Visitor};

/// One pair: exactly two numbers. `shape` says what they are, for the error.
struct Pair(&'static str);

impl<'de> DeserializeSeed<'de> for Pair {
    type Value = [f64; 2];

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<[f64; 2], D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Pair {
    type Value = [f64; 2];

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "a pair {}", self.0)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<[f64; 2], A::Error> {
        let first: Option<f64> = seq.next_element()?;
        let second: Option<f64> = match first {
            Some(_) => seq.next_element()?,
            None => None,
        };
        let mut extra = 0usize;
        while seq.next_element::<IgnoredAny>()?.is_some() {
            extra += 1;
        }
        match (first, second) {
            (Some(a), Some(b)) if extra == 0 => Ok([a, b]),
            _ => {
                let n = usize::from(first.is_some()) + usize::from(second.is_some()) + extra;
                Err(de::Error::custom(format!(
                    "must be two numbers {}, not a list of {n}",
                    self.0
                )))
            }
        }
    }
}

/// A list of pairs.
struct Pairs(&'static str);

impl<'de> Visitor<'de> for Pairs {
    type Value = Vec<[f64; 2]>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "a list of pairs {}", self.0)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<[f64; 2]>, A::Error> {
        let mut out = Vec::new();
        while let Some(pair) = seq.next_element_seed(Pair(self.0))? {
            out.push(pair);
        }
        Ok(out)
    }
}

fn pairs<'de, D: Deserializer<'de>>(d: D, shape: &'static str) -> Result<Vec<[f64; 2]>, D::Error> {
    d.deserialize_seq(Pairs(shape))
}

/// `capacity_steps`.
pub(super) fn capacity_steps<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<[f64; 2]>, D::Error> {
    pairs(d, "[from_s, mbps]")
}

/// `loss_steps`.
pub(super) fn loss_steps<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<[f64; 2]>, D::Error> {
    pairs(d, "[from_s, probability]")
}

/// `pauses`.
pub(super) fn pauses<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<[f64; 2]>, D::Error> {
    pairs(d, "[from_s, to_s]")
}

/// `report_window_s` and `trace_window_s` (present: the field is an `Option`).
pub(super) fn window<'de, D: Deserializer<'de>>(d: D) -> Result<Option<[f64; 2]>, D::Error> {
    Pair("[from_s, to_s]").deserialize(d).map(Some)
}
