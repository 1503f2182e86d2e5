//! Helpers shared by the simulator's integration tests.
#![allow(dead_code, reason = "each test file uses a subset")]

/// Parses `--set`-style overrides.
pub(crate) fn overrides(list: &[&str]) -> Vec<scream_sim::scenario::load::Override> {
    list.iter()
        .map(|s| s.parse().expect("valid override"))
        .collect()
}

/// `--set` overrides that put the real link traces a built-in scenario's text names (in
/// its comments) in place of its generated one, for those traces this machine has; for
/// the others the scenario keeps its generated trace and a line says what was skipped.
pub(crate) fn real_trace_overrides(text: &str) -> Vec<String> {
    [
        "mahimahi-TMobile-LTE-short.down",
        "lumos5g-5g_trace_100_walking.tsv",
    ]
    .iter()
    .map(|file| format!("links/{file}"))
    .filter(|name| text.contains(name.as_str()))
    .filter(|name| scream_data::for_test_part(name, "a recorded trace").is_some())
    .map(|name| format!("link.trace={}{name}", scream_data::REFERENCE_PREFIX))
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
