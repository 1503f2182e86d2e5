//! `trace_window_s`: a capacity trace in place of one interval of a stepped link, as
//! the 2022 step experiment's 5G run replaced its 10 Mbit/s interval by a 5G trace.

use scream_sim::scenario::load::load_str;
use scream_sim::{Scenario, run};

fn scenario(text: &str, dir: &std::path::Path) -> Result<Scenario, String> {
    let s: Scenario = load_str(text, "window.toml", Some(dir), &[]).map_err(|e| e.to_string())?;
    s.validate().map_err(|e| e.to_string())?;
    Ok(s)
}

/// Mean link capacity per whole second of the run, Mbit/s.
fn capacity_per_second(s: &Scenario) -> Vec<f64> {
    let r = run(s, 1, None).unwrap_or_else(|e| panic!("{e}"));
    let mut sums = vec![(0.0, 0u32); s.duration_s as usize];
    for l in r.link_samples.iter().filter(|l| l.direction == "forward") {
        // The sampled capacity is the rate at the sample's instant.
        let second = l.t_s.floor() as usize;
        if let Some(slot) = sums.get_mut(second) {
            slot.0 += l.capacity_mbps;
            slot.1 += 1;
        }
    }
    sums.iter().map(|(sum, n)| sum / f64::from(*n)).collect()
}

fn text(window: &str) -> String {
    format!(
        r#"
duration_s = 8.0
[link]
capacity_mbps = 20.0
capacity_steps = [[7.0, 30.0]]
trace = "trace.tsv"
{window}
[[flows]]
algorithm = "cbr"
start_bitrate_mbps = 1.0
"#
    )
}

#[test]
fn the_trace_replaces_the_steps_only_inside_its_window_and_loops_there() {
    let dir = tempdir();
    // 1 Hz trace of two rows, 5 then 7 Mbit/s: inside a 4 s window it plays twice.
    std::fs::write(dir.join("trace.tsv"), "1.0\t5\n2.0\t7\n").unwrap();
    let s = scenario(&text("trace_window_s = [2.0, 6.0]"), &dir).unwrap();
    let c = capacity_per_second(&s);
    let want = [20.0, 20.0, 5.0, 7.0, 5.0, 7.0, 20.0, 30.0];
    for (second, (got, want)) in c.iter().zip(want).enumerate() {
        assert!(
            (got - want).abs() < 1e-6,
            "second {second}: {got} Mbit/s, want {want} ({c:?})"
        );
    }
    // Without a window the trace is the capacity throughout.
    let s = scenario(&text(""), &dir).unwrap();
    let c = capacity_per_second(&s);
    assert!(
        (c[0] - 5.0).abs() < 1e-6 && (c[7] - 7.0).abs() < 1e-6,
        "{c:?}"
    );
}

#[test]
fn a_bad_window_is_refused_with_the_key_and_the_reason() {
    let dir = tempdir();
    std::fs::write(dir.join("trace.tsv"), "1.0\t5\n2.0\t7\n").unwrap();
    let e = scenario(&text("trace_window_s = [6.0, 2.0]"), &dir).unwrap_err();
    assert!(
        e.contains("trace_window_s") && e.contains("until_s > from_s"),
        "{e}"
    );
    let e = scenario(&text("trace_window_s = [-1.0, 2.0]"), &dir).unwrap_err();
    assert!(e.contains("trace_window_s[0]"), "{e}");
    let no_trace = text("trace_window_s = [1.0, 2.0]").replace("trace = \"trace.tsv\"", "");
    let e = scenario(&no_trace, &dir).unwrap_err();
    assert!(e.contains("needs a trace"), "{e}");
}

fn tempdir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "scream-trace-window-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
