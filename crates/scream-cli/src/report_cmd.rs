//! `scream report RESULTS.csv`: report.md with tables and figures from a sweep's
//! results (docs/sweeps.md).

use std::path::PathBuf;

use scream_lab::report::{self, Results};

/// Arguments of `scream report`.
#[derive(Debug, clap::Args)]
pub(crate) struct ReportArgs {
    /// results.csv written by `scream sweep`.
    results: PathBuf,
    /// Folder for report.md and the figures (default: the folder of RESULTS).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

pub(crate) fn main(args: &ReportArgs) -> Result<String, String> {
    let results = Results::read(&args.results).map_err(|e| e.to_string())?;
    if results.rows.is_empty() {
        return Err(format!(
            "{}: no complete run in it yet; run `scream sweep` first",
            args.results.display()
        ));
    }
    let out_dir = args.out.clone().unwrap_or_else(|| {
        args.results
            .parent()
            .map_or_else(|| PathBuf::from("."), std::path::Path::to_path_buf)
    });
    let files = report::write_report(&results, &args.results.display().to_string(), &out_dir)
        .map_err(|e| e.to_string())?;
    let figures = files.len().saturating_sub(1);
    Ok(format!(
        "{} and {figures} figure files (SVG and PNG) in {}\n",
        report::REPORT_MD,
        out_dir.display()
    ))
}
