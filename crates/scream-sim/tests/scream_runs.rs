//! Whole runs with the SCReAM sender and receiver on the built-in scenarios.

use scream_records::timeseries_csv;
use scream_sim::output::summary_json;
use scream_sim::scenario::builtin::BUILTINS;
use scream_sim::scenario::load::load_builtin;

mod common;
use common::overrides;
use scream_sim::{Scenario, run};

#[test]
fn ericsson_default_is_byte_identical_across_runs() {
    let s: Scenario = load_builtin("ericsson-default", &[]).unwrap();
    let a = run(&s, 7, None).unwrap();
    let b = run(&s, 7, None).unwrap();
    assert_eq!(
        summary_json(&a.summary).unwrap(),
        summary_json(&b.summary).unwrap()
    );
    assert_eq!(
        timeseries_csv(&a.samples).unwrap(),
        timeseries_csv(&b.samples).unwrap()
    );
}

#[test]
fn ericsson_default_adapts_to_the_bottleneck() {
    let s: Scenario = load_builtin("ericsson-default", &[]).unwrap();
    let r = run(&s, 1, None).unwrap();
    let f = &r.summary.flows[0];
    // Capacity averages 8.5 Mbit/s over the run; the flow starts at 1 Mbit/s.
    assert!(
        f.throughput_mbps > 4.0 && f.throughput_mbps < 8.6,
        "{}",
        f.throughput_mbps
    );
    assert!(f.packets_ce > 0, "the L4S ramp never marked");
    assert!(f.queue_delay_ms.mean < 20.0, "{:?}", f.queue_delay_ms);
    assert!(f.frame_delay_ms.count > 500);
    let w = f.window.as_ref().unwrap();
    assert!(
        w.throughput_mbps > 6.0,
        "steady state {}",
        w.throughput_mbps
    );
    // The sender's own view is sampled.
    assert!(
        r.samples
            .iter()
            .any(|x| x.srtt_ms > Some(40.0) && x.ref_window_bytes > Some(0.0))
    );
}

#[test]
fn every_builtin_scenario_runs() {
    for b in BUILTINS {
        let set = common::real_trace_overrides(b.text);
        let refs: Vec<&str> = set.iter().map(String::as_str).collect();
        let mut s: Scenario =
            load_builtin(b.name, &overrides(&refs)).unwrap_or_else(|e| panic!("{}: {e}", b.name));
        // Squeeze the scenario into 3 s: every time in it scales alike.
        let k = 3.0 / s.duration_s;
        s.duration_s = 3.0;
        for f in &mut s.flows {
            f.start_s *= k;
            f.stop_s *= k;
        }
        s.report_window_s = s.report_window_s.map(|[a, b]| [a * k, b * k]);
        let r = run(&s, 1, None).unwrap_or_else(|e| panic!("{}: {e}", b.name));
        assert!(
            r.summary.flows.iter().all(|f| f.packets_received > 0),
            "{}: a flow delivered nothing",
            b.name
        );
    }
}

/// Speed check for release builds: `cargo test --release -p scream-sim --test
/// scream_runs -- --ignored` under `time`.
#[test]
#[ignore = "speed measurement, run explicitly in release mode"]
fn speed_100s_100mbps_single_flow() {
    let s: Scenario = load_builtin(
        "ericsson-default",
        &overrides(&[
            "duration_s=100",
            "link.capacity_mbps=100",
            "link.capacity_steps=[]",
            "flows.0.max_bitrate_mbps=100",
        ]),
    )
    .unwrap();
    let r = run(&s, 1, None).unwrap();
    assert!(
        r.summary.flows[0].throughput_mbps > 20.0,
        "{}",
        r.summary.flows[0].throughput_mbps
    );
}

#[test]
#[ignore = "speed measurement, run explicitly in release mode"]
fn speed_ericsson_default() {
    let s: Scenario = load_builtin("ericsson-default", &[]).unwrap();
    assert!(run(&s, 1, None).is_ok());
}

#[test]
fn feedback_through_the_rfc8888_codec_works_like_direct_handover() {
    let bytes: Scenario =
        load_builtin("ericsson-default", &overrides(&["feedback_as_bytes=true"])).unwrap();
    let direct: Scenario =
        load_builtin("ericsson-default", &overrides(&["feedback_as_bytes=false"])).unwrap();
    let a = run(&bytes, 1, None).unwrap().summary.flows[0].throughput_mbps;
    let b = run(&direct, 1, None).unwrap().summary.flows[0].throughput_mbps;
    // The codec quantises arrival times (RFC 8888 §3.1, 1/1024 s), nothing more.
    assert!((a - b).abs() / b < 0.1, "codec {a} vs direct {b}");
}
