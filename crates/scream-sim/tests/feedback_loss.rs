//! Feedback loss and a dead return path (RFC 8888 §5; RFC 8083 §4 asks a sender to cut
//! its rate when feedback stops): the rate falls while the sender hears nothing, comes
//! back when feedback does, and nothing wedges, with the faithful algorithm and with
//! its improvements.

mod common;

use std::io::{self, Write};
use std::sync::{Arc, Mutex};

use common::mean_over;
use scream_sim::log::LogOptions;
use scream_sim::scenario::load::{load_builtin, load_str};
use scream_sim::{RunResult, Scenario, run, run_with_logs};

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
    // outage-recovery sends one window and then one probe per probe timeout while it
    // hears nothing, so the sender that hears nothing sends less still.
    assert!(
        blind_rates[1] < 0.5 * blind_rates[0],
        "blind rates {blind_rates:?}"
    );
}

/// The event log of a run, as the congestion-control events it holds.
struct Events(Vec<serde_json::Value>);

impl Events {
    fn of(scenario: &Scenario, seed: u64) -> (RunResult, Self) {
        let sink = Sink::default();
        let logs = LogOptions {
            events: Some(Box::new(sink.clone())),
            ..LogOptions::default()
        };
        let (r, _) = run_with_logs(scenario, seed, None, logs).unwrap();
        let text = String::from_utf8(sink.0.lock().unwrap().clone()).unwrap();
        let events = text
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        (r, Self(events))
    }

    fn count(&self, event: &str, cause: Option<&str>) -> usize {
        self.0
            .iter()
            .filter(|e| e["event"] == event)
            .filter(|e| cause.is_none_or(|c| e["cause"] == c))
            .count()
    }
}

/// A writer whose bytes the test reads afterwards.
#[derive(Clone, Default)]
struct Sink(Arc<Mutex<Vec<u8>>>);

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Half of the reports lost on the way back, on 4 and 10 Mbit/s: the goodput stays
/// within 10 % of the same run's without feedback loss (was 80-85 % at 4 Mbit/s), no
/// delivered packet is taken for a loss by loss detection (the forward path loses
/// nothing), and the stall guard, which gives up a whole flight as lost, acts at most
/// once in 30 s (was three to seven times at 4 Mbit/s), with the faithful algorithm
/// and with its improvements.
#[test]
fn half_of_the_feedback_lost_costs_little_and_wedges_nothing() {
    let text = |capacity: f64, reverse_loss: f64| {
        format!(
            r#"
duration_s = 30.0
[link]
capacity_mbps = {capacity}
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
    let load = |capacity: f64, loss: f64| -> Scenario {
        load_str(&text(capacity, loss), "test.toml", None, &[]).unwrap_or_else(|e| panic!("{e}"))
    };
    let mut failed = vec![];
    for capacity in [4.0, 10.0] {
        let (lossless, lossy) = (load(capacity, 0.0), load(capacity, 0.5));
        for names in [&[][..], &["all"][..]] {
            for seed in [1, 2, 3] {
                let clean = run(&with_improvements(lossless.clone(), names), seed, None).unwrap();
                let (r, events) = Events::of(&with_improvements(lossy.clone(), names), seed);
                let case = format!("{capacity} Mbit/s, {names:?}, seed {seed}");
                let f = &r.summary.flows[0];
                assert!(f.feedback.lost > 0, "{case}: feedback was lost");
                assert_eq!(
                    f.packets_lost + f.packets_dropped,
                    0,
                    "{case}: media was lost"
                );
                let (got, base) = (f.throughput_mbps, clean.summary.flows[0].throughput_mbps);
                if got < 0.9 * base {
                    failed.push(format!("{case}: {got} vs {base} Mbit/s"));
                }
                let loss_backoffs = events.count("backoff", Some("loss"));
                if loss_backoffs > 0 {
                    failed.push(format!("{case}: {loss_backoffs} back-offs on losses"));
                }
                let stalls = events.count("stall", None);
                if stalls > 1 {
                    failed.push(format!("{case}: {stalls} stalls"));
                }
                // One stall is half a second without sending; a wedged sender is silent
                // for longer.
                let silence = longest_silence(&r, 2.0, 30.0);
                if silence >= 0.6 {
                    failed.push(format!("{case}: silent for {silence} s"));
                }
            }
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}
