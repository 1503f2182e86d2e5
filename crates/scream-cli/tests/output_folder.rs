//! The output folder of `scream sim`: what a rerun leaves in it, and whether its
//! manifest.json says enough to reproduce the run.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Output};

use scream_sim::output::OUTPUT_FILES;
use serde_json::Value;

fn scream(args: &[&str], cwd: &Path) -> Output {
    let o = Command::new(env!("CARGO_BIN_EXE_scream"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("the scream binary runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    o
}

fn names_in(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .expect("folder")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect()
}

fn manifest(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("manifest.json")).expect("manifest.json");
    serde_json::from_str(&text).expect("JSON")
}

fn manifest_files(m: &Value) -> BTreeSet<String> {
    m["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| f.as_str().expect("a name").to_owned())
        .collect()
}

#[test]
fn a_rerun_without_plots_removes_old_plots_and_keeps_foreign_files() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let out = tmp.path().join("run");
    let args = [
        "sim",
        "ericsson-default",
        "--set",
        "duration_s=1",
        "--out",
        "run",
    ];
    scream(&args, tmp.path());
    let first = names_in(&out);
    assert!(
        first.contains("throughput.png") && first.contains("rtt.svg"),
        "{first:?}"
    );
    assert_eq!(manifest_files(&manifest(&out)), first);
    std::fs::write(out.join("notes.txt"), "mine").expect("written");
    std::fs::write(out.join("my-figure.png"), "mine").expect("written");

    scream(&[&args[..], &["--no-plots"]].concat(), tmp.path());
    let second = names_in(&out);
    let written = manifest_files(&manifest(&out));
    let foreign: BTreeSet<String> = ["notes.txt", "my-figure.png"].map(String::from).into();
    assert_eq!(
        second,
        &written | &foreign,
        "only this run's files and foreign ones"
    );
    assert!(!second.iter().any(|n| n.ends_with(".svg")), "{second:?}");
    assert_eq!(
        std::fs::read_to_string(out.join("notes.txt")).unwrap(),
        "mine"
    );
    for name in &written {
        assert!(
            OUTPUT_FILES.contains(&name.as_str()),
            "{name} not in OUTPUT_FILES"
        );
    }
}

#[test]
fn the_manifest_reruns_the_same_run() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let args = [
        "sim",
        "ericsson-default",
        "--set",
        "duration_s=2",
        "--set",
        "link.capacity_mbps=6",
        "--seed",
        "9",
        "--out",
        "a",
        "--no-plots",
    ];
    scream(&args, tmp.path());
    let m = manifest(&tmp.path().join("a"));
    assert_eq!(m["seed"], 9);
    assert_eq!(m["scenario"], "ericsson-default");
    assert_eq!(m["simulated_duration_s"], 2.0);
    assert_eq!(
        m["overrides"],
        serde_json::json!(["duration_s=2", "link.capacity_mbps=6"])
    );
    assert_eq!(
        m["command_line"].as_array().expect("args")[1..],
        args.map(Value::from)
    );
    assert_eq!(m["toolkit"]["version"], env!("CARGO_PKG_VERSION"));
    assert!(m["host"]["cpus"].as_u64().is_some_and(|n| n >= 1), "{m}");
    assert!(m["wall_time_s"].as_f64().is_some_and(|t| t > 0.0), "{m}");

    // The scenario text alone, with the seed, gives the same results.
    let toml = m["scenario_toml"].as_str().expect("scenario_toml");
    std::fs::write(tmp.path().join("again.toml"), toml).expect("written");
    scream(
        &[
            "sim",
            "again.toml",
            "--seed",
            "9",
            "--out",
            "b",
            "--no-plots",
        ],
        tmp.path(),
    );
    for file in ["timeseries.csv", "links.csv", "summary.csv"] {
        let a = std::fs::read(tmp.path().join("a").join(file)).expect("a");
        let b = std::fs::read(tmp.path().join("b").join(file)).expect("b");
        assert!(
            a == b,
            "{file} differs between the run and its manifest's rerun"
        );
    }
    let b = manifest(&tmp.path().join("b"));
    assert_eq!(b["overrides"], serde_json::json!([]));
    assert_eq!(b["scenario_toml"], m["scenario_toml"]);
}
