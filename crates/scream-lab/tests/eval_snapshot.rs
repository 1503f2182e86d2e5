//! docs/eval-v2.md is the full output of `scream eval v2 --format md`. Running every
//! case is too slow for a test, so a few cheap ones are run here and their rows must
//! equal the snapshot's: a change to the algorithm, the simulator or the measures that
//! moves them fails this test until the snapshot is regenerated.

use std::path::{Path, PathBuf};

use scream_lab::LocalExecutor;
use scream_lab::eval::{self, REGENERATE, markdown_row};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The cheap cases: every mode on 10 Mbit/s, one outage (for the recovery column) and
/// one shared bottleneck (for Jain's index), all faithful. None needs a trace file.
const FILTERS: [&[&str]; 3] = [
    &["const-10M/", "/faithful"],
    &["outage-20M/delay/faithful"],
    &["2x10M/l4s/faithful"],
];

#[test]
fn cheap_cases_match_their_rows_in_the_committed_snapshot() {
    let doc_path = repo_root().join("docs/eval-v2.md");
    let doc = std::fs::read_to_string(&doc_path)
        .unwrap_or_else(|e| panic!("{}: {e}", doc_path.display()));
    let mut cases = Vec::new();
    for f in FILTERS {
        let filters: Vec<String> = f.iter().map(|s| (*s).to_owned()).collect();
        cases.extend(eval::select(eval::matrix(), &filters));
    }
    assert_eq!(cases.len(), 5, "the filters no longer pick the cheap cases");
    let data = scream_data::DataPath::from_env();
    let results = eval::run_cases(&cases, &data, &LocalExecutor::new(2), &|_| {});
    // The order and the values do not depend on the number of threads.
    assert_eq!(
        eval::run_cases(&cases, &data, &LocalExecutor::new(1), &|_| {}),
        results
    );
    let mut stale = Vec::new();
    for r in &results {
        assert!(
            r.metrics().is_some(),
            "{} did not run: {:?}",
            r.case.id(),
            r.outcome
        );
        let row = markdown_row(r);
        if !doc.lines().any(|l| format!("{l}\n") == row) {
            let prefix = format!("| {} | {} | {} |", r.case.link, r.case.mode, r.case.options);
            let old = doc
                .lines()
                .find(|l| l.starts_with(&prefix))
                .unwrap_or("(no row)");
            stale.push(format!("now:      {}snapshot: {old}", row));
        }
    }
    assert!(
        stale.is_empty(),
        "docs/eval-v2.md is stale:\n{}\nRegenerate it from the repository root with \
         `cargo run --release -p scream-cli -- eval v2 --format md > docs/eval-v2.md` \
         (that is, `{REGENERATE}`) and commit the diff with the change that caused it.",
        stale.join("\n")
    );
}
