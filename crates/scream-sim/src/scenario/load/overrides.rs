//! `--set dotted.path=value` overrides, applied to the parsed document before it is
//! checked against the schema, so an override is validated exactly like the file.

use std::str::FromStr;

use toml_edit::{DocumentMut, Item, Table, Value};

use super::ScenarioError;

/// One `dotted.path=value` override.
///
/// The path walks tables by key and arrays of tables by a zero-based index
/// (`flows.0.ecn`); missing tables on the way are created. The value is read as a TOML
/// value (number, bool, string, array, inline table); anything else, such as a bare
/// word or a file path, is taken as a string.
#[derive(Debug, Clone)]
pub struct Override {
    raw: String,
    path: Vec<String>,
    value: Value,
}

impl Override {
    /// The argument as given, `path=value`.
    pub fn raw(&self) -> &str {
        &self.raw
    }

    /// The dotted path, one segment per element.
    pub fn path(&self) -> &[String] {
        &self.path
    }

    pub(super) fn apply(&self, doc: &mut DocumentMut) -> Result<(), ScenarioError> {
        let fail = |message: String| ScenarioError::Override {
            raw: self.raw.clone(),
            message,
        };
        let (last, parents) = self
            .path
            .split_last()
            .ok_or_else(|| fail("empty key".to_owned()))?;
        let mut item = doc.as_item_mut();
        for (depth, seg) in parents.iter().enumerate() {
            let here = super::diagnose::dotted(&self.path[..=depth]);
            item = descend(item, seg).map_err(|why| fail(format!("{here}: {why}")))?;
        }
        let slot = match last.parse::<usize>() {
            Ok(i) if item.is_array() || item.is_array_of_tables() => {
                let len = array_len(item);
                item.get_mut(i)
                    .ok_or_else(|| fail(format!("index {i} out of range ({len} entries)")))?
            }
            _ if item.is_table_like() => &mut item[last.as_str()],
            _ => {
                return Err(fail(format!(
                    "{} is not a table",
                    super::diagnose::dotted(parents)
                )));
            }
        };
        *slot = Item::Value(self.value.clone());
        Ok(())
    }
}

/// One step down for writing: a numeric segment indexes an array, a missing key becomes
/// an empty table.
fn descend<'a>(item: &'a mut Item, seg: &str) -> Result<&'a mut Item, String> {
    if item.is_array() || item.is_array_of_tables() {
        let len = array_len(item);
        let i: usize = seg
            .parse()
            .map_err(|_| format!("is a list; index it with a number (0..{len})"))?;
        return item
            .get_mut(i)
            .ok_or_else(|| format!("index {i} out of range ({len} entries)"));
    }
    if item.is_none() {
        *item = Item::Table(Table::new());
    }
    if !item.is_table_like() {
        return Err("is a value, not a table".to_owned());
    }
    let child = &mut item[seg];
    if child.is_none() {
        *child = Item::Table(Table::new());
    }
    Ok(child)
}

fn array_len(item: &Item) -> usize {
    (0..).take_while(|&i| item.get(i).is_some()).count()
}

impl FromStr for Override {
    type Err = ScenarioError;

    fn from_str(raw: &str) -> Result<Self, Self::Err> {
        let fail = |message: &str| ScenarioError::Override {
            raw: raw.to_owned(),
            message: message.to_owned(),
        };
        let (key, text) = raw
            .split_once('=')
            .ok_or_else(|| fail("expected dotted.key=value"))?;
        let path: Vec<String> = key.trim().split('.').map(str::to_owned).collect();
        let valid_segment = |s: &String| {
            !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        };
        if !path.iter().all(valid_segment) {
            return Err(fail(
                "the key must be dot-separated names or indexes, like flows.0.ecn",
            ));
        }
        let text = text.trim();
        let value = match text.parse::<Value>() {
            Ok(v) => v.decorated("", ""),
            // A value that starts like structured TOML but does not parse is a typo, not
            // a string the user meant.
            Err(e) if text.starts_with(['[', '{', '"', '\'']) => {
                return Err(fail(&format!(
                    "not a TOML value: {}",
                    e.message().trim().replace('\n', "; ")
                )));
            }
            Err(_) => Value::from(text),
        };
        Ok(Self {
            raw: raw.to_owned(),
            path,
            value,
        })
    }
}
