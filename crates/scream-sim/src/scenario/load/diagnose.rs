//! Turning a serde error at a dotted path into `file:line: key: message`.

use toml_edit::{ImDocument, Item};

use super::{Location, Override, ScenarioError};

/// What an error needs to say where it happened.
pub(super) struct Context<'a> {
    pub(super) text: &'a str,
    /// The text as parsed, with the source spans of keys and values.
    pub(super) spans: &'a ImDocument<&'a str>,
    pub(super) origin: &'a str,
    pub(super) overrides: &'a [Override],
}

type DeError = serde_path_to_error::Error<toml_edit::de::Error>;

impl Context<'_> {
    /// The override that wrote `path` (or a table containing it), else the line of the
    /// deepest key of `path` present in the file.
    pub(super) fn locate(&self, path: &[String]) -> Location {
        if let Some(o) = self
            .overrides
            .iter()
            .rev()
            .find(|o| path.starts_with(o.path()))
        {
            return Location::Override {
                raw: o.raw().to_owned(),
            };
        }
        match self.span_of(path) {
            Some(offset) => Location::Line {
                origin: self.origin.to_owned(),
                line: 1 + self.text.as_bytes()[..offset.min(self.text.len())]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count(),
            },
            None => Location::File {
                origin: self.origin.to_owned(),
            },
        }
    }

    /// Byte offset of the deepest key (or value) along `path` that the file spells out.
    fn span_of(&self, path: &[String]) -> Option<usize> {
        let mut item: &Item = self.spans.as_item();
        let mut best = None;
        for seg in path {
            let index = seg
                .parse::<usize>()
                .ok()
                .filter(|_| item.is_array() || item.is_array_of_tables());
            let next = match index {
                Some(i) => item.get(i),
                None => {
                    let (key, child) = item.as_table_like()?.get_key_value(seg)?;
                    best = key.span().map(|s| s.start).or(best);
                    Some(child)
                }
            };
            item = next?;
            if index.is_some() {
                best = item.span().map(|s| s.start).or(best);
            }
        }
        best
    }

    /// Rewrites a deserialisation error as one line naming place and key.
    pub(super) fn schema_error(&self, e: &DeError) -> ScenarioError {
        let path = segments(e.path());
        let message = e.inner().message();
        let (full, message) = match parse_serde_message(message) {
            Some(Complaint::UnknownField { name, expected }) => {
                // The tracked path may or may not end in the unknown key itself.
                let mut full = path.clone();
                if full.last() != Some(&name) {
                    full.push(name.clone());
                }
                let hint = moved_key(&name)
                    .map_or_else(|| suggestion(&name, &expected), |m| format!("; {m}"));
                let msg = format!(
                    "unknown key \"{name}\" in {}{hint}",
                    table_name(&full[..full.len() - 1]),
                );
                (full, msg)
            }
            Some(Complaint::UnknownVariant { name, expected }) => {
                let msg = format!(
                    "{}: unknown value \"{name}\"{}",
                    dotted(&path),
                    suggestion(&name, &expected)
                );
                (path, msg)
            }
            Some(Complaint::MissingField { name }) => {
                let msg = format!("missing key \"{name}\" in {}", table_name(&path));
                (path, msg)
            }
            None if path.is_empty() => (path, message.to_owned()),
            None => (path.clone(), format!("{}: {message}", dotted(&path))),
        };
        ScenarioError::Invalid {
            location: self.locate(&full),
            message,
        }
    }
}

/// Where a key that older scenario files used now lives.
fn moved_key(name: &str) -> Option<&'static str> {
    match name {
        "return_delay_ms" => Some(
            "the way back is a link direction of its own: set one_way_delay_ms in [link.reverse]",
        ),
        "return_capacity_mbps" => {
            Some("the way back is a link direction of its own: set capacity_mbps in [link.reverse]")
        }
        _ => None,
    }
}

/// `flows[0].source.fps` from path segments (numeric segments become indexes).
pub(super) fn dotted(path: &[String]) -> String {
    let mut out = String::new();
    for seg in path {
        if seg.parse::<usize>().is_ok() {
            out.push('[');
            out.push_str(seg);
            out.push(']');
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(seg);
        }
    }
    out
}

fn table_name(path: &[String]) -> String {
    if path.is_empty() {
        "the top level".to_owned()
    } else {
        format!("[{}]", dotted(path))
    }
}

fn segments(path: &serde_path_to_error::Path) -> Vec<String> {
    use serde_path_to_error::Segment;
    path.iter()
        .filter_map(|seg| match seg {
            Segment::Seq { index } => Some(index.to_string()),
            Segment::Map { key } => Some(key.clone()),
            Segment::Enum { variant } => Some(variant.clone()),
            Segment::Unknown => None,
        })
        .collect()
}

/// The serde messages worth rephrasing (their wording is fixed by `serde::de::Error`'s
/// provided methods).
#[derive(Debug, PartialEq)]
enum Complaint {
    UnknownField { name: String, expected: Vec<String> },
    UnknownVariant { name: String, expected: Vec<String> },
    MissingField { name: String },
}

fn parse_serde_message(message: &str) -> Option<Complaint> {
    let quoted =
        |s: &str| -> Vec<String> { s.split('`').skip(1).step_by(2).map(str::to_owned).collect() };
    if let Some(rest) = message.strip_prefix("unknown field `") {
        let (name, tail) = rest.split_once('`')?;
        return Some(Complaint::UnknownField {
            name: name.to_owned(),
            expected: quoted(tail),
        });
    }
    if let Some(rest) = message.strip_prefix("unknown variant `") {
        let (name, tail) = rest.split_once('`')?;
        return Some(Complaint::UnknownVariant {
            name: name.to_owned(),
            expected: quoted(tail),
        });
    }
    let rest = message.strip_prefix("missing field `")?;
    let (name, _) = rest.split_once('`')?;
    Some(Complaint::MissingField {
        name: name.to_owned(),
    })
}

/// ` (did you mean X?)` for a near miss, else the list of accepted names.
fn suggestion(name: &str, expected: &[String]) -> String {
    let closest = expected
        .iter()
        .map(|candidate| (edit_distance(name, candidate), candidate))
        .min_by_key(|(d, _)| *d);
    match closest {
        Some((d, candidate)) if d <= (name.len() / 3).max(2) => {
            format!(" (did you mean {candidate}?)")
        }
        _ if expected.is_empty() => String::new(),
        _ => format!(" (expected one of: {})", expected.join(", ")),
    }
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitute = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = substitute.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance_counts_single_edits() {
        assert_eq!(edit_distance("capacity_mbs", "capacity_mbps"), 1);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
    }

    #[test]
    fn suggestion_names_the_nearest_key_or_lists_all() {
        let expected = vec!["name".to_owned(), "capacity_mbps".to_owned()];
        assert_eq!(
            suggestion("capacity_mbs", &expected),
            " (did you mean capacity_mbps?)"
        );
        assert_eq!(
            suggestion("zzzzzzzz", &expected),
            " (expected one of: name, capacity_mbps)"
        );
    }

    #[test]
    fn serde_unknown_field_message_is_recognised() {
        let c = parse_serde_message("unknown field `x`, expected one of `a`, `b`");
        assert_eq!(
            c,
            Some(Complaint::UnknownField {
                name: "x".into(),
                expected: vec!["a".into(), "b".into()]
            })
        );
    }

    #[test]
    fn dotted_renders_indexes_in_brackets() {
        let p: Vec<String> = ["flows", "0", "source", "fps"].map(String::from).to_vec();
        assert_eq!(dotted(&p), "flows[0].source.fps");
    }
}
