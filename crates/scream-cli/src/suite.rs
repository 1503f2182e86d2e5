//! `scream suite rmcat`: the RMCAT evaluation suite into report.md (docs/rmcat.md).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use scream_lab::suite::{self, Variation, cases, execute, report};

use scream_lab::progress::Progress;

/// The output folder unless `--out` names one.
const DEFAULT_OUT: &str = "out/suite-rmcat";

/// Arguments of `scream suite`.
#[derive(Debug, clap::Args)]
pub(crate) struct SuiteArgs {
    #[command(subcommand)]
    suite: Suites,
}

/// The suites.
#[derive(Debug, clap::Subcommand)]
enum Suites {
    /// RFC 8867 test cases, RFC 8868 metrics, verdicts (docs/rmcat.md).
    Rmcat(RmcatArgs),
}

/// `--algorithms` help of the suite and the study: the video algorithms by the
/// simulator's list (the library's generations, then the baselines).
pub(crate) fn algorithms_help(of: &str) -> String {
    format!(
        "Algorithms of the {of}, comma-separated ({})",
        scream_sim::scenario::Algorithm::video_names().join(", ")
    )
}

/// Arguments of `scream suite rmcat`.
#[derive(Debug, clap::Args)]
struct RmcatArgs {
    #[arg(long, value_delimiter = ',', default_value = "scream-v2", help = suite_algorithms_help())]
    algorithms: Vec<String>,
    /// Variations, comma-separated (`d50-j0-tail`, `d10-j30-codel`, ...), or `default`
    /// (= `rfc`, d50-j30-tail: the RFC 8867 path), `axes` (the RFC path and each axis
    /// changed alone: 6) or `all` (3 delays x 3 jitters x 2 queues: 18).
    #[arg(long, value_delimiter = ',', default_value = "default")]
    variations: Vec<String>,
    /// Seeds per cell: every case x variation x algorithm runs with seeds 1..=N and
    /// its verdict counts the seeds that pass.
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..=1000))]
    seeds: u64,
    /// Cases, comma-separated (`rmcat-5.1` or `5.1`; default: all).
    #[arg(long, value_delimiter = ',')]
    cases: Vec<String>,
    /// Output folder (default: out/suite-rmcat, or out/suite-rmcat-2, ... when that
    /// holds a matrix with other --set overrides). A folder that holds another matrix is
    /// refused unless --force.
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
    /// An override for every cell, after the variation's (`--set duration_s=30` for a
    /// quick look); repeatable.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// List the cells without running them.
    #[arg(long)]
    list: bool,
}

/// `--algorithms` help of the suite: its lineup, then any video algorithm.
fn suite_algorithms_help() -> String {
    let lineup: Vec<&str> = suite::substitute::LINEUP.iter().map(|c| c.name).collect();
    format!(
        "Algorithms of the media flows, comma-separated: `lineup` (all of {}), one of \
         them, or any video algorithm ({})",
        lineup.join(", "),
        scream_sim::scenario::Algorithm::video_names().join(", ")
    )
}

/// The algorithms named, `lineup` expanded.
fn algorithms(names: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for n in names {
        let add: Vec<String> = if n == "lineup" {
            suite::substitute::LINEUP
                .iter()
                .map(|c| c.name.to_owned())
                .collect()
        } else {
            vec![n.clone()]
        };
        for a in add {
            if !out.contains(&a) {
                out.push(a);
            }
        }
    }
    out
}

fn variations(names: &[String]) -> Result<Vec<Variation>, String> {
    let mut out = Vec::new();
    for n in names {
        match n.as_str() {
            "default" | "rfc" => out.push(Variation::DEFAULT),
            "axes" => out.extend(Variation::axes()),
            "all" => out.extend(Variation::all()),
            _ => out.push(Variation::parse(n).ok_or_else(|| {
                let known: Vec<String> = Variation::all().iter().map(ToString::to_string).collect();
                format!(
                    "--variations {n}: unknown variation (known: default, rfc, axes, all, {})",
                    known.join(", ")
                )
            })?),
        }
    }
    Ok(out)
}

pub(crate) fn main(args: &SuiteArgs) -> Result<String, String> {
    let Suites::Rmcat(args) = &args.suite;
    let cases = suite::select(cases::all(), &args.cases);
    if cases.is_empty() {
        let names: Vec<&str> = cases::all().iter().map(|c| c.name).collect();
        return Err(format!(
            "--cases {}: no such case (cases: {})",
            args.cases.join(","),
            names.join(", ")
        ));
    }
    let variations = variations(&args.variations)?;
    let algorithms = algorithms(&args.algorithms);
    let seeds: Vec<u64> = (1..=args.seeds).collect();
    crate::parse_overrides(&args.set)?;
    let jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, usize::from),
        usize::from,
    );
    let progress = Mutex::new(Progress::new("suite"));
    let on_progress = |done: usize, total: usize| {
        if let Ok(mut bar) = progress.lock() {
            bar.update_counted(done, total);
        }
    };
    let mut options = execute::Options {
        cases: &cases,
        algorithms: &algorithms,
        variations: &variations,
        seeds: &seeds,
        extra: &args.set,
        out_dir: Path::new(""),
        executor: &scream_lab::LocalExecutor::new(jobs),
        fresh: args.fresh,
        figures: true,
        progress: &on_progress,
    };
    if args.list {
        return Ok(execute::cells(&options)
            .iter()
            .map(|c| {
                format!(
                    "{} {} {} seed {}\n",
                    cases[c.case].name, c.variation, c.algorithm, c.seed
                )
            })
            .collect());
    }
    let placed = crate::folder::place_matrix(
        args.out.as_deref(),
        Path::new(DEFAULT_OUT),
        execute::definition(&args.set),
        args.force,
    )?;
    let out = &placed.dir;
    options.out_dir = out;
    let results = execute::run(&options);
    if let Ok(mut bar) = progress.lock() {
        bar.finish();
    }
    let results = results.map_err(|e| format!("{}: {e}", out.display()))?;
    let text = report::render(&cases, &algorithms, &results);
    let path = report::write(out, &text).map_err(|e| format!("{}: {e}", out.display()))?;
    Ok(summary_line(&cases, &results, &path) + &crate::folder::note_line(&placed))
}

fn summary_line(
    cases: &[suite::SuiteCase],
    results: &[execute::CellResult],
    path: &Path,
) -> String {
    let count = |what: &str| {
        results
            .iter()
            .filter(|r| report::verdict_text(&cases[r.cell.case], &r.outcome) == what)
            .count()
    };
    let reused = results.iter().filter(|r| r.reused).count();
    format!(
        "{} runs: {} pass, {} fail, {} error ({} reused from an earlier run)\nreport: {}\n",
        results.len(),
        count("pass"),
        count("FAIL"),
        count("error"),
        reused,
        path.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lineup_expands_to_its_contenders_once_and_the_rfc_path_is_the_default() {
        let names = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let a = algorithms(&names(&["nada", "lineup", "scream-draft00"]));
        assert_eq!(a.len(), suite::substitute::LINEUP.len() + 1, "{a:?}");
        assert_eq!(a[0], "nada");
        assert!(a.contains(&"gcc-libwebrtc".to_owned()) && a.contains(&"scream-v1-cfc".to_owned()));
        assert_eq!(variations(&names(&["rfc"])), Ok(vec![Variation::DEFAULT]));
        assert_eq!(variations(&names(&["axes"])).map(|v| v.len()), Ok(6));
        let e = variations(&names(&["d51-j0-tail"])).expect_err("unknown");
        assert!(e.contains("axes") && e.contains("d50-j30-tail"), "{e}");
    }
}
