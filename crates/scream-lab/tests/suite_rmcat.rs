//! The RMCAT suite (`scream_lab::suite`): its case files, the substitution of the media
//! flows' algorithm, error cells, resume, and the report's cells. Runs are cut to a
//! few seconds with a `duration_s` override.

use scream_lab::suite::cases::{self, CaseFacts, Criterion, SuiteCase};
use scream_lab::suite::execute::{self, Cell, CellOutcome, Options};
use scream_lab::suite::report;
use scream_lab::suite::substitute::Layout;
use scream_lab::suite::{Variation, select};
use scream_sim::Scenario;
use scream_sim::scenario::load::{Override, load_str};

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("scream-suite-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn load(case: &SuiteCase, overrides: &[String]) -> Result<Scenario, String> {
    let parsed: Vec<Override> = overrides
        .iter()
        .map(|o| o.parse().expect("override"))
        .collect();
    let s: Scenario = load_str(case.text, case.name, None, &parsed).map_err(|e| e.to_string())?;
    s.validate().map_err(|e| e.to_string())?;
    Ok(s)
}

#[test]
fn every_case_file_names_its_media_cites_its_section_and_loads() {
    let all = cases::all();
    assert_eq!(all.len(), 15);
    for c in &all {
        let layout = Layout::read(c.text).unwrap_or_else(|e| panic!("{}: {e}", c.name));
        assert!(!layout.media.is_empty(), "{}", c.name);
        assert!(c.text.contains("RFC 8867 §"), "{} cites no section", c.name);
        for algorithm in ["scream-v1", "gcc"] {
            let cell = Cell {
                case: 0,
                variation: Variation::DEFAULT.for_case(c.facts.delay_axis, c.facts.queue_axis),
                algorithm: algorithm.into(),
                seed: 1,
            };
            let (_, overrides) = execute::overrides(c, &cell, &[]).expect("overrides");
            let s = load(c, &overrides).unwrap_or_else(|e| panic!("{} {algorithm}: {e}", c.name));
            assert_eq!(
                s.sample_interval_ms, 200.0,
                "{}: RFC 8868 §2 sampling",
                c.name
            );
        }
    }
}

/// A case of our own with `cbr` standing in for the cross traffic.
const WITH_CROSS: &str = r#"
name = "cross"
description = "two media flows and a cbr cross flow"
duration_s = 6.0
sample_interval_ms = 200.0
[link]
capacity_mbps = 2.0
one_way_delay_ms = 20.0
[[flows]]
min_bitrate_mbps = 0.15
start_bitrate_mbps = 0.15
max_bitrate_mbps = 1.5
[[flows]]
algorithm = "scream-v1"
[[flows]]
algorithm = "cbr"
start_bitrate_mbps = 0.5
"#;

const FACTS: CaseFacts = CaseFacts {
    bottlenecks: &["bottleneck"],
    reverse_bottleneck: false,
    delay_axis: true,
    queue_axis: true,
    shared: true,
    jitter_split: 1.0,
    ecn_baseline: false,
    criteria: &[Criterion::MinShare(0.1)],
};

#[test]
fn the_substitution_replaces_only_the_media_flows() {
    let case = SuiteCase {
        name: "cross",
        text: WITH_CROSS,
        facts: FACTS,
    };
    let v = Variation::parse("d10-j5-codel").expect("known");
    let cell = Cell {
        case: 0,
        variation: v,
        algorithm: "scream-draft00".into(),
        seed: 3,
    };
    let (layout, overrides) = execute::overrides(&case, &cell, &[]).expect("overrides");
    assert_eq!(layout.media, [0, 1]);
    let s = load(&case, &overrides).expect("loads");
    let names: Vec<&str> = s.flows.iter().map(|f| f.algorithm.name()).collect();
    assert_eq!(names, ["scream-draft00", "scream-draft00", "cbr"]);
    assert_eq!(s.flows[2].params.get("max_rtp_queue_delay"), None);
    assert_eq!(s.flows[0].params.get("max_rtp_queue_delay"), Some(&2.0));
    let link = s.link.as_ref().expect("one link");
    assert_eq!(link.one_way_delay_ms, Some(10.0));
    assert_eq!(link.jitter_max_ms, Some(5.0));
    assert_eq!(link.queue.kind, scream_sim::scenario::QueueKind::Codel);
    assert_eq!(s.seed, 3, "the cell's seed is the run's");
}

#[test]
fn a_matrix_records_failing_cases_as_errors_reuses_cells_and_reports_every_cell() {
    let mut list = select(cases::all(), &["5.1".into(), "rmcat-5.6".into()]);
    assert_eq!(list.len(), 2);
    list.push(SuiteCase {
        name: "cross",
        text: WITH_CROSS,
        facts: FACTS,
    });
    // A case whose file is broken: an error cell, not the end of the suite.
    list.push(SuiteCase {
        name: "broken",
        text: "duration_s = 6\n[link]\n[[flows]]\nmax_bitrate_mbps = -1\n",
        facts: FACTS,
    });
    // An algorithm this build does not know makes error cells, as a broken case does.
    let algorithms = vec![
        "scream-v2".to_owned(),
        "gcc".to_owned(),
        "no-such-cc".to_owned(),
    ];
    let dir = temp("matrix");
    let options = Options {
        cases: &list,
        algorithms: &algorithms,
        variations: &[Variation::DEFAULT],
        seeds: &[1],
        extra: &["duration_s=6".to_owned()],
        out_dir: &dir,
        executor: &scream_lab::LocalExecutor::new(2),
        fresh: false,
        figures: true,
        progress: &|_, _| {},
    };
    let results = execute::run(&options).expect("runs");
    assert_eq!(results.len(), list.len() * algorithms.len());
    let outcome = |case: &str, alg: &str| {
        results
            .iter()
            .find(|r| list[r.cell.case].name == case && r.cell.algorithm == alg)
            .map(|r| r.outcome.clone())
            .expect("cell")
    };
    for alg in ["scream-v2", "gcc"] {
        assert!(
            matches!(outcome("rmcat-5.1", alg), CellOutcome::Done(_)),
            "{alg}"
        );
        assert!(
            matches!(outcome("cross", alg), CellOutcome::Done(_)),
            "{alg}"
        );
        // The long TCP flow runs beside the media and is not measured as media.
        match outcome("rmcat-5.6", alg) {
            CellOutcome::Done(m) => assert_eq!(m.flows.len(), 1, "{alg}"),
            CellOutcome::Error(e) => panic!("rmcat-5.6 {alg}: {e}"),
        }
        match outcome("broken", alg) {
            CellOutcome::Error(e) => assert!(e.contains("max_bitrate_mbps"), "{e}"),
            CellOutcome::Done(_) => panic!("a broken case ran"),
        }
    }
    for case in ["rmcat-5.1", "rmcat-5.6", "cross"] {
        match outcome(case, "no-such-cc") {
            CellOutcome::Error(e) => assert!(e.contains("no-such-cc"), "{e}"),
            CellOutcome::Done(_) => panic!("{case} ran with an unknown algorithm"),
        }
    }
    let CellOutcome::Done(m) = outcome("cross", "scream-v2") else {
        unreachable!()
    };
    assert_eq!(m.flows.len(), 2, "only the media flows are measured");
    assert!(
        dir.join("cells/rmcat-5.1/d50-j30-tail/scream-v2/seed-1/throughput.png")
            .is_file()
    );

    let text = report::render(&list, &algorithms, &results);
    for case in &list {
        let row = text
            .lines()
            .find(|l| l.starts_with(&format!("| {} | d50-j30-tail |", case.name)))
            .unwrap_or_else(|| panic!("{} missing from the verdicts", case.name));
        assert_eq!(row.matches(" | ").count(), 1 + algorithms.len(), "{row}");
        assert!(text.contains(&format!("\n## {}\n", case.name)));
    }
    assert_eq!(
        text.matches("| d50-j30-tail | no-such-cc | 0/1 (1 error) |")
            .count(),
        list.len()
    );

    // A second call reuses every finished cell.
    let again = execute::run(&options).expect("runs");
    assert!(again.iter().all(|r| r.reused));
    let verdicts = |rs: &[execute::CellResult]| -> Vec<String> {
        rs.iter()
            .map(|r| match &r.outcome {
                CellOutcome::Error(e) => e.clone(),
                CellOutcome::Done(m) => format!(
                    "{} {:.6}",
                    report::verdict_text(&list[r.cell.case], &r.outcome),
                    m.share
                ),
            })
            .collect()
    };
    assert_eq!(verdicts(&again), verdicts(&results));
    let _ = std::fs::remove_dir_all(&dir);
}
