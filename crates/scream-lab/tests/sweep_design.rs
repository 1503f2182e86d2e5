//! Sweep specs expand to the points their design promises, and a spec that cannot work
//! is refused before anything runs, with the spec's line and the key at fault.

use std::collections::BTreeSet;

use scream_lab::sweep::{DesignKind, MAX_RUNS, Plan};

fn plan(text: &str) -> Plan {
    Plan::from_str(text, "spec.toml", None).unwrap_or_else(|e| panic!("{e}"))
}

fn refused(text: &str) -> String {
    match Plan::from_str(text, "spec.toml", None) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e.to_string(),
    }
}

const BASES: &str = r#"
[[base]]
name = "l4s"
scenario = "paper-step-v2"
set = ["duration_s=1"]

[[base]]
name = "no-ecn"
scenario = "paper-step-v2"
set = ["duration_s=1", "flows.0.ecn=none", "link.queue.kind=tail-drop"]
"#;

fn ten(key: &str, first: f64, step: f64) -> String {
    let values: Vec<String> = (0..10)
        .map(|i| format!("{:?}", first + step * f64::from(i)))
        .collect();
    format!(
        "[[axis]]\nkey = \"{key}\"\nvalues = [{}]\n",
        values.join(", ")
    )
}

#[test]
fn one_at_a_time_of_three_axes_of_ten_values_is_thirty_points_per_base() {
    let text = format!(
        "[design]\nkind = \"one-at-a-time\"\n{BASES}\n{}\n{}\n{}base = 20.0\n",
        ten("flows.0.params.qdelay_target", 0.02, 0.02),
        ten("flows.0.max_bitrate_mbps", 5.0, 5.0),
        ten("link.capacity_mbps", 5.0, 5.0),
    );
    let p = plan(&text);
    assert_eq!(p.design, DesignKind::OneAtATime);
    assert_eq!(p.points().len(), 30);
    assert_eq!(p.runs().len(), 60, "30 points on each of 2 bases, one seed");
    assert_eq!(
        p.params(),
        [
            "flows.0.params.qdelay_target",
            "flows.0.max_bitrate_mbps",
            "link.capacity_mbps"
        ]
    );
    for (i, point) in p.points().iter().enumerate() {
        let (axis, transition) = (i / 10, i % 10);
        assert_eq!(point.axis, Some(axis));
        assert_eq!(point.transition, Some(transition));
        for (a, v) in point.values().iter().enumerate() {
            match (a == axis, a) {
                (true, _) => assert!(v.is_some()),
                // The capacity axis has a base value; the others keep the scenario's.
                (false, 2) => assert_eq!(v.as_deref(), Some("20.0")),
                (false, _) => assert_eq!(v, &None),
            }
        }
    }
    assert_eq!(p.points()[13].values()[1].as_deref(), Some("20.0"));
    let ids: BTreeSet<String> = p.runs().iter().map(|r| p.run_id(r)).collect();
    assert_eq!(ids.len(), 60);
    assert!(ids.contains("no-ecn/p29/s1"), "{ids:?}");
}

#[test]
fn a_factorial_of_nine_two_valued_axes_is_512_distinct_points() {
    let real = [
        "flows.0.params.qdelay_target",
        "flows.0.params.beta_loss",
        "flows.0.params.beta_ecn",
        "flows.0.max_bitrate_mbps",
        "flows.0.min_bitrate_mbps",
        "flows.0.start_bitrate_mbps",
        "flows.0.packets_per_report",
        "flows.0.max_report_interval_ms",
        "link.capacity_mbps",
    ];
    let values = [
        ["0.02", "0.1"],
        ["0.5", "0.7"],
        ["0.6", "0.8"],
        ["50.0", "100.0"],
        ["0.1", "0.2"],
        ["1.0", "2.0"],
        ["8", "16"],
        ["20.0", "40.0"],
        ["10.0", "20.0"],
    ];
    let mut text =
        "[design]\nkind = \"factorial\"\n[[base]]\nscenario = \"paper-step-v2\"\n".to_owned();
    for (k, v) in real.iter().zip(values) {
        text.push_str(&format!(
            "[[axis]]\nkey = \"{k}\"\nvalues = [{}, {}]\n",
            v[0], v[1]
        ));
    }
    let p = plan(&text);
    assert_eq!(p.points().len(), 512);
    let combos: BTreeSet<Vec<Option<String>>> = p.points().iter().map(|q| q.values()).collect();
    assert_eq!(combos.len(), 512, "every combination once");
    // Nested loops over the axes as written: the last changes fastest.
    assert_eq!(p.points()[0].values()[8].as_deref(), Some("10.0"));
    assert_eq!(p.points()[1].values()[8].as_deref(), Some("20.0"));
    assert_eq!(p.points()[1].values()[0].as_deref(), Some("0.02"));
    assert_eq!(p.points()[256].values()[0].as_deref(), Some("0.1"));
    assert!(
        p.points()
            .iter()
            .all(|q| q.axis.is_none() && q.transition.is_none())
    );
}

fn sampled(kind: &str, samples: usize, seed: u64) -> Plan {
    plan(&format!(
        r#"
[design]
kind = "{kind}"
samples = {samples}
seed = {seed}

[[base]]
scenario = "paper-step-v2"
set = ["duration_s=1"]

[[axis]]
key = "flows.0.params.qdelay_target"
range = [0.02, 0.2]

[[axis]]
key = "link.capacity_mbps"
range = [1.0, 100.0]
scale = "log"

[[axis]]
key = "flows.0.packets_per_report"
range = [1, 64]
integer = true
"#
    ))
}

fn column(p: &Plan, axis: usize) -> Vec<f64> {
    p.points()
        .iter()
        .map(|q| {
            let cell = q.values()[axis].clone().expect("sampled");
            cell.parse().unwrap_or_else(|_| panic!("{cell}"))
        })
        .collect()
}

#[test]
fn a_latin_hypercube_puts_one_point_in_each_stratum_of_every_axis() {
    let n = 20;
    let p = sampled("latin-hypercube", n, 7);
    assert_eq!(p.points().len(), n);
    let strata = |values: Vec<f64>, to_unit: &dyn Fn(f64) -> f64| -> BTreeSet<usize> {
        values
            .into_iter()
            .map(|v| {
                let u = to_unit(v);
                assert!((0.0..=1.0).contains(&u), "{v} outside its range");
                ((u * n as f64).floor() as usize).min(n - 1)
            })
            .collect()
    };
    let linear = strata(column(&p, 0), &|v| (v - 0.02) / (0.2 - 0.02));
    assert_eq!(
        linear,
        (0..n).collect(),
        "every linear stratum exactly once"
    );
    let log = strata(column(&p, 1), &|v| v.ln() / 100f64.ln());
    assert_eq!(log, (0..n).collect(), "every log stratum exactly once");
    let ints = column(&p, 2);
    assert!(
        ints.iter()
            .all(|v| v.fract() == 0.0 && (1.0..=64.0).contains(v))
    );
    // Same spec, same points; another seed, others.
    assert_eq!(column(&sampled("latin-hypercube", n, 7), 0), column(&p, 0));
    assert_ne!(column(&sampled("latin-hypercube", n, 8), 0), column(&p, 0));
}

#[test]
fn random_samples_stay_in_range_and_repeat_with_their_seed() {
    let p = sampled("random", 50, 3);
    assert_eq!(p.points().len(), 50);
    let q = column(&p, 0);
    assert!(q.iter().all(|v| (0.02..=0.2).contains(v)));
    assert_eq!(column(&sampled("random", 50, 3), 0), q);
    assert_eq!(p.design, DesignKind::Random);
}

#[test]
fn a_list_design_takes_the_union_of_its_points_keys() {
    let p = plan(
        r#"
seeds = [3, 5]
[design]
kind = "list"
[[base]]
scenario = "paper-step-v2"
set = ["duration_s=1"]
[[point]]
set = ["link.capacity_mbps=5", "flows.0.ecn=l4s"]
[[point]]
set = ["flows.0.ecn=\"none\""]
"#,
    );
    assert_eq!(p.params(), ["link.capacity_mbps", "flows.0.ecn"]);
    assert_eq!(
        p.points()[0].values(),
        [Some("5".into()), Some("l4s".into())]
    );
    assert_eq!(p.points()[1].values(), [None, Some("none".into())]);
    let ids: Vec<String> = p.runs().iter().map(|r| p.run_id(r)).collect();
    assert_eq!(
        ids,
        [
            "paper-step-v2/p0/s3",
            "paper-step-v2/p0/s5",
            "paper-step-v2/p1/s3",
            "paper-step-v2/p1/s5"
        ]
    );
}

#[test]
fn seeds_default_to_the_scenario_and_a_count_means_one_to_n() {
    let one = "[design]\nkind = \"factorial\"\n[[base]]\nscenario = \"paper-step-v2\"\nset = [\"seed=9\"]\n[[axis]]\nkey = \"link.capacity_mbps\"\nvalues = [5, 10]\n";
    assert_eq!(plan(one).bases()[0].seeds, [9]);
    let three = format!("seeds = 3\n{one}");
    assert_eq!(plan(&three).bases()[0].seeds, [1, 2, 3]);
    assert_eq!(plan(&three).runs().len(), 6);
}

#[test]
fn grid_ranges_give_evenly_spaced_readable_values() {
    let p = plan(
        "[design]\nkind = \"one-at-a-time\"\n[[base]]\nscenario = \"paper-step-v2\"\n[[axis]]\nkey = \"flows.0.params.qdelay_target\"\nrange = [0.02, 0.2]\nsteps = 10\n",
    );
    let cells: Vec<String> = p
        .points()
        .iter()
        .filter_map(|q| q.values()[0].clone())
        .collect();
    assert_eq!(
        cells,
        [
            "0.02", "0.04", "0.06", "0.08", "0.1", "0.12", "0.14", "0.16", "0.18", "0.2"
        ]
    );
}

#[test]
fn bad_specs_are_refused_with_line_and_key() {
    let head = "[[base]]\nscenario = \"paper-step-v2\"\n";
    let e = refused(&format!("{head}[design]\nkind = \"factorail\"\n"));
    assert!(e.starts_with("spec.toml:"), "{e}");
    assert!(e.contains("factorial"), "{e}");
    let e = refused(&format!(
        "{head}[design]\nkind = \"factorial\"\n[[axis]]\nkey = \"link.capacity_mbps\"\nvalues = []\n"
    ));
    assert!(e.starts_with("spec.toml:7:"), "{e}");
    assert!(
        e.contains("axis[0]") && e.contains("values is empty"),
        "{e}"
    );
    let e = refused(&format!("{head}[design]\nkind = \"factorial\"\n"));
    assert!(e.contains("at least one [[axis]]"), "{e}");
    let e = refused(
        "[design]\nkind = \"factorial\"\n[[axis]]\nkey = \"link.capacity_mbps\"\nvalues = [1]\n",
    );
    assert!(e.contains("[[base]]"), "{e}");
    let e = refused(&format!(
        "{head}[design]\nkind = \"latin-hypercube\"\nsamples = 4\n[[axis]]\nkey = \"link.capacity_mbps\"\nvalues = [1]\n"
    ));
    assert!(e.contains("values does not apply"), "{e}");
    let e = refused(&format!(
        "{head}[design]\nkind = \"random\"\nsamples = 4\n[[axis]]\nkey = \"link.capacity_mbps\"\nrange = [5, 1]\n"
    ));
    assert!(e.contains("low < high"), "{e}");
    let e = refused(&format!(
        "metrics = [\"troughput_mbps\"]\n{head}[design]\nkind = \"factorial\"\n[[axis]]\nkey = \"link.capacity_mbps\"\nvalues = [1]\n"
    ));
    assert!(e.contains("did you mean throughput_mbps"), "{e}");
    let e = refused(&format!(
        "flows = [3]\n{head}[design]\nkind = \"factorial\"\n[[axis]]\nkey = \"link.capacity_mbps\"\nvalues = [1]\n"
    ));
    assert!(e.contains("no flow 3"), "{e}");
    let e = refused(&format!(
        "{head}[design]\nkind = \"factorial\"\n[[axis]]\nkey = \"seed\"\nvalues = [1]\n"
    ));
    assert!(e.contains("seeds"), "{e}");
    let e = refused(&format!(
        "{head}[[base]]\nscenario = \"paper-step-v2\"\n[design]\nkind = \"list\"\n[[point]]\nset = []\n"
    ));
    assert!(e.contains("second base named \"paper-step-v2\""), "{e}");
    let e = refused(&format!(
        "{head}[design]\nkind = \"factorial\"\n[[axis]]\nkey = \"link.capacity_mbps\"\nvalues = [1]\nbogus = 2\n"
    ));
    assert!(e.contains("unknown key \"bogus\""), "{e}");
}

#[test]
fn a_misspelt_key_is_refused_before_it_fails_every_run() {
    let e = refused(
        "[[base]]\nscenario = \"paper-step-v2\"\n[design]\nkind = \"one-at-a-time\"\n[[axis]]\nkey = \"flows.0.params.qdelay_targt\"\nvalues = [0.02, 0.04]\n",
    );
    assert!(e.starts_with("spec.toml:6:"), "{e}");
    assert!(
        e.contains("qdelay_targt") && e.contains("did you mean qdelay_target"),
        "{e}"
    );
    // One bad value among good ones is not a misspelt key: its runs record the error.
    plan(
        "[[base]]\nscenario = \"paper-step-v2\"\n[design]\nkind = \"one-at-a-time\"\n[[axis]]\nkey = \"link.capacity_mbps\"\nvalues = [-5, 10]\n",
    );
}

#[test]
fn absurd_sizes_are_refused_with_the_limit() {
    let axes: String = (0..4)
        .map(|i| {
            let values: Vec<String> = (0..100).map(|v| format!("{}", v + i)).collect();
            format!(
                "[[axis]]\nkey = \"flows.0.params.x{i}\"\nvalues = [{}]\n",
                values.join(",")
            )
        })
        .collect();
    let e = refused(&format!(
        "[[base]]\nscenario = \"paper-step-v2\"\n[design]\nkind = \"factorial\"\n{axes}"
    ));
    assert!(
        e.contains(&MAX_RUNS.to_string()) && e.contains("100000000 runs"),
        "{e}"
    );
    let e = refused(
        "seeds = 2000000\n[[base]]\nscenario = \"paper-step-v2\"\n[design]\nkind = \"factorial\"\n",
    );
    assert!(e.contains("limit"), "{e}");
    let e = refused(
        "[[base]]\nscenario = \"paper-step-v2\"\n[design]\nkind = \"random\"\nsamples = 5000000\n[[axis]]\nkey = \"link.capacity_mbps\"\nrange = [1, 2]\n",
    );
    assert!(e.contains("limit"), "{e}");
    let e = refused(
        "[[base]]\nscenario = \"paper-step-v2\"\n[design]\nkind = \"one-at-a-time\"\n[[axis]]\nkey = \"link.capacity_mbps\"\nrange = [1, 2]\nsteps = 0\n",
    );
    assert!(e.contains("steps must be"), "{e}");
}

#[test]
fn a_design_key_its_kind_does_not_take_is_refused_with_the_keys_it_takes() {
    let head = "[[base]]\nscenario = \"paper-step-v2\"\n[[axis]]\nkey = \"link.capacity_mbps\"\n";
    for kind in ["factorial", "one-at-a-time"] {
        let e = refused(&format!(
            "{head}values = [5, 10]\n[design]\nkind = \"{kind}\"\nsamples = 8\n"
        ));
        assert_eq!(
            e,
            format!(
                "spec.toml:8: unknown key \"samples\" in [design]: a {kind} design takes only \
                 kind (samples belongs to the latin-hypercube and random designs)"
            )
        );
    }
    let e = refused(
        "[[base]]\nscenario = \"paper-step-v2\"\n[design]\nkind = \"list\"\nseed = 3\n\
         [[point]]\nset = [\"link.capacity_mbps=5\"]\n",
    );
    assert!(
        e.starts_with(
            "spec.toml:5: unknown key \"seed\" in [design]: a list design takes only kind"
        ),
        "{e}"
    );
    // A key no design takes gets the nearest one, as any other spec key.
    let e = refused(&format!(
        "{head}values = [5, 10]\n[design]\nkind = \"factorial\"\nsampels = 8\n"
    ));
    assert!(
        e.starts_with("spec.toml:8: unknown key \"sampels\" in [design] (did you mean samples?)"),
        "{e}"
    );
    let e = refused(&format!(
        "{head}range = [5, 10]\n[design]\nkind = \"random\"\n"
    ));
    assert!(
        e.starts_with("spec.toml:6: missing key \"samples\" in [design]")
            && e.contains("kind, samples, seed"),
        "{e}"
    );
    // The sampled designs still take both of their keys.
    let p = plan(&format!(
        "{head}range = [5, 10]\n[design]\nkind = \"latin-hypercube\"\nsamples = 3\nseed = 9\n"
    ));
    assert_eq!(p.design, DesignKind::LatinHypercube);
    assert_eq!(p.points().len(), 3);
}

#[test]
fn every_design_kind_reads_back_from_its_name() {
    for kind in DesignKind::ALL {
        let spec = format!(
            "[[base]]\nscenario = \"paper-step-v2\"\n[design]\nkind = \"{}\"\n",
            kind.name()
        );
        // Refused for want of axes or points or samples, but never for its kind.
        let e = refused(&spec);
        assert!(!e.contains("unknown value"), "{}: {e}", kind.name());
    }
}
