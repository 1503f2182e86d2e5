//! Helpers for the lab's integration tests that run the simulator directly.

/// Parses `--set`-style overrides.
pub(crate) fn overrides(list: &[&str]) -> Vec<scream_sim::scenario::load::Override> {
    list.iter()
        .map(|s| s.parse().expect("valid override"))
        .collect()
}
