//! `scream bench`: simulator speed on two reference scenarios.

use std::time::Instant;

use crate::sim::engine;

/// Runs per scenario; the median is reported.
const RUNS: usize = 3;
/// Simulated seconds of each case under `--quick`.
const QUICK_S: f64 = 2.0;

/// Arguments of `scream bench`.
#[derive(Debug, clap::Args)]
pub(crate) struct BenchArgs {
    /// A smoke run: each case once, over its first 2 simulated seconds (the figures are
    /// then no steady-state speed; checks that the benchmark runs).
    #[arg(long)]
    quick: bool,
}

/// The benchmark scenarios: a built-in name and overrides on it.
const CASES: [(&str, &str, &[&str]); 2] = [
    ("ericsson-default", "ericsson-default", &[]),
    (
        "single flow 100 Mbit/s, 100 s",
        "paper-step-v2",
        &[
            "name=bench-100mbps",
            "link.capacity_mbps=100",
            "link.capacity_steps=[]",
            "flows.0.max_bitrate_mbps=100",
        ],
    ),
];

pub(crate) fn main(args: &BenchArgs) -> Result<String, String> {
    let (runs, extra) = if args.quick {
        (1, vec![format!("duration_s={QUICK_S}")])
    } else {
        (RUNS, Vec::new())
    };
    let mut out = format!(
        "{:<32} {:>14} {:>14} {:>10}\n",
        "scenario", "sim s / wall s", "packets / s", "wall s"
    );
    for (label, scenario, sets) in CASES {
        let sets: Vec<String> = sets
            .iter()
            .map(|s| (*s).to_owned())
            .chain(extra.clone())
            .collect();
        let overrides = crate::parse_overrides(&sets)?;
        let mut timed = Vec::with_capacity(runs);
        for _ in 0..runs {
            let started = Instant::now();
            let summary = engine::run(scenario, &overrides)?;
            let wall_s = started.elapsed().as_secs_f64();
            timed.push((wall_s, summary));
        }
        timed.sort_by(|a, b| a.0.total_cmp(&b.0));
        let (wall_s, summary) = &timed[runs / 2];
        // Packets the flows' senders released.
        let packets: u64 = summary.flows.iter().map(|f| f.packets_sent).sum();
        out.push_str(&format!(
            "{:<32} {:>14.1} {:>14.0} {:>10.3}\n",
            label,
            summary.duration_s / wall_s,
            packets as f64 / wall_s,
            wall_s
        ));
    }
    out.push_str(&if args.quick {
        "(one short run each, --quick: not steady-state speeds)\n".to_owned()
    } else {
        format!("(median of {RUNS} runs each)\n")
    });
    Ok(out)
}
