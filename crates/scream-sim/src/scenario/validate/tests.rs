use super::*;
use crate::scenario::model::{LinkConfig, StreamConfig};

#[test]
fn default_scenario_is_valid() {
    assert_eq!(Scenario::default().validate(), Ok(()));
}

#[test]
fn inverted_ramp_names_the_key() {
    let mut s = Scenario::default();
    if let Some(l) = s.link.as_mut() {
        l.queue.l4s_ramp.ramp_max_ms = 4.0;
    }
    let e = s.validate().unwrap_err();
    assert_eq!(
        e.to_string(),
        "link.queue.ramp_max_ms must be > ramp_min_ms"
    );
}

#[test]
fn unknown_link_in_a_flow_path_is_rejected() {
    let mut s = Scenario::default();
    s.flows[0].path = vec!["nowhere".into()];
    assert_eq!(s.validate().unwrap_err().key, "flows[0].path[0]");
}

#[test]
fn link_and_links_together_are_rejected() {
    let s = Scenario {
        links: vec![LinkConfig::default()],
        ..Scenario::default()
    };
    assert_eq!(s.validate().unwrap_err().key, "links");
}

fn flow_error(f: impl FnOnce(&mut crate::scenario::FlowConfig)) -> ValidationError {
    let mut s = Scenario::default();
    f(&mut s.flows[0]);
    s.validate().unwrap_err()
}

#[test]
fn streams_and_flow_level_stream_keys_together_are_rejected() {
    let e = flow_error(|f| {
        f.streams = vec![StreamConfig::default()];
        f.max_bitrate_mbps = 50.0;
    });
    assert_eq!(
        e.to_string(),
        "flows[0].max_bitrate_mbps cannot be set on a flow with [[flows.streams]]: set it \
         on each stream"
    );
}

#[test]
fn stream_values_are_checked_under_their_own_key() {
    let e = flow_error(|f| {
        f.streams = vec![
            StreamConfig::default(),
            StreamConfig {
                priority: 0.0,
                ..StreamConfig::default()
            },
        ];
    });
    assert_eq!(e.key, "flows[0].streams[1].priority");
    let e = flow_error(|f| {
        f.streams = vec![StreamConfig::default(), StreamConfig::default()];
        f.streams[1].name = "stream0".into();
    });
    assert_eq!(e.key, "flows[0].streams[1].name");
}

#[test]
fn a_reverse_direction_has_no_name_and_no_reverse_of_its_own() {
    let mut s = Scenario::default();
    let link = s.link.as_mut().unwrap();
    link.reverse = Some(Box::new(LinkConfig {
        name: "back".into(),
        ..LinkConfig::default()
    }));
    assert_eq!(s.validate().unwrap_err().key, "link.reverse.name");
    let link = s.link.as_mut().unwrap();
    link.reverse = Some(Box::new(LinkConfig {
        reverse: Some(Box::default()),
        ..LinkConfig::default()
    }));
    assert_eq!(s.validate().unwrap_err().key, "link.reverse.reverse");
}

#[test]
fn capacity_may_be_unlimited_but_not_negative_or_nan() {
    let mut s = Scenario::default();
    s.link.as_mut().unwrap().capacity_mbps = Some(f64::INFINITY);
    assert_eq!(s.validate(), Ok(()));
    for bad in [-1.0, f64::NAN] {
        s.link.as_mut().unwrap().capacity_mbps = Some(bad);
        assert_eq!(s.validate().unwrap_err().key, "link.capacity_mbps");
    }
}

#[test]
fn loss_schedules_take_probabilities_in_time_order_and_bursts_of_at_least_one() {
    let mut s = Scenario::default();
    s.link.as_mut().unwrap().loss_steps = vec![[1.0, 0.5], [0.5, 0.0]];
    assert_eq!(s.validate().unwrap_err().key, "link.loss_steps[1]");
    s.link.as_mut().unwrap().loss_steps = vec![[1.0, 1.5]];
    assert_eq!(s.validate().unwrap_err().key, "link.loss_steps[0][1]");
    s.link.as_mut().unwrap().loss_steps = vec![];
    s.link.as_mut().unwrap().loss_burst_packets = 0.5;
    assert_eq!(s.validate().unwrap_err().key, "link.loss_burst_packets");
}

#[test]
fn absurd_durations_and_sample_counts_are_rejected_with_the_limit() {
    let s = Scenario {
        duration_s: 1e12,
        ..Scenario::default()
    };
    let e = s.validate().unwrap_err();
    assert_eq!(e.key, "duration_s");
    assert_eq!(e.reason, "must be in (0, 1e6] s (is 1e12)");
    let s = Scenario {
        duration_s: 1e5,
        sample_interval_ms: 1.0,
        ..Scenario::default()
    };
    let e = s.validate().unwrap_err();
    assert_eq!(e.key, "sample_interval_ms");
    assert!(e.reason.contains("use a longer interval"), "{e}");
}

#[test]
fn an_unknown_improvement_is_named_with_the_known_ones() {
    let e = flow_error(|f| f.improvements = vec!["all".into(), "warp-drive".into()]);
    assert_eq!(e.key, "flows[0].improvements");
    assert!(e.reason.contains("\"warp-drive\""), "{e}");
    for known in Improvements::names() {
        assert!(e.reason.contains(known), "{e} lacks {known}");
    }
}

#[test]
fn improvements_are_for_scream_flows_only() {
    let e = flow_error(|f| {
        f.algorithm = Algorithm::Cbr;
        f.improvements = vec!["all".into()];
    });
    assert_eq!(e.key, "flows[0].improvements");
    assert!(e.reason.contains("scream-v2"), "{e}");
    let mut s = Scenario::default();
    s.flows[0].improvements = Improvements::names()
        .iter()
        .map(|n| (*n).to_owned())
        .collect();
    assert_eq!(s.validate(), Ok(()));
}

#[test]
fn unnamed_links_in_a_list_are_rejected() {
    let s = Scenario {
        link: None,
        links: vec![LinkConfig::default()],
        ..Scenario::default()
    };
    assert_eq!(s.validate().unwrap_err().key, "links[0].name");
}

#[test]
fn a_maximum_below_the_minimum_is_refused_but_a_start_outside_them_is_not() {
    let e = flow_error(|f| {
        f.min_bitrate_mbps = 5.0;
        f.max_bitrate_mbps = 2.0;
    });
    assert_eq!(
        e.to_string(),
        "flows[0].max_bitrate_mbps must be >= min_bitrate_mbps"
    );
    // The sender brings the start into [min, max], as a study sweeping the minimum past
    // its registered start needs.
    let mut s = Scenario::default();
    s.flows[0].min_bitrate_mbps = 5.0;
    s.flows[0].start_bitrate_mbps = 1.0;
    assert_eq!(s.validate(), Ok(()));
    s.duration_s = 0.5;
    let r = crate::run(&s, 1, None).unwrap();
    let first = r.samples.first().and_then(|x| x.target_mbps).unwrap();
    assert!(
        (first - 5.0).abs() < 1e-9,
        "the first target is the minimum: {first}"
    );
}

#[test]
fn reports_never_come_less_often_than_their_window_covers() {
    let e = flow_error(|f| {
        f.report_window = 8;
        f.packets_per_report = 16;
    });
    assert_eq!(e.key, "flows[0].packets_per_report");
    assert!(e.reason.contains("report_window (8)"), "{e}");
    let e = flow_error(|f| f.report_window = 0);
    assert_eq!(e.key, "flows[0].report_window");
    let mut s = Scenario::default();
    s.flows[0].report_window = 1;
    s.flows[0].packets_per_report = 1;
    s.validate()
        .expect("one report per packet, covering it alone");
}
