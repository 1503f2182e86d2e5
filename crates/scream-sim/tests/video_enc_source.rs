//! The `video-enc` source (Ericsson's `VideoEnc.cpp`): a SCReAM flow fed by it runs,
//! its packets are those the encoder cuts (at most 1200 payload + 12 header bytes with
//! `mss_bytes = 1200`), and its frames follow the target.

use scream_sim::run;
use scream_sim::scenario::load::load_checked_str;

fn scenario(source: &str) -> scream_sim::Scenario {
    let text = format!(
        r#"
duration_s = 6.0
[link]
capacity_mbps = 50.0
one_way_delay_ms = 20.0

[[flows]]
algorithm = "scream-v1"
start_bitrate_mbps = 2.0
max_bitrate_mbps = 4.0
source = {source}

[flows.params]
mss_bytes = 1200
"#
    );
    load_checked_str(&text, "video-enc.toml", None, &[]).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_flow_fed_by_the_test_applications_encoder_runs_at_its_target() {
    let s = scenario(
        r#"{ kind = "video-enc", trace = "builtin:trace_key", trace_offset_frames = 50, phase_ms = 0.0 }"#,
    );
    let r = run(&s, 1, None).expect("runs");
    let flow = &r.summary.flows[0];
    assert!(flow.packets_received > 0);
    // Frame bytes x 8 x 50 fps against the target of the same row, after the ramp.
    let rows: Vec<_> = r
        .samples
        .iter()
        .filter(|row| row.t_s > 3.0)
        .filter_map(|row| Some((row.frame_size_bytes?, row.target_mbps?)))
        .collect();
    let produced: f64 = rows.iter().map(|(b, _)| b * 8.0 * 50.0 / 1e6).sum();
    let target: f64 = rows.iter().map(|(_, t)| t).sum();
    let ratio = produced / target;
    assert!((0.7..1.3).contains(&ratio), "{produced} / {target}");
}

#[test]
fn video_enc_keys_are_range_checked_by_name() {
    for (source, key) in [
        (
            r#"{ kind = "video-enc", nominal_gain = 1.5 }"#,
            "nominal_gain",
        ),
        (
            r#"{ kind = "video-enc", trace_offset_frames = -1 }"#,
            "trace_offset_frames",
        ),
    ] {
        let text = format!("duration_s = 1.0\n[link]\n[[flows]]\nsource = {source}\n");
        let e = load_checked_str(&text, "v.toml", None, &[])
            .err()
            .unwrap_or_else(|| panic!("{source} is refused"))
            .to_string();
        assert!(e.contains(key), "{e}");
    }
}
