//! `scream eval v2`: the fixed evaluation matrix of SCReAM V2 (docs/evaluation.md).

use std::path::PathBuf;
use std::sync::Mutex;

use scream_lab::eval::{self, Format};

use scream_lab::progress::Progress;

/// Arguments of `scream eval`.
#[derive(Debug, clap::Args)]
pub(crate) struct EvalArgs {
    #[command(subcommand)]
    matrix: Matrix,
}

/// The evaluation matrices.
#[derive(Debug, clap::Subcommand)]
enum Matrix {
    /// SCReAM V2: links x ECN modes x improvement sets, and shared bottlenecks.
    V2(V2Args),
}

/// Arguments of `scream eval v2`.
#[derive(Debug, clap::Args)]
struct V2Args {
    /// Output format.
    #[arg(long, value_enum, default_value_t = FormatArg::Text)]
    format: FormatArg,
    /// Run only the cases whose id (`link/mode/options`, see --list) contains SUBSTR;
    /// repeat to require several substrings.
    #[arg(long, value_name = "SUBSTR")]
    filter: Vec<String>,
    /// Threads to run cases on (default: the available cores).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
    jobs: Option<u16>,
    /// A data folder (holding links/) searched before the default ones (data/README.md).
    #[arg(long, value_name = "DIR")]
    data: Option<PathBuf>,
    /// List the case ids (after --filter) without running them.
    #[arg(long)]
    list: bool,
    /// Print the selected cases as scenario files (TOML, for `scream sim FILE`)
    /// instead of running them.
    #[arg(long, conflicts_with = "list")]
    scenarios: bool,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum FormatArg {
    Text,
    Md,
    Csv,
    Json,
}

pub(crate) fn main(args: &EvalArgs) -> Result<String, String> {
    let Matrix::V2(args) = &args.matrix;
    let cases = eval::select(eval::matrix(), &args.filter);
    if cases.is_empty() {
        return Err(format!(
            "--filter {}: no case matches; `scream eval v2 --list` shows the case ids",
            args.filter.join(" --filter ")
        ));
    }
    if args.list {
        return Ok(cases.iter().map(|c| c.id() + "\n").collect());
    }
    if args.scenarios {
        return scenario_files(&cases, &crate::data::search_path(args.data.as_deref()));
    }
    let jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, usize::from),
        usize::from,
    );
    let total = cases.len();
    let progress = Mutex::new(Progress::new("evaluating"));
    let data = crate::data::search_path(args.data.as_deref());
    let results = eval::run_cases(
        &cases,
        &data,
        &scream_lab::LocalExecutor::new(jobs),
        &|done| {
            if let Ok(mut p) = progress.lock() {
                p.update(done as f64 / total as f64);
            }
        },
    );
    if let Ok(mut p) = progress.lock() {
        p.finish();
    }
    let skipped = results.iter().filter(|r| r.metrics().is_none()).count();
    if skipped > 0 {
        crate::warn(&format!(
            "{skipped} of {total} cases skipped (the notes in the output say why; a \
             missing trace names the `scream data fetch` line that gets it)"
        ));
    }
    let verdicts = eval::verdicts(&results);
    let format = match args.format {
        FormatArg::Text => Format::Text,
        FormatArg::Md => Format::Markdown,
        FormatArg::Csv => Format::Csv,
        FormatArg::Json => Format::Json,
    };
    Ok(eval::render(&results, &verdicts, format))
}

/// The cases' scenarios as TOML, one document per case headed by its id.
fn scenario_files(cases: &[eval::Case], data: &scream_data::DataPath) -> Result<String, String> {
    let mut out = String::new();
    for case in cases {
        let scenario = case.scenario(data).map_err(|e| e.to_string())?;
        let text =
            scream_sim::scenario::to_toml(&scenario).map_err(|e| format!("{}: {e}", case.id()))?;
        out.push_str(&format!("# case {}\n{text}\n", case.id()));
    }
    Ok(out)
}
