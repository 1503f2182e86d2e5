//! The messages a scenario author meets: each names the place (file:line or the
//! `--set` argument), the key, why, and what is allowed or what to do instead.

mod common;

use common::overrides;
use scream_sim::scenario::load::{ScenarioError, load_str};
use scream_sim::scenario::to_toml;
use scream_sim::{Scenario, run};
use std::path::PathBuf;

const BASE: &str = "\
duration_s = 2.0

[link]
capacity_mbps = 10.0

[link.queue]
kind = \"codel\"

[[flows]]
ecn = \"l4s\"

[flows.params]
qdelay_target = 0.06
";

fn load_with(text: &str, sets: &[&str]) -> Result<Scenario, ScenarioError> {
    load_str(text, "my.toml", None, &overrides(sets))
}

fn load_error(text: &str, sets: &[&str]) -> String {
    load_with(text, sets)
        .expect_err("must be refused")
        .to_string()
}

fn refusal(text: &str, sets: &[&str]) -> String {
    let s = load_with(text, sets).expect("loads");
    s.validate().expect_err("must be refused").to_string()
}

/// A file in a fresh folder of this test process, named `name`.
fn temp_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("scream-errors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    path
}

#[test]
fn a_missing_file_suggests_an_override_in_the_syntax_set_accepts() {
    let text = BASE.replace(
        "ecn = \"l4s\"",
        "ecn = \"l4s\"\nsource = { trace = \"nope.txt\" }",
    );
    let e = load_error(&text, &[]);
    assert!(
        e.starts_with("my.toml:11: flows[0].source.trace: no such file \"nope.txt\""),
        "{e}"
    );
    assert!(
        e.ends_with("set flows.0.source.trace to another file"),
        "{e}"
    );
    // ... and that override is accepted as suggested.
    let trace = temp_file("frames.txt", "1000\n2000\n");
    let set = format!("flows.0.source.trace={}", trace.display());
    assert!(load_with(&text, &[&set]).is_ok());
}

#[test]
fn an_unknown_sender_parameter_gives_file_line_and_the_nearest_name() {
    let text = BASE.replace("qdelay_target = 0.06", "qdelay_targt = 0.06");
    assert_eq!(
        load_error(&text, &[]),
        "my.toml:13: unknown sender parameter \"qdelay_targt\" in [flows[0].params] \
         (did you mean qdelay_target?)"
    );
    assert_eq!(
        load_error(BASE, &["flows.0.params.mss_byte=1200"]),
        "--set flows.0.params.mss_byte=1200: unknown sender parameter \"mss_byte\" in \
         [flows[0].params] (did you mean mss_bytes?)"
    );
}

#[test]
fn a_cbr_flow_refuses_every_parameter_but_mss_bytes_naming_each_and_the_flow() {
    let text = BASE.replace("ecn = \"l4s\"", "name = \"cross\"\nalgorithm = \"cbr\"")
        + "mss_bytes = 1200\nbeta = 0.9\n";
    assert_eq!(
        load_error(&text, &[]),
        "my.toml:14: flow \"cross\" is cbr, which reads only mss_bytes (the payload of its \
         packets) from [flows[0].params]: remove qdelay_target, beta (it has no congestion \
         control to tune)"
    );
    let only_mss = text
        .replace("qdelay_target = 0.06\n", "")
        .replace("beta = 0.9\n", "");
    assert_eq!(
        load_error(&only_mss, &["flows.0.params.qdelay_target=0.1"]),
        "--set flows.0.params.qdelay_target=0.1: flow \"cross\" is cbr, which reads only \
         mss_bytes (the payload of its packets) from [flows[0].params]: remove \
         qdelay_target (it has no congestion control to tune)"
    );
    // mss_bytes is taken because it is used: it sets the size of the packets.
    let packets = |text: &str| {
        let s = load_with(text, &[]).expect("loads");
        run(&s, 1, None).expect("runs").summary.flows[0].packets_sent
    };
    let large = packets(&only_mss);
    let small = packets(&only_mss.replace("mss_bytes = 1200", "mss_bytes = 600"));
    assert!(
        small > large * 3 / 2,
        "{small} packets of 600 bytes, {large} of 1200"
    );
}

#[test]
fn a_tcp_flow_refuses_sender_parameters_with_their_line() {
    let text = BASE.replace("ecn = \"l4s\"", "algorithm = \"tcp-cubic\"");
    assert_eq!(
        load_error(&text, &[]),
        "my.toml:13: flow \"flow0\" is tcp-cubic, which reads nothing from [flows[0].params]: \
         remove qdelay_target (a TCP flow is set in [flows.tcp])"
    );
}

#[test]
fn a_cbr_flow_built_in_code_with_a_sender_parameter_does_not_run() {
    let mut s =
        load_with(BASE, &["flows.0.algorithm=\"cbr\"", "flows.0.params={}"]).expect("loads");
    s.flows[0].params.insert("qdelay_target".into(), 0.1);
    let e = run(&s, 1, None).expect_err("refused").to_string();
    assert!(
        e.starts_with("flows[0].params.qdelay_target: a cbr flow reads only mss_bytes"),
        "{e}"
    );
}

#[test]
fn a_quoted_number_is_named_with_its_key_and_what_is_expected() {
    assert_eq!(
        load_error(BASE, &["link.capacity_mbps=\"5\""]),
        "--set link.capacity_mbps=\"5\": link.capacity_mbps must be a number, not the string \
         \"5\" (write 5 without quotes)"
    );
    let text = BASE.replace("duration_s = 2.0", "duration_s = \"2\"");
    assert_eq!(
        load_error(&text, &[]),
        "my.toml:1: duration_s must be a number, not the string \"2\" (write 2 without quotes)"
    );
}

#[test]
fn a_scenario_without_flows_is_told_so_in_a_sentence() {
    let text = BASE.split("[[flows]]").next().expect("head").to_owned();
    assert_eq!(
        refusal(&text, &[]),
        "flows is empty: a scenario needs at least one [[flows]] table"
    );
}

#[test]
fn a_report_window_beyond_the_end_is_warned_about() {
    // Warned, not refused: `--set duration_s=2` on a scenario with a window must run.
    let after = load_with(BASE, &["report_window_s=[5.0, 8.0]"]).expect("loads");
    assert_eq!(after.validate(), Ok(()));
    assert_eq!(
        after.warnings(),
        [
            "report_window_s starts at 5 s, not before duration_s (2 s): the summary's window \
          figures cover no time"
        ]
    );
    let s = load_with(BASE, &["report_window_s=[1.0, 8.0]"]).expect("loads");
    assert_eq!(s.validate(), Ok(()));
    assert_eq!(
        s.warnings(),
        ["report_window_s[1] (8) is beyond duration_s (2): the window summarises only [1, 2] s"]
    );
    let fits = load_with(BASE, &["report_window_s=[1.0, 2.0]"]).expect("loads");
    assert!(fits.warnings().is_empty());
}

#[test]
fn a_zero_capacity_for_ever_is_refused_and_points_at_capacity_steps() {
    let e = refusal(BASE, &["link.capacity_mbps=0"]);
    assert!(
        e.starts_with("link.capacity_mbps is 0 and no capacity_steps follow, so nothing would ever cross the link"),
        "{e}"
    );
    assert!(e.contains("for outages use capacity_steps"), "{e}");
    // An outage at the start that ends is what capacity_steps are for.
    let s = load_with(
        BASE,
        &["link.capacity_mbps=0", "link.capacity_steps=[[1.0, 10.0]]"],
    )
    .expect("loads");
    assert_eq!(s.validate(), Ok(()));
    // The reverse direction is checked the same way.
    let e = refusal(BASE, &["link.reverse.capacity_mbps=0"]);
    assert!(e.starts_with("link.reverse.capacity_mbps is 0"), "{e}");
}

#[test]
fn a_loss_of_one_is_refused_with_its_range() {
    assert_eq!(
        refusal(BASE, &["link.loss=1"]),
        "link.loss must be in [0, 1) (is 1): with loss 1 nothing would arrive; for a blackout \
         use loss_steps, e.g. [[5.0, 1.0], [6.0, 0.0]]"
    );
    let s = load_with(BASE, &["link.loss=0.999"]).expect("loads");
    assert_eq!(s.validate(), Ok(()));
}

#[test]
fn an_aqm_key_of_another_queue_kind_is_refused_naming_its_kind() {
    let text = BASE.replace("kind = \"codel\"", "kind = \"codel\"\nramp_min_ms = 2.0");
    assert_eq!(
        load_error(&text, &[]),
        "my.toml:8: link.queue.ramp_min_ms applies only to kind = \"l4s-ramp\", and this queue \
         is kind = \"codel\": remove the key or set link.queue.kind = \"l4s-ramp\""
    );
    assert_eq!(
        load_error(BASE, &["link.reverse.queue.dualpi2_min_th_ms=2"]),
        "--set link.reverse.queue.dualpi2_min_th_ms=2: link.reverse.queue.dualpi2_min_th_ms \
         applies only to kind = \"dualpi2\", and this queue is kind = \"tail-drop\": remove \
         the key or set link.reverse.queue.kind = \"dualpi2\""
    );
    // Switching the kind from the command line leaves the file's keys of the old kind
    // behind, which --set cannot remove: that is allowed.
    let tuned = BASE.replace("kind = \"codel\"", "kind = \"l4s-ramp\"\nramp_min_ms = 2.0");
    assert!(load_with(&tuned, &["link.queue.kind=codel"]).is_ok());
    // Keys of the chosen kind, and the limits every kind has, are fine.
    let ok = BASE.replace(
        "kind = \"codel\"",
        "kind = \"codel\"\ncodel_target_ms = 3\nlimit_ms = 100",
    );
    assert!(load_with(&ok, &[]).is_ok());
}

#[test]
fn a_scenario_written_back_reads_back_whatever_its_queue_kind() {
    for kind in ["tail-drop", "codel", "ecn-threshold", "l4s-ramp", "dualpi2"] {
        let set = format!("link.queue.kind={kind}");
        let s = load_with(BASE, &[&set]).expect("loads");
        let text = to_toml(&s).expect("toml");
        let back: Scenario = load_str(&text, "back.toml", None, &[])
            .unwrap_or_else(|e| panic!("{kind}: {e}\n{text}"));
        assert_eq!(back, s, "{kind}");
    }
}

#[test]
fn an_error_in_a_capacity_trace_names_the_file_and_line() {
    let trace = temp_file("broken.tsv", "0 5\n1 five\n");
    let set = format!("link.trace={}", trace.display());
    let s = load_with(BASE, &[&set, "link.trace_format=table"]).expect("loads");
    let e = run(&s, 1, None)
        .map(|_| ())
        .expect_err("bad trace")
        .to_string();
    assert_eq!(
        e,
        format!(
            "link.trace: {}:2: rate `five` is not a non-negative number",
            trace.display()
        )
    );
}

#[test]
fn an_error_in_a_frame_trace_names_the_file_and_line() {
    let trace = temp_file("frames.txt", "1200\nbig\n");
    let set = format!("flows.0.source.trace={}", trace.display());
    let s = load_with(BASE, &[&set]).expect("loads");
    let e = run(&s, 1, None)
        .map(|_| ())
        .expect_err("bad trace")
        .to_string();
    let want = format!("{}:2: `big` is not a frame size in bytes", trace.display());
    assert!(e.ends_with(&want), "{e}");
    assert!(e.starts_with("flows[0].source.trace"), "{e}");
}

fn trace_warnings(name: &str, text: &str, sets: &[&str]) -> Vec<String> {
    let trace = temp_file(name, text);
    let set = format!("link.trace={}", trace.display());
    let mut all = vec![set.as_str()];
    all.extend_from_slice(sets);
    let s = load_with(BASE, &all).expect("loads");
    assert_eq!(s.validate(), Ok(()));
    s.warnings()
}

#[test]
fn a_trace_in_bit_per_second_read_as_mbps_is_warned_about() {
    // A Lumos5G-like log written in bit/s: 6.58 Mbit/s becomes 6 584 240 Mbit/s.
    let w = trace_warnings("bps.tsv", "0\t6584240\n1\t5000000\n2\t7100000\n", &[]);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].starts_with("link.trace: read with trace_rate_unit = \"mbps\""),
        "{w:?}"
    );
    assert!(w[0].contains("peaks at 7.1e6 Mbit/s"), "{w:?}");
    assert!(w[0].contains("set link.trace_rate_unit"), "{w:?}");
    let w = trace_warnings(
        "bps2.tsv",
        "0\t6584240\n1\t5000000\n",
        &["link.trace_rate_unit=bps"],
    );
    assert!(w.is_empty(), "{w:?}");
}

#[test]
fn a_time_column_in_milliseconds_is_warned_about_and_read_with_trace_time_unit() {
    let text = "0\t5\n1000\t6\n2000\t7\n";
    let w = trace_warnings("ms.tsv", text, &[]);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].contains("are a median 1000 s apart"), "{w:?}");
    assert!(w[0].ends_with("set link.trace_time_unit = \"ms\""), "{w:?}");
    let w = trace_warnings("ms2.tsv", text, &["link.trace_time_unit=ms"]);
    assert!(w.is_empty(), "{w:?}");
}

#[test]
fn the_real_lumos5g_trace_gives_no_warning() {
    let name = "links/lumos5g-5g_trace_32_walking.tsv";
    if scream_data::for_test(name).is_none() {
        return;
    }
    let set = format!("link.trace={}{name}", scream_data::REFERENCE_PREFIX);
    let s = load_with(BASE, &[&set]).expect("loads");
    assert!(s.warnings().is_empty(), "{:?}", s.warnings());
}
