//! `scream sweep` and `scream report` as a user runs them: a tiny sweep into a folder,
//! its resume, a bad spec's one-line error, and the report from the results.

mod common;

use common::{scream, stderr, stdout};

const SPEC: &str = r#"
name = "tiny"
seeds = 2

[design]
kind = "one-at-a-time"

[[base]]
name = "l4s"
scenario = "paper-step-v2"
set = ["duration_s=0.5"]

[[base]]
name = "no-ecn"
scenario = "paper-step-v2"
set = ["duration_s=0.5", "flows.0.ecn=none", "link.queue.kind=tail-drop"]

[[axis]]
key = "flows.0.params.qdelay_target"
values = [0.02, 0.1]

[[axis]]
key = "link.capacity_mbps"
values = [5, 20]
"#;

#[test]
fn a_sweep_runs_resumes_and_reports() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("tiny.toml"), SPEC).expect("spec");
    let run = scream(&["sweep", "tiny.toml", "--jobs", "2"], dir.path());
    assert!(run.status.success(), "{}", stderr(&run));
    let out = stdout(&run);
    assert!(out.contains("16 runs; 16 run now, 0 already"), "{out}");
    assert!(out.contains("runs/s"), "{out}");
    let folder = dir.path().join("out/sweep-tiny");
    let results = std::fs::read_to_string(folder.join("results.csv")).expect("results.csv");
    assert_eq!(results.lines().count(), 17, "a header and a row per run");
    assert!(
        results.lines().skip(1).all(|l| l.contains(",ok,")),
        "{results}"
    );
    assert!(folder.join("sweep.json").is_file());

    let again = scream(&["sweep", "tiny.toml", "--resume"], dir.path());
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(
        stdout(&again).contains("0 run now, 16 already"),
        "{}",
        stdout(&again)
    );

    let changed = SPEC.replace("values = [5, 20]", "values = [5, 10]");
    std::fs::write(dir.path().join("tiny.toml"), changed).expect("spec");
    let refused = scream(&["sweep", "tiny.toml"], dir.path());
    assert!(!refused.status.success());
    assert!(stderr(&refused).contains("--fresh"), "{}", stderr(&refused));
    let fresh = scream(&["sweep", "tiny.toml", "--fresh"], dir.path());
    assert!(fresh.status.success(), "{}", stderr(&fresh));
    assert!(stdout(&fresh).contains("16 run now"), "{}", stdout(&fresh));

    let report = scream(&["report", "out/sweep-tiny/results.csv"], dir.path());
    assert!(report.status.success(), "{}", stderr(&report));
    let md = std::fs::read_to_string(folder.join("report.md")).expect("report.md");
    assert!(
        md.contains("## Base `l4s`") && md.contains("## Base `no-ecn`"),
        "{md}"
    );
    assert!(md.contains("| `link.capacity_mbps` |"), "{md}");
    for f in [
        "oat-l4s-throughput_mbps.svg",
        "oat-no-ecn-srtt_ms.png",
        "pareto.svg",
    ] {
        assert!(folder.join(f).is_file(), "{f} missing");
    }
}

#[test]
fn a_bad_spec_is_one_line_with_its_place() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("bad.toml"),
        "[[base]]\nscenario = \"paper-step-v2\"\n[design]\nkind = \"factorial\"\n[[axis]]\nkey = \"link.capacity_mbps\"\nvalues = []\n",
    )
    .expect("spec");
    let o = scream(&["sweep", "bad.toml"], dir.path());
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: bad.toml:7: axis[0]"), "{err}");
    let missing = scream(&["report", "nowhere.csv"], dir.path());
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        stderr(&missing).contains("nowhere.csv"),
        "{}",
        stderr(&missing)
    );
}

#[test]
fn dry_run_prints_the_plan_without_running() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("tiny.toml"), SPEC).expect("spec");
    let o = scream(&["sweep", "tiny.toml", "--dry-run"], dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("4 points, 16 runs"), "{out}");
    assert!(out.contains("parameter link.capacity_mbps"), "{out}");
    assert!(!dir.path().join("out").exists());
}

#[test]
fn a_second_sweep_into_a_busy_folder_is_refused_and_a_killed_sweep_frees_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    // Enough runs that the first sweep is still going when the second starts.
    let long = SPEC
        .replace("seeds = 2", "seeds = 50")
        .replace("duration_s=0.5", "duration_s=5");
    std::fs::write(dir.path().join("long.toml"), long).expect("spec");
    let mut first = std::process::Command::new(env!("CARGO_BIN_EXE_scream"))
        .args(["sweep", "long.toml", "--jobs", "1", "--out", "shared"])
        .current_dir(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the first sweep starts");
    // results.csv appears once the first sweep holds the folder.
    let results = dir.path().join("shared").join("results.csv");
    for _ in 0..600 {
        if results.is_file() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(results.is_file(), "the first sweep never started");
    let second = scream(
        &["sweep", "long.toml", "--jobs", "1", "--out", "shared"],
        dir.path(),
    );
    let still_running = first.try_wait().expect("status").is_none();
    first.kill().expect("killed");
    first.wait().expect("reaped");
    assert!(
        still_running,
        "the first sweep ended before the second started"
    );
    assert_eq!(second.status.code(), Some(1));
    let err = stderr(&second);
    assert!(
        err.starts_with("error: shared is in use by another sweep, which holds the lock"),
        "{err}"
    );
    // The killed sweep's lock went with its process: the next sweep into the folder
    // gets it at once.
    std::fs::write(dir.path().join("tiny.toml"), SPEC).expect("spec");
    let third = scream(
        &[
            "sweep",
            "tiny.toml",
            "--jobs",
            "2",
            "--out",
            "shared",
            "--fresh",
        ],
        dir.path(),
    );
    assert!(third.status.success(), "{}", stderr(&third));
    assert!(
        stdout(&third).contains("16 runs; 16 run now"),
        "{}",
        stdout(&third)
    );
}

#[test]
fn a_damaged_results_file_is_named_by_report_and_repaired_by_the_next_sweep() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("tiny.toml"), SPEC).expect("spec");
    let run = scream(&["sweep", "tiny.toml", "--out", "d"], dir.path());
    assert!(run.status.success(), "{}", stderr(&run));
    let path = dir.path().join("d").join("results.csv");
    let text = std::fs::read_to_string(&path).expect("results");
    let mut lines: Vec<&str> = text.lines().collect();
    let damaged = lines[3].replacen(",ok,", ",ok,oops,", 1);
    lines[3] = &damaged;
    std::fs::write(&path, format!("{}\n", lines.join("\n"))).expect("damaged");
    let report = scream(&["report", "d/results.csv"], dir.path());
    assert_eq!(report.status.code(), Some(1));
    assert!(
        stderr(&report).starts_with("error: d/results.csv: line 4: "),
        "{}",
        stderr(&report)
    );
    let resumed = scream(&["sweep", "tiny.toml", "--out", "d"], dir.path());
    assert!(resumed.status.success(), "{}", stderr(&resumed));
    let note = stderr(&resumed);
    assert!(
        note.contains(
            "d/results.csv: 1 damaged line moved to d/results.rejected.csv, and its run was run \
             again (line 4: "
        ),
        "{note}"
    );
    assert!(
        stdout(&resumed).contains("1 run now, 15 already"),
        "{}",
        stdout(&resumed)
    );
    let report = scream(&["report", "d/results.csv"], dir.path());
    assert!(report.status.success(), "{}", stderr(&report));
}

#[test]
fn a_scheduler_gets_the_python_command_and_nothing_runs() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("my spec.toml"), SPEC).expect("spec");
    let o = scream(
        &[
            "sweep",
            "my spec.toml",
            "--scheduler",
            "tcp://10.0.0.5:8786",
            "--fresh",
        ],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    let command = "python -m scream.sweep 'my spec.toml' --scheduler tcp://10.0.0.5:8786 \
                   --out out/sweep-tiny --fresh";
    assert!(err.trim_end().ends_with(command), "{err}");
    assert!(!dir.path().join("out").exists(), "nothing ran");
    // The spec is checked first: a bad one is its own error, not the command.
    std::fs::write(dir.path().join("bad.toml"), "[design]\nkind = \"nope\"\n").expect("spec");
    let bad = scream(
        &["sweep", "bad.toml", "--scheduler", "tcp://10.0.0.5:8786"],
        dir.path(),
    );
    assert!(!stderr(&bad).contains("python -m"), "{}", stderr(&bad));
    let both = scream(
        &[
            "sweep",
            "my spec.toml",
            "--scheduler",
            "tcp://h:1",
            "--jobs",
            "2",
        ],
        dir.path(),
    );
    assert_eq!(both.status.code(), Some(2), "clap refuses --jobs with it");
}
