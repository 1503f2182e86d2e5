//! The axes of grid and sampled designs, checked.

use super::super::SweepError;
use super::super::design::{GridAxis, RangeAxis, Value};
use super::super::spec::{RawAxis, RawSpec, Scale};
use super::{DesignKind, ErrFn, MAX_RUNS};
use scream_sim::scenario::load::Override;

/// The axes' keys, each a valid override path, none twice.
pub(super) fn axis_keys(raw: &RawSpec, err: &ErrFn<'_>) -> Result<Vec<String>, SweepError> {
    let mut keys: Vec<String> = Vec::new();
    for (i, a) in raw.axes.iter().enumerate() {
        let at = format!("axis.{i}.key");
        let key = a.key.trim();
        let probe = format!("{key}=0").parse::<Override>();
        if let Err(e) = probe {
            return Err(err(&at, format!("axis[{i}].key \"{key}\": {e}")));
        }
        if key == "seed" {
            return Err(err(
                &at,
                format!("axis[{i}].key: the seed is not an axis; list the seeds in `seeds`"),
            ));
        }
        if keys.iter().any(|k| k == key) {
            return Err(err(
                &at,
                format!("axis[{i}].key: \"{key}\" is already an axis"),
            ));
        }
        keys.push(key.to_owned());
    }
    Ok(keys)
}

pub(super) fn grid_axes(
    raw: &RawSpec,
    kind: DesignKind,
    err: &ErrFn<'_>,
) -> Result<Vec<GridAxis>, SweepError> {
    raw.axes
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let idx = i.to_string();
            let at = |k: &str| format!("axis.{idx}.{k}");
            let label = format!("axis[{i}] ({})", a.key.trim());
            if (a.integer || a.scale.is_some()) && a.range.is_none() {
                let key = if a.integer { "integer" } else { "scale" };
                return Err(err(&at(key), format!("{label}: {key} applies to a range")));
            }
            if a.base.is_some() && kind != DesignKind::OneAtATime {
                return Err(err(
                    &at("base"),
                    format!("{label}: base is used by one-at-a-time designs only"),
                ));
            }
            let values: Vec<Value> = match (&a.values, a.range, a.steps) {
                (Some(v), None, None) => v.iter().map(|v| Value { toml: v.toml() }).collect(),
                (None, Some(range), Some(steps)) => {
                    let axis = range_axis(a, range, &label, &at, err)?;
                    if steps == 0 || usize::try_from(steps).map_or(true, |s| s > MAX_RUNS) {
                        return Err(err(
                            &at("steps"),
                            format!("{label}: steps must be 1..={MAX_RUNS}, not {steps}"),
                        ));
                    }
                    grid_of(&axis, steps)
                }
                (None, Some(_), None) => {
                    return Err(err(
                        &at("range"),
                        format!(
                            "{label}: a {} design needs values = [...] or range = [low, high] \
                             with steps = N",
                            kind.name()
                        ),
                    ));
                }
                _ => {
                    return Err(err(
                        &at("values"),
                        format!("{label}: give either values = [...] or range and steps"),
                    ));
                }
            };
            if values.is_empty() {
                return Err(err(
                    &at("values"),
                    format!("{label}: values is empty; give at least one value"),
                ));
            }
            let base = a.base.as_ref().map(|v| Value { toml: v.toml() });
            Ok(GridAxis { values, base })
        })
        .collect()
}

/// `steps` evenly spaced values from low to high (on the axis' scale).
fn grid_of(axis: &RangeAxis, steps: u64) -> Vec<Value> {
    let n = usize::try_from(steps).unwrap_or(1);
    let mut out: Vec<Value> = Vec::with_capacity(n);
    for k in 0..n {
        let u = if n == 1 {
            0.0
        } else {
            k as f64 / (n - 1) as f64
        };
        // Grid values are read by people: 0.06, not 0.060000000000000005.
        let v = axis.at_rounded(u);
        // An integer axis with more steps than integers would repeat values.
        if out.last() != Some(&v) {
            out.push(v);
        }
    }
    out
}

fn range_axis(
    a: &RawAxis,
    [low, high]: [f64; 2],
    label: &str,
    at: &dyn Fn(&str) -> String,
    err: &ErrFn<'_>,
) -> Result<RangeAxis, SweepError> {
    let scale = a.scale.unwrap_or_default();
    if !(low.is_finite() && high.is_finite() && low < high) {
        return Err(err(
            &at("range"),
            format!(
                "{label}: range must be [low, high] with finite low < high, not [{low}, {high}]"
            ),
        ));
    }
    if scale == Scale::Log && low <= 0.0 {
        return Err(err(
            &at("range"),
            format!("{label}: a log scale needs a range above 0, not [{low}, {high}]"),
        ));
    }
    if a.integer && low.ceil() > high.floor() {
        return Err(err(
            &at("range"),
            format!("{label}: an integer axis needs a whole number in [{low}, {high}]"),
        ));
    }
    Ok(RangeAxis {
        key: a.key.trim().to_owned(),
        low,
        high,
        scale,
        integer: a.integer,
    })
}

pub(super) fn range_axes(
    raw: &RawSpec,
    design: &str,
    err: &ErrFn<'_>,
) -> Result<Vec<RangeAxis>, SweepError> {
    raw.axes
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let idx = i.to_string();
            let at = |k: &str| format!("axis.{idx}.{k}");
            let label = format!("axis[{i}] ({})", a.key.trim());
            let extra = [
                (a.values.is_some(), "values"),
                (a.steps.is_some(), "steps"),
                (a.base.is_some(), "base"),
            ];
            if let Some((_, key)) = extra.iter().find(|(set, _)| *set) {
                return Err(err(
                    &at(key),
                    format!("{label}: a {design} design samples a range; {key} does not apply"),
                ));
            }
            let Some(range) = a.range else {
                return Err(err(
                    &at("key"),
                    format!("{label}: a {design} design needs range = [low, high]"),
                ));
            };
            range_axis(a, range, &label, &at, err)
        })
        .collect()
}
