//! Tunables of the baseline controllers, each declared once: name, doc, unit, default,
//! range and source. From that one line come the config struct's field, its default,
//! setting it by name with a range check, and the name list the scenario loader offers
//! as suggestions — nothing to keep in step by hand.

/// What one tunable is, for errors and documentation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tunable {
    /// Name as a flow's `params` table takes it.
    pub name: &'static str,
    /// Unit of the number: `ms`, `1` (a ratio or gain), `bit/s`.
    pub unit: &'static str,
    /// Default value.
    pub default: f64,
    /// Lowest allowed value.
    pub min: f64,
    /// Highest allowed value.
    pub max: f64,
    /// Where the default comes from.
    pub source: &'static str,
}

impl Tunable {
    /// `Err(reason)` when `v` lies outside `[min, max]` (or is not finite).
    pub fn check(&self, v: f64) -> Result<(), String> {
        if v.is_finite() && v >= self.min && v <= self.max {
            return Ok(());
        }
        let unit = if self.unit == "1" {
            String::new()
        } else {
            format!(" {}", self.unit)
        };
        Err(format!(
            "must be in [{}, {}]{unit} (is {v}); default {} from {}",
            self.min, self.max, self.default, self.source
        ))
    }
}

/// Declares a config struct of `f64` tunables:
///
/// ```text
/// tunables! {
///     /// Struct docs.
///     pub struct Name {
///         /// doc
///         field: unit "ms", default 10.0, range [1.0, 100.0], source "RFC x §y";
///     }
/// }
/// ```
macro_rules! tunables {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $(
                $(#[doc = $doc:literal])*
                $field:ident : unit $unit:literal, default $default:expr,
                    range [$min:expr, $max:expr], source $source:literal;
            )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq)]
        pub struct $name {
            $(
                $(#[doc = $doc])*
                #[doc = ""]
                #[doc = concat!(
                    "Unit `", $unit, "`, default `", stringify!($default), "`, range `[",
                    stringify!($min), ", ", stringify!($max), "]`. Source: ", $source, "."
                )]
                pub(crate) $field: f64,
            )*
        }

        impl Default for $name {
            fn default() -> Self {
                Self { $($field: $default,)* }
            }
        }

        impl $name {
            /// Every tunable, in declaration order.
            pub const TUNABLES: &'static [$crate::rate_control::params::Tunable] = &[$(
                $crate::rate_control::params::Tunable {
                    name: stringify!($field),
                    unit: $unit,
                    default: $default,
                    min: $min,
                    max: $max,
                    source: $source,
                },
            )*];

            /// Sets tunable `name` to `v` after checking its range; `Err` names why.
            pub fn set(&mut self, name: &str, v: f64) -> Result<(), String> {
                let Some(t) = Self::TUNABLES.iter().find(|t| t.name == name) else {
                    let known: Vec<&str> = Self::TUNABLES.iter().map(|t| t.name).collect();
                    return Err(format!("unknown parameter (known: {})", known.join(", ")));
                };
                t.check(v)?;
                match name {
                    $(stringify!($field) => self.$field = v,)*
                    _ => {}
                }
                Ok(())
            }
        }
    };
}

pub(crate) use tunables;
