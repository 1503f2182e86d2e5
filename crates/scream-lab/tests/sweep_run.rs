//! Running sweeps: a row per run, a failing point recorded while the others finish,
//! resume after a kill, a changed spec refused, and the metrics as documented.

mod common;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use scream_lab::sweep::{self, Clock, Options, Plan, SweepError, SweepTally};
use scream_sim::manifest::Toolkit;

/// A clock that advances 10 ms per reading: wall times are positive and repeatable.
#[derive(Debug, Default)]
struct TickClock(AtomicU64);

impl Clock for TickClock {
    fn now_unix_s(&self) -> f64 {
        self.0.fetch_add(1, Ordering::Relaxed) as f64 * 0.01
    }
}

/// A folder of its own for each test, removed when it ends.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("scream-sweep-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        Self(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Three capacities, the middle one impossible, on two seeds: 6 runs of 0.5 s.
const SPEC: &str = r#"
seeds = 2
[design]
kind = "one-at-a-time"
[[base]]
scenario = "paper-step-v2"
set = ["duration_s=0.5"]
[[axis]]
key = "link.capacity_mbps"
values = [5, -1, 20]
"#;

fn plan(text: &str) -> Plan {
    Plan::from_str(text, "spec.toml", None).unwrap_or_else(|e| panic!("{e}"))
}

fn sweep(plan: &Plan, dir: &Path, jobs: usize, fresh: bool) -> Result<SweepTally, SweepError> {
    let clock = TickClock::default();
    let options = Options {
        out_dir: dir,
        executor: &scream_lab::LocalExecutor::new(jobs),
        fresh,
        keep_runs: false,
        clock: &clock,
        toolkit: Toolkit {
            version: "test".into(),
            commit: "unknown".into(),
            dirty: None,
        },
        command_line: vec!["test".into()],
        progress: &|_| {},
    };
    sweep::run(plan, &options)
}

/// The rows of results.csv as header-keyed maps, sorted by run id.
fn rows(dir: &Path) -> Vec<std::collections::BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_path(dir.join(sweep::RESULTS_CSV)).expect("results.csv");
    let header: Vec<String> = reader
        .headers()
        .expect("header")
        .iter()
        .map(str::to_owned)
        .collect();
    let mut out: Vec<_> = reader
        .records()
        .map(|r| {
            let r = r.expect("a row");
            header
                .iter()
                .cloned()
                .zip(r.iter().map(str::to_owned))
                .collect()
        })
        .collect();
    out.sort_by(|a: &std::collections::BTreeMap<String, String>, b| a["run_id"].cmp(&b["run_id"]));
    out
}

#[test]
fn a_failing_point_is_recorded_and_the_others_complete() {
    let dir = TempDir::new("failing");
    let p = plan(SPEC);
    let o = sweep(&p, &dir.0, 2, false).expect("the sweep runs");
    assert_eq!((o.runs, o.ran, o.already_done, o.errors), (6, 6, 0, 2));
    let rows = rows(&dir.0);
    assert_eq!(rows.len(), 6);
    for r in &rows {
        let bad = r["link.capacity_mbps"] == "-1";
        assert_eq!(r["status"], if bad { "error" } else { "ok" }, "{r:?}");
        if bad {
            assert!(r["error"].contains("capacity_mbps"), "{r:?}");
            assert_eq!(r["throughput_mbps"], "");
        } else {
            assert_eq!(r["error"], "");
            let t: f64 = r["throughput_mbps"].parse().expect("a number");
            assert!(t > 0.0, "{r:?}");
        }
        assert_eq!(r["axis"], "link.capacity_mbps");
        assert!(r["wall_time_s"].parse::<f64>().expect("a number") > 0.0);
    }
    let header = std::fs::read_to_string(dir.0.join(sweep::RESULTS_CSV)).expect("read");
    assert_eq!(header.lines().next(), Some(p.columns().join(",").as_str()));
}

#[test]
fn a_killed_sweep_resumes_with_the_runs_it_had_not_finished() {
    let dir = TempDir::new("resume");
    let p = plan(SPEC);
    sweep(&p, &dir.0, 2, false).expect("first sweep");
    let all = rows(&dir.0);
    // Kill mid-sweep: two complete rows and half of a third remain.
    let path = dir.0.join(sweep::RESULTS_CSV);
    let text = std::fs::read_to_string(&path).expect("read");
    let lines: Vec<&str> = text.lines().collect();
    let partial = &lines[3][..lines[3].len() / 2];
    std::fs::write(
        &path,
        format!("{}\n{}\n{}\n{partial}", lines[0], lines[1], lines[2]),
    )
    .expect("truncate");
    let o = sweep(&p, &dir.0, 2, false).expect("resumed");
    assert_eq!((o.already_done, o.ran), (2, 4));
    let after = rows(&dir.0);
    assert_eq!(after.len(), 6, "each run once, the cut row replaced");
    let strip = |rs: &[std::collections::BTreeMap<String, String>]| {
        rs.iter()
            .map(|r| {
                let mut r = r.clone();
                r.remove("wall_time_s");
                r
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(
        strip(&after),
        strip(&all),
        "the same results as an uninterrupted sweep"
    );
    // Nothing left to do.
    let o = sweep(&p, &dir.0, 2, false).expect("third call");
    assert_eq!((o.already_done, o.ran), (6, 0));
}

#[test]
fn a_changed_spec_is_refused_unless_fresh() {
    let dir = TempDir::new("changed");
    sweep(&plan(SPEC), &dir.0, 1, false).expect("first sweep");
    // Comments and layout are not a change.
    let reworded = format!("# the same sweep\n{SPEC}");
    let o = sweep(&plan(&reworded), &dir.0, 1, false).expect("same plan");
    assert_eq!(o.ran, 0);
    let changed = SPEC.replace("values = [5, -1, 20]", "values = [5, 10, 20]");
    match sweep(&plan(&changed), &dir.0, 1, false) {
        Err(SweepError::Resume(message)) => assert!(message.contains("--fresh"), "{message}"),
        other => panic!("not refused: {other:?}"),
    }
    let o = sweep(&plan(&changed), &dir.0, 1, true).expect("fresh");
    assert_eq!((o.ran, o.errors, o.already_done), (6, 0, 0));
    assert_eq!(rows(&dir.0).len(), 6);
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let (a, b) = (TempDir::new("jobs1"), TempDir::new("jobs3"));
    let p = plan(SPEC);
    sweep(&p, &a.0, 1, false).expect("one thread");
    sweep(&p, &b.0, 3, false).expect("three threads");
    let strip = |dir: &Path| {
        rows(dir)
            .into_iter()
            .map(|mut r| {
                r.remove("wall_time_s");
                r
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(strip(&a.0), strip(&b.0));
}

#[test]
fn metrics_are_the_sample_means_and_the_summary_distributions() {
    let dir = TempDir::new("metrics");
    let p = plan(
        "[design]\nkind = \"list\"\n[[base]]\nscenario = \"paper-step-v2\"\nset = [\"duration_s=3\"]\n[[point]]\nset = [\"link.capacity_mbps=8\"]\n",
    );
    sweep(&p, &dir.0, 1, false).expect("runs");
    let row = &rows(&dir.0)[0];
    let num = |k: &str| {
        row[k]
            .parse::<f64>()
            .unwrap_or_else(|_| panic!("{k}: {row:?}"))
    };
    let scenario: scream_sim::Scenario = scream_sim::scenario::load::load_builtin(
        "paper-step-v2",
        &common::overrides(&["duration_s=3", "link.capacity_mbps=8"]),
    )
    .expect("loads");
    let run = scream_sim::run(&scenario, 1, None).expect("runs");
    let flow = &run.summary.flows[0];
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-6 * b.abs().max(1.0);
    assert!(close(
        num("est_qdelay_ms"),
        flow.estimated_queue_delay_ms.mean
    ));
    assert!(close(num("srtt_ms"), flow.srtt_ms.mean));
    assert!(close(num("qdelay_mean_ms"), flow.queue_delay_ms.mean));
    assert!(close(num("qdelay_p95_ms"), flow.queue_delay_ms.p95));
    assert!(close(num("frame_delay_p95_ms"), flow.frame_delay_ms.p95));
    assert!(close(num("ce_ratio"), flow.ce_ratio));
    let rx = scream_records::stats::mean(
        run.samples
            .iter()
            .filter(|s| &*s.flow == "video" && s.t_s > 0.0 && s.t_s <= 3.0)
            .map(|s| s.rx_mbps),
    )
    .expect("rows of the first 3 s");
    assert!(
        close(num("throughput_mbps"), rx),
        "{} vs {rx}",
        num("throughput_mbps")
    );
    // Bytes over active seconds differ from the sample mean only by a partial period.
    assert!((num("throughput_mbps") - flow.throughput_mbps).abs() < 0.05 * flow.throughput_mbps);
    let u = num("link_utilization");
    assert!(u > 0.0 && u <= 1.0, "{u}");
}

#[test]
fn kept_runs_have_their_output_folder() {
    let dir = TempDir::new("keep");
    let p = plan(
        "[design]\nkind = \"list\"\n[[base]]\nname = \"b\"\nscenario = \"paper-step-v2\"\nset = [\"duration_s=0.5\"]\n[[point]]\nset = [\"link.capacity_mbps=8\"]\n",
    );
    let clock = TickClock::default();
    let options = Options {
        out_dir: &dir.0,
        executor: &scream_lab::LocalExecutor::new(1),
        fresh: false,
        keep_runs: true,
        clock: &clock,
        toolkit: Toolkit {
            version: "test".into(),
            commit: "unknown".into(),
            dirty: None,
        },
        command_line: vec!["test".into()],
        progress: &|_| {},
    };
    sweep::run(&p, &options).expect("runs");
    let run_dir = dir.0.join(sweep::RUNS_DIR).join("b/p0/s1");
    for f in ["summary.json", "timeseries.csv", "manifest.json"] {
        assert!(run_dir.join(f).is_file(), "{f} missing");
    }
    let manifest = std::fs::read_to_string(run_dir.join("manifest.json")).expect("manifest");
    assert!(manifest.contains("link.capacity_mbps=8"), "{manifest}");
}

#[test]
fn damaged_rows_are_moved_aside_and_their_runs_run_again() {
    let dir = TempDir::new("damaged");
    let p = plan(SPEC);
    sweep(&p, &dir.0, 1, false).expect("first sweep");
    let clean = rows(&dir.0);
    let path = dir.0.join(sweep::RESULTS_CSV);
    let text = std::fs::read_to_string(&path).expect("read");
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let original: Vec<String> = lines.clone();
    // Line 2 loses a cell, line 3 gets another run id, line 4 a value its point does not
    // set, line 5 a metric that is no number; line 6 is a copy of line 7's run.
    lines[1] = lines[1].replacen(",,", ",", 1);
    lines[2] = lines[2].replacen("/s", "/s9", 1);
    let varied = p
        .columns()
        .iter()
        .position(|c| c == "link.capacity_mbps")
        .expect("column");
    let mut cells: Vec<String> = lines[3].split(',').map(str::to_owned).collect();
    cells[varied] = "7".to_owned();
    lines[3] = cells.join(",");
    let mut cells: Vec<String> = lines[4].split(',').map(str::to_owned).collect();
    let wall = cells.len() - 1;
    cells[wall] = "soon".to_owned();
    lines[4] = cells.join(",");
    lines[5] = lines[6].clone();
    std::fs::write(&path, format!("{}\n", lines.join("\n"))).expect("damaged");

    let o = sweep(&p, &dir.0, 1, false).expect("resumed");
    let aside = o.set_aside.clone().expect("lines set aside");
    let numbers: Vec<u64> = aside.lines.iter().map(|(n, _)| *n).collect();
    assert_eq!(numbers, [2, 3, 4, 5, 7], "{aside:?}");
    let why = |n: u64| &aside.lines.iter().find(|(l, _)| *l == n).expect("listed").1;
    assert!(why(2).contains("cells where the header has"), "{}", why(2));
    assert!(why(3).starts_with("run_id is"), "{}", why(3));
    assert!(why(4).contains("but point"), "{}", why(4));
    assert!(why(5).contains("wall_time_s"), "{}", why(5));
    assert!(why(7).contains("is also on line 6"), "{}", why(7));
    // Only line 6 stays (a good row, if of line 7's run): the runs of lines 2 to 6
    // run again.
    assert_eq!((o.already_done, o.ran), (1, 5));
    assert_eq!(aside.file, dir.0.join(sweep::REJECTED_CSV));
    let rejected = std::fs::read_to_string(&aside.file).expect("rejected file");
    let kept: Vec<&str> = rejected.lines().collect();
    assert_eq!(kept[0], original[0], "starts with the header");
    assert_eq!(
        kept[1..],
        [&lines[1], &lines[2], &lines[3], &lines[4], &lines[6]]
    );
    // results.csv is whole again: each run once, as an undamaged sweep wrote it.
    let strip = |rs: Vec<std::collections::BTreeMap<String, String>>| {
        rs.into_iter()
            .map(|mut r| {
                r.remove("wall_time_s");
                r
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(strip(rows(&dir.0)), strip(clean));
    scream_lab::report::Results::read(&path).expect("the report reads it");
    let o = sweep(&p, &dir.0, 1, false).expect("third call");
    assert_eq!((o.already_done, o.ran, o.set_aside), (6, 0, None));
    // Starting over discards the set-aside lines with the results they came from.
    sweep(&p, &dir.0, 1, true).expect("fresh");
    assert!(!dir.0.join(sweep::REJECTED_CSV).exists());
}

#[test]
fn a_sweep_into_a_folder_another_sweep_holds_is_refused_and_touches_nothing() {
    let dir = TempDir::new("locked");
    let p = plan(SPEC);
    sweep(&p, &dir.0, 1, false).expect("first sweep");
    let before = std::fs::read(dir.0.join(sweep::RESULTS_CSV)).expect("read");
    let held = std::fs::OpenOptions::new()
        .write(true)
        .open(dir.0.join(sweep::LOCK_FILE))
        .expect("the lock file stays");
    fs4::FileExt::try_lock(&held).expect("no sweep holds it now");
    match sweep(&p, &dir.0, 1, true) {
        Err(e @ SweepError::Busy { .. }) => {
            let message = e.to_string();
            assert!(
                message.starts_with(&format!("{} is in use by another sweep", dir.0.display())),
                "{message}"
            );
        }
        other => panic!("not refused: {other:?}"),
    }
    assert_eq!(
        std::fs::read(dir.0.join(sweep::RESULTS_CSV)).expect("read"),
        before,
        "--fresh removed nothing while the folder was held"
    );
    drop(held);
    let o = sweep(&p, &dir.0, 1, false).expect("free again");
    assert_eq!(o.already_done, 6);
}
