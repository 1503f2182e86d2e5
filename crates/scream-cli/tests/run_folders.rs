//! Which folder a run writes into, and when it refuses: a run never overwrites another
//! run without `--force` (docs/outputs.md, "Which folder a run writes into").

mod common;

use std::path::Path;
use std::process::Output;

use common::{scream, stderr, stdout};

/// `scream sim ericsson-default` shortened to `duration_s`, plus `extra`, in `cwd`.
fn sim(cwd: &Path, duration_s: &str, extra: &[&str]) -> Output {
    let set = format!("duration_s={duration_s}");
    let args = [
        &["sim", "ericsson-default", "--set", &set, "--no-plots"],
        extra,
    ]
    .concat();
    scream(&args, cwd)
}

fn ok(o: &Output) {
    assert!(o.status.success(), "{}", stderr(o));
}

fn manifest(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("manifest.json")).expect("manifest.json");
    serde_json::from_str(&text).expect("JSON")
}

/// A refusal that says why and names both ways out.
fn refused(o: &Output, why: &str) {
    let err = stderr(o);
    assert!(!o.status.success(), "not refused: {}", stdout(o));
    assert!(err.contains(why), "{err}");
    assert!(err.contains("--force") && err.contains("--out"), "{err}");
}

#[test]
fn two_variants_of_one_scenario_never_share_a_folder_without_force() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let out = tmp.path().join("out/ericsson-default");
    ok(&sim(tmp.path(), "1", &[]));
    let first = std::fs::read(out.join("summary.json")).expect("summary");

    // The default folder is taken: the variant goes to the next numbered one, and the
    // summary says so.
    let variant = sim(tmp.path(), "2", &[]);
    ok(&variant);
    let said = stdout(&variant);
    assert!(said.contains("outputs in out/ericsson-default-2"), "{said}");
    assert!(
        said.contains("out/ericsson-default holds another run")
            && said.contains("--force")
            && said.contains("--out"),
        "{said}"
    );
    let reseeded = sim(tmp.path(), "1", &["--seed", "7"]);
    ok(&reseeded);
    assert!(stdout(&reseeded).contains("outputs in out/ericsson-default-3"));
    assert_eq!(
        std::fs::read(out.join("summary.json")).expect("summary"),
        first,
        "the first run's results are untouched"
    );
    assert_eq!(
        manifest(&tmp.path().join("out/ericsson-default-2"))["overrides"][0],
        "duration_s=2"
    );
    // Each rerun goes back to its own folder.
    let again = sim(tmp.path(), "2", &[]);
    ok(&again);
    assert!(stdout(&again).contains("outputs in out/ericsson-default-2\n"));

    // A folder named with --out is that folder or an error, never another one.
    refused(
        &sim(tmp.path(), "3", &["--out", "out/ericsson-default"]),
        "holds another run (overrides `[\"duration_s=1\"]` there, `[\"duration_s=3\"]` now)",
    );
    assert!(!tmp.path().join("out/ericsson-default-4").exists());
}

#[test]
fn the_same_run_twice_reuses_its_folder() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let out = tmp.path().join("out/ericsson-default");
    ok(&sim(tmp.path(), "1", &["--seed", "3"]));
    let first = manifest(&out);
    // Plots and logs are not part of what defines the run.
    let again = sim(tmp.path(), "1", &["--seed", "3", "--packet-log"]);
    ok(&again);
    assert!(
        stdout(&again).contains("outputs in out/ericsson-default"),
        "{}",
        stdout(&again)
    );
    let second = manifest(&out);
    assert_eq!(second["scenario_toml"], first["scenario_toml"]);
    assert!(out.join("packets.jsonl").is_file());
    assert_ne!(
        second["command_line"], first["command_line"],
        "the second run rewrote the manifest"
    );
}

#[test]
fn force_overwrites_another_run() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let out = tmp.path().join("out/ericsson-default");
    ok(&sim(tmp.path(), "1", &[]));
    let forced = sim(tmp.path(), "2", &["--force"]);
    ok(&forced);
    assert!(
        stderr(&forced).contains("--force replaces it"),
        "{}",
        stderr(&forced)
    );
    let m = manifest(&out);
    assert_eq!(m["overrides"][0], "duration_s=2");
    assert_eq!(m["simulated_duration_s"], 2.0);
}

#[test]
fn a_foreign_folder_is_refused_and_force_keeps_its_files() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let theirs = tmp.path().join("theirs");
    std::fs::create_dir_all(&theirs).expect("folder");
    std::fs::write(theirs.join("data.csv"), "keep me").expect("written");
    // A summary.json of unknown origin is not taken for a run's either.
    std::fs::write(theirs.join("summary.json"), "{}").expect("written");

    refused(
        &sim(tmp.path(), "1", &["--out", "theirs"]),
        "no manifest.json",
    );
    assert_eq!(
        std::fs::read_to_string(theirs.join("summary.json")).unwrap(),
        "{}"
    );

    ok(&sim(tmp.path(), "1", &["--out", "theirs", "--force"]));
    assert_eq!(
        std::fs::read_to_string(theirs.join("data.csv")).unwrap(),
        "keep me"
    );
    assert_ne!(
        std::fs::read_to_string(theirs.join("summary.json")).unwrap(),
        "{}"
    );
}

#[test]
fn a_file_copied_from_a_builtin_runs_into_the_folder_of_its_stem() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let shown = scream(&["scenarios", "show", "ericsson-default"], tmp.path());
    ok(&shown);
    std::fs::write(tmp.path().join("mine.toml"), &shown.stdout).expect("written");
    // The copy keeps `name = "ericsson-default"`; its run goes to out/mine.
    assert!(stdout(&shown).contains("name = \"ericsson-default\""));
    ok(&sim(tmp.path(), "1", &[]));
    let o = scream(
        &["sim", "mine.toml", "--set", "duration_s=2", "--no-plots"],
        tmp.path(),
    );
    ok(&o);
    assert!(stdout(&o).contains("outputs in out/mine"), "{}", stdout(&o));
    assert_eq!(
        manifest(&tmp.path().join("out/mine"))["scenario"],
        "ericsson-default"
    );
    assert_eq!(
        manifest(&tmp.path().join("out/ericsson-default"))["overrides"][0],
        "duration_s=1",
        "the built-in's folder is untouched"
    );
}

#[test]
fn a_suite_folder_is_reused_by_the_same_matrix_and_refused_to_another() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let suite = |duration: &str, extra: &[&str]| {
        let set = format!("duration_s={duration}");
        let args = [
            &[
                "suite", "rmcat", "--cases", "5.1", "--seeds", "1", "--set", &set, "--out", "s",
            ],
            extra,
        ]
        .concat();
        scream(&args, tmp.path())
    };
    ok(&suite("2", &[]));
    let again = suite("2", &[]);
    ok(&again);
    assert!(stdout(&again).contains("(1 reused"), "{}", stdout(&again));
    refused(&suite("3", &[]), "holds another run");
    let forced = suite("3", &["--force"]);
    ok(&forced);
    assert!(stdout(&forced).contains("(0 reused"), "{}", stdout(&forced));
    let m = manifest(&tmp.path().join("s"));
    assert_eq!(m["matrix"], "suite rmcat");
    assert_eq!(m["overrides"][0], "duration_s=3");
}

#[test]
fn a_suite_with_other_overrides_moves_to_a_numbered_default_folder() {
    let tmp = tempfile::tempdir().expect("temp dir");
    for duration in ["2", "3"] {
        let set = format!("duration_s={duration}");
        ok(&scream(
            &[
                "suite", "rmcat", "--cases", "5.1", "--seeds", "1", "--set", &set,
            ],
            tmp.path(),
        ));
    }
    let first = manifest(&tmp.path().join("out/suite-rmcat"));
    let second = manifest(&tmp.path().join("out/suite-rmcat-2"));
    assert_eq!(first["overrides"][0], "duration_s=2");
    assert_eq!(second["overrides"][0], "duration_s=3");
    assert!(tmp.path().join("out/suite-rmcat-2/report.md").is_file());
}
