//! The flow key `improvements`, as a scenario file and `--set` give it: names the
//! library knows (or `all`) load and run, anything else is refused by name.

mod common;

use common::overrides;
use scream::sender::Improvements;
use scream_sim::Scenario;
use scream_sim::scenario::load::{load_builtin, load_str};

const TEXT: &str = "\
duration_s = 1.0

[link]
capacity_mbps = 5.0

[[flows]]
name = \"video\"
improvements = [\"fresh-srtt\", \"all\"]
";

#[test]
fn a_list_of_names_loads_and_runs() {
    let s: Scenario = load_str(TEXT, "x.toml", None, &[]).expect("loads");
    assert_eq!(s.flows[0].improvements, ["fresh-srtt", "all"]);
    assert_eq!(s.validate(), Ok(()));
    let r = scream_sim::run(&s, 1, None).expect("runs");
    assert!(r.summary.flows[0].packets_sent > 0);
}

#[test]
fn set_takes_a_list_or_a_single_name() {
    let first = Improvements::names()[0];
    let list = format!("flows.0.improvements=[\"{first}\"]");
    let s: Scenario = load_builtin("paper-step-v2", &overrides(&[&list])).expect("loads");
    assert_eq!(s.flows[0].improvements, [first]);
    let s: Scenario = load_builtin("paper-step-v2", &[]).expect("loads");
    assert!(
        s.flows[0].improvements.is_empty(),
        "paper-step-v2 is faithful"
    );
    let s: Scenario =
        load_builtin("paper-step-v2", &overrides(&["flows.0.improvements=all"])).expect("loads");
    assert_eq!(s.flows[0].improvements, ["all"]);
    assert_eq!(s.validate(), Ok(()));
}

/// Why validation refuses `default` with its flow's improvements set to `[name]`.
fn refusal_of(name: &str) -> String {
    let set = format!("flows.0.improvements=[\"{name}\"]");
    let s: Scenario = load_builtin("default", &overrides(&[set.as_str()])).expect("loads");
    let e = s.validate().expect_err("refused").to_string();
    assert!(e.starts_with("flows[0].improvements "), "{e}");
    e
}

#[test]
fn an_unknown_name_is_refused_naming_it_and_the_known_ones() {
    let e = refusal_of("warp-drive");
    assert!(e.contains("\"warp-drive\""), "{e}");
    assert!(e.contains(Improvements::names()[0]), "{e}");
}

#[test]
fn a_value_of_the_wrong_type_names_the_key() {
    let e = load_builtin::<Scenario>("paper-step-v2", &overrides(&["flows.0.improvements=3"]))
        .expect_err("refused")
        .to_string();
    assert!(e.contains("improvements"), "{e}");
}

#[test]
fn a_folded_name_is_refused_saying_where_it_went() {
    let e = refusal_of("tail-loss-probe");
    assert!(e.contains("now part of \"outage-recovery\""), "{e}");
}
