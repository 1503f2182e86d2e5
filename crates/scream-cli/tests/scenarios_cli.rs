//! `scream scenarios` lists the built-in scenarios; `scream scenarios show NAME` prints
//! one as shipped, ready to be saved and edited.

mod common;

use common::scream;

const DEFAULT_TOML: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../scenarios/default.toml"
));

#[test]
fn show_prints_the_shipped_file_with_its_comments() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = scream(&["scenarios", "show", "default"], dir.path());
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert_eq!(text, DEFAULT_TOML);
    assert!(text.lines().any(|l| l.starts_with('#')), "comments kept");
}

#[test]
fn a_shown_scenario_saved_to_a_file_runs() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = scream(&["scenarios", "show", "ericsson-default"], dir.path());
    std::fs::write(dir.path().join("my.toml"), &out.stdout).expect("write my.toml");
    let run = scream(
        &[
            "sim",
            "my.toml",
            "--set",
            "duration_s=2",
            "--no-plots",
            "--json",
        ],
        dir.path(),
    );
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let summary: serde_json::Value = serde_json::from_slice(&run.stdout).expect("json");
    assert_eq!(summary["scenario"], "ericsson-default");
}

#[test]
fn an_unknown_name_lists_the_built_in_ones() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = scream(&["scenarios", "show", "defualt"], dir.path());
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with(
            "error: unknown built-in scenario \"defualt\" (built-in scenarios: default, "
        ),
        "{stderr}"
    );
    let listing = scream(&["scenarios"], dir.path());
    assert!(String::from_utf8_lossy(&listing.stdout).starts_with("default "));
}
