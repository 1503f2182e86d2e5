//! `scream study lte`: the LTE-style comparison of video congestion controllers into
//! report.md and figures (docs/lte-comparison.md).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use scream_lab::study::lte::{self, CellOutcome, Setup};

use scream_lab::progress::Progress;

/// Arguments of `scream study`.
#[derive(Debug, clap::Args)]
pub(crate) struct StudyArgs {
    #[command(subcommand)]
    study: Studies,
}

/// The studies.
#[derive(Debug, clap::Subcommand)]
enum Studies {
    /// N video users and FTP load over an LTE trace: frame and packet delay, loss and
    /// bitrate per algorithm (docs/lte-comparison.md).
    Lte(LteArgs),
}

/// Arguments of `scream study lte`.
#[derive(Debug, clap::Args)]
struct LteArgs {
    /// Numbers of video users, comma-separated, each in [1, 64].
    #[arg(long, value_delimiter = ',', default_value = "1,2,4,8,16")]
    users: Vec<usize>,
    /// Offered FTP loads in Mbit/s, comma-separated (0: no FTP).
    #[arg(long, value_delimiter = ',', default_value = "2,4")]
    loads: Vec<f64>,
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "scream-v2,gcc",
        help = crate::suite::algorithms_help("video users")
    )]
    algorithms: Vec<String>,
    /// Capacity trace: `down` or `up` (the T-Mobile LTE mahimahi traces under --data),
    /// `synthetic:lte`, or the path of a mahimahi trace file.
    #[arg(long, default_value = "down")]
    trace: String,
    /// A data folder (holding links/) searched before the default ones (data/README.md).
    #[arg(long, value_name = "DIR")]
    data: Option<PathBuf>,
    /// Simulated seconds per cell.
    #[arg(long, value_name = "S", default_value_t = 120.0)]
    duration: f64,
    /// Master seed of every cell.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Output folder (default: out/study-lte, or out/study-lte-2, ... when that holds
    /// a study of another trace, duration or seed). A folder that holds another study
    /// is refused unless --force.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Threads (default: the available cores).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
    jobs: Option<u16>,
    /// Run every cell again instead of reusing the folder's finished cells.
    #[arg(long)]
    fresh: bool,
    #[command(flatten)]
    force: crate::folder::ForceArg,
}

/// The trace the cells use, checked to exist.
fn trace(args: &LteArgs) -> Result<String, String> {
    if args
        .trace
        .starts_with(scream_sim::scenario::load::SYNTHETIC_TRACE_PREFIX)
    {
        return Ok(args.trace.clone());
    }
    let path = match args.trace.as_str() {
        "down" | "up" => crate::data::search_path(args.data.as_deref())
            .find(&format!("links/mahimahi-TMobile-LTE-short.{}", args.trace))
            .map_err(|e| {
                format!("--trace {}: {e}; or give a trace file with --trace PATH, or --trace synthetic:lte", args.trace)
            })?,
        other => PathBuf::from(other),
    };
    if !path.is_file() {
        return Err(format!(
            "--trace {}: no such file {} (relative to the current directory); give the data \
             folder with --data DIR, a trace file with --trace PATH, or --trace synthetic:lte",
            args.trace,
            path.display()
        ));
    }
    // Cells may run from any directory later; an absolute path keeps the fingerprint
    // of a cell tied to the file, not to where the command ran.
    Ok(std::fs::canonicalize(&path)
        .unwrap_or(path)
        .display()
        .to_string())
}

pub(crate) fn main(args: &StudyArgs) -> Result<String, String> {
    let Studies::Lte(args) = &args.study;
    let setup = Setup {
        users: args.users.clone(),
        loads_mbps: args.loads.clone(),
        algorithms: args.algorithms.clone(),
        trace: trace(args)?,
        duration_s: args.duration,
        seed: args.seed,
    };
    lte::scenario::check(&setup)?;
    let jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, usize::from),
        usize::from,
    );
    let progress = Mutex::new(Progress::new("study lte"));
    let on_progress = |done: usize, total: usize| {
        if let Ok(mut bar) = progress.lock() {
            bar.update_counted(done, total);
        }
    };
    let placed = crate::folder::place_matrix(
        args.out.as_deref(),
        Path::new("out/study-lte"),
        lte::execute::definition(&setup),
        args.force,
    )?;
    let options = lte::Options {
        setup: &setup,
        out_dir: &placed.dir,
        executor: &scream_lab::LocalExecutor::new(jobs),
        fresh: args.fresh,
        progress: &on_progress,
    };
    let results = lte::execute::run(&options);
    if let Ok(mut bar) = progress.lock() {
        bar.finish();
    }
    let results = results?;
    let command: Vec<String> = std::env::args().collect();
    let written = lte::report::write(&placed.dir, &setup, &results, &command.join(" "))
        .map_err(|e| e.to_string())?;
    let errors = results
        .iter()
        .filter(|r| matches!(r.outcome, CellOutcome::Error(_)))
        .count();
    let reused = results.iter().filter(|r| r.reused).count();
    Ok(format!(
        "{} cells: {} ran, {} error ({} reused from an earlier run)\nreport: {}\n",
        results.len(),
        results.len() - errors,
        errors,
        reused,
        written[0].display()
    ) + &crate::folder::note_line(&placed))
}
