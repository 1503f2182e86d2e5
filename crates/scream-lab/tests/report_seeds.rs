//! `scream report` on sweeps with several seeds per point: each point's mean comes with
//! its confidence interval, two variants that share seeds are compared seed by seed,
//! and a sweep with one seed per point gets the report it always had.

use scream_lab::report::{self, Between, Results, comparisons};

const HEADER: &str = "run_id,base,point,axis,transition,cap,seed,status,error,throughput_mbps,qdelay_mean_ms,wall_time_s";

/// Two bases, `a` and `b`, over two values of `cap` (points 0 and 1), four seeds. The
/// seed moves throughput by ±10 Mbit/s on both bases alike; `b` gains about 2 Mbit/s
/// on `a` at `cap` 5 and `cap` 10 adds 20 Mbit/s on `a` whatever the seed. Seed 4 of
/// `b` at point 1 failed, and `b`'s seed 4 at point 0 has no queue delay.
fn seeded() -> Results {
    let rows = [
        "a/p0/s1,a,0,,,5,1,ok,,50,5,0.1",
        "a/p0/s2,a,0,,,5,2,ok,,60,6,0.1",
        "a/p0/s3,a,0,,,5,3,ok,,40,7,0.1",
        "a/p0/s4,a,0,,,5,4,ok,,55,8,0.1",
        "a/p1/s1,a,1,,,10,1,ok,,70,1,0.1",
        "a/p1/s2,a,1,,,10,2,ok,,80,1,0.1",
        "a/p1/s3,a,1,,,10,3,ok,,60,1,0.1",
        "a/p1/s4,a,1,,,10,4,ok,,75,1,0.1",
        "b/p0/s1,b,0,,,5,1,ok,,52.5,4,0.1",
        "b/p0/s2,b,0,,,5,2,ok,,61.5,5,0.1",
        "b/p0/s3,b,0,,,5,3,ok,,42.5,6,0.1",
        "b/p0/s4,b,0,,,5,4,ok,,56.5,,0.1",
        "b/p1/s1,b,1,,,10,1,ok,,71,1,0.1",
        "b/p1/s2,b,1,,,10,2,ok,,83,1,0.1",
        "b/p1/s3,b,1,,,10,3,ok,,62,1,0.1",
        "b/p1/s4,b,1,,,10,4,error,boom,,,0.1",
    ];
    Results::parse(&format!("{HEADER}\n{}\n", rows.join("\n")), "seeded.csv").expect("parses")
}

/// t(0.975, 3) and t(0.975, 2), from any t table.
const T3: f64 = 3.182_446;
const T2: f64 = 4.302_653;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-5
}

#[test]
fn a_points_interval_holds_its_mean_and_is_absent_with_one_seed() {
    let points = seeded().point_means();
    let a0 = &points[0];
    assert_eq!((a0.base.as_str(), a0.point), ("a", 0));
    // 50, 60, 40, 55: mean 51.25, squares about it 218.75, sd √(218.75 / 3).
    let hw = T3 * (218.75f64 / 3.0).sqrt() / 2.0;
    assert_eq!(a0.metrics[0], Some(51.25));
    let got = a0.half_widths[0].expect("an interval");
    assert!(close(got, hw), "{got} {hw}");
    assert_eq!(a0.counts, [4, 4]);
    // One seed left: a mean, no interval.
    let one = Results::parse(
        &format!("{HEADER}\na/p0/s1,a,0,,,5,1,ok,,50,5,0.1\na/p0/s2,a,0,,,5,2,error,x,,,0.1\n"),
        "one.csv",
    )
    .expect("parses")
    .point_means();
    assert_eq!(
        (one[0].metrics[0], one[0].half_widths[0]),
        (Some(50.0), None)
    );
}

#[test]
fn paired_differences_on_a_constructed_file_have_the_known_answer() {
    let results = seeded();
    let points = results.point_means();
    let all = comparisons(&results, &points);
    let find = |between: Between, base: &str, point: usize| {
        all.iter()
            .find(|c| {
                c.between == between
                    && points[c.variant].base == base
                    && points[c.variant].point == point
            })
            .unwrap_or_else(|| panic!("no comparison {between:?} {base} p{point}"))
    };
    // b − a at cap 5: differences 2.5, 1.5, 2.5, 1.5.
    let c = find(Between::Bases, "b", 0);
    assert_eq!((points[c.reference].base.as_str(), c.pairs), ("a", 4));
    let d = c.differences[0].as_ref().expect("throughput");
    assert_eq!(
        (d.pairs, d.mean, d.reference_mean, d.variant_mean),
        (4, 2.0, 51.25, 53.25)
    );
    assert!(close(
        d.half_width.expect("interval"),
        T3 * (1.0f64 / 3.0).sqrt() / 2.0
    ));
    assert!(d.excludes_zero());
    // Queue delay: b's seed 4 has none, so three pairs, each −1.
    let q = c.differences[1].as_ref().expect("queue delay");
    assert_eq!((q.pairs, q.mean, q.sd), (3, -1.0, Some(0.0)));

    // b − a at cap 10: b's seed 4 failed; seeds 1-3 differ by 1, 3, 2.
    let c = find(Between::Bases, "b", 1);
    let d = c.differences[0].as_ref().expect("throughput");
    assert_eq!((c.pairs, d.mean, d.sd), (3, 2.0, Some(1.0)));
    assert!(close(d.half_width.expect("interval"), T2 / 3f64.sqrt()));
    assert!(!d.excludes_zero(), "2 ± 2.48 holds 0");

    // cap 10 − cap 5 on a: +20 on every seed.
    let c = find(Between::Values { param: 0 }, "a", 1);
    assert_eq!(points[c.reference].point, 0);
    let d = c.differences[0].as_ref().expect("throughput");
    assert_eq!((d.pairs, d.mean, d.half_width), (4, 20.0, Some(0.0)));
    assert_eq!(all.len(), 4, "two base pairs and one axis pair per base");
}

#[test]
fn pairing_by_seed_gives_a_narrower_interval_than_either_variant_alone() {
    let results = seeded();
    let points = results.point_means();
    let all = comparisons(&results, &points);
    let c = all
        .iter()
        .find(|c| c.between == Between::Bases && points[c.variant].point == 0)
        .expect("b − a at point 0");
    let paired = c.differences[0]
        .as_ref()
        .and_then(|d| d.half_width)
        .expect("paired");
    for side in [c.reference, c.variant] {
        let own = points[side].half_widths[0].expect("own interval");
        assert!(
            paired * 10.0 < own,
            "paired {paired}, {} alone {own}",
            points[side].base
        );
    }
}

#[test]
fn one_seed_per_point_leaves_the_report_as_it_was() {
    let rows = [
        "a/p0/s1,a,0,,,5,1,ok,,50,5,0.1",
        "a/p1/s1,a,1,,,10,1,ok,,70,1,0.1",
        "b/p0/s1,b,0,,,5,1,ok,,52,4,0.1",
        "b/p1/s1,b,1,,,10,1,ok,,71,1,0.1",
    ];
    let results =
        Results::parse(&format!("{HEADER}\n{}\n", rows.join("\n")), "one.csv").expect("parses");
    let dir = tempfile::tempdir().expect("temp dir");
    let files = report::write_report(&results, "one.csv", dir.path()).expect("written");
    let md = std::fs::read_to_string(dir.path().join(report::REPORT_MD)).expect("report.md");
    assert!(
        !md.contains('±') && !md.contains("Paired differences"),
        "{md}"
    );
    assert!(
        md.contains("| max `throughput_mbps` | 70.00 | 1 | 10 |"),
        "{md}"
    );
    for csv in [report::POINTS_CSV, report::PAIRED_CSV] {
        assert!(!dir.path().join(csv).exists(), "{csv} written");
    }
    assert!(
        files
            .iter()
            .all(|f| f.extension().is_some_and(|e| e != "csv"))
    );
}

#[test]
fn several_seeds_put_intervals_in_the_tables_and_the_numbers_in_csv_files() {
    let dir = tempfile::tempdir().expect("temp dir");
    report::write_report(&seeded(), "seeded.csv", dir.path()).expect("written");
    let md = std::fs::read_to_string(dir.path().join(report::REPORT_MD)).expect("report.md");
    // a at cap 10: 71.25 ± t · sd / 2 with sd √(218.75 / 3): 13.59 reads 14.
    assert!(
        md.contains("| max `throughput_mbps` | 71 ± 14 | 1 | 10 |"),
        "{md}"
    );
    assert!(md.contains("## Paired differences"), "{md}");
    assert!(md.contains("### `b` − `a`, point by point"), "{md}");
    assert!(
        md.contains("| 0 | 5 | 4 | 2.00 ± 0.92 * | -1.000 ± 0 * |"),
        "{md}"
    );
    assert!(
        md.contains("### Base `a`: `cap` against its first value"),
        "{md}"
    );
    assert!(md.contains("| 10 − 5 | 4 | 20.00 ± 0 * |"), "{md}");

    let points = std::fs::read_to_string(dir.path().join(report::POINTS_CSV)).expect("points");
    let mut lines = points.lines();
    assert_eq!(
        lines.next(),
        Some(
            "base,point,axis,transition,cap,seeds_ok,seeds_error,throughput_mbps,\
             throughput_mbps_ci95,throughput_mbps_n,qdelay_mean_ms,qdelay_mean_ms_ci95,\
             qdelay_mean_ms_n"
        )
    );
    assert!(
        lines
            .next()
            .is_some_and(|l| l.starts_with("a,0,,,5,4,0,51.25,13.5")),
        "{points}"
    );
    // b at cap 10: three ok seeds, one error.
    assert!(points.contains("\nb,1,,,10,3,1,72,"), "{points}");

    let paired = std::fs::read_to_string(dir.path().join(report::PAIRED_CSV)).expect("paired");
    assert!(
        paired.contains(
            "\nb,0,a,0,,,,throughput_mbps,4,2,0.57735,0.918693,1.081307,2.918693,53.25,51.25\n"
        ),
        "{paired}"
    );
    assert!(
        paired.contains("\na,1,a,0,cap,10,5,throughput_mbps,4,20,0,0,20,20,71.25,51.25\n"),
        "{paired}"
    );
}
