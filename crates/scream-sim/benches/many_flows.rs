//! Cost per flow of a run with many flows: load and check the scenario, build the
//! network, simulate, summarise. Each step must grow linearly with the flows; a step
//! that compares every flow with every other (as the summary once did, filtering the
//! whole time series per flow) shows as a cost per flow that doubles with the flows.
//! A plain timing loop (`cargo bench -p scream-sim --bench many_flows`); prints ms per
//! flow at each size.

#![expect(clippy::print_stdout, reason = "a benchmark reports on stdout")]
#![expect(
    clippy::disallowed_methods,
    clippy::disallowed_types,
    reason = "a benchmark measures real elapsed time"
)]

use std::time::Instant;

use scream_sim::scenario::load::load_checked_str;

/// Simulated time of each run, s: long enough that every flow has rows to summarise.
const DURATION_S: f64 = 1.0;

fn scenario(flows: usize) -> String {
    let mut text = format!(
        "duration_s = {DURATION_S}\n[link]\ncapacity_mbps = 100.0\none_way_delay_ms = 25.0\n"
    );
    for i in 0..flows {
        text.push_str(&format!(
            "[[flows]]\nname = \"f{i}\"\nstart_bitrate_mbps = 0.01\nmin_bitrate_mbps = 0.01\n"
        ));
    }
    text
}

fn main() {
    println!("flows  load ms/flow  run ms/flow");
    for flows in [250, 500, 1000, 2000, 4000] {
        let text = scenario(flows);
        let started = Instant::now();
        let s = load_checked_str(&text, "many.toml", None, &[]).expect("a valid scenario");
        let loaded = started.elapsed();
        let started = Instant::now();
        let result = scream_sim::run(&s, 1, None).expect("runs");
        let ran = started.elapsed();
        assert_eq!(result.summary.flows.len(), flows);
        let per_flow = |d: std::time::Duration| d.as_secs_f64() * 1e3 / flows as f64;
        println!(
            "{flows:>5}  {:>12.3}  {:>11.3}",
            per_flow(loaded),
            per_flow(ran)
        );
    }
}
