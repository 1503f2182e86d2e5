//! `scream study lte` end to end: a short run of two users with both algorithms writes
//! a report with every cell filled, and a second call reuses the cells.

use scream_lab::study::lte::{self, CellOutcome, Setup};

#[test]
fn a_tiny_study_writes_every_cell_of_the_report() {
    let out = std::env::temp_dir().join(format!("scream-lte-study-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let setup = Setup {
        users: vec![1, 2],
        loads_mbps: vec![2.0],
        algorithms: vec!["scream-v2".into(), "gcc".into()],
        trace: "synthetic:lte".into(),
        duration_s: 4.0,
        seed: 1,
    };
    let progress = |_: usize, _: usize| {};
    let options = lte::Options {
        setup: &setup,
        out_dir: &out,
        executor: &scream_lab::LocalExecutor::new(2),
        fresh: false,
        progress: &progress,
    };
    let results = lte::execute::run(&options).expect("runs");
    assert_eq!(results.len(), 4);
    for r in &results {
        let CellOutcome::Done(m) = &r.outcome else {
            panic!("{:?}: {:?}", r.cell, r.outcome)
        };
        assert_eq!(m.users.len(), r.cell.users, "{:?}", r.cell);
        assert!(m.bitrate_mbps > 0.0, "{:?}: {m:?}", r.cell);
        // One-way delay is at least the 20 ms of propagation.
        assert!(m.packet_delay_ms >= 20.0, "{:?}: {m:?}", r.cell);
        assert!(m.frame_delay_ms > 0.0, "{:?}: {m:?}", r.cell);
        assert!(m.capacity_mbps > 0.0);
        assert!(!r.reused);
    }
    let written = lte::report::write(&out, &setup, &results, "scream study lte").expect("report");
    assert!(written.iter().all(|p| p.exists()));
    let text = std::fs::read_to_string(out.join(lte::report::REPORT_MD)).expect("report.md");
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("| 1 |") || l.starts_with("| 2 |"))
        .collect();
    assert_eq!(rows.len(), 2, "{text}");
    for row in rows {
        // users + 2 algorithms x 6 columns, every one a number.
        let cells: Vec<&str> = row.trim_matches('|').split('|').map(str::trim).collect();
        assert_eq!(cells.len(), 13, "{row}");
        assert!(cells.iter().all(|c| c.parse::<f64>().is_ok()), "{row}");
    }
    for f in ["frame-delay", "packet-delay", "bitrate"] {
        assert!(out.join(format!("{f}.png")).exists(), "{f}");
        assert!(text.contains(&format!("({f}.png)")), "{f}");
    }
    let again = lte::execute::run(&options).expect("runs again");
    assert!(again.iter().all(|r| r.reused));
    // cell.json keeps what the report prints (JSON may round the last bit of a float).
    assert_eq!(
        lte::report::render(&setup, &again, "x", true),
        lte::report::render(&setup, &results, "x", true)
    );
    let _ = std::fs::remove_dir_all(&out);
}
