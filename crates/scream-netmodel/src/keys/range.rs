//! The allowed values of a key, and the ranges the network models share.
//!
//! Each range is generous for research but keeps a run finite and its memory bounded:
//! every time must fit the simulator's nanosecond clock with room to add to it, and
//! every rate or count must keep the number of events per simulated second bounded.
//! The comment on each range says which of these it guards and why the bound is where
//! it is.

/// An allowed range: `[min, max]` (or `(min, max]`), in `unit`, possibly with the
/// special values 0 and `inf` besides.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Range {
    /// Lowest allowed value.
    pub min: f64,
    /// Highest allowed value.
    pub max: f64,
    /// Whether `min` itself is excluded.
    pub min_excluded: bool,
    /// Whether `max` itself is excluded.
    pub max_excluded: bool,
    /// Whether 0 is allowed besides the interval (a capacity of 0 is an outage).
    pub zero: bool,
    /// Whether `inf` is allowed besides the interval (an unlimited capacity).
    pub inf: bool,
    /// Unit, as in the key's suffix (`ms`, `Mbit/s`, ...; empty for plain numbers).
    pub unit: &'static str,
}

impl Range {
    /// `[min, max]` in `unit`.
    pub const fn closed(min: f64, max: f64, unit: &'static str) -> Self {
        Self {
            min,
            max,
            min_excluded: false,
            max_excluded: false,
            zero: false,
            inf: false,
            unit,
        }
    }

    /// `(min, max]` in `unit`.
    pub const fn above(min: f64, max: f64, unit: &'static str) -> Self {
        Self {
            min_excluded: true,
            ..Self::closed(min, max, unit)
        }
    }

    /// Whether `v` is allowed (NaN never is).
    pub fn contains(&self, v: f64) -> bool {
        let low = if self.min_excluded {
            v > self.min
        } else {
            v >= self.min
        };
        let high = if self.max_excluded {
            v < self.max
        } else {
            v <= self.max
        };
        (low && high) || (self.zero && v == 0.0) || (self.inf && v == f64::INFINITY)
    }

    /// The range as the documentation writes it: `[0, 60000] ms`, `(0, 1e6] s`,
    /// `[0.001, 1e7] Mbit/s, 0 or inf`.
    pub fn describe(&self) -> String {
        let open = if self.min_excluded { '(' } else { '[' };
        // The largest TOML integer has no exact f64; it is the seed's bound.
        let max = if self.max >= i64::MAX as f64 {
            "2^63 - 1".to_owned()
        } else {
            number(self.max)
        };
        let close = if self.max_excluded { ')' } else { ']' };
        let mut s = format!("{open}{}, {max}{close}", number(self.min));
        if !self.unit.is_empty() {
            s.push(' ');
            s.push_str(self.unit);
        }
        match (self.zero, self.inf) {
            (true, true) => s.push_str(", 0 or inf"),
            (true, false) => s.push_str(", or 0"),
            (false, true) => s.push_str(", or inf"),
            (false, false) => {}
        }
        s
    }

    /// `Ok` if `v` is allowed, else why not: `must be in [0, 60000] ms (is 1e30)`.
    pub fn check(&self, v: f64) -> Result<(), String> {
        if self.contains(v) {
            return Ok(());
        }
        Err(format!("must be in {} (is {})", self.describe(), number(v)))
    }
}

/// A number as the messages and the documentation write it: plain between 0.001 and
/// 10^5, else in exponent form (`60000`, `0.001`, `1e5`, `1e30`, `1e-25`).
pub fn number(v: f64) -> String {
    if v == 0.0 || !v.is_finite() || (1e-3..1e5).contains(&v.abs()) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

/// Delays, jitter and AQM times, ms. A minute is beyond any real path (a
/// geostationary hop is 280 ms) or buffer (bufferbloat tops out at seconds). Packets
/// in flight and queued grow with these times, and every instant stays far from the
/// end of the 64-bit nanosecond clock.
pub const DELAY_MS: Range = Range::closed(0.0, 60_000.0, "ms");
/// AQM times that must be positive (CoDel target and interval, DualPI2 target), ms: as
/// [`DELAY_MS`], without 0, which would make the controller mark everything.
pub const AQM_TIME_MS: Range = Range::above(0.0, 60_000.0, "ms");
/// Queue limit in bytes (0 = unlimited): 1 TB is beyond any router buffer.
pub const LIMIT_BYTES: Range = Range::closed(0.0, 1e12, "bytes");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_describe_themselves_as_the_docs_write_them() {
        assert_eq!(DELAY_MS.describe(), "[0, 60000] ms");
        assert_eq!(AQM_TIME_MS.describe(), "(0, 60000] ms");
        assert_eq!(LIMIT_BYTES.describe(), "[0, 1e12] bytes");
        assert_eq!(
            DELAY_MS.check(1e30),
            Err("must be in [0, 60000] ms (is 1e30)".to_owned())
        );
        assert_eq!(
            AQM_TIME_MS.check(0.0),
            Err("must be in (0, 60000] ms (is 0)".to_owned())
        );
    }

    #[test]
    fn nan_and_infinity_are_outside_a_plain_range() {
        assert!(!DELAY_MS.contains(f64::NAN) && !DELAY_MS.contains(f64::INFINITY));
        assert!(DELAY_MS.contains(0.0) && !AQM_TIME_MS.contains(0.0));
    }
}
