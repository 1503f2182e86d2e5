//! `scream report --compare-published`'s scorer on hand-made results and a hand-made
//! paper: exact, ±1 and same-end marks, published sets and `default`, ties of ours,
//! `all (no effect)` set apart, chance levels, the defaults and hybrid averages, and the
//! errors for an unknown study, a missing parameter and a value off the paper's grid.

use scream_lab::report::Results;
use scream_lab::report::published::{
    AxisKey, AxisMap, CompareError, Design, L4s, Mapping, MetricMap, PublishedMetric,
    PublishedStudy, SENSORS2023_MAPPING, Sensors2023, compare, compare_setups,
};

const TABLE2: &str = "abbreviation,rfc8298_name,unit,default,margins\n\
A,ALPHA,1,0.3,0.1-1\n\
B,BETA,ms,20,10-100\n";
const TABLE5: &str = "abbreviation,v1,v2,v3,v4,v5,v6,v7,v8,v9,v10\n\
A,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0\n\
B,10,20,30,40,50,60,70,80,90,100\n";
const SUMMARY: &str = "study,figure,l4s,metric,unit,value,source\n\
standalone,default,off,throughput,Mbit/s,30,made up\n\
standalone,default,off,srtt,us,5000,made up\n\
hybrid,mean,off,throughput,Mbit/s,25,made up\n";

/// B is in ms in the paper and in seconds on our axis.
const MAPPING: Mapping = Mapping {
    axes: &[
        AxisMap {
            abbreviation: "A",
            keys: &[AxisKey {
                key: "a",
                scale: 1.0,
            }],
        },
        AxisMap {
            abbreviation: "B",
            keys: &[
                AxisKey {
                    key: "b_old",
                    scale: 1.0,
                },
                AxisKey {
                    key: "b",
                    scale: 1e-3,
                },
            ],
        },
    ],
    metrics: &[
        MetricMap {
            metric: PublishedMetric::Throughput,
            column: "throughput_mbps",
            unit: "Mbit/s",
        },
        MetricMap {
            metric: PublishedMetric::Srtt,
            column: "srtt_ms",
            unit: "ms",
        },
    ],
    bases: &[(L4s::Off, "off")],
};

fn paper(rows: &str) -> Sensors2023 {
    let tables = format!("table,metric,l4s,unit,abbreviation,end,value,at\n{rows}");
    Sensors2023::parse(TABLE2, TABLE5, &tables, SUMMARY).expect("paper parses")
}

/// One-at-a-time results of base `off`: A and B over their ten values (B in seconds),
/// throughput and sRTT per value.
fn results(a: [(f64, f64); 10], b: [(f64, f64); 10]) -> Results {
    Results::parse(&results_text(a, b), "hand.csv").expect("results parse")
}

fn results_text(a: [(f64, f64); 10], b: [(f64, f64); 10]) -> String {
    let mut text =
        "run_id,base,point,axis,transition,a,b,seed,status,error,throughput_mbps,srtt_ms,wall_time_s\n"
            .to_owned();
    for (i, (t, s)) in a.iter().enumerate() {
        let v = 0.1 * (i + 1) as f64;
        text += &format!("off/p{i}/s1,off,{i},a,{i},{v},,1,ok,,{t},{s},0.1\n");
    }
    for (i, (t, s)) in b.iter().enumerate() {
        let p = 10 + i;
        let v = 0.01 * (i + 1) as f64;
        text += &format!("off/p{p}/s1,off,{p},b,{i},,{v},1,ok,,{t},{s},0.1\n");
    }
    text
}

fn ramp(f: impl Fn(usize) -> f64) -> [(f64, f64); 10] {
    std::array::from_fn(|i| (f(i), 5.0))
}

#[test]
fn exact_within_one_and_same_end_are_told_apart() {
    // Ours: throughput of A rises to its maximum at index 6, lowest at 0.
    let a = ramp(|i| if i <= 6 { i as f64 } else { 1.0 });
    let b = ramp(|i| 10.0 - i as f64);
    let p = paper(
        "10,throughput,off,Mbit/s,A,min,1,0.1\n\
         10,throughput,off,Mbit/s,A,max,9,0.6\n\
         10,throughput,off,Mbit/s,B,min,1,60\n\
         10,throughput,off,Mbit/s,B,max,9,40\n",
    );
    let c = compare(&results(a, b), &p, &MAPPING).expect("compares");
    assert_eq!(c.design, Design::OneAtATime);
    let marks: Vec<_> = c
        .positions
        .iter()
        .map(|p| {
            let m = p.marks.expect("scored");
            (m.exact, m.within_one, m.same_end)
        })
        .collect();
    // A min: ours 0.1 = theirs. A max: ours 0.7 vs 0.6, a step apart in the upper half.
    // B min: ours 100 (index 9) vs 60 (5): upper half, 4 steps. B max: ours 10 vs 40.
    assert_eq!(
        marks,
        [
            (true, true, true),
            (false, true, true),
            (false, false, true),
            (false, false, true)
        ]
    );
    assert_eq!(c.positions[1].ours.as_ref().unwrap().indexes, [6]);
    assert_eq!(c.positions[1].ours.as_ref().unwrap().value, 6.0);
    let s = &c.overall;
    assert_eq!(
        (s.scoreable, s.exact, s.within_one, s.same_end),
        (4, 1, 2, 4)
    );
    // One published index each: exact 1/10; ±1 covers 2 values at the edge (index 0)
    // and 3 elsewhere; one half is 5 of the ten.
    assert!((s.chance.exact - 0.1).abs() < 1e-12);
    assert!((s.chance.within_one - (0.2 + 0.3 + 0.3 + 0.3) / 4.0).abs() < 1e-12);
    assert!((s.chance.same_end - 0.5).abs() < 1e-12);
    assert_eq!(c.columns.len(), 1, "one metric, one L4S mode");
}

#[test]
fn sets_defaults_and_ties_count_any_member() {
    // A's throughput is flat at its maximum over indexes 3..=5; B's lowest at 1 and 8.
    let a = ramp(|i| if (3..=5).contains(&i) { 9.0 } else { 1.0 });
    let b = ramp(|i| if i == 1 || i == 8 { 0.0 } else { 4.0 });
    let p = paper(
        "10,throughput,off,Mbit/s,A,max,9,0.1;default\n\
         10,throughput,off,Mbit/s,A,min,1,>=0.9\n\
         10,throughput,off,Mbit/s,B,min,0,default\n\
         10,throughput,off,Mbit/s,B,max,4,0.15\n",
    );
    let c = compare(&results(a, b), &p, &MAPPING).expect("compares");
    let m: Vec<_> = c
        .positions
        .iter()
        .map(|p| p.marks.expect("scored"))
        .collect();
    // `default` of A is 0.3 (index 2): ours 3,4,5 is a step from it, not equal.
    assert!(!m[0].exact && m[0].within_one);
    assert!(
        (m[0].chance.exact - 0.2).abs() < 1e-12,
        "two published members"
    );
    // >=0.9 is indexes 8 and 9; ours ties at every other index (0..=2, 6..=9).
    assert_eq!(
        c.positions[1].ours.as_ref().unwrap().indexes,
        [0, 1, 2, 6, 7, 8, 9]
    );
    assert!(m[1].exact);
    // B's default is 20 (index 1), where one of our two tied minima sits.
    assert!(m[2].exact);
    assert_eq!(c.positions[2].ours.as_ref().unwrap().indexes, [1, 8]);
    // 0.15 is no value of B: read as the nearest, 10, with a note.
    assert!(c.positions[3].published.printed_at == "0.15");
    assert!(
        m[3].exact,
        "ours max is 4 everywhere but 1 and 8, index 0 among them"
    );
}

#[test]
fn no_effect_rows_are_set_apart_and_flat_results_noticed() {
    let flat = ramp(|_| 3.0);
    let p = paper(
        "8,srtt,off,ms,A,min,,all (no effect)\n\
         8,srtt,off,ms,A,max,,all (no effect)\n\
         10,throughput,off,Mbit/s,B,max,9,10\n",
    );
    let c = compare(&results(flat, flat), &p, &MAPPING).expect("compares");
    assert_eq!(c.overall.not_scoreable, 2);
    assert_eq!(
        c.overall.no_effect_agreed, 2,
        "our sRTT is 5 at every value"
    );
    assert_eq!(c.overall.scoreable, 1);
    assert_eq!(c.overall.exact, 1, "a flat metric ties at every index");
    assert_eq!(c.columns.len(), 2);
}

#[test]
fn the_defaults_and_the_hybrid_means_are_set_beside_ours() {
    let a = ramp(|i| i as f64);
    let b = ramp(|i| 10.0 * i as f64);
    let c = compare(&results(a, b), &paper(""), &MAPPING).expect("compares");
    assert_eq!(c.figures.len(), 2, "the standalone figures only");
    let t = &c.figures[0];
    // A's default 0.3 is index 2 (throughput 2); B's 20 is index 1 (10): mean 6.
    assert_eq!((t.ours, t.points, t.published_value), (Some(6.0), 2, 30.0));
    assert_eq!(c.figures[1].published_value, 5.0, "5000 us in ms");

    let text = "run_id,base,point,axis,transition,a,b,seed,status,error,throughput_mbps,srtt_ms,wall_time_s\n\
        off/p0/s1,off,0,,,0.1,0.01,1,ok,,10,4,0.1\n\
        off/p1/s1,off,1,,,0.2,0.01,1,ok,,20,6,0.1\n";
    let factorial = Results::parse(text, "f.csv").expect("parses");
    let c = compare(&factorial, &paper(""), &MAPPING).expect("compares");
    assert_eq!(c.design, Design::Factorial);
    assert!(c.positions.is_empty());
    assert_eq!(c.figures.len(), 1);
    assert_eq!((c.figures[0].ours, c.figures[0].points), (Some(15.0), 2));
}

#[test]
fn a_missing_parameter_names_it_and_the_keys_looked_for() {
    let text = "run_id,base,point,axis,transition,a,seed,status,error,throughput_mbps,srtt_ms,wall_time_s\n\
        off/p0/s1,off,0,a,0,0.1,1,ok,,10,4,0.1\n";
    let r = Results::parse(text, "r.csv").expect("parses");
    let e = compare(&r, &paper(""), &MAPPING).unwrap_err();
    assert!(matches!(e, CompareError::MissingParameter { .. }), "{e}");
    let m = e.to_string();
    assert!(
        m.contains("parameter B") && m.contains("`b_old` or `b`"),
        "{m}"
    );
}

#[test]
fn an_axis_value_off_the_papers_grid_is_refused() {
    let mut a = results(ramp(|_| 1.0), ramp(|_| 1.0));
    a.rows[0].params[0] = "0.15".into();
    let e = compare(&a, &paper(""), &MAPPING).unwrap_err();
    assert!(
        e.to_string()
            .contains("axis `a` on base `off` has value `0.15`"),
        "{e}"
    );
}

#[test]
fn an_unknown_study_lists_the_known_ones() {
    let e = "sensors2024".parse::<PublishedStudy>().unwrap_err();
    assert_eq!(
        e.to_string(),
        "unknown published study `sensors2024`; known: sensors2023"
    );
    assert_eq!(
        "sensors2023".parse::<PublishedStudy>().unwrap(),
        PublishedStudy::Sensors2023
    );
}

/// Results that put every extreme where the paper does score every scoreable position
/// exact: the shipped tables, the mapping and the scorer agree on all 120.
#[test]
fn the_published_positions_score_themselves_exact() {
    if scream_data::for_test("published/sensors2023/summary_figures.csv").is_none() {
        return;
    }
    let paper = Sensors2023::load().expect("shipped tables");
    let m = &SENSORS2023_MAPPING;
    let metrics = ["throughput_mbps", "est_qdelay_ms", "srtt_ms"];
    let keys: Vec<&str> = m.axes.iter().map(|a| a.keys[0].key).collect();
    let mut text = format!(
        "run_id,base,point,axis,transition,{},seed,status,error,{},wall_time_s\n",
        keys.join(","),
        metrics.join(",")
    );
    let mut point = 0;
    for &(l4s, base) in m.bases {
        for (k, axis) in m.axes.iter().enumerate() {
            let parameter = paper.parameter(axis.abbreviation).expect("in table 2");
            for i in 0..10 {
                let mut params = vec![String::new(); keys.len()];
                params[k] = (parameter.values[i] * axis.keys[0].scale).to_string();
                let cells: Vec<String> = [
                    PublishedMetric::Throughput,
                    PublishedMetric::QueueDelay,
                    PublishedMetric::Srtt,
                ]
                .iter()
                .map(|&metric| {
                    let at = |end: &str| {
                        paper.rows.iter().find_map(|r| {
                            (r.l4s == l4s
                                && r.metric == metric
                                && r.abbreviation == axis.abbreviation
                                && r.end.to_string() == end)
                                .then(|| match &r.at {
                                    scream_lab::report::published::PublishedAt::At {
                                        indexes,
                                        ..
                                    } => indexes[0],
                                    _ => usize::MAX,
                                })
                        })
                    };
                    let v = if at("min") == Some(i) {
                        0.0
                    } else if at("max") == Some(i) {
                        100.0
                    } else {
                        50.0
                    };
                    v.to_string()
                })
                .collect();
                text += &format!(
                    "{base}/p{point}/s1,{base},{point},{},{i},{},1,ok,,{},0.1\n",
                    axis.keys[0].key,
                    params.join(","),
                    cells.join(",")
                );
                point += 1;
            }
        }
    }
    let r = Results::parse(&text, "perfect.csv").expect("parses");
    let c = compare(&r, &paper, m).expect("compares");
    assert_eq!(c.positions.len(), 132);
    assert_eq!(c.overall.scoreable, 120);
    assert_eq!(c.overall.not_scoreable, 12);
    assert_eq!(c.overall.exact, 120);
    assert_eq!(c.columns.len(), 6);
    assert!(c.figures.iter().all(|f| f.ours.is_some()));
}

/// `results`' rows moved onto base `SETUP.off` for each setup, A's throughput replaced.
fn setups(with: &[(&str, [(f64, f64); 10])]) -> Results {
    let b = ramp(|i| i as f64);
    let mut text = String::new();
    for (n, (setup, a)) in with.iter().enumerate() {
        let csv = results_text(*a, b);
        let mut lines = csv.lines();
        let header = lines.next().unwrap_or_default();
        if n == 0 {
            text += header;
            text.push('\n');
        }
        for line in lines {
            text += &line.replacen("off/", &format!("{setup}.off/"), 1).replacen(
                ",off,",
                &format!(",{setup}.off,"),
                1,
            );
            text.push('\n');
        }
    }
    Results::parse(&text, "search.csv").expect("results parse")
}

#[test]
fn setups_of_a_search_are_scored_apart_in_the_order_given() {
    let p = paper("10,throughput,off,Mbit/s,A,max,9,0.6\n10,throughput,off,Mbit/s,B,max,9,100\n");
    let right = ramp(|i| if i == 5 { 9.0 } else { 1.0 });
    let wrong = ramp(|i| if i == 0 { 9.0 } else { 1.0 });
    let r = setups(&[("slow", wrong), ("fast", right)]);
    let c = compare_setups(&r, &p, &MAPPING).expect("compares");
    let names: Vec<&str> = c.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["slow", "fast"]);
    assert_eq!(c[0].1.overall.exact, 1, "B only");
    assert_eq!(c[1].1.overall.exact, 2, "A and B");
    // Plain bases are one setup with no name.
    let plain = compare_setups(&results(right, ramp(|i| i as f64)), &p, &MAPPING).expect("ok");
    assert_eq!(plain.len(), 1);
    assert_eq!(plain[0].0, "");
}
