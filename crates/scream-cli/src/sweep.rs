//! `scream sweep SPEC.toml`: run a parameter sweep into results.csv (docs/sweeps.md).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use scream_lab::sweep::{self, Options, Plan};

use scream_lab::progress::Progress;

/// Arguments of `scream sweep`.
#[derive(Debug, clap::Args)]
pub(crate) struct SweepArgs {
    /// Sweep spec file (TOML; see docs/sweeps.md), or the name of a built-in study
    /// (paper-standalone, paper-hybrid; docs/studies.md).
    spec: PathBuf,
    /// Threads to run on (default: the available cores).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
    jobs: Option<u16>,
    /// Output folder (default: out/sweep-<spec name>).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Skip the runs already in the folder's results.csv (the default).
    #[arg(long, conflicts_with = "fresh")]
    resume: bool,
    /// Discard the folder's earlier results and start over.
    #[arg(long)]
    fresh: bool,
    /// Also write each run's output folder under DIR/runs/ (no plots; slower).
    #[arg(long)]
    keep_runs: bool,
    /// Print the plan (bases, parameters, points, runs) without running anything.
    #[arg(long)]
    dry_run: bool,
    /// Run on the Dask scheduler at ADDR (tcp://host:8786): prints the command that
    /// does it from the Python package (`python -m scream.sweep`) and exits with status
    /// 1 (docs/scale.md).
    #[arg(long, value_name = "ADDR", conflicts_with_all = ["jobs", "dry_run"])]
    scheduler: Option<String>,
}

pub(crate) fn main(args: &SweepArgs) -> Result<String, String> {
    let plan = sweep::builtin::plan_of(&args.spec)?;
    let out_dir = args.out.clone().unwrap_or_else(|| plan.default_out_dir());
    if args.dry_run {
        return Ok(describe(&plan, &out_dir));
    }
    if let Some(scheduler) = &args.scheduler {
        return Err(on_dask(args, scheduler, &out_dir));
    }
    let jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, usize::from),
        usize::from,
    );
    let clock = crate::manifest::WallClock::new();
    let progress = Mutex::new(Progress::new("sweeping"));
    let on_progress = |p: sweep::Progress| {
        if let Ok(mut bar) = progress.lock() {
            bar.update_counted(p.done, p.to_do);
        }
    };
    let options = Options {
        out_dir: &out_dir,
        executor: &scream_lab::LocalExecutor::new(jobs),
        fresh: args.fresh,
        keep_runs: args.keep_runs,
        clock: &clock,
        toolkit: crate::manifest::toolkit(),
        command_line: std::env::args().collect(),
        progress: &on_progress,
    };
    let outcome = sweep::run(&plan, &options);
    if let Ok(mut bar) = progress.lock() {
        bar.finish();
    }
    let outcome = outcome.map_err(|e| e.to_string())?;
    if let Some(aside) = &outcome.set_aside {
        crate::warn(&set_aside_note(aside, &outcome.results));
    }
    if outcome.errors > 0 {
        crate::warn(&format!(
            "{} of {} runs failed; their rows have status `error` and the reason in `error`",
            outcome.errors, outcome.ran
        ));
    }
    Ok(finished(&plan, &outcome, jobs))
}

/// `--scheduler`: the command that runs this sweep on that scheduler.
///
/// The command does not run it itself: the client of a Dask cluster is the Python
/// package (`scream.sweep`), and starting an interpreter from here would depend on
/// which `python` is first on PATH and whether its scream is this build, failures
/// this command could only guess at. The spec was checked before, so the command
/// given gets past the plan.
fn on_dask(args: &SweepArgs, scheduler: &str, out_dir: &Path) -> String {
    let mut words: Vec<String> = ["python", "-m", "scream.sweep"].map(str::to_owned).into();
    words.push(args.spec.to_string_lossy().into_owned());
    words.extend(["--scheduler".to_owned(), scheduler.to_owned()]);
    words.extend(["--out".to_owned(), out_dir.to_string_lossy().into_owned()]);
    if args.fresh {
        words.push("--fresh".to_owned());
    }
    if args.keep_runs {
        words.push("--keep-runs".to_owned());
    }
    // Quoted for a POSIX shell; a word it cannot quote (a NUL byte) cannot be in a
    // path or an address anyway, so it goes as it is.
    let command =
        shlex::try_join(words.iter().map(String::as_str)).unwrap_or_else(|_| words.join(" "));
    format!(
        "scream sweep runs on this machine's cores; a sweep on a Dask cluster runs from \
         the Python package (pip install 'scream-toolkit[dask]', the same build on every \
         worker), with this command: {command}"
    )
}

/// Lines shown of a repaired results file.
const SET_ASIDE_SHOWN: usize = 5;

/// What a resume did to a damaged results file, in one line.
fn set_aside_note(aside: &sweep::SetAside, results: &Path) -> String {
    let n = aside.lines.len();
    let mut reasons: Vec<String> = aside
        .lines
        .iter()
        .take(SET_ASIDE_SHOWN)
        .map(|(line, why)| format!("line {line}: {why}"))
        .collect();
    if n > SET_ASIDE_SHOWN {
        reasons.push(format!("and {} more", n - SET_ASIDE_SHOWN));
    }
    format!(
        "{}: {n} damaged {} moved to {}, and {} run again ({})",
        results.display(),
        if n == 1 { "line" } else { "lines" },
        aside.file.display(),
        if n == 1 {
            "its run was"
        } else {
            "their runs were"
        },
        reasons.join("; ")
    )
}

/// The closing lines: what ran, how fast, where the results are.
fn finished(plan: &Plan, o: &sweep::SweepTally, jobs: usize) -> String {
    let mut out = format!(
        "sweep {}: {} runs; {} run now, {} already in {}",
        plan.name,
        o.runs,
        o.ran,
        o.already_done,
        o.results.display()
    );
    if o.errors > 0 {
        out.push_str(&format!(", {} errors", o.errors));
    }
    out.push('\n');
    if o.ran > 0 && o.wall_time_s > 0.0 {
        let threads = if jobs == 1 { "thread" } else { "threads" };
        out.push_str(&format!(
            "{:.1} s on {jobs} {threads}: {:.2} runs/s, {:.3} s per run\n",
            o.wall_time_s,
            o.ran as f64 / o.wall_time_s,
            o.run_time_s / o.ran as f64,
        ));
    }
    for (id, message) in &o.first_errors {
        out.push_str(&format!("  error {id}: {message}\n"));
    }
    out.push_str(&format!(
        "tables and figures: scream report {}\n",
        o.results.display()
    ));
    out
}

/// `--dry-run`: the plan in a few lines.
fn describe(plan: &Plan, out_dir: &Path) -> String {
    let mut out = format!(
        "sweep {} ({} design): {} points, {} runs -> {}\n",
        plan.name,
        plan.design.name(),
        plan.points().len(),
        plan.runs().len(),
        out_dir.join(sweep::RESULTS_CSV).display()
    );
    for base in plan.bases() {
        let seeds: Vec<String> = base.seeds.iter().map(u64::to_string).collect();
        out.push_str(&format!(
            "  base {} = {} (seeds {})\n",
            base.name,
            base.scenario,
            seeds.join(", ")
        ));
    }
    for p in plan.params() {
        out.push_str(&format!("  parameter {p}\n"));
    }
    out.push_str(&format!("  columns: {}\n", plan.columns().join(",")));
    out
}
