//! Loader behaviour against a small stand-in schema (the error paths do not depend on the
//! real model's size).

use std::path::Path;

use serde::Deserialize;

use super::{Override, ScenarioError, load_str};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[expect(dead_code, reason = "fields exist for the schema, not all are read")]
struct Mini {
    name: String,
    duration_s: f64,
    link: Option<MiniLink>,
    #[serde(default)]
    flows: Vec<MiniFlow>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[expect(dead_code, reason = "fields exist for the schema, not all are read")]
struct MiniLink {
    capacity_mbps: Option<f64>,
    trace: Option<String>,
    capacity_steps: Option<Vec<[f64; 2]>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MiniFlow {
    ecn: Option<MiniEcn>,
    source: Option<MiniSource>,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(rename_all = "lowercase")]
enum MiniEcn {
    None,
    Classic,
    L4s,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[expect(dead_code, reason = "fields exist for the schema, not all are read")]
struct MiniSource {
    fps: Option<f64>,
    trace: Option<String>,
}

const TEXT: &str = "\
duration_s = 20.0

[link]
capacity_mbps = 10.0

[[flows]]
ecn = \"none\"

[flows.source]
fps = 50.0
trace = \"builtin:trace_no_key\"
";

fn sets(args: &[&str]) -> Vec<Override> {
    args.iter()
        .map(|a| a.parse().expect("well-formed override"))
        .collect()
}

fn load(text: &str, overrides: &[&str]) -> Result<Mini, ScenarioError> {
    load_str(text, "paper.toml", None, &sets(overrides))
}

fn error(text: &str, overrides: &[&str]) -> String {
    load(text, overrides).expect_err("must fail").to_string()
}

#[test]
fn wrong_value_type_names_file_line_and_dotted_key() {
    let text = TEXT.replace("fps = 50.0", "fps = \"x\"");
    assert_eq!(
        error(&text, &[]),
        "paper.toml:10: flows[0].source.fps must be a number, not the string \"x\""
    );
}

#[test]
fn misspelt_key_is_reported_with_the_nearest_valid_key() {
    let text = TEXT.replace("capacity_mbps", "capacity_mbs");
    assert_eq!(
        error(&text, &[]),
        "paper.toml:4: unknown key \"capacity_mbs\" in [link] (did you mean capacity_mbps?)"
    );
}

#[test]
fn unknown_enum_value_suggests_a_valid_one() {
    let text = TEXT.replace("ecn = \"none\"", "ecn = \"l4\"");
    assert_eq!(
        error(&text, &[]),
        "paper.toml:7: flows[0].ecn: unknown value \"l4\" (did you mean l4s?)"
    );
}

#[test]
fn missing_required_key_names_the_file() {
    let text = TEXT.replace("duration_s = 20.0", "");
    assert_eq!(
        error(&text, &[]),
        "paper.toml: missing key \"duration_s\" in the top level"
    );
}

#[test]
fn toml_syntax_error_names_the_line() {
    let text = TEXT.replace("capacity_mbps = 10.0", "capacity_mbps = = 10.0");
    let e = error(&text, &[]);
    assert!(e.starts_with("paper.toml:4: "), "{e}");
}

#[test]
fn name_defaults_to_the_file_stem() {
    let s = load(TEXT, &[]).expect("valid");
    assert_eq!(s.name, "paper");
    let s = load(&format!("name = \"x\"\n{TEXT}"), &[]).expect("valid");
    assert_eq!(s.name, "x");
}

#[test]
fn override_reaches_into_an_array_of_tables_and_takes_a_bare_word() {
    let s = load(TEXT, &["flows.0.ecn=l4s", "flows.0.source.fps=25"]).expect("valid");
    assert_eq!(s.flows[0].ecn, Some(MiniEcn::L4s));
    assert_eq!(s.flows[0].source.as_ref().and_then(|s| s.fps), Some(25.0));
}

#[test]
fn override_parses_toml_arrays_and_creates_missing_tables() {
    let text = TEXT.replace("[link]\ncapacity_mbps = 10.0\n", "");
    let s = load(&text, &["link.capacity_steps=[[3, 5.0], [6, 10]]"]).expect("valid");
    let link = s.link.expect("created by the override");
    assert_eq!(link.capacity_steps, Some(vec![[3.0, 5.0], [6.0, 10.0]]));
}

#[test]
fn override_of_an_unknown_key_is_an_error_naming_the_override() {
    assert_eq!(
        error(TEXT, &["link.capacity_mbs=5"]),
        "--set link.capacity_mbs=5: unknown key \"capacity_mbs\" in [link] (did you mean capacity_mbps?)"
    );
}

#[test]
fn override_with_a_wrong_type_names_the_override() {
    assert_eq!(
        error(TEXT, &["flows.0.source.fps=fast"]),
        "--set flows.0.source.fps=fast: flows[0].source.fps must be a number, not the string \"fast\""
    );
}

#[test]
fn override_index_past_the_end_is_an_error() {
    let e = error(TEXT, &["flows.3.ecn=l4s"]);
    assert_eq!(
        e,
        "--set flows.3.ecn=l4s: flows[3]: index 3 out of range (1 entries)"
    );
}

#[test]
fn malformed_override_arguments_are_rejected() {
    assert!("link.capacity_mbps".parse::<Override>().is_err());
    assert!("link..x=1".parse::<Override>().is_err());
    assert!("link.x=[1, 2".parse::<Override>().is_err());
}

#[test]
fn missing_trace_file_is_reported_where_it_was_named() {
    let text = TEXT.replace("capacity_mbps = 10.0", "trace = \"no/such/trace.tsv\"");
    let e = error(&text, &[]);
    assert!(
        e.starts_with("paper.toml:4: link.trace: no such file \"no/such/trace.tsv\""),
        "{e}"
    );
    let e = error(TEXT, &["link.trace=/no/such/file"]);
    assert!(
        e.starts_with("--set link.trace=/no/such/file: link.trace:"),
        "{e}"
    );
}

#[test]
fn relative_trace_in_a_file_resolves_against_the_file_directory() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let text = TEXT.replace("capacity_mbps = 10.0", "trace = \"lib.rs\"");
    let s: Mini = load_str(&text, "x.toml", Some(&dir), &[]).expect("lib.rs exists in src/");
    let trace = s.link.and_then(|l| l.trace).expect("set");
    assert_eq!(Path::new(&trace), dir.join("lib.rs"));
}

#[test]
fn a_key_that_moved_says_where_it_went() {
    let text = "duration_s = 5.0\n[link]\nreturn_delay_ms = 3.0\n";
    let e = load_str::<crate::scenario::Scenario>(text, "old.toml", None, &[])
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "old.toml:3: unknown key \"return_delay_ms\" in [link]; the way back is a link \
         direction of its own: set one_way_delay_ms in [link.reverse]"
    );
}

#[test]
fn the_reverse_direction_takes_overrides_like_any_table() {
    let s: crate::scenario::Scenario = load_str(
        "duration_s = 5.0\n[link]\ncapacity_mbps = 4.0\n",
        "r.toml",
        None,
        &sets(&[
            "link.reverse.capacity_mbps=0.5",
            "link.reverse.loss_steps=[[1.0, 1.0]]",
        ]),
    )
    .unwrap();
    let r = s.link.unwrap().reverse.unwrap();
    assert_eq!(r.capacity_mbps, Some(0.5));
    assert_eq!(r.loss_steps, vec![[1.0, 1.0]]);
}
