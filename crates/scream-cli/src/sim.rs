//! `scream sim`: run one scenario, write its outputs and plots, print a summary.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::progress::Progress;

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
    /// Output folder (default: out/<scenario name>).
    #[arg(long)]
    out: Option<PathBuf>,
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
    let outcome = engine::simulate(
        &args.scenario,
        &overrides,
        args.seed,
        args.out.as_deref(),
        !args.no_plots,
        &args.logs,
        &mut |f| progress.update(f),
    );
    progress.finish();
    let outcome = outcome?;
    args.logs.warn_about(&outcome.logs);
    if args.json {
        let mut text = serde_json::to_string_pretty(&outcome.summary).map_err(|e| e.to_string())?;
        text.push('\n');
        Ok(text)
    } else {
        Ok(table(&outcome.summary, &outcome.out_dir))
    }
}

/// The default output folder of a scenario.
pub(crate) fn default_out_dir(scenario_name: &str) -> PathBuf {
    Path::new("out").join(scenario_name)
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
    out.push_str(&format!(
        "{:<12} {:>8} {:>8} {:>21} {:>8} {:>7} {:>9} {:>6} {:>6}\n",
        "flow", "tput", "target", "queue delay", "est.qd", "sRTT", "frame p95", "loss", "CE"
    ));
    out.push_str(&format!(
        "{:<12} {:>8} {:>8} {:>21} {:>8} {:>7} {:>9} {:>6} {:>6}\n",
        "", "Mbit/s", "Mbit/s", "mean/p95/p99 ms", "mean ms", "mean ms", "ms", "%", "%"
    ));
    for flow in summary
        .get("flows")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let qd = format!(
            "{:.1}/{:.1}/{:.1}",
            num(flow, &["queue_delay_ms", "mean"]),
            num(flow, &["queue_delay_ms", "p95"]),
            num(flow, &["queue_delay_ms", "p99"])
        );
        out.push_str(&format!(
            "{:<12} {:>8.2} {:>8.2} {:>21} {:>8.1} {:>7.1} {:>9.1} {:>6.2} {:>6.2}\n",
            flow.get("name").and_then(Value::as_str).unwrap_or("?"),
            num(flow, &["throughput_mbps"]),
            num(flow, &["target_bitrate_mbps", "mean"]),
            qd,
            num(flow, &["estimated_queue_delay_ms", "mean"]),
            num(flow, &["srtt_ms", "mean"]),
            num(flow, &["frame_delay_ms", "p95"]),
            100.0 * num(flow, &["loss_ratio"]),
            100.0 * num(flow, &["ce_ratio"]),
        ));
        let streams = flow
            .get("streams")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        if streams.len() > 1 {
            for st in streams {
                out.push_str(&format!(
                    "  {:<10} {:>8.2} {:>8.2} {:>21} {:>8} {:>7} {:>9.1} {:>6.2} {:>6.2}\n",
                    st.get("name").and_then(Value::as_str).unwrap_or("?"),
                    num(st, &["throughput_mbps"]),
                    num(st, &["target_bitrate_mbps", "mean"]),
                    "",
                    "",
                    "",
                    num(st, &["frame_delay_ms", "p95"]),
                    100.0 * num(st, &["loss_ratio"]),
                    100.0 * num(st, &["ce_ratio"]),
                ));
            }
        }
        if let Some(w) = flow.get("window") {
            out.push_str(&format!(
                "{:<12} {:>8.2} {:>8} {:>21}   ({:.0}-{:.0} s window)\n",
                "",
                num(w, &["throughput_mbps"]),
                "",
                format!(
                    "{:.1}/{:.1}/{:.1}",
                    num(w, &["queue_delay_ms", "mean"]),
                    num(w, &["queue_delay_ms", "p95"]),
                    num(w, &["queue_delay_ms", "p99"])
                ),
                num(w, &["from_s"]),
                num(w, &["to_s"]),
            ));
        }
    }
    out.push('\n');
    out.push_str(&format!(
        "{:<12} {:<8} {:>13} {:>12} {:>8} {:>8}\n",
        "link", "dir", "capacity", "utilisation", "dropped", "CE-mark"
    ));
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
        out.push_str(&format!(
            "{:<12} {:<8} {:>13} {:>11.1}% {:>8} {:>8}\n",
            link.get("name").and_then(Value::as_str).unwrap_or("?"),
            link.get("direction").and_then(Value::as_str).unwrap_or(""),
            capacity,
            100.0 * num(link, &["utilization"]),
            count("packets_dropped") + count("packets_lost"),
            count("packets_ce_marked"),
        ));
    }
    out.push_str(&format!("\noutputs in {}\n", out_dir.display()));
    out
}

/// The seam to the simulator core: load, run, write outputs and plots.
pub(crate) mod engine {
    use std::path::{Path, PathBuf};

    use scream_sim::log::{LogOptions, LogReport};
    use scream_sim::scenario::load::{Override, load_named};
    use scream_sim::{RunResult, Scenario};

    use super::Outcome;

    /// Loads and validates a scenario: file path or built-in name, with overrides.
    pub(crate) fn load(scenario: &str, overrides: &[Override]) -> Result<Scenario, String> {
        let loaded: Scenario = load_named(scenario, overrides).map_err(|e| e.to_string())?;
        loaded.validate().map_err(|e| format!("{scenario}: {e}"))?;
        Ok(loaded)
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

    /// Loads `scenario` with `overrides`, runs it and writes its outputs.
    pub(crate) fn simulate(
        scenario: &str,
        overrides: &[Override],
        seed: Option<u64>,
        out: Option<&Path>,
        plots: bool,
        logs: &crate::logs::LogArgs,
        progress: &mut dyn FnMut(f64),
    ) -> Result<Outcome, String> {
        let loaded = load(scenario, overrides)?;
        let out_dir: PathBuf =
            out.map_or_else(|| super::default_out_dir(&loaded.name), Path::to_path_buf);
        std::fs::create_dir_all(&out_dir)
            .map_err(|e| format!("cannot create {}: {e}", out_dir.display()))?;
        let (result, logs) = run_logged(&loaded, seed, Some(progress), logs.open(&out_dir)?)?;
        scream_sim::write_outputs(&result, &out_dir)
            .map_err(|e| format!("cannot write outputs to {}: {e}", out_dir.display()))?;
        if plots {
            let input = scream_sim::plot::PlotInput {
                scenario_name: &result.scenario_name,
                samples: &result.samples,
            };
            scream_sim::plot::write_plots(&input, &out_dir).map_err(|e| e.to_string())?;
        }
        summary_value(&result).map(|summary| Outcome {
            summary,
            out_dir,
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
