//! Turning a serde error at a dotted path into `file:line: key: message`.

use std::cell::OnceCell;

use toml_edit::{ImDocument, Item};

use super::{Location, Override, ScenarioError};

/// What an error needs to say where it happened.
pub(super) struct Context<'a> {
    text: &'a str,
    origin: &'a str,
    overrides: &'a [Override],
    /// The text parsed with the source spans of keys and values. A load that succeeds
    /// never needs them, so they are parsed on the first error that asks for a line: a
    /// large scenario is never held twice in its parsed form (about 1.5 kB per step of
    /// a `capacity_steps` list each).
    spans: OnceCell<Option<ImDocument<&'a str>>>,
}

type DeError = serde_path_to_error::Error<toml_edit::de::Error>;

impl<'a> Context<'a> {
    /// The context of `text`, named `origin`, loaded with `overrides`.
    pub(super) fn new(text: &'a str, origin: &'a str, overrides: &'a [Override]) -> Self {
        Self {
            text,
            origin,
            overrides,
            spans: OnceCell::new(),
        }
    }

    /// As [`Self::new`] without overrides, with the spans already parsed.
    pub(super) fn with_spans(text: &'a str, origin: &'a str, spans: ImDocument<&'a str>) -> Self {
        Self {
            text,
            origin,
            overrides: &[],
            spans: OnceCell::from(Some(spans)),
        }
    }

    fn spans(&self) -> Option<&ImDocument<&'a str>> {
        self.spans
            .get_or_init(|| ImDocument::parse(self.text).ok())
            .as_ref()
    }

    /// The override that wrote `path` (or a table containing it), if any.
    pub(super) fn overridden(&self, path: &[String]) -> Option<&Override> {
        self.overrides
            .iter()
            .rev()
            .find(|o| path.starts_with(o.path()))
    }

    /// The override that wrote `path` (or a table containing it), else the line of the
    /// deepest key of `path` present in the file.
    pub(super) fn locate(&self, path: &[String]) -> Location {
        if let Some(o) = self.overridden(path) {
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
        let mut item: &Item = self.spans()?.as_item();
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
            Some(Complaint::InvalidType { found, expected }) if !path.is_empty() => {
                let msg = type_message(&dotted(&path), &found, &expected);
                (path, msg)
            }
            _ if path.is_empty() => (path, message.to_owned()),
            _ => (path.clone(), format!("{}: {message}", dotted(&path))),
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

/// `flows.0.source.fps` from path segments: the spelling `--set` accepts, for messages
/// that suggest an override.
pub(super) fn set_path(path: &[String]) -> String {
    path.join(".")
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
    UnknownField {
        name: String,
        expected: Vec<String>,
    },
    UnknownVariant {
        name: String,
        expected: Vec<String>,
    },
    MissingField {
        name: String,
    },
    /// `invalid type: string "5", expected f64`.
    InvalidType {
        found: String,
        expected: String,
    },
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
    if let Some(rest) = message.strip_prefix("invalid type: ") {
        let (found, expected) = rest.rsplit_once(", expected ")?;
        return Some(Complaint::InvalidType {
            found: found.to_owned(),
            expected: expected.to_owned(),
        });
    }
    let rest = message.strip_prefix("missing field `")?;
    let (name, _) = rest.split_once('`')?;
    Some(Complaint::MissingField {
        name: name.to_owned(),
    })
}

/// `link.capacity_mbps must be a number, not the string "5"`, from serde's wording of
/// what it found (`string "5"`, `integer `5``, `floating point `1.5``, `boolean `true``,
/// `sequence`, `map`) and what it expected (a Rust type name or a phrase).
fn type_message(key: &str, found: &str, expected: &str) -> String {
    let wanted = match expected {
        "f64" | "f32" => "a number",
        "u8" | "u16" | "u32" | "u64" | "usize" => "a whole number (0 or more)",
        "i8" | "i16" | "i32" | "i64" | "isize" => "a whole number",
        "a boolean" => "true or false",
        "a string" => "a string (in quotes)",
        e if e.starts_with("a sequence") || e.starts_with("an array") => "a list [...]",
        e if e.starts_with("struct ") || e == "a map" => "a table",
        e => e,
    };
    // The value inside serde's backquotes, for the numbers and booleans.
    let literal = |prefix: &str| {
        found
            .strip_prefix(prefix)
            .map(|rest| rest.trim_matches('`').to_owned())
    };
    let (shown, hint) = if let Some(text) = found.strip_prefix("string ") {
        let inner = text.trim_matches('"');
        let numeric = inner.trim().parse::<f64>().is_ok() && wanted.contains("number");
        let hint = if numeric {
            format!(" (write {inner} without quotes)")
        } else {
            String::new()
        };
        (format!("the string {text}"), hint)
    } else if let Some(v) = literal("integer ").or_else(|| literal("floating point ")) {
        (format!("the number {v}"), String::new())
    } else if let Some(v) = literal("boolean ") {
        (format!("the boolean {v}"), String::new())
    } else if found == "sequence" {
        ("a list".to_owned(), String::new())
    } else if found == "map" {
        ("a table".to_owned(), String::new())
    } else {
        (found.to_owned(), String::new())
    };
    format!("{key} must be {wanted}, not {shown}{hint}")
}

/// ` (did you mean X?)` for a near miss, else the list of accepted names.
pub fn suggestion(name: &str, expected: &[String]) -> String {
    let closest = expected
        .iter()
        .map(|candidate| (strsim::levenshtein(name, candidate), candidate))
        .min_by_key(|(d, _)| *d);
    match closest {
        Some((d, candidate)) if d <= (name.len() / 3).max(2) => {
            format!(" (did you mean {candidate}?)")
        }
        _ if expected.is_empty() => String::new(),
        _ => format!(" (expected one of: {})", expected.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn type_errors_name_the_key_and_the_kind_of_value_wanted() {
        assert_eq!(
            type_message("link.capacity_mbps", "string \"5\"", "f64"),
            "link.capacity_mbps must be a number, not the string \"5\" (write 5 without quotes)"
        );
        assert_eq!(
            type_message("seed", "floating point `1.5`", "u64"),
            "seed must be a whole number (0 or more), not the number 1.5"
        );
        assert_eq!(
            type_message("link.jitter_keep_order", "string \"yes\"", "a boolean"),
            "link.jitter_keep_order must be true or false, not the string \"yes\""
        );
        assert_eq!(
            type_message("link.capacity_steps", "map", "a sequence"),
            "link.capacity_steps must be a list [...], not a table"
        );
    }

    #[test]
    fn set_paths_use_dots_for_indexes() {
        let p: Vec<String> = ["flows", "0", "source", "trace"].map(String::from).to_vec();
        assert_eq!(set_path(&p), "flows.0.source.trace");
    }

    #[test]
    fn dotted_renders_indexes_in_brackets() {
        let p: Vec<String> = ["flows", "0", "source", "fps"].map(String::from).to_vec();
        assert_eq!(dotted(&p), "flows[0].source.fps");
    }
}
