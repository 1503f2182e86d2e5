//! Helpers shared by the simulator's integration tests.
#![allow(dead_code, reason = "each test file uses a subset")]

/// Parses `--set`-style overrides.
pub(crate) fn overrides(list: &[&str]) -> Vec<scream_sim::scenario::load::Override> {
    list.iter()
        .map(|s| s.parse().expect("valid override"))
        .collect()
}

/// Absolute path of a link trace in the shared data folder beside the repository.
pub(crate) fn shared(file: &str) -> String {
    format!(
        "{}/../../../shared/data/links/{file}",
        env!("CARGO_MANIFEST_DIR")
    )
}
