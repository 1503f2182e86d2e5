//! docs/sweeps.md and results.csv cannot drift apart: the document's column tables list
//! exactly the columns declared in `scream_lab::sweep`, each table in its order, and a
//! real sweep's header is those columns with its parameters in between.

use scream_lab::sweep::{ID_COLUMNS, METRICS, Plan, RUN_COLUMNS, TIMING_COLUMNS};

const DOC: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/sweeps.md"));

/// The backticked names of the first cells of the table rows of section `heading`
/// (up to the next heading of the same or a higher level).
fn names_under(heading: &str) -> Vec<String> {
    let level = heading.chars().take_while(|&c| c == '#').count();
    let mut inside = false;
    let mut out = Vec::new();
    for line in DOC.lines() {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if hashes > 0 {
            if inside && hashes <= level {
                break;
            }
            inside = inside || line == heading;
            continue;
        }
        if let Some(row) = line.strip_prefix("| `").filter(|_| inside) {
            out.push(row.split('`').next().unwrap_or_default().to_owned());
        }
    }
    out
}

#[test]
fn the_doc_lists_exactly_the_declared_columns_in_order() {
    let documented = names_under("## Columns of `results.csv`");
    // The column table, then the metrics' own table below it.
    let declared: Vec<String> = ID_COLUMNS
        .iter()
        .chain(&RUN_COLUMNS)
        .chain(&TIMING_COLUMNS)
        .map(|c| c.name.to_owned())
        .chain(METRICS.iter().map(|m| m.name.to_owned()))
        .collect();
    assert_eq!(documented, declared);
}

#[test]
fn the_doc_gives_every_metric_its_declared_unit() {
    for m in METRICS {
        let row = DOC
            .lines()
            .find(|l| l.starts_with(&format!("| `{}` |", m.name)) && l.matches('|').count() == 5)
            .unwrap_or_else(|| panic!("no metric row for {}", m.name));
        let unit = row.split('|').nth(2).unwrap_or_default().trim();
        assert_eq!(unit, m.unit, "{}", m.name);
    }
}

#[test]
fn a_sweeps_header_is_the_declared_columns_around_its_parameters() {
    let plan = Plan::from_str(
        "[design]\nkind = \"factorial\"\n[[base]]\nscenario = \"paper-step-v2\"\n[[axis]]\nkey = \"link.capacity_mbps\"\nvalues = [5]\n",
        "spec.toml",
        None,
    )
    .expect("a plan");
    let columns = plan.columns();
    let mut expected: Vec<String> = ID_COLUMNS.iter().map(|c| c.name.to_owned()).collect();
    expected.push("link.capacity_mbps".to_owned());
    expected.extend(RUN_COLUMNS.iter().map(|c| c.name.to_owned()));
    expected.extend(METRICS.iter().map(|m| m.name.to_owned()));
    expected.extend(TIMING_COLUMNS.iter().map(|c| c.name.to_owned()));
    assert_eq!(columns, expected);
}

#[test]
fn every_example_spec_in_the_doc_is_accepted() {
    let (mut checked, mut skipped) = (0, 0);
    for block in DOC.split("```toml\n").skip(1) {
        let text = block.split("```").next().unwrap_or_default();
        // An example that names a data file this clone lacks cannot be planned (the plan
        // checks that its files exist); it is skipped with a line saying so.
        let needs: Vec<&str> = text
            .split(scream_data::REFERENCE_PREFIX)
            .skip(1)
            .filter_map(|rest| rest.split(['"', ',']).next())
            .collect();
        if !needs
            .iter()
            .all(|name| scream_data::for_test(name).is_some())
        {
            skipped += 1;
            continue;
        }
        let plan =
            Plan::from_str(text, "example.toml", None).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert!(!plan.runs().is_empty());
        checked += 1;
    }
    assert!(
        checked + skipped >= 5,
        "one example per design, found {checked} (and {skipped} skipped)"
    );
    assert!(
        checked >= 3,
        "too few examples run without fetched data: {checked}"
    );
}
