//! Running the plan: one row per run, written as each run finishes.
//!
//! Per run the only work besides the simulation is loading the scenario text with the
//! point's overrides (tens of microseconds) and reducing the samples to the metrics;
//! nothing is written but the row, unless the caller keeps the runs' folders.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::Mutex;

use super::plan::{Base, PlannedRun, Point};
use super::{FIRST_ERRORS, Options, Plan, Progress, SweepError, SweepTally, measure, rows, store};
use scream_sim::manifest::{Host, Manifest};
use scream_sim::scenario::load::Override;
use scream_sim::{RunResult, Scenario};

/// What the worker threads share.
struct Shared {
    writer: csv::Writer<std::fs::File>,
    done: usize,
    errors: usize,
    first_errors: Vec<(String, String)>,
    run_time_s: f64,
}

pub(super) fn run(plan: &Plan, options: &Options<'_>) -> Result<SweepTally, SweepError> {
    let started = options.clock.now_unix_s();
    let store = store::open(
        options.out_dir,
        plan,
        options.fresh,
        &options.toolkit,
        started,
    )?;
    let results = options.out_dir.join(store::RESULTS_CSV);
    let to_do: Vec<&PlannedRun> = plan
        .runs()
        .iter()
        .filter(|r| !store.done.contains(&plan.run_id(r)))
        .collect();
    let already_done = plan.runs().len() - to_do.len();
    // Released when this function returns, whatever it returns.
    let _lock = store.lock;
    let shared = Mutex::new(Shared {
        writer: store.writer,
        done: 0,
        errors: 0,
        first_errors: Vec::new(),
        run_time_s: 0.0,
    });
    let write_error = |e: csv::Error| SweepError::Io {
        path: results.clone(),
        source: e.into(),
    };
    options.executor.run_batch(&to_do, |run| {
        let id = plan.run_id(run);
        let row = run_one(plan, run, &id, options)?;
        // A poisoned lock means another worker panicked outside the simulation;
        // `for_each` re-raises that panic.
        let Ok(mut s) = shared.lock() else {
            return Ok::<(), SweepError>(());
        };
        s.writer.write_record(&row.cells).map_err(write_error)?;
        // Flushed per row: a killed sweep loses only the runs in progress.
        s.writer.flush().map_err(|e| SweepError::Io {
            path: results.clone(),
            source: e,
        })?;
        s.done += 1;
        s.run_time_s += row.wall_time_s;
        if let Some(message) = row.error {
            s.errors += 1;
            if s.first_errors.len() < FIRST_ERRORS {
                s.first_errors.push((id, message));
            }
        }
        let progress = Progress {
            done: s.done,
            to_do: to_do.len(),
            errors: s.errors,
        };
        drop(s);
        (options.progress)(progress);
        Ok(())
    })?;
    let s = shared
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    Ok(SweepTally {
        runs: plan.runs().len(),
        already_done,
        ran: s.done,
        errors: s.errors,
        first_errors: s.first_errors,
        results,
        set_aside: store.set_aside,
        wall_time_s: options.clock.now_unix_s() - started,
        run_time_s: s.run_time_s,
    })
}

/// One finished run as results.csv records it.
struct Row {
    cells: Vec<String>,
    error: Option<String>,
    wall_time_s: f64,
}

fn run_one(
    plan: &Plan,
    run: &PlannedRun,
    id: &str,
    options: &Options<'_>,
) -> Result<Row, SweepError> {
    let base = &plan.bases[run.base];
    let point = &plan.points[run.point];
    let started = options.clock.now_unix_s();
    // A panic is a simulator bug that some value reaches; it becomes the error of this
    // row rather than the end of a sweep of thousands of runs.
    let outcome = catch_unwind(AssertUnwindSafe(|| simulate(plan, base, point, run.seed)))
        .unwrap_or_else(|payload| Err(format!("the simulator panicked: {}", panic_text(&payload))));
    let wall_time_s = options.clock.now_unix_s() - started;
    let mut cells = vec![
        id.to_owned(),
        base.name.clone(),
        point.index.to_string(),
        point
            .axis
            .map_or_else(String::new, |a| plan.params[a].clone()),
        point.transition.map_or_else(String::new, |t| t.to_string()),
    ];
    cells.extend(point.values().into_iter().map(Option::unwrap_or_default));
    cells.push(run.seed.to_string());
    let error = match &outcome {
        Ok((scenario, result)) => {
            cells.extend(["ok".to_owned(), String::new()]);
            let measured = measure::Measured::new(scenario, result);
            cells.extend(plan.metric_columns.iter().map(|c| {
                measured
                    .value(c.metric, c.flow)
                    .map_or_else(String::new, rows::cell_text)
            }));
            if options.keep_runs {
                keep(
                    plan,
                    run,
                    id,
                    scenario,
                    result,
                    wall_time_s,
                    started,
                    options,
                )?;
            }
            None
        }
        Err(message) => {
            let message = one_line(message);
            cells.extend(["error".to_owned(), message.clone()]);
            cells.extend(plan.metric_columns.iter().map(|_| String::new()));
            Some(message)
        }
    };
    cells.push(format!("{wall_time_s:.3}"));
    Ok(Row {
        cells,
        error,
        wall_time_s,
    })
}

fn simulate(
    plan: &Plan,
    base: &Base,
    point: &Point,
    seed: u64,
) -> Result<(Scenario, RunResult), String> {
    let overrides = point.overrides(&plan.params).map_err(|e| e.to_string())?;
    let scenario = base.load(&overrides).map_err(|e| e.to_string())?;
    let result = scream_sim::run(&scenario, seed, None).map_err(|e| e.to_string())?;
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
/// naming the point's overrides.
#[expect(
    clippy::too_many_arguments,
    reason = "the run's facts, each from a different place; only --keep-runs calls it"
)]
fn keep(
    plan: &Plan,
    run: &PlannedRun,
    id: &str,
    scenario: &Scenario,
    result: &RunResult,
    wall_time_s: f64,
    started_unix_s: f64,
    options: &Options<'_>,
) -> Result<(), SweepError> {
    let dir = options.out_dir.join(store::RUNS_DIR).join(Path::new(id));
    let fail = |source: std::io::Error| SweepError::Io {
        path: dir.clone(),
        source,
    };
    std::fs::create_dir_all(&dir).map_err(fail)?;
    scream_sim::output::remove_previous_outputs(&dir).map_err(fail)?;
    let mut result = result.clone();
    result.summary.wall_time_s = wall_time_s;
    let files = scream_sim::write_outputs(&result, &dir).map_err(fail)?;
    let base = &plan.bases[run.base];
    let point = plan.points[run.point]
        .overrides(&plan.params)
        .map_err(|e| fail(std::io::Error::other(e)))?;
    let overrides: Vec<&Override> = base.set.iter().chain(&point).collect();
    let manifest = Manifest {
        toolkit: options.toolkit.clone(),
        scenario: scenario.name.clone(),
        seed: run.seed,
        command_line: options.command_line.clone(),
        overrides: overrides.iter().map(|o| o.raw().to_owned()).collect(),
        host: Host::current(),
        started_unix_s,
        wall_time_s,
        simulated_duration_s: result.summary.duration_s,
        files: Manifest::file_names(&files),
        scenario_toml: Manifest::scenario_text(scenario).map_err(fail)?,
    };
    scream_sim::manifest::write_manifest(&manifest, &dir).map_err(fail)?;
    Ok(())
}
