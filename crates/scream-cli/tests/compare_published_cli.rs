//! `scream report --compare-published sensors2023` as a user runs it: a tiny real sweep
//! that lacks most of the study's parameters gets a message naming the first missing
//! one; a results file with all eleven prints the position and score tables and, with
//! --out, writes the CSV; an unknown study name is refused before anything is read.

mod common;

use common::{scream, stderr, stdout};

const TINY: &str = r#"
name = "tiny"

[design]
kind = "one-at-a-time"

[[base]]
name = "l4s-off"
scenario = "paper-tuning"
set = ["duration_s=0.5"]

[[base]]
name = "l4s-on"
scenario = "paper-tuning"
set = ["duration_s=0.5", "flows.0.ecn=l4s", "link.queue.kind=l4s-ramp"]

[[axis]]
key = "flows.0.params.qdelay_target_lo"
values = [0.01, 0.2]
"#;

#[test]
fn a_sweep_without_every_parameter_names_the_missing_one() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("tiny.toml"), TINY).expect("spec");
    let run = scream(&["sweep", "tiny.toml", "--jobs", "2"], dir.path());
    assert!(run.status.success(), "{}", stderr(&run));
    let results = "out/sweep-tiny/results.csv";
    let cmp = scream(
        &["report", "--compare-published", "sensors2023", results],
        dir.path(),
    );
    assert!(!cmp.status.success());
    let e = stderr(&cmp);
    assert!(
        e.contains("no axis for the published parameter QDth on base `l4s-off`")
            && e.contains("`flows.0.params.qdelay_trend_th`"),
        "{e}"
    );
}

/// A results file over all eleven axes of the study, both bases; the metric values
/// are arbitrary but fixed by the point.
fn full_results() -> String {
    let axes: [(&str, [f64; 10]); 11] = [
        (
            "flows.0.params.qdelay_target_lo",
            [0.01, 0.025, 0.05, 0.06, 0.075, 0.1, 0.125, 0.15, 0.175, 0.2],
        ),
        (
            "flows.0.params.qdelay_trend_th",
            [0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5],
        ),
        (
            "flows.0.params.mss_bytes",
            [
                900., 1000., 1050., 1100., 1150., 1200., 1250., 1300., 1350., 1400.,
            ],
        ),
        (
            "flows.0.params.rate_adjust_interval",
            [
                0.005, 0.01, 0.015, 0.02, 0.025, 0.03, 0.035, 0.04, 0.045, 0.05,
            ],
        ),
        (
            "flows.0.min_bitrate_mbps",
            [1., 2., 3., 4., 5., 6., 7., 8., 9., 10.],
        ),
        (
            "flows.0.max_bitrate_mbps",
            [10., 15., 20., 25., 30., 40., 50., 60., 80., 100.],
        ),
        (
            "flows.0.params.ramp_up_speed",
            [2e6, 4e6, 6e6, 8e6, 10e6, 12e6, 14e6, 16e6, 18e6, 20e6],
        ),
        (
            "flows.0.params.pre_congestion_guard",
            [0., 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9],
        ),
        (
            "flows.0.params.tx_queue_size_factor",
            [0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5],
        ),
        (
            "flows.0.params.rtp_qdelay_th",
            [0.025, 0.05, 0.075, 0.1, 0.125, 0.15, 0.175, 0.2, 0.25, 0.3],
        ),
        (
            "flows.0.params.target_rate_scale_rtp_qdelay",
            [0.7, 0.75, 0.8, 0.825, 0.85, 0.875, 0.9, 0.95, 0.975, 1.0],
        ),
    ];
    let keys: Vec<&str> = axes.iter().map(|(k, _)| *k).collect();
    let mut text = format!(
        "run_id,base,point,axis,transition,{},seed,status,error,throughput_mbps,est_qdelay_ms,srtt_ms,wall_time_s\n",
        keys.join(",")
    );
    let mut point = 0;
    for base in ["l4s-off", "l4s-on"] {
        for (a, (key, values)) in axes.iter().enumerate() {
            for (i, v) in values.iter().enumerate() {
                let mut params = vec![String::new(); keys.len()];
                params[a] = v.to_string();
                // Throughput rises with the index, delay falls, sRTT peaks in the middle.
                let (t, d, s) = (10.0 + i as f64, 30.0 - i as f64, 5.0 + (i % 5) as f64);
                text += &format!(
                    "{base}/p{point}/s1,{base},{point},{key},{i},{},1,ok,,{t},{d},{s},0.1\n",
                    params.join(",")
                );
                point += 1;
            }
        }
    }
    text
}

#[test]
fn a_full_results_file_prints_the_tables_and_writes_the_csv() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("results.csv"), full_results()).expect("results");
    let run = scream(
        &[
            "report",
            "--compare-published",
            "sensors2023",
            "results.csv",
            "--out",
            "cmp",
        ],
        dir.path(),
    );
    assert!(run.status.success(), "{}", stderr(&run));
    let out = stdout(&run);
    // Throughput's maximum is at the tenth value everywhere: Table 10's RUS maximum is
    // at 18 (the ninth), one step away in the same half.
    assert!(
        out.contains("| RUS | throughput | off | max | 18 (49.69 Mbit/s) | 20 (19.00 Mbit/s) | ±1, same end |"),
        "{out}"
    );
    assert!(out.contains("| **all** | 120 |"), "{out}");
    assert!(out.contains("## Defaults"), "{out}");
    let csv = std::fs::read_to_string(dir.path().join("cmp/compare-sensors2023.csv")).expect("csv");
    assert_eq!(
        csv.lines().count(),
        133,
        "a header and the 132 published rows"
    );
    assert!(
        !dir.path().join("report.md").exists(),
        "the comparison writes no report"
    );
}

#[test]
fn an_unknown_study_is_refused_with_the_known_ones() {
    let dir = tempfile::tempdir().expect("temp dir");
    let run = scream(
        &["report", "--compare-published", "tsp2021", "missing.csv"],
        dir.path(),
    );
    assert!(!run.status.success());
    assert_eq!(
        stderr(&run).trim(),
        "error: --compare-published: unknown published study `tsp2021`; known: sensors2023"
    );
}
