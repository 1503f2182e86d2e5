//! `scream bench`: simulator speed on two reference scenarios.

use std::time::Instant;

use serde_json::Value;

use crate::sim::engine;

/// Runs per scenario; the median is reported.
const RUNS: usize = 3;
/// RTP payload plus RTP header, for estimating packets when the summary has no count.
const PACKET_BYTES_ESTIMATE: f64 = 1012.0;

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

pub(crate) fn main() -> Result<String, String> {
    let mut out = format!(
        "{:<32} {:>14} {:>14} {:>10}\n",
        "scenario", "sim s / wall s", "packets / s", "wall s"
    );
    for (label, scenario, sets) in CASES {
        let overrides =
            crate::parse_overrides(&sets.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>())?;
        let mut runs = Vec::with_capacity(RUNS);
        for _ in 0..RUNS {
            let started = Instant::now();
            let summary = engine::run(scenario, &overrides)?;
            let wall_s = started.elapsed().as_secs_f64();
            runs.push((wall_s, summary));
        }
        runs.sort_by(|a, b| a.0.total_cmp(&b.0));
        let (wall_s, summary) = &runs[RUNS / 2];
        let duration_s = summary
            .get("duration_s")
            .and_then(Value::as_f64)
            .unwrap_or(0.0);
        out.push_str(&format!(
            "{:<32} {:>14.1} {:>14.0} {:>10.3}\n",
            label,
            duration_s / wall_s,
            packets(summary) / wall_s,
            wall_s
        ));
    }
    out.push_str(&format!("(median of {RUNS} runs each)\n"));
    Ok(out)
}

/// Packets the flows delivered: the summary's count when it has one, else estimated from
/// the throughput.
fn packets(summary: &Value) -> f64 {
    let duration_s = summary
        .get("duration_s")
        .and_then(Value::as_f64)
        .unwrap_or(0.0);
    summary
        .get("flows")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|f| match f.get("packets_sent").and_then(Value::as_f64) {
            Some(n) => n,
            None => {
                let mbps = f
                    .get("throughput_mbps")
                    .and_then(Value::as_f64)
                    .unwrap_or(0.0);
                mbps * 1e6 * duration_s / 8.0 / PACKET_BYTES_ESTIMATE
            }
        })
        .sum()
}
