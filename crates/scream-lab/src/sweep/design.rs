//! Design expansion: from axes to points. Pure functions of the axes (and, for the
//! sampled designs, the spec's own seed), so the same spec always gives the same points
//! in the same order.

use scream_netmodel::RngStream;

use super::spec::Scale;

/// One value of a parameter, as `--set key=VALUE` takes it.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Value {
    pub(super) toml: String,
}

impl Value {
    fn number(v: f64, integer: bool) -> Self {
        #[expect(
            clippy::cast_possible_truncation,
            reason = "rounded, and clamped to the range's integers by the caller"
        )]
        let value: toml_edit::Value = if integer {
            (v.round() as i64).into()
        } else {
            v.into()
        };
        Self {
            toml: value.to_string().trim().to_owned(),
        }
    }
}

/// An axis of a grid design: explicit values.
#[derive(Debug, Clone)]
pub(super) struct GridAxis {
    pub(super) values: Vec<Value>,
    /// One-at-a-time: the value while another axis varies (`None`: the scenario's).
    pub(super) base: Option<Value>,
}

/// An axis of a sampled design: a numeric range.
#[derive(Debug, Clone)]
pub(super) struct RangeAxis {
    /// Dotted key; names the axis' random stream.
    pub(super) key: String,
    pub(super) low: f64,
    pub(super) high: f64,
    pub(super) scale: Scale,
    pub(super) integer: bool,
}

impl RangeAxis {
    /// As [`Self::at`], rounded to 12 significant digits, which hides the binary
    /// noise of the arithmetic and nothing a scenario could resolve.
    pub(super) fn at_rounded(&self, u: f64) -> Value {
        let v = self.raw_at(u);
        let v = format!("{v:.11e}").parse::<f64>().unwrap_or(v);
        Value::number(v, self.integer)
    }

    /// The value `u` (0..=1) of the way through the range.
    pub(super) fn at(&self, u: f64) -> Value {
        Value::number(self.raw_at(u), self.integer)
    }

    fn raw_at(&self, u: f64) -> f64 {
        let v = match self.scale {
            Scale::Linear => self.low + u * (self.high - self.low),
            Scale::Log => (self.low.ln() + u * (self.high.ln() - self.low.ln())).exp(),
        };
        if self.integer {
            v.round().clamp(self.low.ceil(), self.high.floor())
        } else {
            v.clamp(self.low, self.high)
        }
    }
}

/// A design point before it is tied to bases and seeds.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct PointSpec {
    /// One-at-a-time: the axis varied here and the value's index on it.
    pub(super) axis: Option<(usize, usize)>,
    /// Per parameter: its value here (`None`: the base scenario's own).
    pub(super) values: Vec<Option<Value>>,
}

/// How many points a grid design has, or `None` past `usize` (factorial of many
/// axes), which the caller reports as too many.
pub(super) fn grid_len(axes: &[GridAxis], factorial: bool) -> Option<usize> {
    if factorial {
        axes.iter()
            .try_fold(1usize, |n, a| n.checked_mul(a.values.len()))
    } else {
        axes.iter()
            .try_fold(0usize, |n, a| n.checked_add(a.values.len()))
    }
}

/// Each axis over its values in turn, the others at their base value: Σ nᵢ points,
/// axis by axis, each axis' values in the order written.
pub(super) fn one_at_a_time(axes: &[GridAxis]) -> Vec<PointSpec> {
    let mut points = Vec::new();
    for (a, axis) in axes.iter().enumerate() {
        for (t, value) in axis.values.iter().enumerate() {
            let values = axes
                .iter()
                .enumerate()
                .map(|(b, other)| {
                    if b == a {
                        Some(value.clone())
                    } else {
                        other.base.clone()
                    }
                })
                .collect();
            points.push(PointSpec {
                axis: Some((a, t)),
                values,
            });
        }
    }
    points
}

/// Every combination: Π nᵢ points, in the order of nested loops over the axes as
/// written (the last axis changes fastest).
pub(super) fn factorial(axes: &[GridAxis]) -> Vec<PointSpec> {
    let n = grid_len(axes, true).unwrap_or(0);
    (0..n)
        .map(|mut i| {
            let mut values = vec![None; axes.len()];
            for (slot, axis) in values.iter_mut().zip(axes).rev() {
                let len = axis.values.len();
                *slot = Some(axis.values[i % len].clone());
                i /= len;
            }
            PointSpec { axis: None, values }
        })
        .collect()
}

/// `n` points spread over the ranges. A Latin hypercube cuts each range into `n` equal
/// strata (equal in the log of the value on a log scale) and puts exactly one point in
/// each, the strata of different axes paired at random; a random design draws every
/// coordinate independently. Each axis draws from its own stream, named by its key, so
/// adding or reordering axes leaves the values of the others alone.
pub(super) fn sampled(axes: &[RangeAxis], n: usize, seed: u64, latin: bool) -> Vec<PointSpec> {
    let columns: Vec<Vec<Value>> = axes
        .iter()
        .map(|axis| {
            let kind = if latin { "latin-hypercube" } else { "random" };
            let mut rng = RngStream::new(seed, &format!("sweep/{kind}/{}", axis.key));
            let fractions: Vec<f64> = if latin {
                let strata = permutation(n, &mut rng);
                strata
                    .into_iter()
                    .map(|s| (s as f64 + rng.uniform()) / n as f64)
                    .collect()
            } else {
                (0..n).map(|_| rng.uniform()).collect()
            };
            fractions.into_iter().map(|u| axis.at(u)).collect()
        })
        .collect();
    (0..n)
        .map(|i| PointSpec {
            axis: None,
            values: columns.iter().map(|c| Some(c[i].clone())).collect(),
        })
        .collect()
}

/// 0..n in a random order (Fisher-Yates).
fn permutation(n: usize, rng: &mut RngStream) -> Vec<usize> {
    let mut p: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        #[expect(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "uniform() < 1, so the product lies in 0..=i"
        )]
        let j = ((rng.uniform() * (i + 1) as f64) as usize).min(i);
        p.swap(i, j);
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    fn axis(values: &[&str], base: Option<&str>) -> GridAxis {
        let v = |s: &str| Value { toml: s.to_owned() };
        GridAxis {
            values: values.iter().map(|s| v(s)).collect(),
            base: base.map(v),
        }
    }

    fn cells(p: &PointSpec) -> Vec<Option<&str>> {
        p.values
            .iter()
            .map(|v| v.as_ref().map(|v| v.toml.as_str()))
            .collect()
    }

    #[test]
    fn one_at_a_time_holds_the_other_axes_at_their_base() {
        let axes = [axis(&["1", "2", "3"], Some("2")), axis(&["a", "b"], None)];
        let points = one_at_a_time(&axes);
        assert_eq!(points.len(), 5);
        assert_eq!(points[0].axis, Some((0, 0)));
        assert_eq!(cells(&points[2]), [Some("3"), None]);
        assert_eq!(points[3].axis, Some((1, 0)));
        assert_eq!(cells(&points[4]), [Some("2"), Some("b")]);
    }

    #[test]
    fn factorial_counts_like_nested_loops() {
        let axes = [axis(&["1", "2"], None), axis(&["a", "b", "c"], None)];
        let points = factorial(&axes);
        let all: Vec<_> = points.iter().map(cells).collect();
        assert_eq!(all.len(), 6);
        assert_eq!(all[0], [Some("1"), Some("a")]);
        assert_eq!(all[1], [Some("1"), Some("b")]);
        assert_eq!(all[3], [Some("2"), Some("a")]);
        assert_eq!(all[5], [Some("2"), Some("c")]);
    }

    #[test]
    fn integer_axes_stay_inside_their_range() {
        let a = RangeAxis {
            key: "k".into(),
            low: 1.2,
            high: 3.7,
            scale: Scale::Linear,
            integer: true,
        };
        assert_eq!(a.at(0.0).toml, "2");
        assert_eq!(a.at(0.999).toml, "3");
    }

    #[test]
    fn a_permutation_holds_every_index_once() {
        let mut rng = RngStream::new(3, "t");
        let mut p = permutation(50, &mut rng);
        assert_ne!(p, (0..50).collect::<Vec<_>>());
        p.sort_unstable();
        assert_eq!(p, (0..50).collect::<Vec<_>>());
    }
}
