//! The `scream sim`, `scream scenarios` and `--set` behaviour seen from the shell.

mod common;

use common::{scream, stderr};

#[test]
fn scenarios_lists_every_builtin_with_a_description() {
    let dir = tempfile::tempdir().expect("temp dir");
    let o = scream(&["scenarios"], dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    for name in scream_sim::scenario::builtin::names() {
        let line = out
            .lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("{name} missing from:\n{out}"));
        assert!(
            line.len() > name.len() + 10,
            "{name} has a description: {line}"
        );
    }
}

#[test]
fn toml_syntax_error_is_one_line_with_file_and_line_and_exit_1() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("bad.toml"),
        "duration_s = 20\n[link]\ncapacity_mbps = = 3\n",
    )
    .expect("written");
    let o = scream(&["sim", "bad.toml", "--no-plots"], dir.path());
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.starts_with("error: bad.toml:3: "), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn malformed_set_argument_is_rejected() {
    let dir = tempfile::tempdir().expect("temp dir");
    let o = scream(&["sim", "--set", "link.capacity_mbps"], dir.path());
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("--set link.capacity_mbps: expected dotted.key=value"));
}

#[test]
fn unknown_builtin_name_lists_the_known_ones() {
    let dir = tempfile::tempdir().expect("temp dir");
    let o = scream(&["sim", "no-such-scenario"], dir.path());
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("unknown scenario \"no-such-scenario\""),
        "{err}"
    );
    assert!(err.contains("ericsson-default"), "{err}");
}

#[test]
fn missing_trace_file_is_a_clear_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let o = scream(
        &["sim", "5g-synthetic", "--set", "link.trace=traces/none.tsv"],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("link.trace: no such file"), "{err}");
    assert!(err.contains("set link.trace to another file"), "{err}");
}

#[test]
fn unknown_key_in_a_file_names_file_line_and_key() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("typo.toml"),
        "duration_s = 20.0\n\n[link]\ncapacity_mbs = 3.0\n",
    )
    .expect("written");
    let o = scream(&["sim", "typo.toml", "--no-plots"], dir.path());
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.starts_with("error: typo.toml:4: unknown key \"capacity_mbs\" in [link] (did you mean capacity_mbps?)"),
        "{err}"
    );
}

#[test]
fn set_with_an_unknown_key_is_an_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let o = scream(
        &["sim", "ericsson-default", "--set", "link.capacity_mbs=3"],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.starts_with("error: --set link.capacity_mbs=3: unknown key"),
        "{err}"
    );
}

#[test]
fn a_value_out_of_range_from_set_is_blamed_on_the_set_not_the_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("mine.toml"),
        "duration_s = 20\n[link]\ncapacity_mbps = -3\n[[flows]]\n",
    )
    .expect("written");
    let o = scream(
        &[
            "sim",
            "ericsson-default",
            "--set",
            "duration_s=0",
            "--no-plots",
        ],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o).trim_end(),
        "error: --set duration_s=0: duration_s must be in (0, 1e6] s (is 0)"
    );
    // A value the file holds is placed at its line.
    let o = scream(&["sim", "mine.toml", "--no-plots"], dir.path());
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.starts_with("error: mine.toml:3: link.capacity_mbps must be in"),
        "{err}"
    );
}

#[test]
fn sim_json_writes_summary_with_the_documented_keys() {
    let dir = tempfile::tempdir().expect("temp dir");
    let o = scream(
        &[
            "sim",
            "ericsson-default",
            "--out",
            "tmp",
            "--no-plots",
            "--json",
        ],
        dir.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(dir.path().join("tmp/summary.json")).expect("summary.json");
    let v: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
    for key in [
        "scenario",
        "seed",
        "duration_s",
        "wall_time_s",
        "links",
        "flows",
    ] {
        assert!(v.get(key).is_some(), "summary.json lacks {key}");
    }
    let flow = &v["flows"][0];
    for key in [
        "name",
        "algorithm",
        "throughput_mbps",
        "target_bitrate_mbps",
        "queue_delay_ms",
        "estimated_queue_delay_ms",
        "srtt_ms",
        "rtp_queue_delay_ms",
        "frame_delay_ms",
        "loss_ratio",
        "ce_ratio",
        "frames",
        "feedback",
        "streams",
        "window",
    ] {
        assert!(flow.get(key).is_some(), "flow lacks {key}");
    }
    assert!(dir.path().join("tmp/timeseries.csv").is_file());
    assert!(dir.path().join("tmp/links.csv").is_file());
    assert_eq!(v["scenario"], "ericsson-default");
    let stdout: serde_json::Value = serde_json::from_slice(&o.stdout).expect("stdout is JSON");
    assert_eq!(stdout["flows"], v["flows"]);
}

#[test]
fn a_seed_for_a_scenario_without_randomness_gets_a_note_on_stderr() {
    let dir = tempfile::tempdir().expect("temp dir");
    let args = [
        "sim",
        "ericsson-default-delay",
        "--seed",
        "7",
        "--no-plots",
        "--json",
        "--out",
        "o",
    ];
    let o = scream(&args, dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("has no random element"),
        "{}",
        stderr(&o)
    );
    serde_json::from_slice::<serde_json::Value>(&o.stdout).expect("stdout stays JSON");
    // A scenario with a random element (here the L4S marker's coin) gets no note.
    let o = scream(
        &[
            "sim",
            "ericsson-default",
            "--seed",
            "7",
            "--no-plots",
            "--out",
            "o2",
        ],
        dir.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("random element"), "{}", stderr(&o));
}
