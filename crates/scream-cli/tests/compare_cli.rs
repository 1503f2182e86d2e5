//! `scream compare`: two short runs side by side, the table equal to their
//! summary.json, and the refusals (docs/compare.md).

mod common;

use std::path::Path;
use std::process::Output;

use common::{scream, stderr, stdout};

fn ok(o: &Output) {
    assert!(o.status.success(), "{}", stderr(o));
}

/// A short run of `scenario` into `cwd/out`, with `extra` arguments.
fn sim(cwd: &Path, scenario: &str, out: &str, extra: &[&str]) {
    let args = [
        &[
            "sim",
            scenario,
            "--set",
            "duration_s=4",
            "--no-plots",
            "--out",
            out,
        ],
        extra,
    ]
    .concat();
    ok(&scream(&args, cwd));
}

fn summary(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("summary.json")).expect("summary.json");
    serde_json::from_str(&text).expect("JSON")
}

#[test]
fn two_runs_compared_give_figures_and_a_table_of_their_summaries() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let cwd = tmp.path();
    sim(cwd, "ericsson-default", "runs/one", &[]);
    // The second flow joins after 1 s rather than 20 s, within the short run.
    sim(
        cwd,
        "two-flows",
        "runs/two",
        &["--set", "flows.1.start_s=1"],
    );
    let o = scream(&["compare", "runs/one", "runs/two"], cwd);
    ok(&o);
    let out = cwd.join("out/compare");
    assert!(stdout(&o).contains("out/compare"), "{}", stdout(&o));
    for f in [
        "compare.csv",
        "compare.md",
        "timeseries.png",
        "timeseries.svg",
        "throughput_delay.png",
        "throughput_delay.svg",
        "manifest.json",
    ] {
        assert!(out.join(f).is_file(), "{f} missing");
    }

    // Every flow of both runs is a row, holding its summary.json's values exactly.
    let mut reader = csv::Reader::from_path(out.join("compare.csv")).expect("csv");
    let header = reader.headers().expect("header").clone();
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("row")).collect();
    let col = |name: &str| header.iter().position(|h| h == name).expect(name);
    let mut expected_rows = 0;
    for run in ["one", "two"] {
        let s = summary(&cwd.join("runs").join(run));
        for flow in s["flows"].as_array().expect("flows") {
            expected_rows += 1;
            let name = flow["name"].as_str().expect("name");
            let row = rows
                .iter()
                .find(|r| &r[col("run")] == run && &r[col("flow")] == name)
                .unwrap_or_else(|| panic!("no row for {run}/{name}"));
            for (column, value) in [
                ("throughput_mbps", &flow["throughput_mbps"]),
                ("queue_delay_p95_ms", &flow["queue_delay_ms"]["p95"]),
                ("srtt_mean_ms", &flow["srtt_ms"]["mean"]),
                ("loss_ratio", &flow["loss_ratio"]),
            ] {
                let cell: f64 = row[col(column)].parse().expect(column);
                assert_eq!(Some(cell), value.as_f64(), "{run}/{name} {column}");
            }
        }
    }
    assert_eq!(rows.len(), expected_rows);
    assert!(expected_rows >= 3, "two-flows has two flows");

    // Both figures name both runs.
    let svg = std::fs::read_to_string(out.join("timeseries.svg")).expect("svg");
    let texts: Vec<&str> = svg.lines().map(str::trim).collect();
    assert!(
        texts.contains(&"one") && texts.contains(&"two: video-2"),
        "labels missing"
    );
    let chart = std::fs::read_to_string(out.join("throughput_delay.svg")).expect("svg");
    assert!(chart.contains("two: video-1") && chart.contains("reversed"));
    let md = std::fs::read_to_string(out.join("compare.md")).expect("md");
    assert!(md.starts_with("| run | flow |") && md.contains("| one |"));

    // The same comparison again reuses its folder; another one goes beside it.
    ok(&scream(&["compare", "runs/one", "runs/two"], cwd));
    let other = scream(&["compare", "runs/two", "runs/one", "--labels", "B,A"], cwd);
    ok(&other);
    assert!(
        stdout(&other).contains("out/compare-2"),
        "{}",
        stdout(&other)
    );
    let md = std::fs::read_to_string(cwd.join("out/compare-2/compare.md")).expect("md");
    assert!(md.contains("| A |") && md.contains("| B |"), "{md}");
}

#[test]
fn a_folder_that_is_not_a_run_is_named_with_what_it_lacks() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let cwd = tmp.path();
    let half = cwd.join("half");
    std::fs::create_dir_all(&half).expect("dir");
    std::fs::write(half.join("summary.json"), r#"{"flows": []}"#).expect("written");
    std::fs::create_dir_all(cwd.join("empty")).expect("dir");

    let o = scream(&["compare", "half", "empty"], cwd);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("half is not a run folder: it has no timeseries.csv"),
        "{err}"
    );
    let o = scream(&["compare", "empty"], cwd);
    assert!(
        stderr(&o).contains("no timeseries.csv and no summary.json"),
        "{}",
        stderr(&o)
    );
    let o = scream(&["compare", "missing"], cwd);
    assert!(
        stderr(&o).contains("missing is not a folder"),
        "{}",
        stderr(&o)
    );
    // No run folder at all is a usage error.
    assert!(!scream(&["compare"], cwd).status.success());
    assert!(!cwd.join("out").exists(), "nothing written on refusal");
}

#[test]
fn labels_must_be_one_per_run() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let cwd = tmp.path();
    sim(cwd, "ericsson-default", "a", &[]);
    let o = scream(&["compare", "a", "--labels", "x,y"], cwd);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("--labels: 2 given for 1 run folders"),
        "{}",
        stderr(&o)
    );
    // One run alone is drawn, with a note.
    let o = scream(&["compare", "a", "--out", "single"], cwd);
    ok(&o);
    assert!(stderr(&o).contains("one run given"), "{}", stderr(&o));
    assert!(cwd.join("single/throughput_delay.png").is_file());
}
