//! TOML files other than scenarios (sweep specs) read with the scenario loader's
//! diagnostics, so that a mistake in one reads like a mistake in the other:
//! `file:line: key: message`, with the nearest known key or value suggested.

use serde::de::DeserializeOwned;
use toml_edit::ImDocument;

use super::diagnose::Context;
use super::{Location, ScenarioError};

/// A parsed TOML text that remembers where each key was written.
pub struct Document<'a> {
    text: &'a str,
    origin: &'a str,
    spans: ImDocument<&'a str>,
}

impl std::fmt::Debug for Document<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Document")
            .field("origin", &self.origin)
            .finish_non_exhaustive()
    }
}

/// `text` parsed with its source spans; a syntax error names `origin` and the line.
pub(super) fn parse_spans<'a>(
    text: &'a str,
    origin: &str,
) -> Result<ImDocument<&'a str>, ScenarioError> {
    ImDocument::parse(text).map_err(|e| ScenarioError::Syntax {
        origin: origin.to_owned(),
        line: e.span().map_or(1, |s| super::line_at_char(text, s.start)),
        message: e.message().trim().replace('\n', "; "),
    })
}

impl<'a> Document<'a> {
    /// Parses `text`; `origin` names it in errors (a file name).
    pub fn parse(text: &'a str, origin: &'a str) -> Result<Self, ScenarioError> {
        Ok(Self {
            text,
            origin,
            spans: parse_spans(text, origin)?,
        })
    }

    /// A spec is small: its context gets a copy of the spans.
    fn context(&self) -> Context<'_> {
        Context::with_spans(self.text, self.origin, self.spans.clone())
    }

    /// The text as a `T`; a schema error names the line and the dotted key.
    pub fn deserialize<T: DeserializeOwned>(&self) -> Result<T, ScenarioError> {
        let de = toml_edit::de::Deserializer::from(self.spans.clone());
        serde_path_to_error::deserialize(de).map_err(|e| self.context().schema_error(&e))
    }

    /// Where the deepest written key along `path` is (`["axis", "2", "values"]`).
    pub fn locate(&self, path: &[String]) -> Location {
        self.context().locate(path)
    }
}
