//! `scream send` runs SCReAM V2 with the library's improvements for real networks
//! unless told otherwise, says so in its help, on its first line and in its summary,
//! and runs the faithful algorithm with `--faithful` or `--improvements none`.

mod common;

use common::{scream, stdout};
use scream::sender::Improvements;

#[test]
fn send_help_names_the_default_improvements_and_the_faithful_switch() {
    let dir = tempfile::tempdir().unwrap();
    let help = stdout(&scream(&["send", "--help"], dir.path()));
    let default = Improvements::real_network().enabled().join(",");
    assert!(!default.is_empty());
    assert!(
        help.contains(&format!("Default with scream-v2: {default} ")),
        "{help}"
    );
    assert!(help.contains("--faithful"), "{help}");
}

/// Sends for a moment to a port nobody answers on (the run fails for want of
/// feedback, with its outputs written) and returns the first line and the summary's
/// `improvements`.
fn improvements_of_a_run(extra: &[&str]) -> (String, Vec<String>) {
    let to = common::silent_loopback_addr();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("send");
    let mut args = vec!["send", "--to", &to, "--duration", "0.3", "--no-plots"];
    args.extend_from_slice(&["--out", out.to_str().unwrap()]);
    args.extend_from_slice(extra);
    let o = scream(&args, dir.path());
    let text = std::fs::read_to_string(out.join("summary.json"))
        .unwrap_or_else(|e| panic!("{args:?}: no summary ({e}): {}", common::stderr(&o)));
    let summary: serde_json::Value = serde_json::from_str(&text).unwrap();
    let names = summary["improvements"]
        .as_array()
        .unwrap_or_else(|| panic!("{args:?}: {summary}"))
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect();
    let first = stdout(&o).lines().next().unwrap_or_default().to_owned();
    (first, names)
}

#[test]
fn send_runs_and_reports_the_improvements_it_was_given() {
    let names =
        |i: Improvements| -> Vec<String> { i.enabled().into_iter().map(str::to_owned).collect() };
    let cases: [(&[&str], Improvements, &str); 5] = [
        (&[], Improvements::real_network(), "(improvements "),
        (&["--faithful"], Improvements::default(), "(faithful)"),
        (
            &["--improvements", "none"],
            Improvements::default(),
            "(faithful)",
        ),
        (
            &["--improvements", "all"],
            Improvements::all(),
            "(improvements ",
        ),
        // The older generations reproduce published results as they were.
        (
            &["--generation", "scream-v1"],
            Improvements::default(),
            "(faithful)",
        ),
    ];
    for (extra, expected, says) in cases {
        let (first, got) = improvements_of_a_run(extra);
        assert_eq!(got, names(expected), "{extra:?}");
        assert!(first.contains(says), "{extra:?}: {first}");
        for name in &got {
            assert!(first.contains(name.as_str()), "{extra:?}: {first}");
        }
    }
}

#[test]
fn faithful_and_improvements_together_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let o = scream(
        &[
            "send",
            "--to",
            "127.0.0.1:9",
            "--faithful",
            "--improvements",
            "all",
        ],
        dir.path(),
    );
    assert!(!o.status.success());
    let err = common::stderr(&o);
    assert!(
        err.contains("--faithful") && err.contains("--improvements"),
        "{err}"
    );
}
