//! Media pause and resume (RFC 8867 §5.8): `pauses = [[from_s, to_s], ...]` stops a
//! flow's encoder for a while without tearing the sender down.

use scream_sim::scenario::load::load_str;
use scream_sim::{Scenario, run};

const BASE: &str = r#"
duration_s = 8.0
sample_interval_ms = 200
[link]
capacity_mbps = 5
one_way_delay_ms = 20
[[flows]]
name = "paused"
pauses = [[2.0, 4.0]]
[[flows]]
name = "steady"
"#;

fn load(text: &str) -> Result<Scenario, String> {
    let s: Scenario = load_str(text, "pauses.toml", None, &[]).map_err(|e| e.to_string())?;
    s.validate().map_err(|e| e.to_string())?;
    Ok(s)
}

#[test]
fn a_paused_flow_sends_nothing_in_the_pause_and_resumes_after_it() {
    let s = load(BASE).expect("valid");
    let r = run(&s, 1, None).expect("runs");
    let sent = |flow: u32, from: f64, to: f64| -> f64 {
        r.samples
            .iter()
            .filter(|x| x.flow_index == flow && x.t_s > from && x.t_s <= to)
            .map(|x| x.tx_mbps)
            .sum()
    };
    // Queued frames drain within a few hundred ms of the pause starting.
    assert_eq!(sent(0, 2.6, 4.0), 0.0, "the paused flow sent");
    assert!(sent(0, 4.2, 6.0) > 0.0, "the paused flow did not resume");
    assert!(sent(1, 2.6, 4.0) > 0.0, "the other flow stopped too");
    // The frames are numbered without a gap: none counts as discarded or lost.
    let f = &r.summary.flows[0];
    assert_eq!(f.frames.discarded + f.frames.lost, 0, "{:?}", f.frames);
}

#[test]
fn pauses_out_of_order_or_outside_the_flow_are_refused_naming_the_key() {
    let cases = [
        (
            "pauses = [[4.0, 2.0]]",
            "flows[0].pauses[0] must end after it starts",
        ),
        (
            "pauses = [[3.0, 5.0], [4.0, 6.0]]",
            "flows[0].pauses[1] starts at 4 s, before 5 s",
        ),
        (
            "pauses = [[2.0, 4.0]]\nstop_s = 3.0",
            "flows[0].pauses[0] ends after stop_s",
        ),
        ("pauses = [[-1.0, 4.0]]", "flows[0].pauses[0][0] must be in"),
        (
            "pauses = [[1.0, 2.0]]\nalgorithm = \"cbr\"",
            "flows[0].pauses applies only",
        ),
    ];
    for (keys, expected) in cases {
        let text = format!("duration_s = 8.0\n[link]\n[[flows]]\n{keys}\n");
        let e = load(&text).expect_err(keys);
        assert!(e.contains(expected), "{keys}: {e}");
    }
}
