//! Points as overrides, the metric columns, and the check that every parameter loads.

use super::super::SweepError;
use super::super::columns::{METRICS, Metric, Scope};
use super::super::design::{PointSpec, Value};
use super::super::spec::{FlowSelection, RawSpec};
use super::{Base, ErrFn, MAX_RUNS, MetricColumn, Point};
use scream_sim::scenario::load::{Override, suggestion};

/// The parameters and points of a list design.
pub(super) fn list_points(
    raw: &RawSpec,
    err: &ErrFn<'_>,
) -> Result<(Vec<String>, Vec<PointSpec>), SweepError> {
    if raw.points.is_empty() {
        return Err(err(
            "design",
            "a list design needs at least one [[point]] with set = [\"key=value\", ...]".to_owned(),
        ));
    }
    let seeds = super::seed_count(raw);
    let total = raw
        .points
        .len()
        .checked_mul(seeds)
        .and_then(|t| t.checked_mul(raw.bases.len().max(1)));
    if total.is_none_or(|t| t > MAX_RUNS) {
        return Err(err(
            "point",
            format!(
                "{} points x {seeds} seeds x {} bases is more than the limit of {MAX_RUNS} runs",
                raw.points.len(),
                raw.bases.len()
            ),
        ));
    }
    let mut params: Vec<String> = Vec::new();
    let mut parsed: Vec<Vec<(String, Value)>> = Vec::new();
    for (i, p) in raw.points.iter().enumerate() {
        let idx = i.to_string();
        let at = format!("point.{idx}.set");
        let mut here: Vec<(String, Value)> = Vec::new();
        for (j, s) in p.set.iter().enumerate() {
            let o: Override = s
                .parse()
                .map_err(|e| err(&at, format!("point[{i}].set[{j}]: {e}")))?;
            let key = o.path().join(".");
            if key == "seed" {
                return Err(err(
                    &at,
                    format!("point[{i}].set[{j}]: the seed is not a parameter; use `seeds`"),
                ));
            }
            if here.iter().any(|(k, _)| *k == key) {
                return Err(err(&at, format!("point[{i}]: \"{key}\" is set twice")));
            }
            let text = s.split_once('=').map_or("", |(_, v)| v).trim().to_owned();
            if !params.contains(&key) {
                params.push(key.clone());
            }
            here.push((key, Value { toml: text }));
        }
        parsed.push(here);
    }
    let points = parsed
        .into_iter()
        .map(|here| PointSpec {
            axis: None,
            values: params
                .iter()
                .map(|k| {
                    here.iter()
                        .find(|(key, _)| key == k)
                        .map(|(_, v)| v.clone())
                })
                .collect(),
        })
        .collect();
    Ok((params, points))
}

/// Points in design order, their values kept as `--set` text.
pub(super) fn to_points(specs: Vec<PointSpec>) -> Vec<Point> {
    specs
        .into_iter()
        .enumerate()
        .map(|(index, spec)| Point {
            index,
            axis: spec.axis.map(|(a, _)| a),
            transition: spec.axis.map(|(_, t)| t),
            texts: spec
                .values
                .into_iter()
                .map(|v| v.map(|v| v.toml.into_boxed_str()))
                .collect(),
        })
        .collect()
}

/// The metric columns: the selected metrics of the selected flows, then the per-run
/// ones. One flow gives bare names; several give `f<i>_` prefixes.
pub(super) fn metric_columns(
    raw: &RawSpec,
    bases: &[Base],
    err: &ErrFn<'_>,
) -> Result<Vec<MetricColumn>, SweepError> {
    let metrics: Vec<&'static Metric> = match &raw.metrics {
        None => METRICS.iter().collect(),
        Some(names) => {
            if names.is_empty() {
                return Err(err(
                    "metrics",
                    "metrics: the list is empty; leave it out to record every metric".to_owned(),
                ));
            }
            let known: Vec<String> = METRICS.iter().map(|m| m.name.to_owned()).collect();
            for (i, n) in names.iter().enumerate() {
                if !known.contains(n) {
                    return Err(err(
                        "metrics",
                        format!("metrics: unknown metric \"{n}\"{}", suggestion(n, &known)),
                    ));
                }
                if names[..i].contains(n) {
                    return Err(err("metrics", format!("metrics: \"{n}\" is listed twice")));
                }
            }
            METRICS
                .iter()
                .filter(|m| names.iter().any(|n| n == m.name))
                .collect()
        }
    };
    let fewest = bases.iter().map(|b| b.flows).min().unwrap_or(0);
    let flows: Vec<usize> = match &raw.flows {
        None => vec![0],
        Some(FlowSelection::All) => (0..bases.iter().map(|b| b.flows).max().unwrap_or(0)).collect(),
        Some(FlowSelection::List(list)) => {
            if list.is_empty() {
                return Err(err(
                    "flows",
                    "flows: the list is empty; give flow indexes (0 is the first flow)".to_owned(),
                ));
            }
            if let Some(&bad) = list.iter().find(|&&i| i >= fewest) {
                let base = bases
                    .iter()
                    .find(|b| b.flows <= bad)
                    .map_or("", |b| &b.name);
                return Err(err(
                    "flows",
                    format!(
                        "flows: no flow {bad} in base {base} (its flows are 0..{})",
                        fewest.saturating_sub(1)
                    ),
                ));
            }
            list.clone()
        }
    };
    if flows.is_empty() || (raw.flows.is_none() && fewest == 0) {
        let needs_flow = metrics.iter().any(|m| m.scope == Scope::Flow);
        if needs_flow {
            return Err(err(
                "flows",
                "flows: a base scenario has no flow to measure".to_owned(),
            ));
        }
    }
    let mut columns = Vec::new();
    for &flow in &flows {
        for &metric in metrics.iter().filter(|m| m.scope == Scope::Flow) {
            let name = if flows.len() > 1 {
                format!("f{flow}_{}", metric.name)
            } else {
                metric.name.to_owned()
            };
            columns.push(MetricColumn { name, metric, flow });
        }
    }
    for &metric in metrics.iter().filter(|m| m.scope == Scope::Run) {
        columns.push(MetricColumn {
            name: metric.name.to_owned(),
            metric,
            flow: 0,
        });
    }
    Ok(columns)
}

/// Values of one parameter tried before it is declared unusable: a key that fails on
/// this many distinct values is misspelt or misplaced, not unlucky.
const PREFLIGHT_TRIES: usize = 100;

/// Refuses a parameter that no value of which loads on some base: a misspelt key
/// would otherwise turn every run into an error row. A single bad value is left to
/// its runs, which record the error.
pub(super) fn preflight(
    raw: &RawSpec,
    bases: &[Base],
    params: &[String],
    points: &[Point],
    err: &ErrFn<'_>,
) -> Result<(), SweepError> {
    for (p, key) in params.iter().enumerate() {
        let mut tried: Vec<&str> = Vec::new();
        for text in points.iter().filter_map(|pt| pt.texts[p].as_deref()) {
            if tried.len() >= PREFLIGHT_TRIES {
                break;
            }
            if !tried.contains(&text) {
                tried.push(text);
            }
        }
        let candidates = tried
            .iter()
            .map(|t| format!("{key}={t}").parse::<Override>())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| err("", e.to_string()))?;
        for base in bases {
            let mut first_error = None;
            let loads = candidates.iter().any(|o| {
                match base
                    .load(std::slice::from_ref(o))
                    .map_err(|e| e.to_string())
                {
                    Ok(_) => true,
                    Err(e) => {
                        first_error.get_or_insert(e);
                        false
                    }
                }
            });
            if let (false, Some(e)) = (loads, first_error) {
                let at = if raw.axes.is_empty() {
                    "point".to_owned()
                } else {
                    format!("axis.{p}.key")
                };
                return Err(err(
                    &at,
                    format!(
                        "{key}: no value of it loads on base {}; the first fails with: {e}",
                        base.name
                    ),
                ));
            }
        }
    }
    Ok(())
}
