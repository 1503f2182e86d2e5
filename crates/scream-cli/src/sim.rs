//! `scream sim`: run one scenario, write its outputs and plots, print a summary.

use std::path::PathBuf;

use scream_sim::Summary;

use scream_lab::progress::Progress;

mod seeds;
mod table;

pub(crate) use table::table;

/// Arguments of `scream sim`.
#[derive(Debug, clap::Args)]
pub(crate) struct SimArgs {
    /// Built-in scenario name (see `scream scenarios`) or path of a scenario .toml file.
    #[arg(default_value = "default")]
    scenario: String,
    /// Override a scenario key: `--set link.capacity_mbps=5`, `--set flows.0.ecn=l4s`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Random seed (default: the scenario's `seed`).
    #[arg(long, conflicts_with = "seeds")]
    seed: Option<u64>,
    /// Run once per seed and summarise each metric over the seeds (mean, standard
    /// deviation, 95 % confidence interval, min, max): a range `A..B` (seeds A to B, both
    /// included) or a list `1,4,9`, at most 10000 seeds. Each run goes to s<seed>/ in
    /// the output folder, the statistics to seeds.csv and seeds.json beside them.
    #[arg(
        long,
        value_name = "A..B|LIST",
        value_parser = seeds::parse_seeds,
        conflicts_with_all = ["packet_log", "event_log"]
    )]
    seeds: Option<seeds::SeedList>,
    /// Threads for --seeds (default: the available cores).
    #[arg(
        long,
        value_name = "N",
        requires = "seeds",
        value_parser = clap::value_parser!(u16).range(1..=1024)
    )]
    jobs: Option<u16>,
    /// Output folder (default: out/<file stem> for a file, out/<name> for a built-in,
    /// out/<name>-seeds with --seeds, or the same with -2, -3, ... when that holds
    /// another run). A folder given here that holds another run is refused unless
    /// --force.
    #[arg(long)]
    out: Option<PathBuf>,
    #[command(flatten)]
    force: crate::folder::ForceArg,
    /// Print summary.json (with --seeds: seeds.json) to stdout instead of the table.
    #[arg(long)]
    json: bool,
    /// Skip the PNG/SVG plots.
    #[arg(long)]
    no_plots: bool,
    #[command(flatten)]
    logs: crate::logs::LogArgs,
}

/// One run's results as the command needs them.
#[derive(Debug)]
pub(crate) struct Outcome {
    /// The run's summary (what summary.json holds).
    pub(crate) summary: Summary,
    /// Folder the outputs went to.
    pub(crate) out_dir: PathBuf,
    /// How that folder was chosen.
    pub(crate) placed: scream_sim::output::folder::Placed,
    /// What the logs came to (nothing when none was asked for).
    pub(crate) logs: scream_sim::log::LogReport,
}

pub(crate) fn main(args: &SimArgs) -> Result<String, String> {
    let overrides = crate::parse_overrides(&args.set)?;
    if let Some(seeds) = &args.seeds {
        return seeds::main(args, &overrides, seeds);
    }
    if args.seed.is_some() {
        let loaded = engine::load(&args.scenario, &overrides)?;
        if !loaded.has_random_element() {
            // Said on stderr, so that --json output stays clean.
            crate::warn(&format!(
                "scenario {} has no random element (no jitter, loss, random AQM or random \
                 frame phase): --seed does not change its outcome",
                loaded.name
            ));
        }
    }
    let mut progress = Progress::new("simulating");
    let outcome = engine::simulate(args, &overrides, &mut |f| progress.update(f));
    progress.finish();
    let outcome = outcome?;
    args.logs.warn_about(&outcome.logs);
    if args.json {
        // stdout is the JSON alone; where the run went goes to stderr.
        if let Some(note) = outcome.placed.note() {
            crate::warn(&note);
        }
        let summary = engine::summary_value(&outcome.summary)?;
        let mut text = serde_json::to_string_pretty(&summary).map_err(|e| e.to_string())?;
        text.push('\n');
        Ok(text)
    } else {
        Ok(table(&outcome.summary, &outcome.out_dir) + &crate::folder::note_line(&outcome.placed))
    }
}

/// The seam to the simulator core: load, run, write outputs and plots.
pub(crate) mod engine {
    use scream_lab::run_folder::{RunRecord, WriteOptions, write_run};
    use scream_sim::log::{LogOptions, LogReport};
    use scream_sim::output::folder::RunDefinition;
    use scream_sim::scenario::load::{Override, load_checked};
    use scream_sim::{RunResult, Scenario, Summary};

    use super::{Outcome, SimArgs};

    /// Loads and validates a scenario: file path or built-in name, with overrides.
    pub(crate) fn load(scenario: &str, overrides: &[Override]) -> Result<Scenario, String> {
        // Checked as a whole here, so that a value out of range names the line of its
        // key or the --set that wrote it.
        load_checked(scenario, overrides).map_err(|e| e.to_string())
    }

    /// Runs a loaded scenario and stamps the wall-clock time it took (the simulator
    /// itself never reads a clock).
    pub(crate) fn run_loaded(
        scenario: &Scenario,
        seed: Option<u64>,
        progress: Option<&mut dyn FnMut(f64)>,
    ) -> Result<RunResult, String> {
        run_logged(scenario, seed, progress, LogOptions::default()).map(|(r, _)| r)
    }

    /// As [`run_loaded`], also writing the logs `logs` asks for.
    pub(crate) fn run_logged(
        scenario: &Scenario,
        seed: Option<u64>,
        progress: Option<&mut dyn FnMut(f64)>,
        logs: LogOptions,
    ) -> Result<(RunResult, LogReport), String> {
        let started = std::time::Instant::now();
        let seed = seed.unwrap_or(scenario.seed);
        let (mut result, report) =
            scream_sim::run_with_logs(scenario, seed, progress, logs).map_err(|e| e.to_string())?;
        result.summary.wall_time_s = started.elapsed().as_secs_f64();
        Ok((result, report))
    }

    /// Loads the scenario `args` names with `overrides`, runs it and writes its
    /// outputs into a folder it may claim.
    pub(crate) fn simulate(
        args: &SimArgs,
        overrides: &[Override],
        progress: &mut dyn FnMut(f64),
    ) -> Result<Outcome, String> {
        let loaded = load(&args.scenario, overrides)?;
        for w in loaded.warnings() {
            crate::warn(&w);
        }
        let started_unix_s = crate::manifest::now_unix_s();
        let seed = args.seed.unwrap_or(loaded.seed);
        let raw: Vec<String> = overrides.iter().map(|o| o.raw().to_owned()).collect();
        let definition = RunDefinition::of_run(&loaded, seed, &raw)
            .map_err(|e| format!("{}: {e}", args.scenario))?;
        let placed = crate::folder::place(
            args.out.as_deref(),
            &crate::folder::default_out_dir(&args.scenario),
            &definition,
            args.force,
        )?;
        let out_dir = placed.dir.clone();
        std::fs::create_dir_all(&out_dir)
            .map_err(|e| format!("cannot create {}: {e}", out_dir.display()))?;
        // Whatever an earlier run left in the folder (its plots, its logs, its
        // manifest) goes before this run writes anything, its logs included.
        scream_sim::output::remove_previous_outputs(&out_dir)
            .map_err(|e| format!("cannot clear {}: {e}", out_dir.display()))?;
        let logs = args.logs.open(&out_dir)?;
        let (result, logs) = run_logged(&loaded, Some(seed), Some(progress), logs)?;
        let written_logs = [
            (logs.packets.is_some(), crate::logs::PACKETS_FILE),
            (logs.events.is_some(), crate::logs::EVENTS_FILE),
        ];
        let options = WriteOptions {
            no_plots: args.no_plots,
            extra_files: written_logs
                .into_iter()
                .filter(|(on, _)| *on)
                .map(|(_, name)| out_dir.join(name))
                .collect(),
        };
        let record = RunRecord {
            scenario: &loaded,
            overrides: &raw,
            result: &result,
            toolkit: crate::manifest::toolkit(),
            command_line: std::env::args().collect(),
            started_unix_s,
        };
        write_run(&record, &out_dir, &options)?;
        Ok(Outcome {
            summary: result.summary,
            out_dir,
            placed,
            logs,
        })
    }

    /// Loads and runs a scenario without writing anything; returns its summary.
    pub(crate) fn run(scenario: &str, overrides: &[Override]) -> Result<Summary, String> {
        let loaded = load(scenario, overrides)?;
        run_loaded(&loaded, None, None).map(|result| result.summary)
    }

    /// summary.json exactly as written to disk (fixed decimals), as a JSON value.
    pub(crate) fn summary_value(summary: &Summary) -> Result<serde_json::Value, String> {
        let bytes = scream_sim::output::summary_json(summary).map_err(|e| e.to_string())?;
        serde_json::from_slice(&bytes).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    /// The simulator's clean-up list names the plots without depending on the plot
    /// crate; this is where the two meet, so a new figure cannot be left behind by a
    /// run with `--no-plots`.
    #[test]
    fn the_clean_up_list_names_every_plot_file() {
        let outputs = scream_sim::output::OUTPUT_FILES;
        for name in scream_plot::PLOT_NAMES {
            for ext in ["png", "svg"] {
                let file = format!("{name}.{ext}");
                assert!(outputs.contains(&file.as_str()), "{file} missing");
            }
        }
        let plots = outputs
            .iter()
            .filter(|f| f.ends_with(".png") || f.ends_with(".svg"))
            .count();
        assert_eq!(plots, 2 * scream_plot::PLOT_NAMES.len(), "{outputs:?}");
    }
}
