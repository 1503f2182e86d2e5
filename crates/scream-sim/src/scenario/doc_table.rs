//! The key tables of `docs/scenarios.md` that are generated from the keys'
//! declarations, so that a key's unit, default, range and meaning are written once.
//! A test compares each table with the documentation (and rewrites it when asked).

use scream_netmodel::keys::{Key, number};

use super::model::{QueueConfig, QueueKind};

/// The `[link.queue]` table: `kind`, then every key of the queue limit and of each
/// discipline, in declaration order.
pub fn queue_table() -> String {
    let kinds: Vec<String> = QueueKind::ALL
        .iter()
        .map(|k| format!("`\"{}\"`", k.name()))
        .collect();
    let (last, rest) = kinds.split_last().expect("at least one discipline");
    let mut out = table_head();
    out.push_str(&format!(
        "| `kind` | | `\"{}\"` | | {} or {last} |\n",
        QueueKind::default().name(),
        rest.join(", ")
    ));
    for key in QueueConfig::keys() {
        out.push_str(&key_row(key));
    }
    out
}

/// The `[clock]` table: every key of the loop clock, in declaration order.
pub fn clock_table() -> String {
    let mut out = table_head();
    for key in crate::clock::ClockKeys::keys() {
        out.push_str(&key_row(key));
    }
    out
}

fn table_head() -> String {
    "| key | unit | default | range | meaning |\n| --- | --- | --- | --- | --- |\n".to_owned()
}

/// One row: name, unit, default, range as the error messages write it, meaning.
fn key_row(key: &Key) -> String {
    let unit = if key.unit.is_empty() {
        String::new()
    } else {
        format!(" {}", key.unit)
    };
    format!(
        "| `{}` |{unit} | {} | `{}` | {} |\n",
        key.name,
        number(key.default),
        key.range.describe(),
        key.doc
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_declared_queue_key_has_a_row_with_its_range() {
        let table = queue_table();
        for key in QueueConfig::keys() {
            let row = table
                .lines()
                .find(|l| l.starts_with(&format!("| `{}` |", key.name)))
                .unwrap_or_else(|| panic!("no row for {}", key.name));
            assert!(row.contains(&key.range.describe()), "{row}");
        }
        assert!(
            table.contains("| `dualpi2_alpha` | Hz | 0.16 | `[0, 1000] Hz` |"),
            "{table}"
        );
    }
}
