//! Feedback loss and a dead return path (RFC 8888 §5; RFC 8083 §4 asks a sender to cut
//! its rate when feedback stops): the rate falls while the sender hears nothing, comes
//! back when feedback does, and nothing wedges, with the faithful algorithm and with
//! its improvements.

mod common;

use common::mean_over;
use scream_sim::scenario::load::{load_builtin, load_str};
use scream_sim::{RunResult, Scenario, run};

/// The longest run of sample periods in which nothing was sent, s.
fn longest_silence(r: &RunResult, from: f64, to: f64) -> f64 {
    let mut run = 0.0_f64;
    let mut longest = 0.0_f64;
    let mut last_t = from;
    for s in r.samples.iter().filter(|s| s.t_s > from && s.t_s <= to) {
        run = if s.tx_mbps == 0.0 {
            run + (s.t_s - last_t)
        } else {
            0.0
        };
        longest = longest.max(run);
        last_t = s.t_s;
    }
    longest
}

fn with_improvements(mut s: Scenario, names: &[&str]) -> Scenario {
    s.flows[0].improvements = names.iter().map(|n| (*n).to_owned()).collect();
    s
}

const IMPROVEMENT_SETS: [&[&str]; 3] = [&[], &["outage-recovery"], &["all"]];

#[test]
fn a_dead_return_path_lowers_the_rate_and_feedback_brings_it_back() {
    let base: Scenario = load_builtin("feedback-blackout", &[]).unwrap_or_else(|e| panic!("{e}"));
    let mut blind_rates = Vec::new();
    for names in IMPROVEMENT_SETS {
        let r = run(&with_improvements(base.clone(), names), 1, None).unwrap();
        let before = mean_over(&r, "video", 5.0, 10.0, |s| s.tx_mbps);
        // The return path is dead from 10 s to 15 s.
        let blind = mean_over(&r, "video", 11.0, 15.0, |s| s.tx_mbps);
        let after = mean_over(&r, "video", 17.0, 22.0, |s| s.rx_mbps);
        assert!(
            blind < 0.5 * before,
            "{names:?}: {blind} vs {before} Mbit/s"
        );
        assert!(
            after > 0.85 * before,
            "{names:?}: {after} vs {before} Mbit/s"
        );
        assert!(longest_silence(&r, 16.0, 30.0) < 0.3, "{names:?}: wedged");
        blind_rates.push(blind);
    }
    // outage-recovery halves the window at each stall after the first few, so the
    // sender that hears nothing sends less still.
    assert!(
        blind_rates[1] < 0.5 * blind_rates[0],
        "blind rates {blind_rates:?}"
    );
}

#[test]
fn half_of_the_feedback_lost_costs_little_and_wedges_nothing() {
    let text = |reverse_loss: f64| {
        format!(
            r#"
duration_s = 30.0
[link]
capacity_mbps = 10.0
one_way_delay_ms = 25.0
[link.queue]
kind = "tail-drop"
limit_ms = 300.0
[link.reverse]
loss = {reverse_loss}
[[flows]]
name = "video"
max_bitrate_mbps = 20.0
"#
        )
    };
    let load = |loss: f64| -> Scenario {
        load_str(&text(loss), "test.toml", None, &[]).unwrap_or_else(|e| panic!("{e}"))
    };
    let (lossless, lossy) = (load(0.0), load(0.5));
    for names in IMPROVEMENT_SETS {
        let clean = run(&with_improvements(lossless.clone(), names), 1, None).unwrap();
        let r = run(&with_improvements(lossy.clone(), names), 1, None).unwrap();
        let f = &r.summary.flows[0];
        assert!(f.feedback.lost > 0, "{names:?}: feedback was lost");
        let (got, base) = (f.throughput_mbps, clean.summary.flows[0].throughput_mbps);
        assert!(got > 0.9 * base, "{names:?}: {got} vs {base} Mbit/s");
        assert!(longest_silence(&r, 2.0, 30.0) < 0.1, "{names:?}: stalled");
    }
}
