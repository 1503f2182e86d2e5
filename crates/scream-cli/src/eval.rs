//! `scream eval v2`: the fixed evaluation matrix of SCReAM V2; `scream eval robust`:
//! SCReAM V2 on links drawn afresh from classes of trouble (docs/evaluation.md).

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
    /// SCReAM V2 on links drawn from classes of trouble (deep and shallow buffers,
    /// sudden drops, dead stretches, bursty delivery, several flows), every improvement
    /// set on the same draws; spreads over the draws and a safety verdict per set.
    Robust(RobustArgs),
}

/// Arguments of `scream eval robust`.
#[derive(Debug, clap::Args)]
struct RobustArgs {
    /// Seed of the draws: a new seed draws links no one has seen (default 1). Repeat it
    /// or give a comma list (`--seed 1,3,7`) to pool the draws of several seeds per
    /// class; draw ids then carry their seed (`sudden-drop/s3/14`) and each seed's
    /// verdict is reported beside the pooled one.
    #[arg(long = "seed", value_name = "S", value_delimiter = ',')]
    seeds: Vec<u64>,
    /// Draws per class from each seed.
    #[arg(long, value_name = "N", default_value_t = eval::robust::DEFAULT_DRAWS,
          value_parser = clap::value_parser!(u32).range(1..=10_000))]
    draws: u32,
    /// Only this class (repeat for several); default: every class.
    #[arg(long = "class", value_name = "NAME")]
    classes: Vec<String>,
    /// Option sets to run besides faithful (repeat for several): improvement names
    /// joined with `+` or `,` (`fresh-srtt+media-deadline`), `all`, or `singles` (each
    /// improvement alone) or `subsets` (every non-empty combination). Default: singles
    /// and all.
    #[arg(long = "options", value_name = "SET")]
    options: Vec<String>,
    /// Threads to run on (default: the available cores).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
    jobs: Option<u16>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = FormatArg::Text)]
    format: FormatArg,
    /// List the draws (id, seed, link) without running them.
    #[arg(long)]
    list: bool,
    /// Print one draw's scenario under an option set as a scenario file (TOML, for
    /// `scream sim FILE`), e.g. `--scenario sudden-drop/3/faithful`, or with several
    /// seeds `--scenario sudden-drop/s3/14/fresh-srtt+media-deadline`.
    #[arg(long, value_name = "DRAW/OPTIONS", conflicts_with = "list")]
    scenario: Option<String>,
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

fn jobs_or_cores(jobs: Option<u16>) -> usize {
    jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, usize::from),
        usize::from,
    )
}

fn format_of(f: FormatArg) -> Format {
    match f {
        FormatArg::Text => Format::Text,
        FormatArg::Md => Format::Markdown,
        FormatArg::Csv => Format::Csv,
        FormatArg::Json => Format::Json,
    }
}

pub(crate) fn main(args: &EvalArgs) -> Result<String, String> {
    let args = match &args.matrix {
        Matrix::V2(args) => args,
        Matrix::Robust(args) => return robust(args),
    };
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
    let jobs = jobs_or_cores(args.jobs);
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
    Ok(eval::render(&results, &verdicts, format_of(args.format)))
}

/// `scream eval robust`.
fn robust(args: &RobustArgs) -> Result<String, String> {
    use eval::robust::{ConditionClass, RobustConfig};
    let mut config = RobustConfig::new(eval::robust::SNAPSHOT_SEED);
    if !args.seeds.is_empty() {
        config.draw_seeds.clear();
        for &seed in &args.seeds {
            if !config.draw_seeds.contains(&seed) {
                config.draw_seeds.push(seed);
            }
        }
    }
    config.draws = args.draws;
    config.option_sets =
        eval::OptionSet::select(&args.options).map_err(|e| format!("--options: {e}"))?;
    if !args.classes.is_empty() {
        config.classes = args
            .classes
            .iter()
            .map(|name| {
                ConditionClass::from_name(name).ok_or_else(|| {
                    let known: Vec<&str> = ConditionClass::ALL.iter().map(|c| c.name()).collect();
                    format!("--class {name}: unknown class; known: {}", known.join(", "))
                })
            })
            .collect::<Result<_, _>>()?;
    }
    let drawn = config.draws();
    if args.list {
        return Ok(drawn
            .iter()
            .map(|d| {
                let id = config.draw_id(d);
                format!("{id} seed {}: {}\n", d.seed, d.describe())
            })
            .collect());
    }
    if let Some(which) = &args.scenario {
        return robust_scenario(&drawn, &config, which);
    }
    let progress = Mutex::new(Progress::new("evaluating"));
    let report = eval::robust::run_robust(
        &config,
        &scream_lab::LocalExecutor::new(jobs_or_cores(args.jobs)),
        &|done, total| {
            if let Ok(mut p) = progress.lock() {
                p.update(done as f64 / total as f64);
            }
        },
    );
    if let Ok(mut p) = progress.lock() {
        p.finish();
    }
    let failed = report.runs.iter().filter(|r| r.outcome.is_err()).count();
    if failed > 0 {
        crate::warn(&format!(
            "{failed} of {} runs failed (the output lists them)",
            report.runs.len()
        ));
    }
    Ok(eval::robust::render(&report, format_of(args.format)))
}

/// `--scenario DRAW/OPTIONS`: that draw's scenario as TOML. A draw is named by its id
/// in the evaluation (`class/index`, or `class/sSEED/index` with several seeds); the
/// seeded form is accepted with one seed too. Any option set may be named.
fn robust_scenario(
    drawn: &[eval::robust::Draw],
    config: &eval::robust::RobustConfig,
    which: &str,
) -> Result<String, String> {
    let (id, options) = which.rsplit_once('/').ok_or_else(|| {
        format!("--scenario {which}: expected DRAW/OPTIONS, e.g. sudden-drop/3/faithful")
    })?;
    let draw = drawn
        .iter()
        .find(|d| config.draw_id(d) == id || d.seeded_id() == id)
        .ok_or_else(|| {
            let seeds: Vec<String> = config.draw_seeds.iter().map(ToString::to_string).collect();
            format!(
                "--scenario {which}: no draw {id} (with --seed {} and --draws {}; --list shows them)",
                seeds.join(","),
                config.draws
            )
        })?;
    let set: eval::OptionSet = options
        .parse()
        .map_err(|e| format!("--scenario {which}: {e}"))?;
    let mut scenario = draw.scenario(set);
    scenario.name = format!("{}/{set}", config.draw_id(draw));
    scream_sim::scenario::to_toml(&scenario).map_err(|e| format!("{which}: {e}"))
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
