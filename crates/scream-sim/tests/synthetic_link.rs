//! A link whose capacity is a generated (`synthetic:`) trace: the simulator serves the
//! trace the network model generates for that link direction under the run's seed.

use scream::Duration;
use scream_netmodel::synthetic::preset;
use scream_sim::scenario::load::load_str;
use scream_sim::{Scenario, run};

const TEXT: &str = r#"
duration_s = 20.0
[link]
trace = "synthetic:lte"
[link.reverse]
trace = "synthetic:5g-walking"
[[flows]]
algorithm = "cbr"
start_bitrate_mbps = 1.0
"#;

fn scenario(text: &str) -> Scenario {
    load_str(text, "synthetic.toml", None, &[]).unwrap_or_else(|e| panic!("{e}"))
}

/// The mean rate, Mbit/s, of `model`'s trace for element `id` over 20 s.
fn generated_mean(model: &str, seed: u64, id: &str) -> f64 {
    let span_ns = 20_000_000_000u64;
    let rows = preset(model)
        .expect("shipped")
        .rows(seed, id, Duration::from_secs(20));
    let bits: f64 = rows
        .iter()
        .enumerate()
        .map(|(i, (t, bps))| bps * (rows.get(i + 1).map_or(span_ns, |r| r.0) - t) as f64 / 1e9)
        .sum();
    bits / 20.0 / 1e6
}

fn capacities(s: &Scenario, seed: u64) -> (f64, f64) {
    let r = run(s, seed, None).unwrap_or_else(|e| panic!("{e}"));
    let of = |dir: &str| {
        r.summary
            .links
            .iter()
            .find(|l| l.direction == dir)
            .expect("both directions")
            .capacity_mean_mbps
    };
    (of("forward"), of("reverse"))
}

#[test]
fn each_direction_serves_the_trace_generated_for_it_under_the_seed() {
    let s = scenario(TEXT);
    assert!(
        s.has_random_element(),
        "a generated trace depends on the seed"
    );
    for seed in [1, 2] {
        let (forward, reverse) = capacities(&s, seed);
        let want_f = generated_mean("lte", seed, "link/bottleneck");
        let want_r = generated_mean("5g-walking", seed, "link/bottleneck/reverse");
        assert!(
            (forward - want_f).abs() < 1e-6 * want_f,
            "{forward} vs {want_f}"
        );
        assert!(
            (reverse - want_r).abs() < 1e-6 * want_r,
            "{reverse} vs {want_r}"
        );
    }
    assert_ne!(capacities(&s, 1), capacities(&s, 2));
    assert_eq!(capacities(&s, 3), capacities(&s, 3));
}

#[test]
fn a_synthetic_trace_in_a_file_is_not_taken_for_a_relative_path() {
    // Loaded as from a file in /scenarios: relative paths would be joined to it.
    let dir = std::path::Path::new("/scenarios");
    let s: Scenario = load_str(TEXT, "gen.toml", Some(dir), &[]).unwrap_or_else(|e| panic!("{e}"));
    let link = s.link.expect("one link");
    assert_eq!(link.trace.as_deref(), Some("synthetic:lte"));
}

#[test]
fn an_unknown_model_is_refused_where_it_was_named() {
    let text = TEXT.replace("synthetic:lte", "synthetic:lte-advanced");
    let e = load_str::<Scenario>(&text, "gen.toml", None, &[])
        .expect_err("unknown model")
        .to_string();
    assert_eq!(
        e,
        "gen.toml:4: link.trace: unknown synthetic trace \"synthetic:lte-advanced\" \
         (known: synthetic:lte, synthetic:5g-walking)"
    );
    // A frame-size trace cannot be generated: there it is just a missing file.
    let text = TEXT.replace(
        "start_bitrate_mbps = 1.0",
        "algorithm = \"scream-v2\"\n[flows.source]\ntrace = \"synthetic:lte\"",
    );
    let text = text.replacen("algorithm = \"cbr\"\n", "", 1);
    let e = load_str::<Scenario>(&text, "gen.toml", None, &[])
        .expect_err("no such file")
        .to_string();
    assert!(e.contains("flows[0].source.trace: no such file"), "{e}");
}
