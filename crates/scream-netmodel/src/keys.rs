//! Keys that configure a network model, each declared once next to the model it
//! configures: name, type (which fixes the unit), default, allowed range and doc.
//!
//! A scenario file (or the link emulator's command line) writes these keys; the
//! simulator's loader reads them, checks their ranges, offers them as "did you mean"
//! suggestions and writes them back, and the range tables of `docs/scenarios.md` are
//! generated from them, all through the functions that
//! [`declare_keys!`](crate::declare_keys) generates. Adding a key to a model is
//! therefore one line of its declaration plus its use in the model's code; nothing
//! else keeps a list of names by hand. The model is ns-3's attributes and the
//! sender's `declare_params!`.

mod range;

pub use range::{AQM_TIME_MS, DELAY_MS, LIMIT_BYTES, Range, number};

use scream::Duration;

/// What one key is, for loaders, messages and generated documentation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Key {
    /// Name as a scenario file writes it (`dualpi2_alpha`).
    pub name: &'static str,
    /// Unit of the number, as in the key's suffix (`ms`, `Hz`, `bytes`; empty for
    /// plain numbers).
    pub unit: &'static str,
    /// Default, in `unit`.
    pub default: f64,
    /// Allowed values, in `unit`.
    pub range: Range,
    /// What the key sets, one line (it is the "meaning" column of the docs' tables).
    pub doc: &'static str,
}

/// A type a key's value can have: the number a scenario writes, as the model keeps it.
pub trait KeyValue: Copy {
    /// The value as a number in the key's unit, for range checks and messages.
    fn to_f64(self) -> f64;
}

impl KeyValue for f64 {
    fn to_f64(self) -> f64 {
        self
    }
}

/// A flag: 1 for true, 0 for false (its range is `[0, 1]`).
impl KeyValue for bool {
    fn to_f64(self) -> f64 {
        f64::from(u8::from(self))
    }
}

impl KeyValue for u64 {
    fn to_f64(self) -> f64 {
        self as f64
    }
}

/// A time key in ms as a `Duration`: negative and NaN give zero, and a value too large
/// for a `Duration` saturates instead of panicking. Range checks keep scenario times far
/// below that; this only makes the conversion total.
pub fn ms(v: f64) -> Duration {
    Duration::try_from_secs_f64((v * 1e-3).max(0.0)).unwrap_or(Duration::MAX)
}

/// The doc lines of a declaration as one line: the leading space each `///` line
/// carries removed, lines joined by a space.
#[doc(hidden)]
pub fn one_line(doc: &str) -> String {
    doc.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Declares a struct whose fields are keys:
///
/// ```text
/// declare_keys! {
///     /// Struct docs.
///     pub struct Name {
///         /// What the key sets, in one line for the docs' table.
///         key_name: f64 = 15.0, unit "ms", range AQM_TIME_MS;
///     }
/// }
/// ```
///
/// It generates the struct (public fields named as the scenario writes them),
/// `Default`, and: `keys()` (every [`Key`], in declaration order), `get` (a key's value
/// by name), `check` (the first key out of its range, with the reason),
/// `deserialize_key` (reads one key's value from a serde map with the field's type, so
/// type errors read as for any serde field) and `serialize_keys` (writes every key, in
/// declaration order, with the field's type).
#[macro_export]
macro_rules! declare_keys {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $(
                $(#[doc = $doc:literal])*
                $field:ident : $ty:ty = $default:expr, unit $unit:literal, range $range:expr;
            )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq)]
        pub struct $name {
            $(
                $(#[doc = $doc])*
                #[doc = ""]
                #[doc = concat!(
                    "Unit `", $unit, "`, default `", stringify!($default), "`, range `",
                    stringify!($range), "`."
                )]
                pub $field: $ty,
            )*
        }

        impl Default for $name {
            fn default() -> Self {
                Self { $($field: $default,)* }
            }
        }

        impl $name {
            /// Every key, in declaration order.
            pub fn keys() -> &'static [$crate::keys::Key] {
                static KEYS: std::sync::LazyLock<Vec<$crate::keys::Key>> =
                    std::sync::LazyLock::new(|| {
                        vec![$({
                            let default: $ty = $default;
                            $crate::keys::Key {
                                name: stringify!($field),
                                unit: $unit,
                                default: $crate::keys::KeyValue::to_f64(default),
                                range: $range,
                                doc: String::leak($crate::keys::one_line(
                                    concat!($($doc, "\n"),*),
                                )),
                            }
                        },)*]
                    });
                &KEYS
            }

            /// The value of key `name`, in its unit; `None` if it is not one of these.
            pub fn get(&self, name: &str) -> Option<f64> {
                match name {
                    $(stringify!($field) => Some($crate::keys::KeyValue::to_f64(self.$field)),)*
                    _ => None,
                }
            }

            /// The first key out of its range: its name and why (`must be in [0,
            /// 1000] Hz (is 5000)`).
            pub fn check(&self) -> Result<(), (&'static str, String)> {
                for key in Self::keys() {
                    let v = self.get(key.name).unwrap_or(f64::NAN);
                    key.range.check(v).map_err(|reason| (key.name, reason))?;
                }
                Ok(())
            }

            /// Reads key `name`'s value from `map` into its field; `None` if `name`
            /// is not one of these keys (the value is then left unread).
            pub fn deserialize_key<'de, A: serde::de::MapAccess<'de>>(
                &mut self,
                name: &str,
                map: &mut A,
            ) -> Option<Result<(), A::Error>> {
                match name {
                    $(stringify!($field) => Some(
                        map.next_value::<$ty>().map(|v| self.$field = v),
                    ),)*
                    _ => None,
                }
            }

            /// Writes every key to `map`, in declaration order.
            pub fn serialize_keys<M: serde::ser::SerializeMap>(
                &self,
                map: &mut M,
            ) -> Result<(), M::Error> {
                $(map.serialize_entry(stringify!($field), &self.$field)?;)*
                Ok(())
            }
        }
    };
}
