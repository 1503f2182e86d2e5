//! A scenario that selects the reference test application's NetQueue, and table traces
//! replayed at a chosen number of seconds per row.

use scream_sim::run;
use scream_sim::scenario::Scenario;
use scream_sim::scenario::load::load_str;

fn scenario(extra_queue: &str) -> Result<Scenario, String> {
    let text = format!(
        r#"
duration_s = 8.0
[link]
capacity_mbps = 5.0
capacity_steps = [[4.0, 1.5]]
one_way_delay_ms = 20.0
[link.queue]
kind = "netqueue"
limit_ms = 0.0
{extra_queue}
[[flows]]
algorithm = "scream-v1"
ecn = "l4s"
"#
    );
    let s: Scenario = load_str(&text, "netqueue.toml", None, &[]).map_err(|e| e.to_string())?;
    s.validate().map_err(|e| e.to_string())?;
    Ok(s)
}

#[test]
fn a_scenario_selecting_netqueue_runs_and_marks_by_its_vintage() {
    let mut marks = Vec::new();
    for vintage in [2021, 2023] {
        let extra = format!("netqueue_vintage = {vintage}\nnetqueue_l4s = true");
        let s = scenario(&extra).expect("loads");
        let r = run(&s, 1, None).expect("runs");
        let link = &r.summary.links[0];
        assert!(
            link.packets_out > 1000,
            "{vintage}: {} packets",
            link.packets_out
        );
        assert_eq!(
            link.packets_dropped, 0,
            "{vintage}: the NetQueue never drops"
        );
        assert!(link.packets_ce_marked > 0, "{vintage}: no CE marks");
        assert!(
            link.utilization > 0.1 && link.utilization <= 1.01,
            "{vintage}: {}",
            link.utilization
        );
        marks.push(link.packets_ce_marked);
    }
    assert_ne!(marks[0], marks[1], "the two vintages mark alike");
}

#[test]
fn a_vintage_other_than_2021_or_2023_is_refused_at_load() {
    let e = scenario("netqueue_vintage = 2022").unwrap_err();
    assert!(e.contains("netqueue_vintage"), "{e}");
    assert!(e.contains("2021 (ac89024) or 2023 (0924c0b)"), "{e}");
}

#[test]
fn a_netqueue_key_under_another_kind_is_refused() {
    let text = "[link.queue]\nkind = \"codel\"\nnetqueue_l4s = true\n";
    let e = load_str::<Scenario>(text, "x.toml", None, &[])
        .unwrap_err()
        .to_string();
    assert!(e.contains("applies only to kind = \"netqueue\""), "{e}");
}

#[test]
fn seconds_per_row_replay_a_table_trace_at_that_pace() {
    let dir = std::env::temp_dir().join(format!("scream-rows-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("t.tsv"), "0\t2\n1\t6\n2\t4\n").unwrap();
    let text = r#"
duration_s = 0.5
sample_interval_ms = 10
[link]
trace = "t.tsv"
trace_seconds_per_row = 0.05
[[flows]]
algorithm = "cbr"
start_bitrate_mbps = 1.0
"#;
    let s: Scenario = load_str(text, "rows.toml", Some(&dir), &[]).expect("loads");
    let r = run(&s, 1, None).expect("runs");
    let at = |t: f64| {
        r.samples
            .iter()
            .find(|x| (x.t_s - t).abs() < 1e-6)
            .map(|x| x.capacity_mbps)
            .unwrap()
    };
    // Rows of 50 ms, looping every 150 ms.
    assert_eq!(
        [at(0.02), at(0.07), at(0.12), at(0.17)],
        [2.0, 6.0, 4.0, 2.0]
    );
    let mahimahi = "duration_s = 1.0\n[link]\ntrace = \"t.tsv\"\ntrace_format = \"mahimahi\"\ntrace_seconds_per_row = 0.05\n";
    let m: Scenario = load_str(mahimahi, "m.toml", Some(&dir), &[]).expect("loads");
    let e = m.validate().unwrap_err().to_string();
    assert!(
        e.contains("trace_seconds_per_row") && e.contains("table trace"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
