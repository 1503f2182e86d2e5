//! After competing traffic has squeezed a SCReAM V2 flow to its minimum rate, the
//! flow gets the link back once it is alone on it, with the improvements a sender on a
//! real network runs with (`Improvements::real_network`, `scream send`'s default).
//!
//! The faithful algorithm may not: the reference follows a falling RTT with gain
//! 1/1024 while the window is application-limited, so an sRTT swollen by the
//! overload's queue keeps the target low, which keeps the window application-limited
//! (see `fresh-srtt` in the library's `Improvements`). That weakness is the
//! reference's, kept on purpose in the simulator's default sender; this test pins
//! that the real-network default does not have it.

mod common;

use common::mean_over;
use scream::sender::Improvements;
use scream_sim::scenario::load::load_str;
use scream_sim::{RunResult, Scenario, run};

/// When the competing traffic stops, s.
const ALONE_FROM: f64 = 15.0;
const CAPACITY_MBPS: f64 = 10.0;

/// A delay-based video flow on 10 Mbit/s (25 ms each way, 300 ms tail drop) that
/// shares the link with `cross` (a flow table's keys) from 5 s to 15 s, then runs
/// alone for 30 s.
fn scenario(cross: &str) -> Scenario {
    let text = format!(
        r#"
duration_s = 45.0
[link]
capacity_mbps = {CAPACITY_MBPS}
one_way_delay_ms = 25.0
[link.queue]
kind = "tail-drop"
limit_ms = 300.0
[[flows]]
name = "video"
max_bitrate_mbps = 20.0
[[flows]]
name = "cross"
start_s = 5.0
stop_s = {ALONE_FROM}
{cross}
"#
    );
    let mut s: Scenario = load_str(&text, "test.toml", None, &[]).unwrap_or_else(|e| panic!("{e}"));
    s.flows[0].improvements = Improvements::real_network()
        .enabled()
        .into_iter()
        .map(str::to_owned)
        .collect();
    s
}

/// Seconds from `ALONE_FROM` until the video's received rate, averaged over 1 s,
/// first reaches 80 % of the link.
fn recovery_s(r: &RunResult) -> Option<f64> {
    let rows: Vec<(f64, f64)> = r
        .samples
        .iter()
        .filter(|s| &*s.flow == "video" && s.t_s > ALONE_FROM)
        .map(|s| (s.t_s, s.rx_mbps))
        .collect();
    rows.iter().enumerate().find_map(|(i, &(t, _))| {
        let window: Vec<f64> = rows[i..]
            .iter()
            .take_while(|(u, _)| *u < t + 1.0)
            .map(|(_, rx)| *rx)
            .collect();
        let mean = window.iter().sum::<f64>() / window.len().max(1) as f64;
        (mean >= 0.8 * CAPACITY_MBPS).then_some(t - ALONE_FROM)
    })
}

#[test]
fn the_real_network_default_recovers_the_link_within_8_s_after_an_overload() {
    let crosses = [
        // Unresponsive: 120 % of the link.
        "algorithm = \"cbr\"\nstart_bitrate_mbps = 12.0\nmin_bitrate_mbps = 12.0\nmax_bitrate_mbps = 12.0",
        "algorithm = \"tcp-newreno\"",
    ];
    let mut failed = vec![];
    for cross in crosses {
        let s = scenario(cross);
        for seed in [1, 2, 3] {
            let r = run(&s, seed, None).unwrap();
            let case = format!("{} seed {seed}", cross.lines().next().unwrap_or(cross));
            let squeezed = mean_over(&r, "video", 10.0, ALONE_FROM, |s| s.rx_mbps);
            assert!(
                squeezed < 0.5 * CAPACITY_MBPS,
                "{case}: {squeezed} Mbit/s shared"
            );
            match recovery_s(&r) {
                Some(t) if t <= 8.0 => {}
                other => failed.push(format!("{case}: recovered after {other:?} s")),
            }
            let after = mean_over(&r, "video", ALONE_FROM + 10.0, 45.0, |s| s.rx_mbps);
            if after < 0.8 * CAPACITY_MBPS {
                failed.push(format!("{case}: {after} Mbit/s alone"));
            }
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}
