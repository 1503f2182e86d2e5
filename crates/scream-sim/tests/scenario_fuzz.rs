//! Arbitrary values for every numeric scenario key, one at a time and a few at once,
//! fed through the loader as `--set` overrides: each case must either be refused with
//! an error naming the key, or build and run to completion, never panic or hang.
//!
//! The keys are enumerated from the model itself: a base scenario with every optional
//! key set is serialised and its numeric leaves walked, so a new key is covered, and
//! must have a documented range (`scenario::ranges::of_key`), as soon as it exists.
//! Values are drawn from a seeded random stream, so every run of the test is the same.

use scream_netmodel::keys::Range;
use scream_records::timeseries_csv;
use scream_sim::netmodel::RngStream;
use scream_sim::output::summary_json;
use scream_sim::scenario::load::{Override, load_str};
use scream_sim::scenario::ranges;
use scream_sim::scenario::{
    Algorithm, EcnSetting, FlowConfig, LinkConfig, QueueKind, Scenario, SourceConfig, SourceKind,
    StreamConfig, TcpFlowConfig, TcpTraffic,
};
use scream_sim::{World, run};
use serde_json::Value;

/// Simulated time of the base scenario, s: short, so that each run is cheap in a debug
/// build, and long enough for feedback, AQM updates and every step to happen.
const BASE_DURATION_S: f64 = 0.5;

/// A link with every optional key set.
fn full_link(name: &str, kind: QueueKind) -> LinkConfig {
    let mut l = LinkConfig {
        name: name.into(),
        capacity_mbps: Some(4.0),
        capacity_steps: vec![[0.25, 3.0]],
        one_way_delay_ms: Some(5.0),
        jitter_ms: 1.0,
        jitter_max_ms: Some(2.0),
        loss: 0.01,
        loss_steps: vec![[0.35, 0.02]],
        loss_burst_packets: 2.0,
        ..LinkConfig::default()
    };
    l.queue.kind = kind;
    l
}

/// Every optional key set, every queue kind on the path, every kind of source and flow.
/// Links other than the first set only their queue: the first covers the link keys.
fn base() -> Scenario {
    let mut first = full_link("fifo", QueueKind::TailDrop);
    first.reverse = Some(Box::new(full_link("", QueueKind::Codel)));
    let mut links = vec![first];
    for (name, kind) in [
        ("codel", QueueKind::Codel),
        ("ecn", QueueKind::EcnThreshold),
        ("ramp", QueueKind::L4sRamp),
        ("pi2", QueueKind::DualPi2),
    ] {
        let mut l = LinkConfig {
            name: name.into(),
            ..LinkConfig::default()
        };
        l.queue.kind = kind;
        links.push(l);
    }
    let video = FlowConfig {
        name: "video".into(),
        ecn: EcnSetting::L4s,
        feedback_ecn: EcnSetting::Classic,
        stop_s: 0.45,
        max_bitrate_mbps: 2.0,
        source: SourceConfig {
            phase_ms: Some(1.0),
            sluggishness_s: 0.1,
            ..SourceConfig::default()
        },
        params: [("mss_bytes".to_owned(), 1000.0)].into(),
        ..FlowConfig::default()
    };
    let two_streams = FlowConfig {
        name: "call".into(),
        ecn: EcnSetting::Classic,
        start_s: 0.05,
        streams: vec![
            StreamConfig {
                max_bitrate_mbps: 1.0,
                source: SourceConfig {
                    kind: SourceKind::VideoConstant,
                    ..SourceConfig::default()
                },
                ..StreamConfig::default()
            },
            StreamConfig {
                name: "audio".into(),
                source: SourceConfig {
                    kind: SourceKind::Audio,
                    ..SourceConfig::default()
                },
                ..StreamConfig::default()
            },
        ],
        ..FlowConfig::default()
    };
    let cbr = FlowConfig {
        name: "cbr".into(),
        algorithm: Algorithm::Cbr,
        start_s: 0.1,
        stop_s: 0.15,
        start_bitrate_mbps: 0.5,
        ..FlowConfig::default()
    };
    // Through one link only, whose capacity the other keys leave alone: a TCP flow
    // takes what the link gives, and an unlimited link would make a case slow.
    let tcp = FlowConfig {
        name: "tcp".into(),
        algorithm: Algorithm::TcpCubic,
        ecn: EcnSetting::Classic,
        start_s: 0.02,
        path: vec!["codel".into()],
        tcp: Some(TcpFlowConfig {
            traffic: TcpTraffic::OnOff,
            object_min_kb: 5.0,
            object_max_kb: 20.0,
            idle_mean_s: 0.05,
            start_idle: false,
            mss_bytes: 1000,
            delayed_ack: false,
            min_rto_ms: 100.0,
        }),
        ..FlowConfig::default()
    };
    Scenario {
        name: "fuzz".into(),
        duration_s: BASE_DURATION_S,
        sample_interval_ms: 50.0,
        report_window_s: Some([0.1, 0.4]),
        link: None,
        links,
        flows: vec![video, two_streams, cbr, tcp],
        ..Scenario::default()
    }
}

/// A numeric key of the base scenario.
#[derive(Debug, Clone)]
struct Leaf {
    /// Segments as an override writes them (`links.0.capacity_steps.0.1`).
    path: Vec<String>,
    /// Whether the model holds an integer there.
    integer: bool,
    /// Its documented range (`None` for `[flows.params]`, the sender's own).
    range: Option<Range>,
}

impl Leaf {
    fn dotted(&self) -> String {
        self.path.join(".")
    }

    /// The key's own name (without indices).
    fn name(&self) -> &str {
        self.path
            .iter()
            .rev()
            .find(|s| s.parse::<usize>().is_err())
            .map_or("", String::as_str)
    }
}

fn walk(v: &Value, path: &mut Vec<String>, out: &mut Vec<Leaf>) {
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                path.push(k.clone());
                walk(child, path, out);
                path.pop();
            }
        }
        Value::Array(a) => {
            for (i, child) in a.iter().enumerate() {
                path.push(i.to_string());
                walk(child, path, out);
                path.pop();
            }
        }
        Value::Number(n) => {
            let leaf = Leaf {
                path: path.clone(),
                integer: n.is_u64() || n.is_i64(),
                range: None,
            };
            let element = path.last().and_then(|s| s.parse::<usize>().ok());
            let params = path.iter().any(|s| s == "params");
            // A sender parameter may share its name with a scenario key (`mss_bytes`
            // of `[flows.tcp]`); its range is the sender's own.
            let range = if params {
                None
            } else {
                ranges::of_key(leaf.name(), element)
            };
            out.push(Leaf { range, ..leaf });
            assert!(
                range.is_some() || params,
                "numeric key {} has no documented range in scenario::ranges",
                path.join(".")
            );
        }
        _ => {}
    }
}

fn leaves(s: &Scenario) -> Vec<Leaf> {
    let mut out = Vec::new();
    walk(&serde_json::to_value(s).unwrap(), &mut Vec::new(), &mut out);
    out
}

/// A float as TOML writes it (`nan`, `inf`, `-inf`, `1e300`, `0.5`).
fn toml_float(v: f64) -> String {
    if v.is_nan() {
        "nan".into()
    } else if v.is_infinite() {
        (if v > 0.0 { "inf" } else { "-inf" }).into()
    } else {
        format!("{v:?}")
    }
}

/// A scalar or an array of scalars as a TOML value.
fn toml_value(v: &Value) -> String {
    match v {
        Value::Bool(b) => b.to_string(),
        Value::Number(n) if n.is_f64() => toml_float(n.as_f64().unwrap_or(f64::NAN)),
        Value::Number(n) => n.to_string(),
        // JSON string escapes are valid in TOML basic strings.
        Value::String(s) => Value::String(s.clone()).to_string(),
        Value::Array(a) => {
            let items: Vec<String> = a.iter().map(toml_value).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Null | Value::Object(_) => unreachable!("tables are written as sections"),
    }
}

/// Writes the table `obj` at dotted `path` as TOML sections: its plain keys, then its
/// sub-tables as `[path.key]` and its lists of tables as `[[path.key]]`.
fn write_table(out: &mut String, path: &str, obj: &serde_json::Map<String, Value>) {
    let is_tables = |v: &Value| v.as_array().is_some_and(|a| a.iter().all(Value::is_object));
    let join = |k: &str| {
        if path.is_empty() {
            k.to_owned()
        } else {
            format!("{path}.{k}")
        }
    };
    for (k, v) in obj {
        let table_like = v.is_object() || (is_tables(v) && !v.as_array().unwrap().is_empty());
        if !v.is_null() && !table_like {
            out.push_str(&format!("{k} = {}\n", toml_value(v)));
        }
    }
    for (k, v) in obj {
        if let Value::Object(sub) = v {
            out.push_str(&format!("[{}]\n", join(k)));
            write_table(out, &join(k), sub);
        }
    }
    for (k, v) in obj {
        if let Some(items) = v.as_array().filter(|a| !a.is_empty() && is_tables(v)) {
            for item in items {
                out.push_str(&format!("[[{}]]\n", join(k)));
                write_table(out, &join(k), item.as_object().unwrap());
            }
        }
    }
}

/// Drops the keys of `obj` that hold their default (the value in `default`, or in the
/// default of the table type for lists of tables and `reverse`), so that the file is
/// short: parsing TOML dominates the cost of a case in a debug build.
fn prune(obj: &mut Value, default: &Value) {
    let element_default = |key: &str| -> Option<Value> {
        match key {
            "links" | "reverse" => serde_json::to_value(LinkConfig::default()).ok(),
            "flows" => serde_json::to_value(FlowConfig::default()).ok(),
            "streams" => serde_json::to_value(StreamConfig::default()).ok(),
            _ => None,
        }
    };
    let Some(map) = obj.as_object_mut() else {
        return;
    };
    map.retain(|k, v| default.get(k) != Some(v));
    for (k, v) in map.iter_mut() {
        match (v, element_default(k)) {
            (Value::Array(items), Some(d)) => items.iter_mut().for_each(|i| prune(i, &d)),
            (v @ Value::Object(_), Some(d)) => prune(v, &d),
            (v @ Value::Object(_), None) => prune(v, default.get(k).unwrap_or(&Value::Null)),
            _ => {}
        }
    }
}

/// The base scenario as a TOML file, keys at their default left out.
fn base_text() -> String {
    let mut top = serde_json::to_value(base()).unwrap();
    prune(
        &mut top,
        &serde_json::to_value(Scenario::default()).unwrap(),
    );
    let mut out = String::new();
    write_table(
        &mut out,
        "",
        top.as_object().expect("a scenario is a table"),
    );
    out
}

/// Values every key is fed: non-numbers, both infinities, negatives, zero, the
/// smallest and largest floats, one past the largest `u64`, and, from its range, both
/// ends and a value just outside each.
fn absurd_values(range: Option<Range>) -> Vec<f64> {
    let mut v = vec![
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        -1.0,
        0.0,
        1e-300,
        1e300,
        18_446_744_073_709_551_616.0,
    ];
    if let Some(r) = range {
        let step = |x: f64| (x.abs() * 1e-6).max(1e-6);
        v.extend([r.min, r.max, r.min - step(r.min), r.max + step(r.max)]);
    }
    v
}

/// A value inside `range` (log-uniform where it spans decades), or any value.
fn inside(range: Option<Range>, rng: &mut RngStream) -> f64 {
    let u = rng.uniform();
    let Some(r) = range else {
        return 1e3 * u;
    };
    let lo = r.min.max(r.max * 1e-9).max(1e-9);
    if rng.uniform() < 0.5 || lo <= 0.0 {
        r.min + (r.max - r.min) * u
    } else {
        lo * (r.max / lo).powf(u)
    }
    .max(r.min)
    .min(r.max)
}

/// `leaf = v` as a `--set` override: an integer literal where the model holds an
/// integer and `v` is one, else a float literal (which an integer key refuses).
fn set(leaf: &Leaf, v: f64) -> Override {
    let literal = if leaf.integer && v.fract() == 0.0 && v.abs() <= i64::MAX as f64 {
        format!("{}", v as i64)
    } else {
        toml_float(v)
    };
    format!("{}={literal}", leaf.dotted())
        .parse()
        .expect("a valid override")
}

/// Whether `message` names one of `leaves`: by its dotted path (after writing `[i]` as
/// `.i`), by the table holding it when the table as a whole is refused (a flow-level
/// `source` beside `[[flows.streams]]`), or by its name in a complaint about the
/// relation with another key (`ramp_max_ms must be > ramp_min_ms`).
fn names_a_key(message: &str, leaves: &[&Leaf]) -> bool {
    let plain = message.replace('[', ".").replace(']', "");
    let ends_key = |c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.');
    leaves.iter().any(|l| {
        let table = l.path[..l.path.len() - 1].join(".");
        occurs(&plain, &l.dotted(), ends_key)
            || occurs(&plain, &table, |c| c == ' ')
            || occurs(message, l.name(), |c| {
                !(c.is_ascii_alphanumeric() || c == '_')
            })
    })
}

/// Whether `word` occurs in `text` after a character that cannot continue a key and
/// before the end or a character that `after` accepts.
fn occurs(text: &str, word: &str, after: impl Fn(char) -> bool) -> bool {
    let name_char = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.';
    !word.is_empty()
        && text.match_indices(word).any(|(i, _)| {
            !text[..i].chars().next_back().is_some_and(name_char)
                && text[i + word.len()..].chars().next().is_none_or(&after)
        })
}

/// Packets the `cbr` flows of `s` send: the one cost that grows with a rate rather
/// than with time, kept small so that each case runs in milliseconds.
fn cbr_packets(s: &Scenario) -> f64 {
    s.flows
        .iter()
        .filter(|f| f.algorithm == Algorithm::Cbr)
        .map(|f| {
            let stop = if f.stop_s > 0.0 {
                f.stop_s
            } else {
                s.duration_s
            };
            let active = (stop.min(s.duration_s) - f.start_s).max(0.0);
            f.start_bitrate_mbps * 1e6 * active / (8.0 * 1012.0)
        })
        .sum()
}

/// What happened to one case.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    /// Refused, with this error naming a key that was set.
    Refused(String),
    /// Built and run to the end, outputs written.
    Ran,
    /// Built but not run: its duration or `cbr` rate makes the run long (the ranges
    /// bound it; a test does not wait for it).
    Built,
}

/// Loads the base with `overrides` as the command line would, validates, builds and
/// runs; any error must name one of `leaves`.
fn try_case(text: &str, leaves: &[&Leaf], overrides: &[Override]) -> Outcome {
    let what = || {
        overrides
            .iter()
            .map(Override::raw)
            .collect::<Vec<_>>()
            .join(" ")
    };
    let refused = |e: String| {
        assert!(
            names_a_key(&e, leaves),
            "{}: error names no key set: {e}",
            what()
        );
        Outcome::Refused(e)
    };
    let s: Scenario = match load_str(text, "fuzz.toml", None, overrides) {
        Ok(s) => s,
        Err(e) => return refused(e.to_string()),
    };
    if let Err(e) = s.validate() {
        return refused(e.to_string());
    }
    if s.duration_s > BASE_DURATION_S || cbr_packets(&s) > 20_000.0 {
        return match World::new(&s, 1) {
            Ok(_) => Outcome::Built,
            Err(e) => refused(e.to_string()),
        };
    }
    match run(&s, 1, None) {
        Ok(r) => {
            summary_json(&r.summary).unwrap_or_else(|e| panic!("{}: summary: {e}", what()));
            timeseries_csv(&r.samples).unwrap_or_else(|e| panic!("{}: csv: {e}", what()));
            Outcome::Ran
        }
        Err(e) => refused(e.to_string()),
    }
}

/// Leaves that differ only in which link, flow or stream they belong to, by the key
/// without indices (`links.queue.codel_target_ms`, `flows.streams.source.fps`), and
/// for `[a, b]` pairs the position in the pair.
fn group_of(leaf: &Leaf) -> String {
    let mut segs: Vec<&str> = leaf
        .path
        .iter()
        .map(String::as_str)
        .filter(|s| s.parse::<usize>().is_err())
        .collect();
    if let Some(last) = leaf.path.last().filter(|s| s.parse::<usize>().is_ok()) {
        segs.push(last);
    }
    segs.join(".")
}

/// The keys grouped as [`group_of`] does, each group with its members.
fn groups(all: &[Leaf]) -> Vec<(String, Vec<&Leaf>)> {
    let mut out: Vec<(String, Vec<&Leaf>)> = Vec::new();
    for leaf in all {
        let g = group_of(leaf);
        match out.iter_mut().find(|(name, _)| *name == g) {
            Some((_, members)) => members.push(leaf),
            None => out.push((g, vec![leaf])),
        }
    }
    out
}

#[test]
fn the_base_scenario_loads_as_built_and_runs() {
    let s: Scenario = load_str(&base_text(), "fuzz.toml", None, &[]).unwrap();
    assert_eq!(s, base());
    run(&s, 1, None).unwrap();
}

/// One key at a time, one key of each kind (its first occurrence: the validation of a
/// key is the same code in every link, flow or stream), fed every absurd value.
#[test]
fn absurd_values_are_refused_naming_the_key() {
    let text = base_text();
    let all = leaves(&base());
    for (_, members) in groups(&all) {
        let leaf = members[0];
        for v in absurd_values(leaf.range) {
            let o = set(leaf, v);
            let message = match load_str::<Scenario>(&text, "fuzz.toml", None, &[o]) {
                Ok(s) => match s.validate() {
                    Ok(()) => {
                        let r = leaf.range;
                        assert!(
                            r.is_none_or(|r| r.contains(v)),
                            "{}={v} passed outside {r:?}",
                            leaf.dotted()
                        );
                        continue;
                    }
                    Err(e) => e.to_string(),
                },
                Err(e) => e.to_string(),
            };
            assert!(
                names_a_key(&message, &[leaf]),
                "{}={v}: error names no key set: {message}",
                leaf.dotted()
            );
        }
    }
}

/// Each kind of key at both ends of its range (and at 0 and `inf` where the range
/// allows them besides), set in every link, flow or stream at once so that a queue
/// parameter also reaches the link whose queue uses it: each case is refused naming a
/// key (a relation with another key) or runs to the end.
#[test]
fn every_key_at_the_ends_of_its_range_runs_to_the_end() {
    let text = base_text();
    let all = leaves(&base());
    let mut ran = 0;
    let mut cases = 0;
    for (_, members) in groups(&all) {
        let Some(r) = members[0].range else {
            continue;
        };
        // The lower end, or just above it when it is excluded.
        let low = match (r.min_excluded, r.min) {
            (false, min) => min,
            (true, 0.0) => 1e-300,
            (true, min) => min * (1.0 + 1e-12),
        };
        // The upper end, or just below it when it is excluded.
        let high = if r.max_excluded {
            r.max * (1.0 - 1e-12)
        } else {
            r.max
        };
        let mut values = vec![high, low];
        if r.zero {
            values.push(0.0);
        }
        if r.inf {
            values.push(f64::INFINITY);
        }
        for v in values {
            let overrides: Vec<Override> = members.iter().map(|l| set(l, v)).collect();
            cases += 1;
            match try_case(&text, &members, &overrides) {
                Outcome::Ran => ran += 1,
                Outcome::Built => {}
                // Only a relation with another key may refuse an end of the range: a
                // range complaint means validation and `ranges::of_key` disagree.
                Outcome::Refused(e) => assert!(!e.contains("must be in"), "{e}"),
            }
        }
    }
    assert!(ran * 4 > cases * 3, "only {ran} of {cases} cases ran");
}

#[test]
fn random_values_for_a_few_keys_at_once_are_refused_by_name_or_run_cleanly() {
    let text = base_text();
    let all = leaves(&base());
    let mut rng = RngStream::new(2024, "scenario-fuzz");
    let mut outcomes = [0usize; 3];
    for _ in 0..80 {
        let n = 2 + (rng.uniform() * 3.0) as usize;
        let chosen: Vec<&Leaf> = (0..n)
            .map(|_| &all[(rng.uniform() * all.len() as f64) as usize])
            .collect();
        let overrides: Vec<Override> = chosen
            .iter()
            .map(|l| {
                // Mostly values in range, so that cases get past validation.
                let v = if rng.uniform() < 0.8 {
                    let v = inside(l.range, &mut rng);
                    if l.integer { v.round() } else { v }
                } else {
                    let pool = absurd_values(l.range);
                    pool[(rng.uniform() * pool.len() as f64) as usize]
                };
                set(l, v)
            })
            .collect();
        match try_case(&text, &chosen, &overrides) {
            Outcome::Refused(_) => outcomes[0] += 1,
            Outcome::Ran => outcomes[1] += 1,
            Outcome::Built => outcomes[2] += 1,
        }
    }
    // Most combinations break a relation between keys (a flow's report cadence and its
    // window, bitrate limits, streams against flow keys): a fifth that run is enough
    // to exercise the simulator on random values (16 of 80 at least).
    assert!(outcomes[1] >= 16, "too few cases ran: {outcomes:?}");
}
