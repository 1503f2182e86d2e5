//! docs/outputs.md and the files `scream sim` writes cannot drift apart: every CSV
//! column, summary.json key and manifest.json key a run writes is documented, and every
//! name the document's tables list is written.
//!
//! The document's tables are read by their first cell: a name in backticks. A table
//! belongs to the file named in backticks in the last level-2 heading above it.
//! JSON keys are written as paths: `a.b` for a key of an object, `a[].b` for a key of the
//! objects of an array. A distribution object (one that has `count_of`) is documented
//! as a whole at its own path, and its fields once, as `<distribution>.field`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// Documented names per file, from docs/outputs.md.
fn documented() -> BTreeMap<String, BTreeSet<String>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/outputs.md");
    let text = std::fs::read_to_string(&path).expect("docs/outputs.md exists");
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut file: Option<String> = None;
    for line in text.lines() {
        if let Some(heading) = line.strip_prefix("## ") {
            file = first_code(heading).map(str::to_owned);
        } else if let (Some(file), Some(row)) = (&file, line.strip_prefix("| `")) {
            let name = row.split('`').next().expect("a closing backtick");
            out.entry(file.clone()).or_default().insert(name.to_owned());
        }
    }
    out
}

fn first_code(s: &str) -> Option<&str> {
    s.split('`').nth(1)
}

/// Collects the paths of `v` under `path` into `keys`, distribution fields into `dist`.
fn json_paths(path: &str, v: &Value, keys: &mut BTreeSet<String>, dist: &mut BTreeSet<String>) {
    let join = |k: &str| {
        if path.is_empty() {
            k.to_owned()
        } else {
            format!("{path}.{k}")
        }
    };
    match v {
        Value::Object(m) if m.contains_key("count_of") => {
            keys.insert(path.to_owned());
            dist.extend(m.keys().map(|k| format!("<distribution>.{k}")));
        }
        Value::Object(m) => {
            for (k, v) in m {
                json_paths(&join(k), v, keys, dist);
            }
        }
        Value::Array(items) if items.iter().any(Value::is_object) => {
            for item in items {
                json_paths(&format!("{path}[]"), item, keys, dist);
            }
        }
        _ => {
            keys.insert(path.to_owned());
        }
    }
}

/// The header of a CSV file, split on commas (no column name needs quoting).
fn csv_header(path: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(path).expect("a CSV file");
    let header = text.lines().next().expect("a header line");
    assert!(!header.contains('"'), "{}: quoted header", path.display());
    header.split(',').map(str::to_owned).collect()
}

/// The dotted keys of the scalar leaves of `objects` (as the flat summary tables name
/// their columns), without `name`, `streams` and `count_of`.
fn flat_keys<'a>(objects: impl Iterator<Item = &'a Value>) -> BTreeSet<String> {
    fn walk(prefix: &str, v: &Value, out: &mut BTreeSet<String>) {
        for (k, v) in v.as_object().into_iter().flatten() {
            if ["name", "streams", "count_of"].contains(&k.as_str()) {
                continue;
            }
            let path = if prefix.is_empty() {
                k.clone()
            } else {
                format!("{prefix}.{k}")
            };
            if v.is_object() {
                walk(&path, v, out);
            } else {
                out.insert(path);
            }
        }
    }
    let mut out = BTreeSet::new();
    for o in objects {
        walk("", o, &mut out);
    }
    out
}

/// The files of a set of seeds (`scream sim --seeds`), beside its runs' folders.
const SEED_SET_FILES: [&str; 2] = ["seeds.csv", "seeds.json"];

/// Runs a short two-stream scenario with a report window, plots on, into a temp dir.
fn run() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let o = Command::new(env!("CARGO_BIN_EXE_scream"))
        .args([
            "sim",
            "two-streams",
            "--set",
            "duration_s=2",
            "--out",
            "run",
        ])
        .current_dir(dir.path())
        .output()
        .expect("the scream binary runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    dir
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("written")).expect("JSON")
}

/// Asserts `written` and `documented` are the same set, naming what differs.
fn same(file: &str, written: &BTreeSet<String>, documented: &BTreeSet<String>) {
    let missing: Vec<_> = written.difference(documented).collect();
    let stale: Vec<_> = documented.difference(written).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "{file}: written but not documented in docs/outputs.md: {missing:?}; \
         documented but not written: {stale:?}"
    );
}

#[test]
fn every_written_name_is_documented_and_every_documented_name_is_written() {
    let dir = run();
    let out = dir.path().join("run");
    let doc = documented();
    let doc_of = |file: &str| doc.get(file).cloned().unwrap_or_default();

    // Every file written has a section, and every section's file is written.
    let written_files: BTreeSet<String> = std::fs::read_dir(&out)
        .expect("output folder")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json") || n.ends_with(".csv"))
        .collect();
    let doc_files: BTreeSet<String> = doc
        .keys()
        .filter(|f| !SEED_SET_FILES.contains(&f.as_str()))
        .cloned()
        .collect();
    same("the output folder", &written_files, &doc_files);

    for file in ["timeseries.csv", "links.csv"] {
        same(file, &csv_header(&out.join(file)), &doc_of(file));
    }

    let summary = read_json(&out.join("summary.json"));
    let (mut keys, mut dist) = (BTreeSet::new(), BTreeSet::new());
    json_paths("", &summary, &mut keys, &mut dist);
    keys.extend(dist);
    same("summary.json", &keys, &doc_of("summary.json"));

    let manifest = read_json(&out.join("manifest.json"));
    let (mut keys, mut dist) = (BTreeSet::new(), BTreeSet::new());
    json_paths("", &manifest, &mut keys, &mut dist);
    assert!(dist.is_empty(), "manifest.json has no distributions");
    same("manifest.json", &keys, &doc_of("manifest.json"));

    // The flat summaries: their own columns are in their tables, every other column is
    // a summary.json key (documented above) flattened with dots.
    let flows = summary["flows"].as_array().expect("flows");
    let streams = flows
        .iter()
        .flat_map(|f| f["streams"].as_array().expect("streams"));
    let derived = flat_keys(flows.iter().chain(streams));
    let own = doc_of("summary.csv");
    let header = csv_header(&out.join("summary.csv"));
    same(
        "summary.csv",
        &header,
        &own.union(&derived).cloned().collect(),
    );

    let derived = flat_keys(summary["links"].as_array().expect("links").iter());
    let own = doc_of("links_summary.csv");
    let header = csv_header(&out.join("links_summary.csv"));
    same(
        "links_summary.csv",
        &header,
        &own.union(&derived).cloned().collect(),
    );
}

#[test]
fn every_name_a_set_of_seeds_writes_is_documented_and_every_documented_one_written() {
    let dir = tempfile::tempdir().expect("temp dir");
    let o = Command::new(env!("CARGO_BIN_EXE_scream"))
        .args([
            "sim",
            "two-streams",
            "--set",
            "duration_s=1",
            "--seeds",
            "1..2",
            "--no-plots",
            "--out",
            "set",
        ])
        .current_dir(dir.path())
        .output()
        .expect("the scream binary runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = dir.path().join("set");
    let doc = documented();
    let doc_of = |file: &str| doc.get(file).cloned().unwrap_or_default();
    let written_files: BTreeSet<String> = std::fs::read_dir(&out)
        .expect("output folder")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json") || n.ends_with(".csv"))
        .collect();
    let expected: BTreeSet<String> = SEED_SET_FILES
        .iter()
        .chain(&["manifest.json"])
        .map(|f| (*f).to_owned())
        .collect();
    same("the seed set's folder", &written_files, &expected);
    same(
        "seeds.csv",
        &csv_header(&out.join("seeds.csv")),
        &doc_of("seeds.csv"),
    );
    let seeds = read_json(&out.join("seeds.json"));
    let (mut keys, mut dist) = (BTreeSet::new(), BTreeSet::new());
    json_paths("", &seeds, &mut keys, &mut dist);
    assert!(dist.is_empty(), "seeds.json has no distributions");
    same("seeds.json", &keys, &doc_of("seeds.json"));
    // Each seed's folder is a run's folder, documented above.
    for seed in ["s1", "s2"] {
        assert!(out.join(seed).join("summary.json").is_file(), "{seed}");
    }
}

#[test]
fn the_document_reader_finds_tables_of_every_file() {
    // Guards the guard: a heading or table format change must not leave the test
    // above comparing empty sets.
    let doc = documented();
    for (file, at_least) in [
        ("summary.json", 40),
        ("timeseries.csv", 15),
        ("links.csv", 10),
        ("manifest.json", 10),
        ("summary.csv", 3),
        ("links_summary.csv", 1),
        ("seeds.csv", 10),
        ("seeds.json", 15),
    ] {
        let n = doc.get(file).map_or(0, BTreeSet::len);
        assert!(n >= at_least, "{file}: {n} documented names");
    }
}
