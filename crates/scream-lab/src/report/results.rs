//! Reading results.csv back, and the mean of each design point over its seeds with its
//! confidence interval.

use std::collections::BTreeMap;
use std::path::Path;

use scream_records::stats::{mean, mean_interval};

use super::ReportError;
use crate::seeds::CONFIDENCE;
use crate::sweep::rows::{Layout, number};

/// One row of results.csv.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// `run_id`.
    pub run_id: String,
    /// `base`.
    pub base: String,
    /// `point`.
    pub point: usize,
    /// `axis` (one-at-a-time designs).
    pub axis: Option<String>,
    /// `transition` (one-at-a-time designs).
    pub transition: Option<usize>,
    /// The parameter cells, in [`Results::params`] order.
    pub params: Vec<String>,
    /// `seed`.
    pub seed: u64,
    /// Whether `status` is `ok`.
    pub ok: bool,
    /// `error` (empty when `ok`).
    pub error: String,
    /// The metric cells, in [`Results::metrics`] order (`None`: empty).
    pub metrics: Vec<Option<f64>>,
}

/// A results file.
#[derive(Debug, Clone, PartialEq)]
pub struct Results {
    /// Parameter columns (dotted keys).
    pub params: Vec<String>,
    /// Metric columns.
    pub metrics: Vec<String>,
    /// The rows, in file order.
    pub rows: Vec<Row>,
    /// Last rows left out because they were cut short (a sweep writing while read).
    pub incomplete_rows: usize,
}

impl Results {
    /// Reads a results file.
    pub fn read(path: &Path) -> Result<Self, ReportError> {
        let text = std::fs::read_to_string(path).map_err(|source| ReportError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Self::parse(&text, &path.display().to_string())
    }

    /// Parses results.csv `text`; `origin` names it in errors.
    ///
    /// Every row must be one `scream sweep` writes (see `sweep::rows`), each run once;
    /// the first that is not is an error naming its line. Only the last row may be cut
    /// short (no newline, or too few cells): a sweep still writing leaves it so, and it
    /// is left out and counted.
    pub fn parse(text: &str, origin: &str) -> Result<Self, ReportError> {
        let bad = |message: String| ReportError::Format {
            origin: origin.to_owned(),
            message,
        };
        let (text, mut incomplete_rows) = match text.rfind('\n') {
            Some(i) if i + 1 < text.len() => (&text[..=i], 1),
            Some(_) => (text, 0),
            // The header alone, still being written.
            None => (text, 0),
        };
        let mut reader = csv::ReaderBuilder::new()
            .flexible(true)
            .from_reader(text.as_bytes());
        let header: Vec<String> = reader
            .headers()
            .map_err(|e| bad(e.to_string()))?
            .iter()
            .map(str::to_owned)
            .collect();
        let layout = Layout::of(&header).map_err(bad)?;
        let records: Vec<(usize, csv::StringRecord)> = reader
            .records()
            .map(|r| {
                r.map(|record| {
                    let line = record.position().map_or(0, |p| p.line());
                    (usize::try_from(line).unwrap_or(usize::MAX), record)
                })
                .map_err(|e| bad(e.to_string()))
            })
            .collect::<Result<_, _>>()?;
        let last = records.len().checked_sub(1);
        let mut rows = Vec::with_capacity(records.len());
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        for (n, (line, record)) in records.iter().enumerate() {
            if Some(n) == last && record.len() < layout.len {
                incomplete_rows += 1;
                continue;
            }
            let line = *line;
            layout
                .check(&header, record)
                .map_err(|why| bad(format!("line {line}: {why}")))?;
            let cell = |i: usize| record[i].trim();
            if let Some(first) = seen.insert(cell(layout.run_id).to_owned(), line) {
                return Err(bad(format!(
                    "line {line}: run {} is also on line {first}; a run has one row",
                    cell(layout.run_id)
                )));
            }
            let whole = |i: usize| cell(i).parse::<usize>().ok();
            rows.push(Row {
                run_id: cell(layout.run_id).to_owned(),
                base: cell(layout.base).to_owned(),
                point: whole(layout.point).unwrap_or_default(),
                axis: Some(cell(layout.axis).to_owned()).filter(|a| !a.is_empty()),
                transition: whole(layout.transition),
                params: layout.params.clone().map(|i| cell(i).to_owned()).collect(),
                seed: cell(layout.seed).parse().unwrap_or_default(),
                ok: cell(layout.status) == "ok",
                error: cell(layout.error).to_owned(),
                metrics: layout
                    .metrics
                    .clone()
                    .map(|i| number(cell(i)).ok().flatten())
                    .collect(),
            });
        }
        Ok(Self {
            params: header[layout.params.clone()].to_vec(),
            metrics: header[layout.metrics.clone()].to_vec(),
            rows,
            incomplete_rows,
        })
    }

    /// The bases in order of first appearance.
    pub fn bases(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for r in &self.rows {
            if !out.contains(&r.base) {
                out.push(r.base.clone());
            }
        }
        out
    }

    /// Each (base, point) with its metrics averaged over the seeds that ran `ok`, and
    /// the confidence interval of each mean, ordered by base (first appearance) and
    /// point.
    pub fn point_means(&self) -> Vec<PointMean> {
        let bases = self.bases();
        let mut out: Vec<PointMean> = Vec::new();
        let mut values: Vec<Vec<Vec<f64>>> = Vec::new();
        let mut order: Vec<(usize, usize)> = Vec::new();
        let mut slots: BTreeMap<(usize, usize), usize> = BTreeMap::new();
        for r in &self.rows {
            let b = bases.iter().position(|b| *b == r.base).unwrap_or(0);
            let slot = match slots.get(&(b, r.point)) {
                Some(&s) => s,
                None => {
                    order.push((b, r.point));
                    slots.insert((b, r.point), out.len());
                    out.push(PointMean {
                        base: r.base.clone(),
                        point: r.point,
                        axis: r.axis.clone(),
                        transition: r.transition,
                        params: r.params.clone(),
                        metrics: Vec::new(),
                        half_widths: Vec::new(),
                        counts: Vec::new(),
                        seeds: 0,
                        errors: 0,
                    });
                    values.push(vec![Vec::new(); self.metrics.len()]);
                    out.len() - 1
                }
            };
            if !r.ok {
                out[slot].errors += 1;
                continue;
            }
            out[slot].seeds += 1;
            for (seen, v) in values[slot].iter_mut().zip(&r.metrics) {
                seen.extend(*v);
            }
        }
        for (p, per_metric) in out.iter_mut().zip(values) {
            p.metrics = per_metric.iter().map(|v| mean(v.iter().copied())).collect();
            p.half_widths = per_metric
                .iter()
                .map(|v| mean_interval(v, CONFIDENCE).map(|i| i.half_width))
                .collect();
            p.counts = per_metric.iter().map(Vec::len).collect();
        }
        let mut keyed: Vec<((usize, usize), PointMean)> = order.into_iter().zip(out).collect();
        keyed.sort_by_key(|(k, _)| *k);
        keyed.into_iter().map(|(_, p)| p).collect()
    }
}

/// A design point of one base, its metrics averaged over its seeds.
#[derive(Debug, Clone, PartialEq)]
pub struct PointMean {
    /// Base name.
    pub base: String,
    /// Point index.
    pub point: usize,
    /// One-at-a-time: the axis varied.
    pub axis: Option<String>,
    /// One-at-a-time: the value's index on it.
    pub transition: Option<usize>,
    /// Parameter cells, in [`Results::params`] order.
    pub params: Vec<String>,
    /// Mean over the `ok` seeds, per metric column (`None`: no seed had a value).
    pub metrics: Vec<Option<f64>>,
    /// Half width of the 95 % confidence interval of each mean (Student t over the
    /// seeds); `None` below two seeds with a value.
    pub half_widths: Vec<Option<f64>>,
    /// Seeds with a value, per metric column.
    pub counts: Vec<usize>,
    /// Seeds that ran `ok`.
    pub seeds: usize,
    /// Seeds recorded as `error`.
    pub errors: usize,
}
