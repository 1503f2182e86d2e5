//! The RMCAT suite's structure against RFC 8867: each case file's parameters (the
//! section's testbed attributes), its audio sources (§4.3), the path every case shares
//! (§4.2, with its 30 ms jitter), §6.3's three links, the criteria of §5.4, variations
//! that reach the reverse direction where §5.3 congests it, and one run per seed. No
//! simulation results are pinned here.

use scream_lab::suite::cases::{self, Criterion, SuiteCase};
use scream_lab::suite::execute::{self, Cell, Options};
use scream_lab::suite::{Variation, select};
use scream_sim::Scenario;
use scream_sim::scenario::load::{Override, load_str};
use scream_sim::scenario::{Algorithm, FlowConfig, LinkConfig, QueueKind, TcpTraffic};

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

/// The video flows (the media flows under test), in file order.
fn video(s: &Scenario) -> Vec<&FlowConfig> {
    s.flows
        .iter()
        .filter(|f| matches!(f.algorithm, Algorithm::Scream(_)))
        .collect()
}

/// The audio sources (constant bitrate), in file order.
fn audio(s: &Scenario) -> Vec<&FlowConfig> {
    s.flows
        .iter()
        .filter(|f| f.algorithm == Algorithm::Cbr)
        .collect()
}

fn starts_stops(s: &Scenario) -> Vec<(f64, f64)> {
    video(s).iter().map(|f| (f.start_s, f.stop_s)).collect()
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
        // §6.3's flow S1 crosses both bottlenecks: each has half the end-to-end bound.
        let (bound, sigma) = if c.name == "rmcat-6.3" {
            (15.0, 5.0)
        } else {
            (30.0, 10.0)
        };
        for l in bottlenecks {
            assert_eq!(l.jitter_max_ms, Some(bound), "{}: §4.2 jitter", c.name);
            assert_eq!(l.jitter_ms, sigma, "{}", c.name);
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
        starts_stops(&s),
        [(0.0, 119.0), (20.0, 119.0), (40.0, 119.0)]
    );
    assert_eq!(
        (video(&s).len(), audio(&s).len(), s.flows.len()),
        (3, 3, 6),
        "§5.4: three video and three audio sources, no cross traffic"
    );
    let s = file("rmcat-5.5");
    assert_eq!(s.duration_s, 300.0);
    let delays: Vec<f64> = s.links[1..]
        .iter()
        .map(|l| l.one_way_delay_ms.expect("delay"))
        .collect();
    assert_eq!(delays, [10.0, 25.0, 50.0, 100.0, 150.0]);
    assert_eq!(
        starts_stops(&s),
        [0.0, 10.0, 20.0, 30.0, 40.0].map(|t| (t, 299.0))
    );
    let s = file("rmcat-5.8");
    let paused: Vec<&[[f64; 2]]> = video(&s).iter().map(|f| f.pauses.as_slice()).collect();
    assert_eq!(paused, [&[][..], &[[40.0, 60.0]][..], &[][..]]);
    assert!(
        audio(&s).iter().all(|a| a.pauses.is_empty()),
        "§5.8: the audio goes on"
    );
}

#[test]
fn section_5_7_starts_two_short_flows_on_and_eight_off() {
    for name in ["rmcat-5.7", "rmcat-5.7bis"] {
        let s = file(name);
        assert_eq!(starts_stops(&s), [(5.0, 299.0), (5.0, 299.0)], "{name}");
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

#[test]
fn every_case_pairs_each_video_flow_with_a_20_kbit_s_cbr_audio_source() {
    for c in cases::all() {
        let s = file(c.name);
        let (v, a) = (video(&s), audio(&s));
        assert!(!v.is_empty(), "{}", c.name);
        assert_eq!(v.len(), a.len(), "{}: one audio source per video", c.name);
        for (v, a) in v.iter().zip(&a) {
            // §4.3: CBR, 20 kbit/s; 20 ms packets: 50 bytes with the RTP header.
            assert_eq!(a.start_bitrate_mbps, 0.02, "{} {}", c.name, a.name);
            assert_eq!(a.params.get("mss_bytes"), Some(&38.0), "{}", c.name);
            // The audio has its video's timeline and path.
            assert_eq!(
                (a.start_s, a.stop_s, &a.path, a.direction),
                (v.start_s, v.stop_s, &v.path, v.direction),
                "{} {}",
                c.name,
                a.name
            );
        }
        // Only the video flows are under test: the suite substitutes them alone.
        let cell = Cell {
            case: 0,
            variation: Variation::DEFAULT.for_case(c.facts.delay_axis, c.facts.queue_axis),
            algorithm: "nada".into(),
            seed: 1,
        };
        let (layout, list) = execute::overrides(&c, &cell, &[]).expect("overrides");
        assert_eq!(layout.media.len(), v.len(), "{}", c.name);
        let subbed: Scenario = load_str(
            c.text,
            c.name,
            None,
            &list
                .iter()
                .map(|o| o.parse().expect("override"))
                .collect::<Vec<Override>>(),
        )
        .expect("loads");
        assert_eq!(
            subbed
                .flows
                .iter()
                .filter(|f| f.algorithm == Algorithm::Nada)
                .count(),
            v.len(),
            "{}",
            c.name
        );
        assert_eq!(
            audio(&subbed).len(),
            a.len(),
            "{}: audio left as written",
            c.name
        );
    }
}

#[test]
fn section_5_1_runs_at_both_of_its_delays() {
    let at = |name: &str| link(&file(name)).one_way_delay_ms;
    assert_eq!(at("rmcat-5.1"), Some(50.0));
    assert_eq!(at("rmcat-5.1-100ms"), Some(100.0));
    // The 100 ms case keeps its delay in every variation.
    let c = case("5.1-100ms");
    let v = Variation::parse("d10-j30-tail").expect("known");
    assert_eq!(link(&loaded(&c, v, 1)).one_way_delay_ms, Some(100.0));
    assert_eq!(
        link(&file("rmcat-5.1-100ms")).capacity_steps,
        link(&file("rmcat-5.1")).capacity_steps
    );
}

#[test]
fn section_6_3_has_three_links_and_the_rfc_s_one_way_delays() {
    let s = file("rmcat-6.3");
    assert_eq!(s.duration_s, 300.0);
    let caps: Vec<(String, Option<f64>)> = s
        .links
        .iter()
        .map(|l| (l.name.clone(), l.capacity_mbps))
        .collect();
    assert_eq!(
        caps,
        [
            ("A-B".to_owned(), Some(2.0)),
            ("B-C".to_owned(), Some(8.0)),
            ("C-D".to_owned(), Some(1.5))
        ],
        "reference 2 Mbit/s, ratios 1.0, 4.0, 0.75"
    );
    let delay = |f: &FlowConfig| -> f64 {
        f.path
            .iter()
            .map(|n| {
                let l = s.links.iter().find(|l| &l.name == n).expect("link");
                l.one_way_delay_ms.expect("delay")
            })
            .sum()
    };
    let v = video(&s);
    assert_eq!(
        v.iter().map(|f| delay(f)).collect::<Vec<_>>(),
        [100.0, 40.0, 40.0]
    );
    assert_eq!(v[0].path, ["A-B", "B-C", "C-D"]);
    assert_eq!(
        (v[1].path.as_slice(), v[2].path.as_slice()),
        (&["A-B".to_owned()][..], &["C-D".to_owned()][..])
    );
    assert_eq!(starts_stops(&s), [(0.0, 299.0); 3]);
    assert!(
        s.flows.iter().all(|f| f.tcp.is_none()),
        "no competing traffic"
    );
    // The end-to-end jitter bound of S1, which crosses both bottlenecks, is §4.2's.
    let jitter: f64 = v[0]
        .path
        .iter()
        .map(|n| {
            s.links
                .iter()
                .find(|l| &l.name == n)
                .expect("link")
                .effective_jitter_max_ms()
        })
        .sum();
    assert_eq!(jitter, 30.0);
    let c = case("6.3");
    assert_eq!(c.facts.bottlenecks, ["A-B", "C-D"]);
    assert!(c.facts.criteria.contains(&Criterion::MinFlowShare(0.5)));
    assert!(c.facts.criteria.contains(&Criterion::MinUtilisation(0.8)));
}

#[test]
fn fairness_not_convergence_judges_the_joining_and_pausing_cases() {
    for name in ["5.4", "5.8"] {
        let c = case(name);
        assert!(
            c.facts
                .criteria
                .contains(&Criterion::MinJain(cases::FAIR_JAIN)),
            "{name}"
        );
        assert_eq!(cases::FAIR_JAIN, 0.9);
        assert!(
            !c.facts
                .criteria
                .iter()
                .any(|k| matches!(k, Criterion::MaxConvergenceS(_))),
            "{name}: convergence is reported, not judged"
        );
    }
    // §6.2 is judged against the algorithm's own run without ECN.
    let c = case("6.2-l4s");
    assert!(c.facts.ecn_baseline);
    assert!(
        c.facts
            .criteria
            .iter()
            .any(|k| matches!(k, Criterion::EcnShareVsDelayBased(_)))
    );
}
