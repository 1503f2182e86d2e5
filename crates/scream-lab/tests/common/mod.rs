//! Helpers for the lab's integration tests that run the simulator directly.

/// Parses `--set`-style overrides.
pub(crate) fn overrides(list: &[&str]) -> Vec<scream_sim::scenario::load::Override> {
    list.iter()
        .map(|s| s.parse().expect("valid override"))
        .collect()
}

/// Mean of `value` over the rows of flow `flow` with `from < t <= to`.
pub(crate) fn mean_over(
    r: &scream_sim::RunResult,
    flow: &str,
    from: f64,
    to: f64,
    value: fn(&scream_sim::metrics::Sample) -> f64,
) -> f64 {
    let v: Vec<f64> = r
        .samples
        .iter()
        .filter(|s| &*s.flow == flow && s.t_s > from && s.t_s <= to)
        .map(value)
        .collect();
    v.iter().sum::<f64>() / v.len().max(1) as f64
}
