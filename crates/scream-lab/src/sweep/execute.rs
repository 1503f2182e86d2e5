//! Running one job into its row, and the local sweep: the plan's pending jobs on this
//! machine's threads, each row appended to the folder's [`Session`] as it finishes.
//!
//! Per run the only work besides the simulation is loading the scenario text with the
//! overrides (tens of microseconds) and reducing the samples to the metrics; nothing is
//! written but the row, unless the job keeps the run's folder.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

use super::job::{KeepRun, RunJob};
use super::session::{Appended, Session, SessionOptions};
use super::{Clock, Options, Plan, SweepError, SweepTally, measure, rows};
use scream_sim::manifest::{Host, Manifest, Toolkit};
use scream_sim::scenario::load::{Override, load_checked_str};
use scream_sim::{RunResult, Scenario};

pub(super) fn run(plan: &Plan, options: &Options<'_>) -> Result<SweepTally, SweepError> {
    let session = Session::open(
        plan,
        &SessionOptions {
            out_dir: options.out_dir.to_path_buf(),
            fresh: options.fresh,
            keep_runs: options.keep_runs,
            toolkit: options.toolkit.clone(),
            command_line: options.command_line.clone(),
        },
        options.clock.now_unix_s(),
    )?;
    let pending: Vec<_> = session.pending().into_iter().cloned().collect();
    options.executor.run_batch(&pending, |run| {
        let row = run_job(&session.job(run), options.clock, &options.toolkit)?;
        if let Appended::Written(progress) = session.append(&row)? {
            (options.progress)(progress);
        }
        Ok::<(), SweepError>(())
    })?;
    Ok(session.close(options.clock.now_unix_s()))
}

/// Runs `job` and returns its row of results.csv, cell by cell.
///
/// A run that fails (an override the scenario refuses, a simulator error or panic) is a
/// row with status `error` and the reason, not an `Err`: the sweep goes on. `Err` is a
/// job this build cannot run, or a kept run's folder that cannot be written. `clock`
/// times the run (the `wall_time_s` cell); `toolkit` is this build, for a kept run's
/// manifest.
pub fn run_job(
    job: &RunJob,
    clock: &dyn Clock,
    toolkit: &Toolkit,
) -> Result<Vec<String>, SweepError> {
    let metrics = job.resolved_metrics()?;
    let started = clock.now_unix_s();
    // A panic is a simulator bug that some value reaches; it becomes the error of this
    // row rather than the end of a sweep of thousands of runs.
    let outcome = catch_unwind(AssertUnwindSafe(|| simulate(job)))
        .unwrap_or_else(|payload| Err(format!("the simulator panicked: {}", panic_text(&payload))));
    let wall_time_s = clock.now_unix_s() - started;
    let mut cells = vec![
        job.run_id.clone(),
        job.base.clone(),
        job.point.to_string(),
        job.axis.clone().unwrap_or_default(),
        job.transition.map_or_else(String::new, |t| t.to_string()),
    ];
    cells.extend(job.params.iter().cloned().map(Option::unwrap_or_default));
    cells.push(job.seed.to_string());
    match &outcome {
        Ok((scenario, result)) => {
            cells.extend(["ok".to_owned(), String::new()]);
            let measured = measure::Measured::new(scenario, result);
            cells.extend(metrics.iter().map(|(m, flow)| {
                measured
                    .value(m, *flow)
                    .map_or_else(String::new, rows::cell_text)
            }));
            if let Some(keep_run) = &job.keep {
                let timing = (started, wall_time_s);
                keep(job, keep_run, scenario, result, timing, toolkit)?;
            }
        }
        Err(message) => {
            cells.extend(["error".to_owned(), one_line(message)]);
            cells.extend(metrics.iter().map(|_| String::new()));
        }
    }
    cells.push(format!("{wall_time_s:.3}"));
    Ok(cells)
}

fn overrides(job: &RunJob) -> Result<Vec<Override>, String> {
    job.overrides
        .iter()
        .map(|o| {
            o.parse()
                .map_err(|e: scream_sim::scenario::load::ScenarioError| e.to_string())
        })
        .collect()
}

fn simulate(job: &RunJob) -> Result<(Scenario, RunResult), String> {
    let s = &job.scenario;
    let scenario = load_checked_str(&s.text, &s.origin, s.base_dir.as_deref(), &overrides(job)?)
        .map_err(|e| e.to_string())?;
    let result = scream_sim::run(&scenario, job.seed, None).map_err(|e| e.to_string())?;
    Ok((scenario, result))
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".to_owned())
}

/// Writes the run's output folder: what `scream sim --no-plots` writes, with a manifest
/// naming the overrides. `timing` is when the run started and how long it took.
fn keep(
    job: &RunJob,
    keep_run: &KeepRun,
    scenario: &Scenario,
    result: &RunResult,
    (started_unix_s, wall_time_s): (f64, f64),
    toolkit: &Toolkit,
) -> Result<(), SweepError> {
    let dir: &Path = &keep_run.dir;
    let fail = |source: std::io::Error| SweepError::Io {
        path: dir.to_path_buf(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(fail)?;
    scream_sim::output::remove_previous_outputs(dir).map_err(fail)?;
    let mut result = result.clone();
    result.summary.wall_time_s = wall_time_s;
    let files = scream_sim::write_outputs(&result, dir).map_err(fail)?;
    let manifest = Manifest {
        toolkit: toolkit.clone(),
        scenario: scenario.name.clone(),
        seed: job.seed,
        command_line: keep_run.command_line.clone(),
        overrides: job.overrides.clone(),
        host: Host::current(),
        started_unix_s,
        wall_time_s,
        simulated_duration_s: result.summary.duration_s,
        files: Manifest::file_names(&files),
        scenario_toml: Manifest::scenario_text(scenario).map_err(fail)?,
    };
    scream_sim::manifest::write_manifest(&manifest, dir).map_err(fail)?;
    Ok(())
}
