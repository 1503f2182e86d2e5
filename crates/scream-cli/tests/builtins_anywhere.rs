//! Every scenario the toolkit ships runs on a fresh clone from any directory: the
//! built-ins as `scream scenarios` lists them, and the files in `scenarios/` given by a
//! relative or an absolute path. Runs are cut short with `--set duration_s=...`: the
//! point is that nothing outside the repository is needed, not the results.

mod common;

use common::scream;

use std::path::{Path, PathBuf};

use scream_sim::Scenario;
use scream_sim::scenario::load::load_named;

/// A duration that is short but still valid for `scenario` (a name or an absolute
/// path): one second past its latest flow start, since a flow must start within the run.
fn short_duration(scenario: &str) -> String {
    let s: Scenario = load_named(scenario, &[]).unwrap_or_else(|e| panic!("{scenario}: {e}"));
    let last_start = s.flows.iter().map(|f| f.start_s).fold(0.0, f64::max);
    format!("duration_s={}", last_start + 1.0)
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs `scenario` (a name or a path) from `cwd` for `duration` (a `duration_s=...`
/// override), writing outputs under `out`; panics with the error if it fails or writes
/// no summary.
fn run_short(scenario: &str, duration: &str, cwd: &Path, out: &Path) {
    let out_s = out.to_str().expect("utf-8 temp path");
    let args = [
        "sim",
        scenario,
        "--set",
        duration,
        "--no-plots",
        "--out",
        out_s,
    ];
    let o = scream(&args, cwd);
    assert!(
        o.status.success(),
        "scream sim {scenario} from {}: {}",
        cwd.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(out.join("summary.json").is_file(), "{scenario}: no summary");
}

#[test]
fn every_listed_builtin_runs_from_an_empty_directory() {
    let cwd = tempfile::tempdir().expect("temp dir");
    let outs = tempfile::tempdir().expect("temp dir");
    let o = scream(&["scenarios"], cwd.path());
    assert!(o.status.success());
    let listing = String::from_utf8_lossy(&o.stdout).into_owned();
    // The general built-ins, up to the blank line before the RMCAT cases (those run in
    // `scream suite rmcat`; some need algorithms of other builds).
    let names: Vec<&str> = listing
        .lines()
        .take_while(|l| !l.is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    // The generated-trace scenarios are among them (they replaced ones that needed a
    // data folder beside the checkout).
    for expected in ["default", "5g-synthetic", "lte-synthetic"] {
        assert!(names.contains(&expected), "{expected} in:\n{listing}");
    }
    for name in &names {
        run_short(
            name,
            &short_duration(name),
            cwd.path(),
            &outs.path().join(name),
        );
    }
    // Nothing was written to (or needed from) the current directory.
    let left: Vec<_> = std::fs::read_dir(cwd.path()).expect("readable").collect();
    assert!(left.is_empty(), "the runs wrote into the current directory");
}

fn shipped_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(repo_root().join("scenarios"))
        .expect("scenarios/ exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    assert!(files.len() >= 2, "scenario files found: {files:?}");
    files
}

#[test]
fn every_shipped_scenario_file_runs_from_the_repository_root() {
    let outs = tempfile::tempdir().expect("temp dir");
    for file in shipped_files() {
        let name = file.file_name().expect("a file").to_string_lossy();
        let relative = format!("scenarios/{name}");
        let duration = short_duration(file.to_str().expect("utf-8 path"));
        run_short(
            &relative,
            &duration,
            &repo_root(),
            &outs.path().join(&*name),
        );
    }
}

#[test]
fn every_shipped_scenario_file_runs_by_absolute_path_from_elsewhere() {
    let cwd = tempfile::tempdir().expect("temp dir");
    let outs = tempfile::tempdir().expect("temp dir");
    for file in shipped_files() {
        let absolute = file.canonicalize().expect("the file exists");
        let absolute = absolute.to_str().expect("utf-8 path");
        let name = file.file_name().expect("a file").to_string_lossy();
        let duration = short_duration(absolute);
        run_short(absolute, &duration, cwd.path(), &outs.path().join(&*name));
    }
}

#[test]
fn a_recorded_trace_still_replaces_the_synthetic_one_and_a_missing_one_is_named() {
    let cwd = tempfile::tempdir().expect("temp dir");
    let trace = cwd.path().join("steps.tsv");
    std::fs::write(&trace, "0\t5\n1\t0\n2\t8\n").expect("written");
    let outs = tempfile::tempdir().expect("temp dir");
    let set = format!("link.trace={}", trace.display());
    let out = outs.path().join("recorded");
    let out_s = out.to_str().expect("utf-8");
    let args = [
        "sim",
        "5g-synthetic",
        "--set",
        &set,
        "--set",
        "duration_s=1",
        "--no-plots",
        "--json",
        "--out",
        out_s,
    ];
    let o = scream(&args, cwd.path());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // The 5 Mbit/s first second of the file, not hundreds of Mbit/s generated.
    let summary = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(summary.contains("\"capacity_mean_mbps\": 5.0"), "{summary}");

    let o = scream(
        &["sim", "lte-synthetic", "--set", "link.trace=no/such.down"],
        cwd.path(),
    );
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("link.trace: no such file \"no/such.down\""),
        "{err}"
    );

    let o = scream(
        &["sim", "lte-synthetic", "--set", "link.trace=synthetic:wifi"],
        cwd.path(),
    );
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("unknown synthetic trace \"synthetic:wifi\" (known: synthetic:lte, synthetic:5g-walking)"),
        "{err}"
    );
}
