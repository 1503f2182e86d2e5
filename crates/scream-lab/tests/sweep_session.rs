//! A sweep driven from outside: jobs as JSON run by `run_job`, rows appended to a
//! `Session`, as a cluster's client drives it. The rows equal the local sweep's, a run
//! is written once however often its row comes back, and a row that is not the
//! sweep's is refused.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use scream_lab::sweep::{
    self, Appended, Clock, JOB_FORMAT, Options, Plan, RunJob, Session, SessionOptions, SweepError,
};
use scream_sim::manifest::Toolkit;

#[derive(Debug, Default)]
struct TickClock(AtomicU64);

impl Clock for TickClock {
    fn now_unix_s(&self) -> f64 {
        self.0.fetch_add(1, Ordering::Relaxed) as f64 * 0.01
    }
}

/// A folder of its own for each test, removed when it ends.
fn temp_dir() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

/// Two bases, three capacities (one impossible) and two seeds: 12 runs of 0.5 s.
const SPEC: &str = r#"
seeds = 2
[design]
kind = "one-at-a-time"
[[base]]
name = "plain"
scenario = "paper-step-v2"
set = ["duration_s=0.5"]
[[base]]
name = "l4s"
scenario = "paper-step-v2"
set = ["duration_s=0.5", "flows.0.ecn=l4s", "link.queue.kind=l4s-ramp"]
[[axis]]
key = "link.capacity_mbps"
values = [5, -1, 20]
"#;

fn plan() -> Plan {
    Plan::from_str(SPEC, "spec.toml", None).unwrap_or_else(|e| panic!("{e}"))
}

fn toolkit() -> Toolkit {
    Toolkit {
        version: "test".into(),
        commit: "unknown".into(),
        dirty: None,
    }
}

fn open<'p>(plan: &'p Plan, dir: &Path, fresh: bool) -> Result<Session<'p>, SweepError> {
    let options = SessionOptions {
        out_dir: dir.to_path_buf(),
        fresh,
        keep_runs: false,
        toolkit: toolkit(),
        command_line: vec!["test".into()],
    };
    Session::open(plan, &options, 0.0)
}

/// A job as a worker receives it: JSON in, the row out.
fn run_remote(job: &RunJob) -> Vec<String> {
    let received = RunJob::from_json(&job.to_json().expect("JSON")).expect("a job reads back");
    assert_eq!(&received, job);
    sweep::run_job(&received, &TickClock::default(), &toolkit()).expect("the job runs")
}

/// The rows of results.csv by run id, without the wall time; panics on a run twice.
fn rows(dir: &Path) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_path(dir.join(sweep::RESULTS_CSV)).expect("results.csv");
    let header: Vec<String> = reader
        .headers()
        .expect("header")
        .iter()
        .map(str::to_owned)
        .collect();
    let mut out = BTreeMap::new();
    for record in reader.records() {
        let mut row: BTreeMap<String, String> = header
            .iter()
            .cloned()
            .zip(record.expect("a row").iter().map(str::to_owned))
            .collect();
        row.remove("wall_time_s");
        let id = row["run_id"].clone();
        assert!(out.insert(id.clone(), row).is_none(), "{id} twice");
    }
    out
}

#[test]
fn jobs_run_from_json_give_the_rows_of_the_local_sweep() {
    let (local, driven) = (temp_dir(), temp_dir());
    let p = plan();
    let clock = TickClock::default();
    let options = Options {
        out_dir: local.path(),
        executor: &scream_lab::LocalExecutor::new(2),
        fresh: false,
        keep_runs: false,
        clock: &clock,
        toolkit: toolkit(),
        command_line: vec!["test".into()],
        progress: &|_| {},
    };
    sweep::run(&p, &options).expect("the local sweep runs");

    let session = open(&p, driven.path(), false).expect("opens");
    let pending = session.pending();
    assert_eq!(pending.len(), 12);
    // Last first: rows come back in the order runs finish, not the plan's.
    for run in pending.iter().rev() {
        let row = run_remote(&session.job(run));
        assert!(matches!(session.append(&row), Ok(Appended::Written(_))));
    }
    let tally = session.close(1.0);
    assert_eq!((tally.runs, tally.ran, tally.errors), (12, 12, 4));
    assert!(
        tally.first_errors[0].1.contains("capacity_mbps"),
        "{tally:?}"
    );
    assert_eq!(rows(driven.path()), rows(local.path()));
    // The driven folder is a sweep folder like any other: the local sweep resumes it.
    let again = sweep::run(
        &p,
        &Options {
            out_dir: driven.path(),
            ..options
        },
    )
    .expect("resumes");
    assert_eq!((again.already_done, again.ran), (12, 0));
}

#[test]
fn a_row_appended_twice_is_written_once() {
    let dir = temp_dir();
    let p = plan();
    let session = open(&p, dir.path(), false).expect("opens");
    let job = session.job_of("l4s/p2/s1").expect("a run of the plan");
    let row = run_remote(&job);
    let first = session.append(&row).expect("appends");
    assert_eq!(
        first,
        Appended::Written(sweep::Progress {
            done: 1,
            to_do: 12,
            errors: 0
        })
    );
    assert_eq!(
        session.append(&row).expect("no error"),
        Appended::AlreadyThere
    );
    // A second run of the same job (a lost worker's task run again) differs only in
    // its wall time, and is not written either.
    let mut rerun = row.clone();
    *rerun.last_mut().expect("cells") = "9.999".to_owned();
    assert_eq!(
        session.append(&rerun).expect("no error"),
        Appended::AlreadyThere
    );
    assert_eq!(session.pending().len(), 11);
    assert!(session.pending().iter().all(|r| p.run_id(r) != "l4s/p2/s1"));
    let tally = session.close(1.0);
    assert_eq!(tally.ran, 1);
    assert_eq!(rows(dir.path()).len(), 1);
}

#[test]
fn a_reopened_folder_lists_only_the_runs_it_lacks() {
    let dir = temp_dir();
    let p = plan();
    let session = open(&p, dir.path(), false).expect("opens");
    let first: Vec<String> = session.pending().iter().map(|r| p.run_id(r)).collect();
    for id in first.iter().step_by(3) {
        let row = run_remote(&session.job_of(id).expect("a run"));
        session.append(&row).expect("appends");
    }
    drop(session);
    let session = open(&p, dir.path(), false).expect("reopens");
    assert_eq!(session.already_done(), 4);
    let pending: Vec<String> = session.pending().iter().map(|r| p.run_id(r)).collect();
    let expected: Vec<String> = first
        .iter()
        .enumerate()
        .filter(|(i, _)| i % 3 != 0)
        .map(|(_, id)| id.clone())
        .collect();
    assert_eq!(pending, expected);
    // While one session holds the folder, no other opens it.
    assert!(matches!(
        open(&p, dir.path(), false),
        Err(SweepError::Busy { .. })
    ));
    drop(session);
    let session = open(&p, dir.path(), true).expect("fresh");
    assert_eq!((session.already_done(), session.pending().len()), (0, 12));
}

#[test]
fn a_row_that_is_not_the_sweeps_is_refused_and_not_written() {
    let dir = temp_dir();
    let p = plan();
    let session = open(&p, dir.path(), false).expect("opens");
    let row = run_remote(&session.job_of("plain/p0/s1").expect("a run"));
    let column = |name: &str| {
        session
            .columns()
            .iter()
            .position(|c| c == name)
            .expect("a column")
    };
    let with = |i: usize, value: &str| {
        let mut r = row.clone();
        r[i] = value.to_owned();
        r
    };
    let cases = [
        (row[..row.len() - 1].to_vec(), "cells where the header has"),
        (
            with(column("link.capacity_mbps"), "7"),
            "but point 0 of this sweep sets",
        ),
        (
            with(column("seed"), "3"),
            "run_id is \"plain/p0/s1\", but base, point and seed make it",
        ),
        (
            {
                let mut r = with(column("seed"), "3");
                r[0] = "plain/p0/s3".to_owned();
                r
            },
            "run plain/p0/s3 is not a run of this sweep",
        ),
    ];
    for (bad, why) in cases {
        match session.append(&bad) {
            Err(e @ SweepError::Row(_)) => {
                let text = e.to_string();
                assert!(text.contains(why), "{text}");
                assert!(text.contains("results.csv"), "{text}");
            }
            other => panic!("{bad:?} not refused: {other:?}"),
        }
    }
    assert_eq!(session.close(1.0).ran, 0);
    assert!(rows(dir.path()).is_empty());
}

#[test]
fn a_job_of_another_format_or_metric_is_refused() {
    let p = plan();
    let job = p.job(&p.runs()[0], None);
    assert_eq!(job.format, JOB_FORMAT);
    assert_eq!(
        job.overrides,
        ["duration_s=0.5", "link.capacity_mbps=5"],
        "the base's set, then the point's"
    );
    let mut other = job.clone();
    other.format = JOB_FORMAT + 1;
    let e = RunJob::from_json(&other.to_json().expect("JSON")).expect_err("another format");
    assert!(e.to_string().contains("same scream build"), "{e}");
    let mut other = job.clone();
    other.metrics[0].metric = "goodput_mbps".to_owned();
    let e = RunJob::from_json(&other.to_json().expect("JSON")).expect_err("an unknown metric");
    assert!(
        e.to_string().contains("unknown metric \"goodput_mbps\""),
        "{e}"
    );
    let e = sweep::run_job(&other, &TickClock::default(), &toolkit()).expect_err("not run");
    assert!(matches!(e, SweepError::Job(_)), "{e}");
    let e = RunJob::from_json(r#"{"format":1}"#).expect_err("not a job");
    assert!(e.to_string().starts_with("not a run job of a sweep"), "{e}");
}

#[test]
fn anchored_jobs_name_absolute_folders() {
    // A spec in a folder given relative to the current one (cargo runs the tests in
    // the crate's folder): its scenario's folder is relative too until anchored.
    let scenarios = Path::new("../../scenarios");
    let spec = "[design]\nkind = \"list\"\n[[base]]\nscenario = \"paper-step-v2.toml\"\nset = [\"duration_s=0.5\"]\n[[point]]\nset = [\"link.capacity_mbps=8\"]\n";
    let p = Plan::from_str(spec, "spec.toml", Some(scenarios)).unwrap_or_else(|e| panic!("{e}"));
    let command = ["test".to_owned()];
    let mut job = p.job(&p.runs()[0], Some((Path::new("out/runs"), &command)));
    assert_eq!(job.scenario.base_dir.as_deref(), Some(scenarios));
    job.anchor_paths().expect("absolute paths");
    let base_dir = job.scenario.base_dir.clone().expect("a folder");
    assert!(base_dir.is_absolute(), "{base_dir:?}");
    assert_eq!(
        base_dir.canonicalize().expect("exists"),
        scenarios.canonicalize().expect("exists")
    );
    let keep = job.keep.as_ref().expect("kept");
    assert!(keep.dir.is_absolute(), "{keep:?}");
    assert!(
        keep.dir.ends_with("out/runs/paper-step-v2/p0/s1"),
        "{keep:?}"
    );
}
