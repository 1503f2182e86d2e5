//! summary.csv and links_summary.csv: summary.json as flat tables, one row per flow and
//! per stream, and one row per link direction, so that `pandas.read_csv` loads each in
//! one call (summary.json nests its distributions, which `pandas.read_json` refuses).
//!
//! The columns are derived from summary.json itself, not declared a second time: a
//! nested key becomes a column named by its dotted path (`queue_delay_ms.p95`, as
//! `pandas.json_normalize` would name it), so a key added to the summary appears here
//! without anyone keeping two lists in step. The numbers are the ones summary.json
//! prints (same fixed decimals); `null` (an unlimited capacity) is an empty cell.

use std::io;

use serde_json::{Map, Value};

/// Keys that are not columns: `name` becomes the `flow` / `stream` / `link` column,
/// `streams` becomes rows of their own, and `count_of` is the same in every row of a
/// column (docs/outputs.md says which distributions count what).
const NOT_COLUMNS: [&str; 3] = ["name", "streams", "count_of"];

/// A table under construction: columns in order of first appearance.
#[derive(Default)]
struct Table {
    columns: Vec<String>,
    rows: Vec<Vec<(String, String)>>,
}

impl Table {
    fn push(&mut self, row: Vec<(String, String)>) {
        for (column, _) in &row {
            if !self.columns.contains(column) {
                self.columns.push(column.clone());
            }
        }
        self.rows.push(row);
    }

    fn to_csv(&self) -> io::Result<Vec<u8>> {
        let mut w = csv::WriterBuilder::new()
            .terminator(csv::Terminator::Any(b'\n'))
            .from_writer(Vec::new());
        w.write_record(&self.columns).map_err(io::Error::other)?;
        for row in &self.rows {
            let cells = self.columns.iter().map(|c| {
                row.iter()
                    .find(|(k, _)| k == c)
                    .map_or("", |(_, v)| v.as_str())
            });
            w.write_record(cells).map_err(io::Error::other)?;
        }
        w.into_inner().map_err(|e| io::Error::other(e.to_string()))
    }
}

fn cell(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Appends the scalar leaves of `object` as (dotted path, cell) pairs.
fn flatten(prefix: &str, object: &Map<String, Value>, out: &mut Vec<(String, String)>) {
    for (key, value) in object {
        if NOT_COLUMNS.contains(&key.as_str()) {
            continue;
        }
        let path = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        };
        match value {
            Value::Object(inner) => flatten(&path, inner, out),
            // Arrays other than `streams` do not occur; a list has no single cell.
            Value::Array(_) => {}
            scalar => out.push((path, cell(scalar))),
        }
    }
}

/// The objects of the array `v` (nothing if `v` is missing or not an array).
fn objects(v: Option<&Value>) -> impl Iterator<Item = &Map<String, Value>> {
    v.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_object)
}

fn name(o: &Map<String, Value>) -> String {
    o.get("name").map(cell).unwrap_or_default()
}

/// summary.csv from summary.json's value: `kind` (`flow` or `stream`), `flow`, `stream`
/// (empty on a flow's row), then every scalar key of the flow or stream object.
pub(crate) fn flows_csv(summary: &Value) -> io::Result<Vec<u8>> {
    let mut table = Table::default();
    for flow in objects(summary.get("flows")) {
        let flow_name = name(flow);
        let mut row = vec![
            ("kind".to_owned(), "flow".to_owned()),
            ("flow".to_owned(), flow_name.clone()),
            ("stream".to_owned(), String::new()),
        ];
        flatten("", flow, &mut row);
        table.push(row);
        for stream in objects(flow.get("streams")) {
            let mut row = vec![
                ("kind".to_owned(), "stream".to_owned()),
                ("flow".to_owned(), flow_name.clone()),
                ("stream".to_owned(), name(stream)),
            ];
            flatten("", stream, &mut row);
            table.push(row);
        }
    }
    table.to_csv()
}

/// links_summary.csv from summary.json's value: `link`, then every key of the link
/// direction's object.
pub(crate) fn links_csv(summary: &Value) -> io::Result<Vec<u8>> {
    let mut table = Table::default();
    for link in objects(summary.get("links")) {
        let mut row = vec![("link".to_owned(), name(link))];
        flatten("", link, &mut row);
        table.push(row);
    }
    table.to_csv()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary() -> Value {
        serde_json::json!({
            "links": [{"name": "b", "direction": "forward", "capacity_mean_mbps": null,
                       "utilization": 0.5}],
            "flows": [{"name": "v", "throughput_mbps": 7.25,
                "queue_delay_ms": {"mean": 3.5, "p95": 9.0, "count": 4, "count_of": "packets"},
                "streams": [{"name": "hi", "throughput_mbps": 5.0},
                            {"name": "lo", "throughput_mbps": 2.25}]}]
        })
    }

    #[test]
    fn one_row_per_flow_and_stream_with_dotted_columns() {
        let text = String::from_utf8(flows_csv(&summary()).unwrap()).unwrap();
        assert_eq!(
            text,
            "kind,flow,stream,throughput_mbps,queue_delay_ms.mean,queue_delay_ms.p95,\
             queue_delay_ms.count\n\
             flow,v,,7.25,3.5,9.0,4\n\
             stream,v,hi,5.0,,,\n\
             stream,v,lo,2.25,,,\n"
        );
    }

    #[test]
    fn one_row_per_link_direction_with_null_as_empty() {
        let text = String::from_utf8(links_csv(&summary()).unwrap()).unwrap();
        assert_eq!(
            text,
            "link,direction,capacity_mean_mbps,utilization\nb,forward,,0.5\n"
        );
    }
}
