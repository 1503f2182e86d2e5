//! The RMCAT suite's structure against RFC 8867: each case file's parameters (the
//! section's testbed attributes), the path every case shares (§4.2, with its 30 ms
//! jitter), variations that reach the reverse direction where §5.3 congests it, and
//! one run per seed. No simulation results are pinned here.

use scream_lab::suite::cases::{self, SuiteCase};
use scream_lab::suite::execute::{self, Cell, Options};
use scream_lab::suite::{Variation, select};
use scream_sim::Scenario;
use scream_sim::scenario::load::{Override, load_str};
use scream_sim::scenario::{LinkConfig, QueueKind, TcpTraffic};

fn case(name: &str) -> SuiteCase {
    select(cases::all(), &[name.to_owned()])
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("no case {name}"))
}

/// The case as the suite runs it in `variation` with scream-v2 and `seed`.
fn loaded(c: &SuiteCase, variation: Variation, seed: u64) -> Scenario {
    let cell = Cell {
        case: 0,
        variation: variation.for_case(c.facts.delay_axis, c.facts.queue_axis),
        algorithm: "scream-v2".into(),
        seed,
    };
    let (_, list) = execute::overrides(c, &cell, &[]).expect("overrides");
    let parsed: Vec<Override> = list.iter().map(|o| o.parse().expect("override")).collect();
    let s: Scenario = load_str(c.text, c.name, None, &parsed).expect("loads");
    s.validate().expect("valid");
    s
}

/// The case file alone, as `scream sim` runs it.
fn file(name: &str) -> Scenario {
    let c = case(name);
    load_str(c.text, c.name, None, &[]).expect("loads")
}

fn link(s: &Scenario) -> &LinkConfig {
    s.link.as_ref().expect("one link")
}

fn starts_stops(s: &Scenario, media: usize) -> Vec<(f64, f64)> {
    s.flows[..media]
        .iter()
        .map(|f| (f.start_s, f.stop_s))
        .collect()
}

#[test]
fn every_case_file_has_the_rfc_path_with_its_30_ms_jitter() {
    for c in cases::all() {
        let s = file(c.name);
        let bottlenecks: Vec<&LinkConfig> = match &s.link {
            Some(l) => vec![l],
            None => s
                .links
                .iter()
                .filter(|l| c.facts.bottlenecks.contains(&l.name.as_str()))
                .collect(),
        };
        assert!(!bottlenecks.is_empty(), "{}", c.name);
        for l in bottlenecks {
            assert_eq!(l.jitter_max_ms, Some(30.0), "{}: §4.2 jitter", c.name);
            assert_eq!(l.jitter_ms, 10.0, "{}", c.name);
            let limit = l.queue.limit.limit_ms;
            let expected = if c.name == "rmcat-5.6-1000ms" {
                1000.0
            } else {
                300.0
            };
            assert_eq!(limit, expected, "{}: queue size", c.name);
            if !c.name.starts_with("rmcat-6.") {
                assert_eq!(l.queue.kind, QueueKind::TailDrop, "{}", c.name);
            }
        }
        if c.facts.delay_axis && c.name != "rmcat-6.3" {
            assert_eq!(link(&s).one_way_delay_ms, Some(50.0), "{}", c.name);
        }
    }
}

#[test]
fn the_default_variation_is_the_rfc_path_and_changes_nothing_in_it() {
    assert_eq!(Variation::DEFAULT.to_string(), "d50-j30-tail");
    for name in ["5.1", "5.3", "5.7"] {
        let c = case(name);
        assert_eq!(
            loaded(&c, Variation::DEFAULT, 1).link,
            file(c.name).link,
            "{name}"
        );
    }
}

#[test]
fn the_capacity_timelines_and_flows_are_the_rfc_tables() {
    let s = file("rmcat-5.1");
    assert_eq!(s.duration_s, 100.0);
    assert_eq!(link(&s).capacity_mbps, Some(1.0));
    assert_eq!(
        link(&s).capacity_steps,
        [[40.0, 2.5], [60.0, 0.6], [80.0, 1.0]]
    );
    let s = file("rmcat-5.2");
    assert_eq!(s.duration_s, 125.0);
    assert_eq!(link(&s).capacity_mbps, Some(4.0));
    assert_eq!(
        link(&s).capacity_steps,
        [[25.0, 2.0], [50.0, 3.5], [75.0, 1.0], [100.0, 2.0]]
    );
    let s = file("rmcat-5.3");
    assert_eq!(
        link(&s).capacity_steps,
        [[20.0, 1.0], [40.0, 0.5], [60.0, 2.0]]
    );
    let back = link(&s)
        .reverse
        .as_deref()
        .expect("§5.3 has a reverse bottleneck");
    assert_eq!(back.capacity_mbps, Some(2.0));
    assert_eq!(back.capacity_steps, [[35.0, 0.8], [70.0, 2.0]]);
    assert_eq!(back.jitter_max_ms, Some(30.0));
    assert_eq!(back.one_way_delay_ms, Some(50.0));
    let s = file("rmcat-5.4");
    assert_eq!((s.duration_s, link(&s).capacity_mbps), (120.0, Some(3.5)));
    assert_eq!(
        starts_stops(&s, 3),
        [(0.0, 119.0), (20.0, 119.0), (40.0, 119.0)]
    );
    assert_eq!(
        s.flows.len(),
        3,
        "§5.4: three video flows, no audio, no cross traffic"
    );
    let s = file("rmcat-5.5");
    assert_eq!(s.duration_s, 300.0);
    let delays: Vec<f64> = s.links[1..]
        .iter()
        .map(|l| l.one_way_delay_ms.expect("delay"))
        .collect();
    assert_eq!(delays, [10.0, 25.0, 50.0, 100.0, 150.0]);
    assert_eq!(
        starts_stops(&s, 5),
        [0.0, 10.0, 20.0, 30.0, 40.0].map(|t| (t, 299.0))
    );
    let s = file("rmcat-5.8");
    let paused: Vec<&[[f64; 2]]> = s.flows.iter().map(|f| f.pauses.as_slice()).collect();
    assert_eq!(paused, [&[][..], &[[40.0, 60.0]][..], &[][..]]);
}

#[test]
fn section_5_7_starts_two_short_flows_on_and_eight_off() {
    for name in ["rmcat-5.7", "rmcat-5.7bis"] {
        let s = file(name);
        assert_eq!(starts_stops(&s, 2), [(5.0, 299.0), (5.0, 299.0)], "{name}");
        let short: Vec<_> = s.flows.iter().filter_map(|f| f.tcp.as_ref()).collect();
        assert_eq!(short.len(), 10, "{name}");
        assert!(short.iter().all(|t| t.traffic == TcpTraffic::OnOff
            && (t.object_min_kb, t.object_max_kb) == (30.0, 50.0)));
        let on = short.iter().filter(|t| !t.start_idle).count();
        assert_eq!((on, short.len() - on), (2, 8), "{name}: 2 ON, 8 OFF");
        let idle = if name == "rmcat-5.7" { 10.0 } else { 50.0 };
        assert!(short.iter().all(|t| t.idle_mean_s == idle), "{name}");
    }
}

#[test]
fn variations_change_both_directions_where_the_case_congests_the_reverse_path() {
    let v = Variation::parse("d10-j5-codel").expect("known");
    let s = loaded(&case("5.3"), v, 1);
    let fwd = link(&s);
    let back = fwd.reverse.as_deref().expect("reverse");
    for l in [fwd, back] {
        assert_eq!(l.one_way_delay_ms, Some(10.0));
        assert_eq!(l.jitter_max_ms, Some(5.0));
        assert_eq!(l.queue.kind, QueueKind::Codel);
    }
    // Elsewhere the reverse path stays as the file has it (unconstrained).
    let s = loaded(&case("5.1"), v, 1);
    assert_eq!(link(&s).one_way_delay_ms, Some(10.0));
    assert!(link(&s).reverse.is_none());
}

#[test]
fn every_seed_is_a_cell_of_its_own_and_the_seed_of_its_run() {
    let cases = [case("5.1"), case("5.7")];
    let algorithms = ["scream-v2".to_owned(), "gcc-libwebrtc".to_owned()];
    let variations = Variation::axes();
    let seeds = [1, 2, 3, 4, 5];
    let options = Options {
        cases: &cases,
        algorithms: &algorithms,
        variations: &variations,
        seeds: &seeds,
        extra: &[],
        out_dir: std::path::Path::new("unused"),
        executor: &scream_lab::LocalExecutor::new(1),
        fresh: false,
        figures: false,
        progress: &|_, _| {},
    };
    let cells = execute::cells(&options);
    assert_eq!(cells.len(), 2 * 6 * 2 * 5);
    for seed in seeds {
        assert_eq!(cells.iter().filter(|c| c.seed == seed).count(), 24);
    }
    assert_eq!(loaded(&cases[1], Variation::DEFAULT, 4).seed, 4);
}
