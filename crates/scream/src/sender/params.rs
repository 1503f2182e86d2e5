//! Configuration parameters declared once.
//!
//! Every tunable of the sender is one line of a [`declare_params!`] block: name, doc,
//! type (which fixes the unit), default, allowed range and source. From that line the
//! macro generates the struct field and its documentation, `Default`, the range check,
//! setting and reading the field by name, and the parameter's [`ParamInfo`]. A
//! parameter therefore cannot be added to the struct and forgotten in the name list,
//! the validation or `set_param`: there is nothing to keep in step by hand.

use crate::time::Duration;
use crate::units::Bitrate;

/// An invalid configuration value.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("invalid `{field}` = {value}: {reason}")]
pub struct ConfigError {
    /// Name of the offending field.
    pub field: &'static str,
    /// The offending value, as text.
    pub value: String,
    /// What the allowed range is.
    pub reason: String,
}

/// What a configuration parameter is, for listings, sweeps and generated docs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParamInfo {
    /// Name as [`super::SenderConfig::set_param`] takes it.
    pub name: &'static str,
    /// First sentence of the parameter's documentation (its lines joined by newlines).
    pub summary: &'static str,
    /// Unit of the number `set_param` takes: `s`, `bit/s`, `bytes`, `1` (a ratio or
    /// count) or `0/1` (a switch: 0 off, 1 on).
    pub unit: &'static str,
    /// Default, in `unit`.
    pub default: f64,
    /// Lowest allowed value, in `unit`.
    pub min: f64,
    /// Whether `min` itself is excluded.
    pub min_exclusive: bool,
    /// Highest allowed value, in `unit`.
    pub max: f64,
    /// Where the parameter and its default come from.
    pub source: &'static str,
}

/// A type a parameter can have. Each fixes the unit of the `f64` that `set_param`
/// takes and `get_param` returns, so a sweep names every parameter by one number.
pub(crate) trait ParamValue: Copy + PartialOrd {
    /// Unit of [`ParamValue::to_f64`].
    const UNIT: &'static str;
    fn to_f64(self) -> f64;
    fn from_f64(field: &'static str, v: f64) -> Result<Self, ConfigError>;
    /// The value as an error message shows it.
    fn show(self) -> String;
}

pub(crate) fn err(field: &'static str, value: impl ToString, reason: &str) -> ConfigError {
    ConfigError {
        field,
        value: value.to_string(),
        reason: reason.to_owned(),
    }
}

impl ParamValue for u32 {
    const UNIT: &'static str = "bytes";
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    fn from_f64(field: &'static str, v: f64) -> Result<Self, ConfigError> {
        if !(0.0..=f64::from(u32::MAX)).contains(&v) {
            return Err(err(field, v, "must be a byte count in [0, 2^32)"));
        }
        Ok(v.round() as u32)
    }
    fn show(self) -> String {
        self.to_string()
    }
}

impl ParamValue for f64 {
    const UNIT: &'static str = "1";
    fn to_f64(self) -> f64 {
        self
    }
    fn from_f64(_: &'static str, v: f64) -> Result<Self, ConfigError> {
        Ok(v)
    }
    fn show(self) -> String {
        self.to_string()
    }
}

impl ParamValue for bool {
    const UNIT: &'static str = "0/1";
    fn to_f64(self) -> f64 {
        if self { 1.0 } else { 0.0 }
    }
    fn from_f64(field: &'static str, v: f64) -> Result<Self, ConfigError> {
        if v == 0.0 {
            Ok(false)
        } else if v == 1.0 {
            Ok(true)
        } else {
            Err(err(field, v, "must be 0 (off) or 1 (on)"))
        }
    }
    fn show(self) -> String {
        self.to_string()
    }
}

impl ParamValue for Duration {
    const UNIT: &'static str = "s";
    fn to_f64(self) -> f64 {
        self.as_secs_f64()
    }
    fn from_f64(field: &'static str, v: f64) -> Result<Self, ConfigError> {
        Duration::try_from_secs_f64(v)
            .map_err(|_| err(field, v, "must be a non-negative number of seconds"))
    }
    fn show(self) -> String {
        format!("{}s", self.as_secs_f64())
    }
}

impl ParamValue for Bitrate {
    const UNIT: &'static str = "bit/s";
    fn to_f64(self) -> f64 {
        self.bps()
    }
    fn from_f64(_: &'static str, v: f64) -> Result<Self, ConfigError> {
        Ok(Bitrate::from_bps(v))
    }
    fn show(self) -> String {
        self.bps().to_string()
    }
}

/// The allowed values of a parameter: `[lo, hi]`, or `(lo, hi]` when `lo` itself
/// makes no sense (a gain of 0 would freeze what it smooths).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Range<T> {
    lo: T,
    hi: T,
    lo_open: bool,
}

/// `[lo, hi]`.
pub(crate) fn incl<T>(lo: T, hi: T) -> Range<T> {
    Range {
        lo,
        hi,
        lo_open: false,
    }
}

/// `(lo, hi]`.
pub(crate) fn above<T>(lo: T, hi: T) -> Range<T> {
    Range {
        lo,
        hi,
        lo_open: true,
    }
}

impl<T: ParamValue> Range<T> {
    pub(crate) fn check(&self, field: &'static str, v: T) -> Result<(), ConfigError> {
        let x = v.to_f64();
        let (lo, hi) = (self.lo.to_f64(), self.hi.to_f64());
        let below = if self.lo_open { x <= lo } else { x < lo };
        if x.is_nan() || below || x > hi {
            return Err(err(field, v.show(), &self.describe()));
        }
        Ok(())
    }

    fn describe(&self) -> String {
        let open = if self.lo_open { "(" } else { "[" };
        let (lo, hi) = (self.lo.to_f64(), self.hi.to_f64());
        if T::UNIT == "s" {
            format!("must be in {open}{lo} s, {hi} s]")
        } else {
            format!("must be in {open}{lo}, {hi}]")
        }
    }

    pub(crate) fn info(
        &self,
        name: &'static str,
        summary: &'static str,
        default: T,
        source: &'static str,
    ) -> ParamInfo {
        ParamInfo {
            name,
            summary,
            unit: T::UNIT,
            default: default.to_f64(),
            min: self.lo.to_f64(),
            min_exclusive: self.lo_open,
            max: self.hi.to_f64(),
            source,
        }
    }
}

// Short constructors, so that defaults and ranges read well in the declarations and
// in the generated docs (which quote them).
pub(crate) const fn ms(v: u64) -> Duration {
    Duration::from_millis(v)
}
pub(crate) const fn secs(v: u64) -> Duration {
    Duration::from_millis(v * 1000)
}
pub(crate) fn kbps(v: f64) -> Bitrate {
    Bitrate::from_kbps(v)
}
pub(crate) fn mbps(v: f64) -> Bitrate {
    Bitrate::from_mbps(v)
}

/// The first sentence of a doc comment, for [`ParamInfo::summary`]: up to the first
/// full stop followed by white space (the doc's lines are joined by newlines).
pub(crate) fn first_sentence(doc: &'static str) -> &'static str {
    let doc = doc.trim_start();
    let end = doc
        .char_indices()
        .zip(doc.chars().skip(1))
        .find(|((_, c), next)| *c == '.' && next.is_whitespace())
        .map(|((i, _), _)| i);
    match end {
        Some(i) => &doc[..=i],
        None => doc.trim_end(),
    }
}

/// Declares a configuration struct whose fields are parameters, and optionally some
/// plain fields that are not set by name (enums, nested configs):
///
/// ```text
/// declare_params! {
///     /// Struct docs.
///     pub struct Name {
///         plain { /// doc
///                 field: Type = default; }
///         params { /// doc
///                  field: Type = default, range incl(lo, hi), source "where from"; }
///     }
/// }
/// ```
macro_rules! declare_params {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            plain {
                $(
                    $(#[doc = $pdoc:literal])*
                    $pfield:ident : $pty:ty = $pdefault:expr;
                )*
            }
            params {
                $(
                    $(#[doc = $doc:literal])*
                    $field:ident : $ty:ty = $default:expr,
                        range $range:expr, source $source:literal;
                )*
            }
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq)]
        pub struct $name {
            $(
                $(#[doc = $pdoc])*
                pub $pfield: $pty,
            )*
            $(
                $(#[doc = $doc])*
                #[doc = ""]
                #[doc = concat!(
                    "Default `", stringify!($default), "`, range `", stringify!($range),
                    "` (unit: ", stringify!($ty), "). Source: ", $source, "."
                )]
                pub $field: $ty,
            )*
        }

        impl Default for $name {
            fn default() -> Self {
                #[allow(unused_imports, reason = "a struct without time or rate defaults needs none")]
                use $crate::sender::params::*;
                Self {
                    $($pfield: $pdefault,)*
                    $($field: $default,)*
                }
            }
        }

        impl $name {
            /// Names of the parameters, in declaration order.
            pub(crate) const PARAM_NAMES: &'static [&'static str] = &[$(stringify!($field)),*];

            /// Checks every parameter against its declared range.
            pub(crate) fn check_ranges(&self) -> Result<(), $crate::sender::params::ConfigError> {
                use $crate::sender::params::*;
                $( ($range).check(stringify!($field), self.$field)?; )*
                Ok(())
            }

            /// Sets the parameter `name` (unchecked against its range); `None` if
            /// there is no such parameter.
            pub(crate) fn set_value(
                &mut self,
                name: &str,
                v: f64,
            ) -> Option<Result<(), $crate::sender::params::ConfigError>> {
                use $crate::sender::params::ParamValue;
                match name {
                    $(stringify!($field) => Some(
                        <$ty as ParamValue>::from_f64(stringify!($field), v)
                            .map(|x| self.$field = x),
                    ),)*
                    _ => None,
                }
            }

            /// The parameter `name`, in its unit.
            pub(crate) fn value(&self, name: &str) -> Option<f64> {
                use $crate::sender::params::ParamValue;
                match name {
                    $(stringify!($field) => Some(self.$field.to_f64()),)*
                    _ => None,
                }
            }

            /// Every parameter's description.
            pub(crate) fn infos() -> Vec<$crate::sender::params::ParamInfo> {
                use $crate::sender::params::*;
                vec![$(
                    ($range).info(
                        stringify!($field),
                        first_sentence(concat!($($doc, "\n"),*)),
                        $default,
                        $source,
                    ),
                )*]
            }
        }
    };
}

pub(crate) use declare_params;
