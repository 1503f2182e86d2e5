//! docs/parameters.md is exactly what `scream params --format md` prints, so the
//! parameter reference cannot drift from the library's declarations. After changing a
//! parameter, regenerate it with `scream params --format md > docs/parameters.md`.

mod common;

use common::{scream, stderr, stdout};
use std::path::Path;

fn repo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

#[test]
fn the_parameter_reference_is_the_generated_one() {
    let o = scream(&["params", "--format", "md"], repo());
    assert!(o.status.success(), "{}", stderr(&o));
    let doc = std::fs::read_to_string(repo().join("docs/parameters.md")).unwrap();
    assert!(
        doc == stdout(&o),
        "docs/parameters.md is stale: run `scream params --format md > docs/parameters.md`"
    );
}

#[test]
fn every_generation_has_a_section_and_every_parameter_a_row() {
    let o = scream(&["params", "--format", "md"], repo());
    let md = stdout(&o);
    for g in scream::sender::GENERATION_NAMES {
        assert!(md.contains(&format!("\n## {g}\n")), "no section for {g}");
        let c = scream::sender::SenderConfig::for_generation(g).unwrap();
        for name in c.param_names() {
            assert!(
                md.contains(&format!("| `{name}` |")),
                "no row for {g} {name}"
            );
        }
    }
}

#[test]
fn an_unknown_generation_is_named_with_the_known_ones() {
    let o = scream(&["params", "scream-v9"], repo());
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.contains("scream-v9") && e.contains("scream-v2"), "{e}");
}
