//! The sizes a scenario may ask for are capped, and the shape of every two-number key is
//! exact; each refusal names the place (file:line or the `--set`), the key, the count and
//! the cap.

mod common;

use common::overrides;
use scream_sim::scenario::load::{MAX_SCENARIO_BYTES, load_checked, load_checked_str};
use scream_sim::scenario::validate::{MAX_FLOWS, MAX_LINKS, MAX_STEPS};

const HEAD: &str = "duration_s = 2.0\n\n[link]\ncapacity_mbps = 10.0\n";

fn refused(text: &str, sets: &[&str]) -> String {
    match load_checked_str(text, "my.toml", None, &overrides(sets)) {
        Ok(_) => panic!("accepted:\n{text}\nwith {sets:?}"),
        Err(e) => e.to_string(),
    }
}

fn loads(text: &str, sets: &[&str]) {
    if let Err(e) = load_checked_str(text, "my.toml", None, &overrides(sets)) {
        panic!("{e}");
    }
}

fn flows(n: usize) -> String {
    (0..n)
        .map(|i| format!("[[flows]]\nname = \"f{i}\"\n"))
        .collect()
}

fn steps(n: usize) -> String {
    let list: Vec<String> = (0..n).map(|i| format!("[{i}, 5]")).collect();
    format!("[{}]", list.join(","))
}

#[test]
fn a_step_of_three_numbers_is_refused_at_its_line_not_cut_to_two() {
    let text = format!("{HEAD}capacity_steps = [[1, 5], [2, 6, 7]]\n{}", flows(1));
    assert_eq!(
        refused(&text, &[]),
        "my.toml:5: link.capacity_steps[1]: must be two numbers [from_s, mbps], not a list of 3"
    );
    let e = refused(&format!("{HEAD}{}", flows(1)), &["link.loss_steps=[[1]]"]);
    assert_eq!(
        e,
        "--set link.loss_steps=[[1]]: link.loss_steps[0]: must be two numbers \
         [from_s, probability], not a list of 1"
    );
    let e = refused(
        &format!("report_window_s = [0, 1, 2]\n{HEAD}{}", flows(1)),
        &[],
    );
    assert!(
        e.starts_with("my.toml:1: report_window_s: must be two numbers"),
        "{e}"
    );
    let e = refused(
        &format!("{HEAD}{}pauses = [[0.5, 1, 1.5]]\n", flows(1)),
        &[],
    );
    assert!(
        e.starts_with("my.toml:7: flows[0].pauses[0]: must be two numbers"),
        "{e}"
    );
    loads(
        &format!("{HEAD}capacity_steps = [[1, 5], [2, 6]]\n{}", flows(1)),
        &[],
    );
}

#[test]
fn more_steps_than_the_cap_are_refused_with_the_count_and_the_cap() {
    let at_cap = format!("{HEAD}capacity_steps = {}\n{}", steps(MAX_STEPS), flows(1));
    loads(&at_cap, &["duration_s=20000"]);
    let over = format!(
        "{HEAD}capacity_steps = {}\n{}",
        steps(MAX_STEPS + 1),
        flows(1)
    );
    let e = refused(&over, &["duration_s=20000"]);
    assert!(
        e.starts_with(&format!(
            "my.toml:5: link.capacity_steps has {} steps, more than the limit of {MAX_STEPS}",
            MAX_STEPS + 1
        )),
        "{e}"
    );
    assert!(e.contains("trace file"), "{e}");
    let e = refused(
        &format!("{HEAD}{}", flows(1)),
        &[
            &format!("link.loss_steps={}", steps(MAX_STEPS + 1)),
            "duration_s=20000",
        ],
    );
    assert!(
        e.starts_with("--set link.loss_steps=[[0, 5],") && e.contains("more than the limit"),
        "{e}"
    );
}

#[test]
fn more_flows_than_the_cap_are_refused_with_the_count_and_the_cap() {
    let text = format!("{HEAD}\n{}", flows(MAX_FLOWS + 1));
    // The rows of a long run would be refused first; a short one reaches the count.
    let e = refused(&text, &["duration_s=0.1"]);
    assert!(
        e.starts_with(&format!(
            "my.toml:6: flows has {} flows, more than the limit of {MAX_FLOWS}",
            MAX_FLOWS + 1
        )),
        "{e}"
    );
}

#[test]
fn more_links_than_the_cap_are_refused_with_the_count_and_the_cap() {
    let links: String = (0..=MAX_LINKS)
        .map(|i| format!("[[links]]\nname = \"l{i}\"\n"))
        .collect();
    let text = format!("duration_s = 1.0\n{links}{}", flows(1));
    let e = refused(&text, &[]);
    assert!(
        e.starts_with(&format!(
            "my.toml:2: links has {} links, more than the limit of {MAX_LINKS}",
            MAX_LINKS + 1
        )),
        "{e}"
    );
}

#[test]
fn link_rows_beyond_their_cap_are_refused_naming_the_sampling_interval() {
    let links: String = (0..10)
        .map(|i| format!("[[links]]\nname = \"l{i}\"\n"))
        .collect();
    let text = format!("duration_s = 100000.0\n{links}{}", flows(1));
    let e = refused(&text, &[]);
    assert!(
        e.starts_with("my.toml: sample_interval_ms gives 1.000e8 links.csv rows"),
        "{e}"
    );
    // One link sampled as often as its one stream stays within both caps.
    loads(&format!("duration_s = 100000.0\n[link]\n{}", flows(1)), &[]);
}

#[test]
fn a_scenario_file_larger_than_the_cap_is_refused_before_it_is_parsed() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("huge.toml");
    // A valid head, then comments up to one byte past the cap: only the size is wrong.
    let head = format!("{HEAD}{}", flows(1));
    let filler = MAX_SCENARIO_BYTES as usize + 1 - head.len();
    let comment = "# padding\n".repeat(filler / 10 + 1);
    std::fs::write(&path, format!("{head}{}", &comment[..filler])).expect("written");
    let e = load_checked(path.to_str().expect("utf-8"), &[]).expect_err("refused");
    assert!(
        e.to_string()
            .ends_with(&format!("huge.toml: a scenario file is at most 8 MiB ({MAX_SCENARIO_BYTES} bytes), and this one is larger; give a long capacity table as a trace file (link.trace)")),
        "{e}"
    );
    // At the cap it loads.
    std::fs::write(&path, format!("{head}{}", &comment[..filler - 1])).expect("written");
    load_checked(path.to_str().expect("utf-8"), &[]).expect("loads at the cap");
}
