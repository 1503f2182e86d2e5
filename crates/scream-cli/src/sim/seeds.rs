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
use scream_lab::seeds::{self, MAX_SEEDS, SEEDS_CSV, SEEDS_JSON, SeedSet};
use scream_sim::output::folder::RunDefinition;
use scream_sim::scenario::load::Override;

use super::SimArgs;
use crate::columns::{
    Align::{Left, Right},
    Columns,
};

/// The seeds `--seeds` names, each once, in the order given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SeedList(pub(crate) Vec<u64>);

/// What `--seeds` takes, for its error messages.
const FORM: &str = "give a range A..B (seeds A to B, both included: 1..10 is ten seeds) or a \
                    comma-separated list such as 1,4,9";

/// Parses `--seeds`: comma-separated items, each a seed `N` or an inclusive range
/// `A..B` (`A..=B` reads the same), at most [`MAX_SEEDS`] seeds in all, none twice.
pub(crate) fn parse_seeds(text: &str) -> Result<SeedList, String> {
    let number = |s: &str| {
        s.trim().parse::<u64>().map_err(|_| {
            format!(
                "`{}` is not a seed (a whole number from 0 to {}); {FORM}",
                s.trim(),
                u64::MAX
            )
        })
    };
    let too_many =
        |n: u128| format!("{text} is {n} seeds; at most {MAX_SEEDS} run in one set: {FORM}");
    let mut seeds: Vec<u64> = Vec::new();
    for item in text.split(',') {
        let item = item.trim();
        if item.is_empty() {
            return Err(format!("an empty item in `{text}`; {FORM}"));
        }
        let Some((from, to)) = item.split_once("..") else {
            seeds.push(number(item)?);
            continue;
        };
        let (from, to) = (number(from)?, number(to.strip_prefix('=').unwrap_or(to))?);
        if from > to {
            return Err(format!(
                "the range {item} is empty ({from} > {to}): a range A..B needs A no larger \
                 than B (seeds A to B, both included), or give a comma-separated list such \
                 as 1,4,9"
            ));
        }
        // Counted before any seed is listed: 0..18446744073709551615 must not fill memory.
        let count = u128::from(to - from) + 1 + seeds.len() as u128;
        if count > MAX_SEEDS as u128 {
            return Err(too_many(count));
        }
        seeds.extend(from..=to);
    }
    if seeds.len() > MAX_SEEDS {
        return Err(too_many(seeds.len() as u128));
    }
    let mut sorted = seeds.clone();
    sorted.sort_unstable();
    if let Some(twice) = sorted.windows(2).find(|w| w[0] == w[1]) {
        return Err(format!(
            "seed {} appears twice in `{text}`; each seed runs once",
            twice[0]
        ));
    }
    Ok(SeedList(seeds))
}

/// `1..10` for consecutive seeds, else the list (shortened past a few).
fn describe(seeds: &[u64]) -> String {
    const SHOWN: usize = 8;
    let consecutive = seeds.windows(2).all(|w| w[0].checked_add(1) == Some(w[1]));
    match seeds {
        [first, .., last] if consecutive => format!("{first}..{last}"),
        _ if seeds.len() <= SHOWN => {
            let list: Vec<String> = seeds.iter().map(u64::to_string).collect();
            list.join(",")
        }
        _ => {
            let list: Vec<String> = seeds.iter().take(SHOWN).map(u64::to_string).collect();
            format!("{},… ({} in all)", list.join(","), seeds.len())
        }
    }
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
    let scenario_toml = scream_sim::manifest::Manifest::scenario_text(&loaded)
        .map_err(|e| format!("{}: {e}", args.scenario))?;
    // Short keys first: the first that differs is named when the folder is refused.
    let definition = RunDefinition::new()
        .with("matrix", "sim seeds")
        .with("seeds", seeds)
        .with("overrides", &raw)
        .with("scenario_toml", scenario_toml);
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
    fn ranges_include_both_ends_and_lists_keep_their_order() {
        assert_eq!(parse_seeds("1..10").map(|s| s.0), Ok((1..=10).collect()));
        assert_eq!(parse_seeds("3..=5").map(|s| s.0), Ok(vec![3, 4, 5]));
        assert_eq!(parse_seeds("9, 1,4").map(|s| s.0), Ok(vec![9, 1, 4]));
        assert_eq!(parse_seeds("1..3,7").map(|s| s.0), Ok(vec![1, 2, 3, 7]));
        assert_eq!(parse_seeds("7").map(|s| s.0), Ok(vec![7]));
    }

    #[test]
    fn a_bad_set_says_why_and_what_is_allowed() {
        let e = parse_seeds("5..1").unwrap_err();
        assert!(
            e.contains("5..1 is empty (5 > 1)") && e.contains("A..B"),
            "{e}"
        );
        let e = parse_seeds("1..x").unwrap_err();
        assert!(
            e.contains("`x` is not a seed") && e.contains("1,4,9"),
            "{e}"
        );
        let e = parse_seeds("1,,2").unwrap_err();
        assert!(e.contains("empty item"), "{e}");
        let e = parse_seeds("1..3,2").unwrap_err();
        assert!(e.contains("seed 2 appears twice"), "{e}");
        let e = parse_seeds("0..18446744073709551615").unwrap_err();
        assert!(e.contains("at most 10000"), "{e}");
        assert!(parse_seeds("1..10000").is_ok());
        let e = parse_seeds("1..10000,10001").unwrap_err();
        assert!(e.contains("10001 seeds"), "{e}");
        let e = parse_seeds("-1").unwrap_err();
        assert!(e.contains("`-1` is not a seed"), "{e}");
    }

    #[test]
    fn seeds_are_described_as_a_range_when_consecutive() {
        assert_eq!(describe(&[1, 2, 3]), "1..3");
        assert_eq!(describe(&[1, 4, 9]), "1,4,9");
        assert_eq!(describe(&[5]), "5");
        let many: Vec<u64> = (0..20).map(|i| i * 2).collect();
        assert_eq!(describe(&many), "0,2,4,6,8,10,12,14,… (20 in all)");
    }

    #[test]
    fn a_seed_set_defaults_beside_the_single_run() {
        assert_eq!(default_out_dir("default"), Path::new("out/default-seeds"));
        assert_eq!(default_out_dir("d/mine.toml"), Path::new("out/mine-seeds"));
    }
}
