//! `scream sim SCENARIO --seeds ...` seen from the shell: one folder per seed holding
//! the run `--seed` would write, statistics that describe those runs, the folder rule,
//! and the flag's errors.

mod common;

use std::path::Path;

use common::{scream, stderr, stdout};
use serde_json::Value;

/// A short scenario whose runs differ by seed (random frame phase).
const SCENARIO: [&str; 3] = ["paper-step-v2", "--set", "duration_s=3"];

fn sim(args: &[&str], cwd: &Path) -> std::process::Output {
    let mut all = vec!["sim"];
    all.extend(SCENARIO);
    all.extend(args);
    scream(&all, cwd)
}

fn json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).expect("JSON")
}

fn row<'a>(seeds: &'a Value, metric: &str) -> &'a Value {
    seeds["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .find(|r| r["metric"] == metric)
        .unwrap_or_else(|| panic!("no row {metric}"))
}

#[test]
fn each_seed_gets_its_own_run_and_the_statistics_describe_those_runs() {
    let dir = tempfile::tempdir().expect("temp dir");
    let o = sim(
        &[
            "--seeds",
            "1..3",
            "--no-plots",
            "--jobs",
            "2",
            "--out",
            "set",
        ],
        dir.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let table = stdout(&o);
    assert!(table.contains("seeds 1..3 (3 runs)"), "{table}");
    assert!(table.contains("qdelay_p95_ms"), "{table}");
    let set = dir.path().join("set");
    let seeds = json(&set.join("seeds.json"));
    assert_eq!(seeds["seeds"], serde_json::json!([1, 2, 3]));

    // Each value is its seed's run: the 95th percentile of the queue delay is the one
    // summary.json gives, seed by seed.
    let p95 = row(&seeds, "qdelay_p95_ms");
    for (k, seed) in [1u64, 2, 3].iter().enumerate() {
        let run = set.join(format!("s{seed}"));
        assert_eq!(json(&run.join("manifest.json"))["seed"], *seed);
        let summary = json(&run.join("summary.json"));
        let expected = summary["flows"][0]["queue_delay_ms"]["p95"]
            .as_f64()
            .expect("p95");
        let value = p95["values"][k].as_f64().expect("a value");
        assert!(
            (value - expected).abs() < 1e-9,
            "seed {seed}: {value} {expected}"
        );
    }

    // The statistics are those of the values: mean inside [min, max] and inside its
    // interval, three seeds counted, and the seeds do differ.
    let tput = row(&seeds, "throughput_mbps");
    let values: Vec<f64> = tput["values"]
        .as_array()
        .expect("values")
        .iter()
        .map(|v| v.as_f64().expect("a number"))
        .collect();
    let mean = values.iter().sum::<f64>() / 3.0;
    let get = |k: &str| tput[k].as_f64().unwrap_or_else(|| panic!("{k}"));
    assert_eq!(tput["n"], 3);
    assert!((get("mean") - mean).abs() < 2e-6, "{tput}");
    assert!(get("min") <= mean && mean <= get("max"), "{tput}");
    assert!(get("ci95_low") < mean && mean < get("ci95_high"), "{tput}");
    assert!(
        get("sd") > 0.0,
        "the seeds give the same throughput: {tput}"
    );

    // seeds.csv holds the same rows.
    let csv = std::fs::read_to_string(set.join("seeds.csv")).expect("seeds.csv");
    let rows = seeds["rows"].as_array().expect("rows").len();
    assert_eq!(csv.lines().count(), rows + 1, "{csv}");
    assert!(
        csv.lines()
            .any(|l| l.starts_with("video,throughput_mbps,Mbit/s,3,"))
    );
}

#[test]
fn a_seeds_folder_holds_the_run_that_seed_alone_writes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let o = sim(
        &["--seeds", "4,2", "--no-plots", "--out", "set"],
        dir.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let o = sim(&["--seed", "2", "--no-plots", "--out", "one"], dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    for file in ["timeseries.csv", "links.csv", "summary.csv"] {
        let a = std::fs::read(dir.path().join("set/s2").join(file)).expect("set's run");
        let b = std::fs::read(dir.path().join("one").join(file)).expect("single run");
        assert!(a == b, "{file} differs");
    }
    // The list's order is kept.
    let seeds = json(&dir.path().join("set/seeds.json"));
    assert_eq!(seeds["seeds"], serde_json::json!([4, 2]));
}

#[test]
fn the_same_set_reuses_its_folder_and_another_set_does_not_overwrite_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let run = |seeds: &str, extra: &[&str]| {
        let mut args = vec!["--seeds", seeds, "--no-plots"];
        args.extend(extra);
        sim(&args, dir.path())
    };
    let first = run("1..2", &[]);
    assert!(first.status.success(), "{}", stderr(&first));
    let default = dir.path().join("out/paper-step-v2-seeds");
    assert!(default.join("seeds.csv").is_file());

    let again = run("1..2", &[]);
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(!stdout(&again).contains("note:"), "{}", stdout(&again));

    let other = run("3..4", &[]);
    assert!(other.status.success(), "{}", stderr(&other));
    let moved = stdout(&other);
    assert!(moved.contains("out/paper-step-v2-seeds-2"), "{moved}");
    assert!(moved.contains("holds another run (seeds"), "{moved}");
    assert_eq!(
        json(&default.join("seeds.json"))["seeds"],
        serde_json::json!([1, 2])
    );

    let refused = run("3..4", &["--out", "out/paper-step-v2-seeds"]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(stderr(&refused).contains("--force"), "{}", stderr(&refused));
}

#[test]
fn a_bad_seed_set_is_refused_naming_the_flag_and_the_allowed_form() {
    let dir = tempfile::tempdir().expect("temp dir");
    for (seeds, why) in [
        ("5..1", "the range 5..1 is empty (5 > 1)"),
        ("1..x", "`x` is not a seed"),
        ("1..20000", "at most 10000"),
        ("1,2,1", "seed 1 appears twice"),
    ] {
        let o = sim(&["--seeds", seeds], dir.path());
        assert_eq!(o.status.code(), Some(2), "{seeds}");
        let err = stderr(&o);
        assert!(
            err.contains("--seeds") && err.contains(why),
            "{seeds}: {err}"
        );
        assert!(
            err.contains("A..B") || err.contains("each seed runs once"),
            "{err}"
        );
    }
    let o = sim(&["--seeds", "1..3", "--seed", "2"], dir.path());
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("--seeds") && err.contains("--seed <SEED>"),
        "{err}"
    );
    // Nothing ran, nothing was written.
    assert!(!dir.path().join("out").exists());
}

#[test]
fn json_prints_seeds_json_alone() {
    let dir = tempfile::tempdir().expect("temp dir");
    let o = sim(&["--seeds", "1..2", "--no-plots", "--json"], dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let printed: Value = serde_json::from_str(&stdout(&o)).expect("stdout is JSON");
    let written = json(&dir.path().join("out/paper-step-v2-seeds/seeds.json"));
    assert_eq!(printed, written);
    assert_eq!(printed["confidence"], 0.95);
}
