//! Whole runs with constant-bitrate (controller-free) flows: determinism and capacity
//! models.

use scream_records::timeseries_csv;
use scream_sim::output::summary_json;
use scream_sim::scenario::{Algorithm, FlowConfig, LinkConfig, Scenario, SourceConfig, SourceKind};
use scream_sim::{RunResult, run};

fn fixed_flow(name: &str, mbps: f64) -> FlowConfig {
    FlowConfig {
        name: name.into(),
        algorithm: Algorithm::Cbr,
        start_bitrate_mbps: mbps,
        max_bitrate_mbps: mbps.max(20.0),
        ..FlowConfig::default()
    }
}

fn outputs(r: &RunResult) -> (Vec<u8>, String) {
    (
        summary_json(&r.summary).unwrap(),
        timeseries_csv(&r.samples).unwrap(),
    )
}

fn noisy_scenario() -> Scenario {
    let mut link = LinkConfig {
        capacity_mbps: Some(6.0),
        capacity_steps: vec![[2.0, 3.0], [4.0, 8.0]],
        jitter_ms: 4.0,
        jitter_keep_order: false,
        loss: 0.02,
        reverse: Some(Box::new(LinkConfig {
            capacity_mbps: Some(1.0),
            ..LinkConfig::default()
        })),
        ..LinkConfig::default()
    };
    link.queue.kind = scream_sim::scenario::QueueKind::Codel;
    let mut constant = fixed_flow("constant", 3.0);
    constant.source = SourceConfig {
        kind: SourceKind::VideoConstant,
        ..SourceConfig::default()
    };
    constant.ecn = scream_sim::scenario::EcnSetting::Classic;
    Scenario {
        name: "noisy".into(),
        duration_s: 6.0,
        report_window_s: Some([1.0, 5.0]),
        link: Some(link),
        flows: vec![fixed_flow("trace", 4.0), constant],
        ..Scenario::default()
    }
}

#[test]
fn same_seed_gives_byte_identical_outputs() {
    let s = noisy_scenario();
    let a = outputs(&run(&s, 42, None).unwrap());
    let b = outputs(&run(&s, 42, None).unwrap());
    assert_eq!(a.0, b.0);
    assert_eq!(a.1, b.1);
    // The seed matters: jitter and loss draw differently.
    let c = outputs(&run(&s, 43, None).unwrap());
    assert_ne!(a.1, c.1);
}

#[test]
fn outputs_have_the_contract_shape() {
    let r = run(&noisy_scenario(), 1, None).unwrap();
    let (json, csv) = outputs(&r);
    let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(v["scenario"], "noisy");
    assert_eq!(v["flows"][0]["name"], "trace");
    assert!(v["flows"][0]["queue_delay_ms"]["p99"].is_number());
    assert!(v["flows"][1]["window"]["throughput_mbps"].is_number());
    assert!(
        v["flows"][1]["ce_ratio"].as_f64().unwrap() > 0.0,
        "CoDel never marked ECT(0)"
    );
    assert!(v["flows"][0]["loss_ratio"].as_f64().unwrap() > 0.01);
    let header = csv.lines().next().unwrap();
    assert_eq!(
        header,
        "t_s,flow,stream,target_mbps,tx_mbps,rx_mbps,acked_mbps,ref_window_bytes,\
         bytes_in_flight,srtt_ms,est_queue_delay_ms,sojourn_ms,rtp_queue_delay_ms,\
         frame_size_bytes,rx_packets,ce_packets,ce_packets_total,lost_packets,lost_packets_total,\
         capacity_mbps"
    );
    // 6 s / 20 ms = 300 periods, two flows.
    assert_eq!(r.samples.len(), 600);
    let json_text = String::from_utf8(json).unwrap();
    assert!(
        json_text.contains("\"duration_s\": 6.000000"),
        "{json_text}"
    );
}

#[test]
fn delivered_rate_follows_capacity_steps() {
    // Overload (12 Mbit/s offered) a link stepping 10 -> 5 -> 10 Mbit/s.
    let s = Scenario {
        duration_s: 9.0,
        link: Some(LinkConfig {
            capacity_mbps: Some(10.0),
            capacity_steps: vec![[3.0, 5.0], [6.0, 10.0]],
            one_way_delay_ms: Some(0.0),
            ..LinkConfig::default()
        }),
        flows: vec![{
            let mut f = fixed_flow("v", 12.0);
            f.source.kind = SourceKind::VideoConstant;
            f
        }],
        ..Scenario::default()
    };
    let r = run(&s, 1, None).unwrap();
    for row in r.samples.iter().filter(|r| r.t_s > 0.5) {
        let t = row.t_s;
        // Skip the period straddling a step.
        if (t - 3.0).abs() < 0.03 || (t - 6.0).abs() < 0.03 {
            continue;
        }
        let cap = if (3.0..6.0).contains(&(t - 1e-9)) {
            5.0
        } else {
            10.0
        };
        assert!((row.capacity_mbps - cap).abs() < 1e-9, "t={t}");
        assert!(
            (row.rx_mbps - cap).abs() / cap < 0.07,
            "t={t}: {} vs {cap}",
            row.rx_mbps
        );
    }
    let u = r.summary.links[0].utilization;
    assert!(u > 0.98 && u <= 1.0 + 1e-9, "{u}");
}

#[test]
fn delivered_bytes_follow_a_mahimahi_trace() {
    let Some(trace) = scream_data::for_test("links/mahimahi-Verizon-LTE-short.down") else {
        return;
    };
    let s = Scenario {
        duration_s: 20.0,
        link: Some(LinkConfig {
            trace: Some(trace.display().to_string()),
            one_way_delay_ms: Some(0.0),
            ..LinkConfig::default()
        }),
        flows: vec![{
            let mut f = fixed_flow("v", 30.0);
            f.source.kind = SourceKind::VideoConstant;
            f.max_bitrate_mbps = 30.0;
            f
        }],
        ..Scenario::default()
    };
    let r = run(&s, 1, None).unwrap();
    let link = &r.summary.links[0];
    assert!(link.capacity_mean_mbps > 1.0, "{}", link.capacity_mean_mbps);
    // An overloaded link uses (almost) every opportunity; bytes of opportunities that a
    // smaller packet leaves unused are the only slack.
    assert!(
        link.utilization > 0.95 && link.utilization <= 1.0 + 1e-9,
        "{}",
        link.utilization
    );
    // Second by second, the received rate tracks the trace's rate.
    let mut cap = scream_sim::netmodel::load_capacity_trace(
        &trace,
        scream_sim::netmodel::TraceFormat::Mahimahi,
        &scream_sim::netmodel::TableSpec {
            time_column: 0,
            rate_column: 1,
            unit: scream_sim::netmodel::RateUnit::Mbps,
            end: scream_sim::netmodel::TraceEnd::Loop,
            row_ns: None,
        },
        1500,
    )
    .unwrap();
    for sec in 2..20u64 {
        let got: f64 = r
            .samples
            .iter()
            .filter(|x| x.t_s > sec as f64 - 1.0 + 1e-9 && x.t_s <= sec as f64 + 1e-9)
            .map(|x| x.rx_mbps * 0.02)
            .sum();
        let want = cap.deliverable_bytes(
            scream::Instant::from_millis((sec - 1) * 1000),
            scream::Instant::from_millis(sec * 1000),
        ) * 8.0
            * 1e-6;
        assert!(
            (got - want).abs() <= 0.06 * want + 0.05,
            "second {sec}: {got} vs {want} Mbit"
        );
    }
}

#[test]
fn lumos_table_trace_drives_the_capacity_column() {
    let Some(trace) = scream_data::for_test("links/lumos5g-5g_trace_100_walking.tsv") else {
        return;
    };
    let s = Scenario {
        duration_s: 3.0,
        link: Some(LinkConfig {
            trace: Some(trace.display().to_string()),
            ..LinkConfig::default()
        }),
        flows: vec![fixed_flow("v", 2.0)],
        ..Scenario::default()
    };
    let r = run(&s, 1, None).unwrap();
    // Rows 1.0 -> 91, 2.0 -> 123 Mbit/s, relative to the first time stamp.
    let at = |t: f64| {
        r.samples
            .iter()
            .find(|x| (x.t_s - t).abs() < 1e-6)
            .unwrap()
            .capacity_mbps
    };
    assert!((at(0.5) - 91.0).abs() < 1e-9);
    assert!((at(1.5) - 123.0).abs() < 1e-9);
}

#[test]
fn relative_trace_paths_resolve_against_the_base_dir() {
    let dir = std::env::temp_dir().join(format!("scream-base-dir-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("two-rates.tsv"), "1\t5\n2\t7\n").unwrap();
    let s = Scenario {
        duration_s: 1.0,
        link: Some(LinkConfig {
            trace: Some("two-rates.tsv".into()),
            ..LinkConfig::default()
        }),
        flows: vec![fixed_flow("v", 1.0)],
        base_dir: Some(dir.clone()),
        ..Scenario::default()
    };
    assert!(run(&s, 1, None).is_ok());
    let missing = Scenario {
        base_dir: None,
        ..s
    };
    let e = run(&missing, 1, None).unwrap_err();
    assert!(e.to_string().starts_with("link.trace: cannot read"), "{e}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn invalid_scenarios_are_rejected_before_running() {
    let mut s = noisy_scenario();
    s.flows[0].start_bitrate_mbps = 0.0;
    let e = run(&s, 1, None).map(|_| ()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid scenario: flows[0].start_bitrate_mbps must be a finite number > 0 (is 0)"
    );
}

#[test]
fn progress_is_reported_up_to_completion() {
    let mut seen = Vec::new();
    let mut cb = |x: f64| seen.push(x);
    run(&noisy_scenario(), 1, Some(&mut cb)).unwrap();
    assert!(seen.len() <= 102 && seen.len() > 10, "{}", seen.len());
    assert!(seen.windows(2).all(|w| w[0] <= w[1]));
    assert_eq!(seen.last().copied(), Some(1.0));
}
