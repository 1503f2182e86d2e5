//! `scream sim SCENARIO --seeds 1..10`: the scenario once per seed, each run in its own
//! folder `s<seed>/`, and the spread of every flow's metrics over the seeds in
//! seeds.csv and seeds.json (docs/outputs.md, "A set of seeds").
//!
//! The set's folder follows the rule of every run's folder
//! (`scream_sim::output::folder`): its manifest.json records the seeds, the overrides
//! and the scenario as run, so the same command again refreshes it and another seed set
//! goes to a numbered sibling, or stops with `--out`.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use scream_lab::progress::Progress;
use scream_lab::seeds::{self, SEEDS_CSV, SEEDS_JSON, SeedSet, describe};
use scream_sim::scenario::load::Override;

use super::SimArgs;
use crate::columns::{
    Align::{Left, Right},
    Columns,
};

/// The seeds `--seeds` names, each once, in the order given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SeedList(pub(crate) Vec<u64>);

/// Parses `--seeds` (`scream_lab::seeds::parse_seeds`: a range `A..B`, a list
/// `1,4,9`, or both, at most [`seeds::MAX_SEEDS`] seeds, none twice).
pub(crate) fn parse_seeds(text: &str) -> Result<SeedList, String> {
    seeds::parse_seeds(text).map(SeedList)
}

/// The default folder of a seed set: `out/<name>-seeds`, beside the single run's
/// `out/<name>`, so that neither displaces the other.
fn default_out_dir(scenario: &str) -> PathBuf {
    let single = crate::folder::default_out_dir(scenario);
    let mut name = single.file_name().unwrap_or_default().to_os_string();
    name.push("-seeds");
    single.with_file_name(name)
}

pub(super) fn main(
    args: &SimArgs,
    overrides: &[Override],
    seeds: &SeedList,
) -> Result<String, String> {
    let seeds = seeds.0.as_slice();
    let loaded = super::engine::load(&args.scenario, overrides)?;
    for w in loaded.warnings() {
        crate::warn(&w);
    }
    if !loaded.has_random_element() && seeds.len() > 1 {
        crate::warn(&format!(
            "scenario {} has no random element (no jitter, loss, random AQM or random frame \
             phase): every seed gives the same result",
            loaded.name
        ));
    }
    let raw: Vec<String> = overrides.iter().map(|o| o.raw().to_owned()).collect();
    let definition =
        seeds::definition(&loaded, &raw, seeds).map_err(|e| format!("{}: {e}", args.scenario))?;
    let placed = crate::folder::place_matrix(
        args.out.as_deref(),
        &default_out_dir(&args.scenario),
        definition,
        args.force,
    )?;
    let jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, usize::from),
        usize::from,
    );
    let progress = Mutex::new(Progress::new("seeds"));
    let on_progress = |done: usize, total: usize| {
        if let Ok(mut bar) = progress.lock() {
            bar.update_counted(done, total);
        }
    };
    let clock = crate::manifest::WallClock::new();
    let options = seeds::Options {
        scenario: &loaded,
        overrides: &raw,
        seeds,
        out_dir: &placed.dir,
        executor: &scream_lab::LocalExecutor::new(jobs),
        no_plots: args.no_plots,
        clock: &clock,
        toolkit: crate::manifest::toolkit(),
        command_line: std::env::args().collect(),
        progress: &on_progress,
    };
    let set = seeds::run(&options);
    if let Ok(mut bar) = progress.lock() {
        bar.finish();
    }
    let set = set?;
    if args.json {
        // stdout is the JSON alone; where the runs went goes to stderr.
        if let Some(note) = placed.note() {
            crate::warn(&note);
        }
        let json = set.summary.json().map_err(|e| e.to_string())?;
        return String::from_utf8(json).map_err(|e| e.to_string());
    }
    Ok(table(&set, &placed.dir, jobs) + &crate::folder::note_line(&placed))
}

/// The statistics as the command prints them: one row per flow and metric.
fn table(set: &SeedSet, out_dir: &Path, jobs: usize) -> String {
    let summary = &set.summary;
    let n = summary.seeds.len();
    let mut out = format!(
        "scenario {}  seeds {} ({n} {})  {:.1} s simulated each; {:.2} s of runs on {jobs} {}\n\n",
        summary.scenario,
        describe(&summary.seeds),
        if n == 1 { "run" } else { "runs" },
        set.duration_s,
        set.run_time_s,
        if jobs == 1 { "thread" } else { "threads" },
    );
    let mut rows = Columns::new(&[Left, Left, Left, Right, Right, Right, Right, Right, Right]);
    rows.row([
        "flow", "metric", "unit", "mean", "±95% CI", "sd", "min", "max", "n",
    ]);
    let number =
        |v: Option<f64>| v.map_or_else(|| "-".to_owned(), scream_lab::report::format_number);
    for r in &summary.rows {
        rows.row([
            r.flow.clone().unwrap_or_else(|| "(run)".to_owned()),
            r.metric.to_owned(),
            r.unit.to_owned(),
            number(r.mean),
            number(r.ci95_half_width),
            number(r.sd),
            number(r.min),
            number(r.max),
            r.n.to_string(),
        ]);
    }
    out.push_str(&rows.render());
    let first = summary.seeds.first().copied().unwrap_or_default();
    let last = summary.seeds.last().copied().unwrap_or_default();
    let folders = if n == 1 {
        format!("{}/", seeds::seed_dir(first))
    } else {
        format!("{}/ … {}/", seeds::seed_dir(first), seeds::seed_dir(last))
    };
    out.push_str(&format!(
        "\n±95% CI: half width of the 95 % confidence interval of the mean (Student t); \
         - where fewer than two seeds have a value\noutputs in {}: {folders}, {SEEDS_CSV}, \
         {SEEDS_JSON}\n",
        out_dir.display()
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_takes_the_labs_seed_sets() {
        assert_eq!(parse_seeds("1..3,7"), Ok(SeedList(vec![1, 2, 3, 7])));
        assert!(parse_seeds("5..1").unwrap_err().contains("is empty"));
    }

    #[test]
    fn a_seed_set_defaults_beside_the_single_run() {
        assert_eq!(default_out_dir("default"), Path::new("out/default-seeds"));
        assert_eq!(default_out_dir("d/mine.toml"), Path::new("out/mine-seeds"));
    }
}
