//! The tables of `docs/scenarios.md` generated from the keys' declarations must be the
//! ones the documentation shows. Run with `SCREAM_WRITE_DOCS=1` to rewrite them.

use scream_sim::scenario::doc_table;

const DOCS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/scenarios.md");

/// The text between the markers named `name`, and where it lies.
fn generated_block(docs: &str, name: &str) -> (usize, usize) {
    let begin = format!("<!-- generated from the key declarations: {name} -->\n");
    let end = format!("<!-- end of generated table: {name} -->\n");
    let start = docs
        .find(&begin)
        .unwrap_or_else(|| panic!("docs/scenarios.md has no marker {begin:?}"))
        + begin.len();
    let stop = start
        + docs[start..]
            .find(&end)
            .unwrap_or_else(|| panic!("docs/scenarios.md has no marker {end:?}"));
    (start, stop)
}

#[test]
fn the_queue_table_in_the_docs_is_the_declared_one() {
    check_block("queue", &doc_table::queue_table());
}

#[test]
fn the_clock_table_in_the_docs_is_the_declared_one() {
    check_block("clock", &doc_table::clock_table());
}

/// The generated block `name` of the docs is `want` (rewritten when asked).
fn check_block(name: &str, want: &str) {
    let docs = std::fs::read_to_string(DOCS).expect("docs/scenarios.md");
    let (start, stop) = generated_block(&docs, name);
    if docs[start..stop] == *want {
        return;
    }
    if std::env::var_os("SCREAM_WRITE_DOCS").is_some() {
        let mut fixed = docs.clone();
        fixed.replace_range(start..stop, want);
        std::fs::write(DOCS, fixed).expect("write docs/scenarios.md");
        return;
    }
    panic!(
        "docs/scenarios.md's {name} table differs from the key declarations; \
         rerun with SCREAM_WRITE_DOCS=1 to rewrite it. Expected:\n{want}"
    );
}
