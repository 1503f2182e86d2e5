//! What a scenario author meets when configuring a baseline flow (gcc, nada): unknown
//! tunables with the nearest name, values out of range with the range and its source,
//! and keys that do not apply to a rate-based sender.

mod common;

use common::overrides;
use scream_sim::Scenario;
use scream_sim::scenario::load::{ScenarioError, load_str};

const GCC: &str = "\
duration_s = 2.0

[link]
capacity_mbps = 5.0

[[flows]]
algorithm = \"gcc\"

[flows.params]
beta = 0.9
";

fn load_with(text: &str, sets: &[&str]) -> Result<Scenario, ScenarioError> {
    load_str(text, "my.toml", None, &overrides(sets))
}

fn refusal(text: &str, sets: &[&str]) -> String {
    match load_with(text, sets) {
        Err(e) => e.to_string(),
        Ok(s) => s.validate().expect_err("must be refused").to_string(),
    }
}

#[test]
fn an_unknown_gcc_parameter_names_the_nearest_one() {
    let text = GCC.replace("beta = 0.9", "bta = 0.9");
    assert_eq!(
        refusal(&text, &[]),
        "my.toml:10: unknown gcc parameter \"bta\" in [flows[0].params] (did you mean beta?)"
    );
    let nada = GCC.replace("beta = 0.9", "kapa = 0.5");
    let e = refusal(&nada, &["flows.0.algorithm=nada"]);
    assert!(e.contains("unknown nada parameter \"kapa\""), "{e}");
    assert!(e.contains("did you mean kappa?"), "{e}");
}

#[test]
fn a_parameter_out_of_range_names_the_field_the_range_and_the_source() {
    let e = refusal(GCC, &["flows.0.params.beta=1.5"]);
    assert!(e.contains("flows[0].params.beta"), "{e}");
    assert!(e.contains("[0.5, 0.99]"), "{e}");
    assert!(e.contains("draft-ietf-rmcat-gcc-02 §5.5"), "{e}");
    let e = refusal(GCC, &["flows.0.params.loss_low=0.5"]);
    assert!(e.contains("loss_low must be <= loss_high"), "{e}");
}

#[test]
fn the_estimator_is_chosen_by_name_on_gcc_flows_only() {
    let ok = format!("{GCC}\n[flows.gcc]\nestimator = \"trendline\"\n");
    let s = load_with(&ok, &[]).expect("loads");
    s.validate().expect("valid");
    let bad = ok.replace("trendline", "trend");
    let e = refusal(&bad, &[]);
    assert!(e.contains("trend") && e.contains("trendline"), "{e}");
    let plain = ok.replace("[flows.params]\nbeta = 0.9\n", "");
    let e = refusal(&plain, &["flows.0.algorithm=nada"]);
    assert!(e.contains("flows[0].gcc applies only to gcc flows"), "{e}");
}

#[test]
fn improvements_and_audio_are_refused_on_baseline_flows() {
    let e = refusal(GCC, &["flows.0.improvements=all"]);
    assert!(
        e.contains("applies only to scream-v2 flows (this flow is gcc)"),
        "{e}"
    );
    let e = refusal(GCC, &["flows.0.source.kind=audio"]);
    assert!(
        e.contains("flows[0].source.kind must be a video source"),
        "{e}"
    );
    // Streams are welcome, as long as each is video; the refusal names the stream.
    let streams =
        format!("{GCC}\n[[flows.streams]]\nname = \"a\"\n[[flows.streams]]\nname = \"b\"\n");
    let s = load_with(&streams, &[]).expect("loads");
    s.validate()
        .expect("two video streams on a gcc flow are valid");
    let e = refusal(&streams, &["flows.0.streams.1.source.kind=audio"]);
    assert!(
        e.contains("flows[0].streams[1].source.kind must be a video source on gcc flows"),
        "{e}"
    );
}
