//! Every built-in scenario with its SCReAM flows switched to `scream-draft00`: it runs,
//! every flow delivers, and no queue grows without bound.

use scream_sim::run;
use scream_sim::scenario::builtin::BUILTINS;
use scream_sim::scenario::load::load_builtin;
use scream_sim::scenario::{Algorithm, Scenario};

mod common;
use common::overrides;

/// The flow algorithm of this generation.
fn algorithm() -> Algorithm {
    Algorithm::named("scream-draft00").expect("a generation of the library")
}

/// Seconds each scenario is squeezed into.
const SECONDS: f64 = 4.0;

/// Built-in scenario `name` (with the shared link traces it names), squeezed into
/// [`SECONDS`], every SCReAM V2 flow turned into a draft-00 one without improvements
/// and without parameters draft-00 does not have.
fn as_draft00(name: &str, text: &str) -> Scenario {
    let set = common::real_trace_overrides(text);
    let refs: Vec<&str> = set.iter().map(String::as_str).collect();
    let mut s: Scenario =
        load_builtin(name, &overrides(&refs)).unwrap_or_else(|e| panic!("{name}: {e}"));
    // Every time in the scenario scales alike.
    let k = SECONDS / s.duration_s;
    s.duration_s = SECONDS;
    s.report_window_s = s.report_window_s.map(|[a, b]| [a * k, b * k]);
    let known = scream::sender::SenderConfig::for_generation("scream-draft00")
        .expect("a known generation")
        .param_names();
    for f in &mut s.flows {
        f.start_s *= k;
        f.stop_s *= k;
        if f.algorithm == Algorithm::default() {
            f.algorithm = algorithm();
            f.improvements.clear();
            f.params.retain(|p, _| known.contains(&p.as_str()));
        }
    }
    s
}

#[test]
fn every_builtin_scenario_runs_with_draft00_flows() {
    let mut switched = 0;
    for b in BUILTINS {
        let s = as_draft00(b.name, b.text);
        let r = run(&s, 1, None).unwrap_or_else(|e| panic!("{}: {e}", b.name));
        for f in &r.summary.flows {
            if f.algorithm != "scream-draft00" {
                continue;
            }
            switched += 1;
            let who = format!("{} / {}", b.name, f.name);
            assert!(f.throughput_mbps > 0.0, "{who}: nothing delivered");
            assert!(f.frames.delivered > 0, "{who}: no frame delivered");
            // The sender's own queue is bounded by its 1 s discard; the network
            // queue by what the OWD target (80 ms) and the links' limits allow.
            assert!(
                f.rtp_queue_delay_ms.max <= 1300.0,
                "{who}: RTP queue {:?}",
                f.rtp_queue_delay_ms
            );
            assert!(
                f.queue_delay_ms.p99 <= 1000.0,
                "{who}: path queue {:?}",
                f.queue_delay_ms
            );
            for x in [f.throughput_mbps, f.target_bitrate_mbps.mean] {
                assert!(x.is_finite(), "{who}: {x}");
            }
        }
    }
    assert!(
        switched >= BUILTINS.len(),
        "only {switched} draft-00 flows ran"
    );
}

#[test]
fn skipped_frames_are_discarded_not_lost() {
    // Feedback dies for a second: the sender is blind, its RTP queue ages past the
    // frame-skip threshold, and frames are skipped on a path that loses nothing.
    let s: Scenario = load_builtin(
        "feedback-blackout",
        &overrides(&[
            "duration_s=5",
            "link.reverse.loss_steps=[[2.0, 1.0], [3.0, 0.0]]",
            "flows.0.algorithm=\"scream-draft00\"",
        ]),
    )
    .expect("a valid scenario");
    let r = run(&s, 1, None).expect("runs");
    let f = &r.summary.flows[0];
    assert!(f.frames.discarded > 0, "{:?}", f.frames);
    assert_eq!(
        f.frames.lost, 0,
        "frames lost on a lossless path: {:?}",
        f.frames
    );
}
