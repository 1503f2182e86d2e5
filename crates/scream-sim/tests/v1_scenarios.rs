//! Every built-in scenario with its SCReAM flows switched to `scream-v1` (RFC 8298 as
//! the Ericsson code ran it), squeezed into a few seconds: the runs finish and their
//! results are sane.

use scream::sender::SenderConfig;
use scream_sim::scenario::builtin::BUILTINS;
use scream_sim::scenario::load::load_builtin;
use scream_sim::scenario::model::Algorithm;

mod common;
use common::overrides;
use scream_sim::{Scenario, run};

/// The flow algorithm of this generation.
fn algorithm() -> Algorithm {
    Algorithm::named("scream-v1").expect("a generation of the library")
}

/// Simulated seconds per scenario.
const SECONDS: f64 = 4.0;

/// The built-in scenario `name` with every SCReAM flow running `scream-v1`, its
/// improvements cleared and parameters V1 does not know left out, over `SECONDS`.
fn v1_variant(name: &str, text: &str) -> Scenario {
    let set = common::real_trace_overrides(text);
    let refs: Vec<&str> = set.iter().map(String::as_str).collect();
    let mut s: Scenario =
        load_builtin(name, &overrides(&refs)).unwrap_or_else(|e| panic!("{name}: {e}"));
    let known = SenderConfig::for_generation("scream-v1")
        .expect("scream-v1 exists")
        .param_names();
    let k = SECONDS / s.duration_s;
    s.duration_s = SECONDS;
    s.report_window_s = s.report_window_s.map(|[a, b]| [a * k, b * k]);
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
fn every_builtin_scenario_runs_with_scream_v1() {
    for b in BUILTINS {
        let s = v1_variant(b.name, b.text);
        assert!(
            s.flows.iter().any(|f| f.algorithm == algorithm()),
            "{}: no SCReAM flow",
            b.name
        );
        let r = run(&s, 1, None).unwrap_or_else(|e| panic!("{}: {e}", b.name));
        for (f, cfg) in r.summary.flows.iter().zip(&s.flows) {
            if cfg.algorithm != algorithm() {
                continue;
            }
            assert_eq!(f.algorithm, "scream-v1");
            let who = format!("{} / {}", b.name, f.name);
            // A flow that starts within the run delivers media.
            if cfg.start_s < SECONDS - 1.0 {
                assert!(f.packets_received > 0, "{who}: nothing delivered");
                assert!(f.throughput_mbps > 0.0, "{who}");
            }
            assert!(f.throughput_mbps.is_finite(), "{who}");
            assert!(
                f.target_bitrate_mbps.mean.is_finite() && f.target_bitrate_mbps.mean >= 0.0,
                "{who}: target {:?}",
                f.target_bitrate_mbps
            );
            // The sender's own queue-delay estimate is what the rows show: finite and
            // within the run.
            let est = &f.estimated_queue_delay_ms;
            assert!(
                !est.mean.is_nan() && est.mean < SECONDS * 1000.0,
                "{who}: {est:?}"
            );
            assert!(f.srtt_ms.mean.is_nan() || f.srtt_ms.mean < 5000.0, "{who}");
        }
    }
}

#[test]
fn scream_v1_holds_a_low_queue_on_the_ericsson_l4s_scenario() {
    let b = scream_sim::scenario::builtin::find("ericsson-default").expect("built in");
    let mut s = v1_variant(b.name, b.text);
    // Back to its full length, to reach the steady state after the capacity dip,
    // with the ramp-up the studies used (the library default, 0.2 Mbit/s per second,
    // needs most of the run to regain the rate).
    s.duration_s = 20.0;
    s.report_window_s = Some([10.0, 20.0]);
    s.flows[0].params.insert("ramp_up_speed".to_owned(), 10e6);
    s.flows[0].params.insert("ramp_up_scale".to_owned(), 1.0);
    let r = run(&s, 1, None).expect("runs");
    let f = &r.summary.flows[0];
    let w = f.window.as_ref().expect("report window");
    assert!(w.throughput_mbps > 5.0, "{}", w.throughput_mbps);
    assert!(f.packets_ce > 0, "the L4S ramp never marked");
    assert!(f.queue_delay_ms.p95 < 60.0, "{:?}", f.queue_delay_ms);
}
