//! `scream report RESULTS.csv`: report.md with tables and figures from a sweep's
//! results (docs/sweeps.md); with `--compare-published STUDY`, the results set beside a
//! published study's figures instead (docs/studies.md, "Scoring against the published
//! tables").

use std::path::PathBuf;

use scream_lab::report::published::{self, PublishedStudy};
use scream_lab::report::{self, Results};

/// Arguments of `scream report`.
#[derive(Debug, clap::Args)]
pub(crate) struct ReportArgs {
    /// results.csv written by `scream sweep`.
    results: PathBuf,
    /// Folder for report.md and the figures (default: the folder of RESULTS). With
    /// --compare-published: the folder for compare-sensors2023.csv (written only when
    /// --out is given).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Print, instead of report.md, the results scored against a published study's
    /// tables (`sensors2023`: the positions of Tables 6-11 for a one-at-a-time sweep and
    /// the defaults; the hybrid study's averages for a factorial one).
    #[arg(long, value_name = "STUDY")]
    compare_published: Option<String>,
}

pub(crate) fn main(args: &ReportArgs) -> Result<String, String> {
    // A misspelt study is reported before the results file is read.
    let study = args
        .compare_published
        .as_deref()
        .map(str::parse::<PublishedStudy>)
        .transpose()
        .map_err(|e| format!("--compare-published: {e}"))?;
    let results = Results::read(&args.results).map_err(|e| e.to_string())?;
    if results.rows.is_empty() {
        return Err(format!(
            "{}: no complete run in it yet; run `scream sweep` first",
            args.results.display()
        ));
    }
    if let Some(study) = study {
        return compare(args, &results, study);
    }
    let out_dir = args.out.clone().unwrap_or_else(|| {
        args.results
            .parent()
            .map_or_else(|| PathBuf::from("."), std::path::Path::to_path_buf)
    });
    let files = report::write_report(&results, &args.results.display().to_string(), &out_dir)
        .map_err(|e| e.to_string())?;
    let is_figure = |f: &&PathBuf| {
        f.extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("svg") || e.eq_ignore_ascii_case("png"))
    };
    let figures = files.iter().filter(is_figure).count();
    // report.md first, then the tables a report of several seeds adds.
    let texts: Vec<String> = files
        .iter()
        .filter(|f| !is_figure(f))
        .filter_map(|f| f.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .collect();
    Ok(format!(
        "{} and {figures} figure files (SVG and PNG) in {}\n",
        texts.join(", "),
        out_dir.display()
    ))
}

fn compare(args: &ReportArgs, results: &Results, study: PublishedStudy) -> Result<String, String> {
    let source = args.results.display().to_string();
    let (paper, setups) =
        published::compare_published(results, study).map_err(|e| format!("{source}: {e}"))?;
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for (setup, comparison) in &setups {
            // One file per setup of a search, named after it (base names are file-safe);
            // the plain one otherwise.
            let name = if setup.is_empty() {
                published::COMPARE_CSV.to_owned()
            } else {
                format!("{setup}-{}", published::COMPARE_CSV)
            };
            let path = dir.join(name);
            scream_sim::output::write_atomic(&path, published::csv_text(&paper, comparison))
                .map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    Ok(match setups.as_slice() {
        [(setup, comparison)] if setup.is_empty() => {
            published::markdown(&paper, comparison, &source)
        }
        _ => published::setups_markdown(&paper, &setups, &source),
    })
}
