//! `scream sim`: run one scenario, write its outputs and plots, print a summary.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::columns::{
    Align::{Left, Right},
    Columns,
};

use scream_lab::progress::Progress;

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
    #[arg(long)]
    seed: Option<u64>,
    /// Output folder (default: out/<file stem> for a file, out/<name> for a built-in, or
    /// out/<name>-2, ... when that holds another run). A folder given here that holds
    /// another run is refused unless --force.
    #[arg(long)]
    out: Option<PathBuf>,
    #[command(flatten)]
    force: crate::folder::ForceArg,
    /// Print summary.json to stdout instead of the table.
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
    /// summary.json as a JSON value (its documented keys are what the table reads).
    pub(crate) summary: Value,
    /// Folder the outputs went to.
    pub(crate) out_dir: PathBuf,
    /// How that folder was chosen.
    pub(crate) placed: scream_sim::output::folder::Placed,
    /// What the logs came to (nothing when none was asked for).
    pub(crate) logs: scream_sim::log::LogReport,
}

pub(crate) fn main(args: &SimArgs) -> Result<String, String> {
    let overrides = crate::parse_overrides(&args.set)?;
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
        let mut text = serde_json::to_string_pretty(&outcome.summary).map_err(|e| e.to_string())?;
        text.push('\n');
        Ok(text)
    } else {
        Ok(table(&outcome.summary, &outcome.out_dir) + &crate::folder::note_line(&outcome.placed))
    }
}

/// The human-readable summary: one row per flow, one per link, then the output folder.
pub(crate) fn table(summary: &Value, out_dir: &Path) -> String {
    let num = |v: &Value, path: &[&str]| -> f64 {
        path.iter()
            .try_fold(v, |v, key| v.get(key))
            .and_then(Value::as_f64)
            .unwrap_or(f64::NAN)
    };
    let mut out = String::new();
    let name = summary
        .get("scenario")
        .and_then(Value::as_str)
        .unwrap_or("?");
    out.push_str(&format!(
        "scenario {name}  seed {}  {:.1} s simulated in {:.2} s\n\n",
        summary.get("seed").and_then(Value::as_u64).unwrap_or(0),
        num(summary, &["duration_s"]),
        num(summary, &["wall_time_s"]),
    ));
    // Columns as wide as their widest cell: a long flow or link name widens its
    // column instead of shifting every number after it.
    let mut flows = Columns::new(&[Left, Right, Right, Right, Right, Right, Right, Right, Right]);
    flows.row([
        "flow",
        "tput",
        "target",
        "queue delay",
        "est.qd",
        "sRTT",
        "frame p95",
        "loss",
        "CE",
    ]);
    flows.row([
        "",
        "Mbit/s",
        "Mbit/s",
        "mean/p95/p99 ms",
        "mean ms",
        "mean ms",
        "ms",
        "%",
        "%",
    ]);
    let triple = |d: &Value| {
        format!(
            "{:.1}/{:.1}/{:.1}",
            num(d, &["mean"]),
            num(d, &["p95"]),
            num(d, &["p99"])
        )
    };
    let null = Value::Null;
    for flow in summary
        .get("flows")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        flows.row([
            flow.get("name")
                .and_then(Value::as_str)
                .unwrap_or("?")
                .to_owned(),
            format!("{:.2}", num(flow, &["throughput_mbps"])),
            format!("{:.2}", num(flow, &["target_bitrate_mbps", "mean"])),
            triple(flow.get("queue_delay_ms").unwrap_or(&null)),
            format!("{:.1}", num(flow, &["estimated_queue_delay_ms", "mean"])),
            format!("{:.1}", num(flow, &["srtt_ms", "mean"])),
            format!("{:.1}", num(flow, &["frame_delay_ms", "p95"])),
            format!("{:.2}", 100.0 * num(flow, &["loss_ratio"])),
            format!("{:.2}", 100.0 * num(flow, &["ce_ratio"])),
        ]);
        let streams = flow
            .get("streams")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        if streams.len() > 1 {
            for st in streams {
                flows.row([
                    format!(
                        "  {}",
                        st.get("name").and_then(Value::as_str).unwrap_or("?")
                    ),
                    format!("{:.2}", num(st, &["throughput_mbps"])),
                    format!("{:.2}", num(st, &["target_bitrate_mbps", "mean"])),
                    String::new(),
                    String::new(),
                    String::new(),
                    format!("{:.1}", num(st, &["frame_delay_ms", "p95"])),
                    format!("{:.2}", 100.0 * num(st, &["loss_ratio"])),
                    format!("{:.2}", 100.0 * num(st, &["ce_ratio"])),
                ]);
            }
        }
        if let Some(w) = flow.get("window") {
            let note = format!(
                "  ({:.0}-{:.0} s window)",
                num(w, &["from_s"]),
                num(w, &["to_s"])
            );
            flows.row_with_note(
                [
                    String::new(),
                    format!("{:.2}", num(w, &["throughput_mbps"])),
                    String::new(),
                    triple(w.get("queue_delay_ms").unwrap_or(&null)),
                ],
                &note,
            );
        }
    }
    out.push_str(&flows.render());
    out.push('\n');
    let mut links = Columns::new(&[Left, Left, Right, Right, Right, Right]);
    links.row([
        "link",
        "dir",
        "capacity",
        "utilisation",
        "dropped",
        "CE-mark",
    ]);
    for link in summary
        .get("links")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let count = |key: &str| link.get(key).and_then(Value::as_u64).unwrap_or(0);
        // A capacity of null is an unlimited direction; one that carried nothing and
        // dropped nothing says nothing worth a row.
        let unlimited = link.get("capacity_mean_mbps").is_some_and(Value::is_null);
        if unlimited && count("packets_dropped") + count("packets_lost") == 0 {
            continue;
        }
        let capacity = if unlimited {
            "unlimited".to_owned()
        } else {
            format!("{:.2} Mbit/s", num(link, &["capacity_mean_mbps"]))
        };
        links.row([
            link.get("name")
                .and_then(Value::as_str)
                .unwrap_or("?")
                .to_owned(),
            link.get("direction")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned(),
            capacity,
            format!("{:.1}%", 100.0 * num(link, &["utilization"])),
            (count("packets_dropped") + count("packets_lost")).to_string(),
            count("packets_ce_marked").to_string(),
        ]);
    }
    out.push_str(&links.render());
    out.push_str(&format!("\noutputs in {}\n", out_dir.display()));
    out
}

/// The seam to the simulator core: load, run, write outputs and plots.
pub(crate) mod engine {
    use scream_sim::log::{LogOptions, LogReport};
    use scream_sim::output::folder::RunDefinition;
    use scream_sim::scenario::load::{Override, load_checked};
    use scream_sim::{RunResult, Scenario};

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
        let mut files = scream_sim::write_outputs(&result, &out_dir)
            .map_err(|e| format!("cannot write outputs to {}: {e}", out_dir.display()))?;
        if !args.no_plots {
            let build = crate::manifest::toolkit();
            let commit: String = build.commit.chars().take(12).collect();
            let footer = format!(
                "scenario {}  ·  seed {}  ·  scream {} ({commit})",
                loaded.name, result.summary.seed, build.version
            );
            let max_bitrates = scream_sim::plot::stream_max_bitrates(&loaded);
            let input = scream_sim::plot::PlotInput {
                scenario_name: &result.scenario_name,
                samples: &result.samples,
                footer: &footer,
                max_bitrate_mbps: &max_bitrates,
                cdfs: &result.delay_cdfs,
            };
            files.extend(
                scream_sim::plot::write_plots(&input, &out_dir).map_err(|e| e.to_string())?,
            );
        }
        let written_logs = [
            (logs.packets.is_some(), crate::logs::PACKETS_FILE),
            (logs.events.is_some(), crate::logs::EVENTS_FILE),
        ];
        files.extend(
            written_logs
                .into_iter()
                .filter(|(on, _)| *on)
                .map(|(_, name)| out_dir.join(name)),
        );
        let run = crate::manifest::Run {
            scenario: &loaded,
            overrides,
            result: &result,
            started_unix_s,
            files: &files,
        };
        crate::manifest::write(&run, &out_dir)?;
        summary_value(&result).map(|summary| Outcome {
            summary,
            out_dir,
            placed,
            logs,
        })
    }

    /// Loads and runs a scenario without writing anything; returns summary.json's value.
    pub(crate) fn run(scenario: &str, overrides: &[Override]) -> Result<serde_json::Value, String> {
        let loaded = load(scenario, overrides)?;
        let result = run_loaded(&loaded, None, None)?;
        summary_value(&result)
    }

    /// summary.json exactly as written to disk (fixed decimals), as a JSON value.
    fn summary_value(result: &RunResult) -> Result<serde_json::Value, String> {
        let bytes = scream_sim::output::summary_json(&result.summary).map_err(|e| e.to_string())?;
        serde_json::from_slice(&bytes).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_shows_every_flow_and_link_with_units() {
        let summary = serde_json::json!({
            "scenario": "x", "seed": 3, "duration_s": 20.0, "wall_time_s": 0.5,
            "links": [{"name": "bottleneck", "capacity_mean_mbps": 8.5, "utilization": 0.91}],
            "flows": [{"name": "video", "throughput_mbps": 7.25,
                "target_bitrate_mbps": {"mean": 7.5},
                "queue_delay_ms": {"mean": 3.68, "p50": 3.0, "p95": 8.97, "p99": 11.0, "max": 20.0},
                "estimated_queue_delay_ms": {"mean": 2.0}, "srtt_ms": {"mean": 55.0},
                "frame_delay_ms": {"p95": 80.0}, "loss_ratio": 0.001, "ce_ratio": 0.05}]
        });
        let t = table(&summary, Path::new("out/x"));
        assert!(t.contains("video"), "{t}");
        assert!(t.contains("7.25"), "{t}");
        assert!(t.contains("3.7/9.0/11.0"), "{t}");
        assert!(t.contains("91.0%"), "{t}");
        assert!(t.contains("Mbit/s"), "{t}");
        assert!(t.contains("outputs in out/x"), "{t}");
    }
}
