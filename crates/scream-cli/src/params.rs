//! `scream params`: every sender parameter a scenario's `[flows.params]` or a sweep
//! axis can name, per generation, with unit, default, range and source, straight from
//! the library's declarations (so docs/parameters.md cannot drift from the code).

use crate::columns::{Align, Columns};
use clap::{Args, ValueEnum};
use scream::sender::{GENERATION_NAMES, ParamInfo, SenderConfig};

/// Arguments of `scream params`.
#[derive(Debug, Args)]
pub(crate) struct ParamsArgs {
    /// Only this generation (`scream-v2`, ...); default all.
    generation: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// Aligned columns.
    Text,
    /// docs/parameters.md.
    Md,
}

/// Runs `scream params`.
pub(crate) fn main(args: &ParamsArgs) -> Result<String, String> {
    let names: Vec<&str> = match &args.generation {
        Some(g) if GENERATION_NAMES.contains(&g.as_str()) => vec![g.as_str()],
        Some(g) => {
            return Err(format!(
                "unknown generation \"{g}\" (known: {})",
                GENERATION_NAMES.join(", ")
            ));
        }
        None => GENERATION_NAMES.to_vec(),
    };
    Ok(match args.format {
        Format::Text => text(&names),
        Format::Md => markdown(&names),
    })
}

/// The shared parameters and each generation's own, in declaration order.
fn sections(names: &[&str]) -> Vec<(String, Vec<ParamInfo>)> {
    let mut out = vec![(
        "Shared by every generation".to_owned(),
        SenderConfig::shared_params(),
    )];
    for g in names {
        let own = SenderConfig::for_generation(g)
            .map(|c| c.generation_params())
            .unwrap_or_default();
        out.push(((*g).to_owned(), own));
    }
    out
}

/// Shortest text that reads back as `v`; powers of ten beyond a million as `1e9`.
fn number(v: f64) -> String {
    if v != 0.0 && v.abs() >= 1e6 {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// A summary as plain Markdown: rustdoc links (`` [`super::Sender::poll_transmit`] ``)
/// become code spans of their last path segment, and line breaks spaces.
fn plain(summary: &str) -> String {
    let mut out = String::new();
    let mut rest = summary;
    while let Some(start) = rest.find("[`") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find("`]") else {
            out.push_str(&rest[start..]);
            rest = "";
            break;
        };
        let path = &after[..end];
        out.push('`');
        out.push_str(path.rsplit("::").next().unwrap_or(path));
        out.push('`');
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn range(p: &ParamInfo) -> String {
    let open = if p.min_exclusive { "(" } else { "[" };
    format!("{open}{}, {}]", number(p.min), number(p.max))
}

fn text(names: &[&str]) -> String {
    let mut out = String::new();
    for (title, params) in sections(names) {
        out.push_str(&format!("{title}\n"));
        let mut table = Columns::new(&[Align::Left, Align::Left, Align::Right, Align::Left]);
        table.row(["  name", "unit", "default", "range"]);
        for p in params {
            table.row([
                format!("  {}", p.name),
                p.unit.to_owned(),
                number(p.default),
                range(&p),
            ]);
        }
        out.push_str(&table.render());
        out.push('\n');
    }
    out
}

fn markdown(names: &[&str]) -> String {
    let mut out = String::from(
        "# Sender parameters\n\n\
         Every parameter a flow's `[flows.params]` table, `scream sim --set \
         flows.N.params.NAME=VALUE` or a sweep axis can set, generated from the \
         library's declarations by `scream params --format md` (a test keeps this file \
         equal to that output). Values are numbers in the unit given: durations in \
         seconds (`s`), rates in bit/s, sizes in bytes, ratios and counts as they are \
         (`1`). A range `(a, b]` excludes `a`. In Rust, the same names work with \
         `SenderConfig::set_param`, and `SenderConfig::params` returns this table.\n",
    );
    for (title, params) in sections(names) {
        out.push_str(&format!("\n## {title}\n\n"));
        out.push_str("| name | unit | default | range | source | meaning |\n");
        out.push_str("| --- | --- | --- | --- | --- | --- |\n");
        for p in params {
            out.push_str(&format!(
                "| `{}` | {} | {} | `{}` | {} | {} |\n",
                p.name,
                p.unit,
                number(p.default),
                range(&p),
                p.source,
                plain(p.summary).replace('|', "\\|")
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rustdoc_links_become_code_spans_of_their_last_segment() {
        assert_eq!(
            plain("when [`super::Sender::poll_transmit`] comes\n after [`Transmit`]."),
            "when `poll_transmit` comes after `Transmit`."
        );
        assert_eq!(plain("no link [`unclosed"), "no link [`unclosed");
    }

    #[test]
    fn numbers_are_the_shortest_that_read_back() {
        assert_eq!(number(1.0 / 128.0), "0.0078125");
        assert_eq!(number(1e9), "1e9");
        assert_eq!(number(0.06), "0.06");
    }
}
