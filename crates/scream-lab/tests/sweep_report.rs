//! `scream report`'s analyses on hand-made results: the min/max table picks the right
//! values, seeds are averaged, best and worst follow each metric's direction, and the
//! Pareto front holds exactly the non-dominated points.

use scream_lab::report::{self, Results, best_and_worst, min_max, pareto_front};
use scream_lab::sweep::Better;

const HEADER: &str = "run_id,base,point,axis,transition,a,b,seed,status,error,throughput_mbps,qdelay_mean_ms,wall_time_s";

/// One-at-a-time over `a` (3 values) and `b` (2 values), two seeds per point on base
/// x, one on base y; point 4 of x failed on one seed.
fn one_at_a_time() -> Results {
    let rows = [
        "x/p0/s1,x,0,a,0,1,,1,ok,,10,5,0.1",
        "x/p0/s2,x,0,a,0,1,,2,ok,,12,7,0.1",
        "x/p1/s1,x,1,a,1,2,,1,ok,,20,9,0.1",
        "x/p1/s2,x,1,a,1,2,,2,ok,,20,9,0.1",
        "x/p2/s1,x,2,a,2,3,,1,ok,,15,2,0.1",
        "x/p2/s2,x,2,a,2,3,,2,ok,,15,2,0.1",
        "x/p3/s1,x,3,b,0,,low,1,ok,,8,1,0.1",
        "x/p3/s2,x,3,b,0,,low,2,ok,,8,1,0.1",
        "x/p4/s1,x,4,b,1,,high,1,ok,,30,4,0.1",
        "x/p4/s2,x,4,b,1,,high,2,error,boom,,,0.1",
        "y/p0/s1,y,0,a,0,1,,1,ok,,1,1,0.1",
        "y/p1/s1,y,1,a,1,2,,1,ok,,1,1,0.1",
    ];
    Results::parse(&format!("{HEADER}\n{}\n", rows.join("\n")), "hand.csv").expect("parses")
}

#[test]
fn min_max_picks_each_parameters_extremes_and_where_they_occur() {
    let r = one_at_a_time();
    assert_eq!(r.params, ["a", "b"]);
    assert_eq!(r.metrics, ["throughput_mbps", "qdelay_mean_ms"]);
    let points = r.point_means();
    let t = min_max(&points, &r.params, "x", 0);
    assert_eq!(t.len(), 2);
    assert_eq!(t[0].axis, "a");
    // Seed means: 11, 20, 15.
    assert_eq!((t[0].min, t[0].min_at.as_str()), (11.0, "1"));
    assert_eq!((t[0].max, t[0].max_at.as_str()), (20.0, "2"));
    assert_eq!((t[1].min, t[1].min_at.as_str()), (8.0, "low"));
    // The failed seed does not count: the mean is the one ok seed's.
    assert_eq!((t[1].max, t[1].max_at.as_str()), (30.0, "high"));
    let d = min_max(&points, &r.params, "x", 1);
    assert_eq!(
        (
            d[0].min,
            d[0].min_at.as_str(),
            d[0].max,
            d[0].max_at.as_str()
        ),
        (2.0, "3", 9.0, "2")
    );
    let y = min_max(&points, &r.params, "y", 0);
    assert_eq!(y.len(), 1, "base y varies only a");
    assert_eq!(
        (y[0].min_at.as_str(), y[0].max_at.as_str()),
        ("1", "1"),
        "first on a tie"
    );
}

#[test]
fn seeds_are_averaged_and_errors_counted_per_point() {
    let points = one_at_a_time().point_means();
    assert_eq!(points.len(), 7);
    let p0 = &points[0];
    assert_eq!(
        (p0.base.as_str(), p0.point, p0.seeds, p0.errors),
        ("x", 0, 2, 0)
    );
    assert_eq!(p0.metrics, [Some(11.0), Some(6.0)]);
    let p4 = &points[4];
    assert_eq!((p4.seeds, p4.errors), (1, 1));
    assert_eq!(points[5].base, "y");
}

#[test]
fn best_and_worst_follow_the_metrics_direction() {
    let points = one_at_a_time().point_means();
    let (best, worst) = best_and_worst(&points, "x", 0, Better::Higher).expect("values");
    assert_eq!((best.point, worst.point), (4, 3));
    let (best, worst) = best_and_worst(&points, "x", 1, Better::Lower).expect("values");
    assert_eq!((best.point, worst.point), (3, 1));
    assert!(best_and_worst(&points, "x", 1, Better::Neither).is_none());
}

#[test]
fn the_pareto_front_is_exactly_the_non_dominated_points() {
    // (throughput, delay)
    let pts = [
        (10.0, 5.0),  // 0: front
        (8.0, 6.0),   // 1: dominated by 0
        (12.0, 9.0),  // 2: front
        (12.0, 10.0), // 3: dominated by 2 (same throughput, more delay)
        (3.0, 1.0),   // 4: front (least delay)
        (20.0, 30.0), // 5: front (most throughput)
        (10.0, 5.0),  // 6: equal to 0: only the first is kept
        (f64::NAN, 1.0),
        (9.0, 4.0), // 8: front
    ];
    assert_eq!(pareto_front(&pts), [4, 8, 0, 2, 5]);
    assert!(pareto_front(&[]).is_empty());
}

#[test]
fn a_file_that_is_not_a_results_file_is_refused_with_the_column() {
    let e = Results::parse("a,b\n1,2\n", "x.csv").expect_err("refused");
    assert!(e.to_string().contains("no column `run_id`"), "{e}");
    let bad = format!("{HEADER}\nx/p0/s1,x,0,,,1,2,1,ok,,fast,1,0.1\n");
    let e = Results::parse(&bad, "x.csv").expect_err("refused");
    assert!(
        e.to_string().contains("line 2") && e.to_string().contains("throughput_mbps"),
        "{e}"
    );
    // A row cut short by a sweep still writing is left out, not an error.
    let partial = format!("{HEADER}\nx/p0/s1,x,0,,,1,2,1,ok,,3,1,0.1\nx/p1/s1,x,1,,\n");
    let r = Results::parse(&partial, "x.csv").expect("parses");
    assert_eq!((r.rows.len(), r.incomplete_rows), (1, 1));
}

#[test]
fn a_damaged_row_or_a_run_twice_is_refused_naming_the_line() {
    let good = "x/p0/s1,x,0,,,1,2,1,ok,,3,1,0.1";
    let refused = |rows: &[&str]| {
        let text = format!("{HEADER}\n{}\n", rows.join("\n"));
        Results::parse(&text, "r.csv")
            .expect_err("refused")
            .to_string()
    };
    // A short row that is not the last is damage, not a sweep still writing.
    assert_eq!(
        refused(&["x/p1/s1,x,1,,", good]),
        "r.csv: line 2: 5 cells where the header has 13"
    );
    assert_eq!(
        refused(&[good, "x/p0/s2,x,0,,,1,2,1,ok,,3,1,0.1"]),
        "r.csv: line 3: run_id is \"x/p0/s2\", but base, point and seed make it \"x/p0/s1\""
    );
    assert_eq!(
        refused(&[good, "x/p1/s1,x,1,,,1,2,1,ok,,3,1,0.1", good]),
        "r.csv: line 4: run x/p0/s1 is also on line 2; a run has one row"
    );
    assert!(refused(&["x/p0/s1,x,0,,,1,2,1,maybe,,3,1,0.1"]).starts_with("r.csv: line 2: status"));
    // The last row without its newline is being written: left out and counted.
    let r = Results::parse(
        &format!("{HEADER}\n{good}\nx/p1/s1,x,1,,,1,2,1,ok,,3,1,0.1"),
        "r.csv",
    )
    .expect("parses");
    assert_eq!((r.rows.len(), r.incomplete_rows), (1, 1));
}

#[test]
fn the_report_has_its_tables_and_figures() {
    let dir = std::env::temp_dir().join(format!("scream-report-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let files = report::write_report(&one_at_a_time(), "hand.csv", &dir).expect("written");
    let md = std::fs::read_to_string(dir.join(report::REPORT_MD)).expect("report.md");
    // Two seeds per point: 10 and 12 give 11 ± t(0.975, 1) · √2 / √2 = 11 ± 12.7; two
    // equal seeds, no spread.
    assert!(md.contains("| `a` | 11 ± 13 | 1 | 20.00 ± 0 | 2 |"), "{md}");
    assert!(md.contains("## Failed runs") && md.contains("boom"), "{md}");
    assert!(md.contains("### Pareto front"), "{md}");
    for name in [
        "oat-x-throughput_mbps.svg",
        "oat-y-qdelay_mean_ms.png",
        "pareto.svg",
    ] {
        assert!(dir.join(name).is_file(), "{name} missing");
        assert!(
            md.contains(name) || name.ends_with(".png"),
            "{name} not linked"
        );
    }
    assert!(files.iter().all(|f| f.is_file()));
    // No factorial points: no per-experiment series.
    assert!(!dir.join("series-throughput_mbps.svg").exists());
    let _ = std::fs::remove_dir_all(&dir);
}
