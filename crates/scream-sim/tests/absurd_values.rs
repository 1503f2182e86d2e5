//! Absurd scenario values, as `scream sim --set KEY=VALUE` gives them: each is refused
//! with the key, its allowed range and the value, or, in a trace file, with the line;
//! none panics or hangs. One test per reported problem, named for the behaviour.

mod common;

use common::overrides;
use scream_sim::scenario::load::load_builtin;
use scream_sim::scenario::ranges;
use scream_sim::{Scenario, SimError, run};
use std::path::PathBuf;

/// The paper-step-v2 scenario (one faithful SCReAM V2 flow) shortened to 2 s, with `sets` applied as on the command line.
fn plain_with(sets: &[&str]) -> Scenario {
    let mut all = vec!["duration_s=2"];
    all.extend_from_slice(sets);
    load_builtin("paper-step-v2", &overrides(&all)).expect("the overrides load")
}

/// The validation error of the paper-step-v2 scenario with `sets`, as `scream sim` prints it.
fn refusal(sets: &[&str]) -> String {
    match plain_with(sets).validate() {
        Err(e) => e.to_string(),
        Ok(()) => panic!("{sets:?} passed validation"),
    }
}

/// A trace file with `text`, unique to this test process and `name`.
fn trace_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("scream-sim-absurd-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("trace written");
    path
}

/// The error of running the paper-step-v2 scenario over the capacity trace `text`.
fn trace_run_error(name: &str, text: &str, format: &str) -> String {
    let path = trace_file(name, text);
    let trace = format!("link.trace={}", path.display());
    let format = format!("link.trace_format={format}");
    let s = plain_with(&[&trace, &format]);
    let e = run(&s, 1, None).map(|_| ()).unwrap_err();
    assert!(matches!(e, SimError::LinkTrace { .. }), "{e}");
    e.to_string()
}

#[test]
fn a_huge_delay_is_rejected_with_its_range() {
    // Each of these passed validation and then panicked converting 1e30 ms into a
    // Duration.
    for (key, extra) in [
        ("link.one_way_delay_ms", None),
        ("link.reverse.one_way_delay_ms", None),
        ("link.jitter_ms", None),
        ("link.jitter_max_ms", None),
        ("link.queue.limit_ms", None),
        ("link.queue.codel_target_ms", Some("link.queue.kind=codel")),
        (
            "link.queue.ecn_threshold_ms",
            Some("link.queue.kind=ecn-threshold"),
        ),
        ("link.queue.ramp_max_ms", None),
        (
            "link.queue.dualpi2_tupdate_ms",
            Some("link.queue.kind=dualpi2"),
        ),
        (
            "link.queue.dualpi2_min_th_ms",
            Some("link.queue.kind=dualpi2"),
        ),
        ("sample_interval_ms", None),
        ("flows.0.max_report_interval_ms", None),
        (
            "flows.0.source.audio_packet_interval_ms",
            Some("flows.0.source.kind=audio"),
        ),
    ] {
        let set = format!("{key}=1e30");
        let mut sets = vec![set.as_str()];
        sets.extend(extra);
        let e = refusal(&sets);
        let name = key.rsplit('.').next().unwrap();
        let range = ranges::of_key(name, None).unwrap().describe();
        let shown = key.replace(".0.", "[0].");
        assert_eq!(e, format!("{shown} must be in {range} (is 1e30)"));
    }
    assert_eq!(
        refusal(&["link.one_way_delay_ms=1e30"]),
        "link.one_way_delay_ms must be in [0, 60000] ms (is 1e30)"
    );
}

#[test]
fn a_capacity_of_a_fraction_of_a_bit_per_second_is_rejected_with_its_range() {
    assert_eq!(
        refusal(&["link.capacity_mbps=1e-25"]),
        "link.capacity_mbps must be in [0.001, 1e7] Mbit/s, 0 or inf (is 1e-25)"
    );
    // The documented special values still pass.
    for v in ["0", "inf", "0.001", "1e7"] {
        assert_eq!(
            plain_with(&[&format!("link.capacity_mbps={v}")]).validate(),
            Ok(())
        );
    }
}

#[test]
fn a_mahimahi_stamp_that_wraps_to_zero_nanoseconds_is_an_error_naming_its_line() {
    // 2^58 ms x 10^6 is exactly 2^64 ns: it wrapped to 0 and divided by zero.
    let e = trace_run_error("wrap.txt", "288230376151711744\n", "mahimahi");
    assert!(
        e.starts_with("link.trace: ") && e.contains("wrap.txt:1: time stamp 288230376151711744 ms"),
        "{e}"
    );
}

#[test]
fn a_table_trace_of_tiny_rates_never_hangs() {
    // A rate of 1e-300 Mbit/s delivered a few bits per loop of the trace: the first
    // packet's serialisation walked the trace for ever.
    let e = trace_run_error("tiny.tsv", "0 1e-300\n", "table");
    assert!(e.starts_with("link.trace: "), "{e}");
    assert!(e.contains("tiny.tsv:1: rate `1e-300`"), "{e}");
    assert!(e.contains("check the unit"), "{e}");
}

#[test]
fn a_trillion_frames_per_second_is_rejected() {
    assert_eq!(
        refusal(&["flows.0.source.fps=1e12"]),
        "flows[0].source.fps must be in [0.01, 1000] frames/s (is 1e12)"
    );
}

#[test]
fn an_audio_packet_interval_of_1e_minus_300_ms_is_rejected() {
    assert_eq!(
        refusal(&[
            "flows.0.source.kind=audio",
            "flows.0.source.audio_packet_interval_ms=1e-300"
        ]),
        "flows[0].source.audio_packet_interval_ms must be in [0.1, 60000] ms (is 1e-300)"
    );
}

#[test]
fn a_duration_of_1e9_s_is_rejected() {
    assert_eq!(
        refusal(&["duration_s=1e9"]),
        "duration_s must be in (0, 1e6] s (is 1e9)"
    );
}

#[test]
fn bitrates_of_1e300_mbps_are_rejected() {
    assert_eq!(
        refusal(&[
            "flows.0.start_bitrate_mbps=1e300",
            "flows.0.max_bitrate_mbps=1e300"
        ]),
        "flows[0].start_bitrate_mbps must be in [0.001, 1e5] Mbit/s (is 1e300)"
    );
    assert_eq!(
        refusal(&["flows.0.max_bitrate_mbps=1e300"]),
        "flows[0].max_bitrate_mbps must be in [0.001, 1e5] Mbit/s (is 1e300)"
    );
    assert_eq!(
        refusal(&["flows.0.algorithm=cbr", "flows.0.start_bitrate_mbps=1e300"]),
        "flows[0].start_bitrate_mbps must be in [0.001, 1e5] Mbit/s (is 1e300)"
    );
    // Within the range, a cbr flow's packets are bounded too: 100 Gbit/s for 2 s is
    // 2.5 x 10^7 packets of 1012 bytes, which a 60 s path would all hold (2.3 GB).
    let e = refusal(&["flows.0.algorithm=cbr", "flows.0.start_bitrate_mbps=1e5"]);
    assert!(
        e.starts_with("flows[0].start_bitrate_mbps makes the cbr flows send 2.470e7 packets"),
        "{e}"
    );
    let ok = plain_with(&[
        "flows.0.algorithm=cbr",
        "flows.0.start_bitrate_mbps=1e5",
        "flows.0.stop_s=1.5",
    ]);
    assert_eq!(ok.validate(), Ok(()));
}

#[test]
fn a_sample_interval_of_1e_minus_300_ms_is_rejected() {
    assert_eq!(
        refusal(&["sample_interval_ms=1e-300"]),
        "sample_interval_ms must be in [1, 1e9] ms (is 1e-300)"
    );
    // Within its range, the interval still may not give more rows than are kept.
    let e = refusal(&["duration_s=1e6", "sample_interval_ms=1"]);
    assert!(e.contains("use a longer interval"), "{e}");
}

#[test]
fn mahimahi_stamps_near_u64_max_are_rejected() {
    // Their nanoseconds wrapped around: the run went ahead with a throughput of 0.
    for (name, stamp) in [("max.txt", u64::MAX), ("beyond.txt", 10_000_000_000_001)] {
        let e = trace_run_error(name, &format!("1\n2\n{stamp}\n"), "mahimahi");
        assert!(
            e.starts_with("link.trace: ")
                && e.contains(&format!("{name}:3: time stamp {stamp} ms")),
            "{e}"
        );
        assert!(e.contains("fit in 64 bits"), "{e}");
    }
    // The latest stamp accepted runs.
    let path = trace_file("latest.txt", "1\n2\n10000000000000\n");
    let s = plain_with(&[&format!("link.trace={}", path.display())]);
    run(&s, 1, None).unwrap();
}

/// Every key with a range appears in `docs/scenarios.md` with that range, written as
/// the error messages write it.
#[test]
fn the_documentation_gives_every_range() {
    let docs = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/scenarios.md"
    ))
    .expect("docs/scenarios.md");
    let keys = [
        ("duration_s", None),
        ("sample_interval_ms", None),
        ("seed", None),
        ("report_window_s", Some(0)),
        ("capacity_mbps", None),
        ("capacity_steps", Some(0)),
        ("trace_window_s", Some(0)),
        ("trace_time_column", None),
        ("trace_rate_column", None),
        ("mahimahi_packet_bytes", None),
        ("one_way_delay_ms", None),
        ("jitter_ms", None),
        ("jitter_max_ms", None),
        ("loss", None),
        ("loss_steps", Some(1)),
        ("loss_burst_packets", None),
        ("start_s", None),
        ("stop_s", None),
        ("priority", None),
        ("min_bitrate_mbps", None),
        ("start_bitrate_mbps", None),
        ("max_bitrate_mbps", None),
        ("packets_per_report", None),
        ("max_report_interval_ms", None),
        ("fps", None),
        ("sluggishness_s", None),
        ("audio_bitrate_kbps", None),
        ("audio_packet_interval_ms", None),
        ("phase_ms", None),
        ("object_min_kb", None),
        ("object_max_kb", None),
        ("idle_mean_s", None),
        ("mss_bytes", None),
        ("min_rto_ms", None),
    ];
    // The queue's keys come from their declarations (their table is generated).
    let queue = scream_sim::scenario::QueueConfig::keys().map(|k| (k.name, None));
    for (name, element) in keys.into_iter().chain(queue) {
        let range = ranges::of_key(name, element).unwrap().describe();
        let rows: Vec<&str> = docs
            .lines()
            .filter(|l| l.starts_with(&format!("| `{name}` |")))
            .collect();
        assert!(
            rows.iter().any(|row| row.contains(&range)),
            "`{name}`: no table row gives `{range}`: {rows:?}"
        );
    }
}
