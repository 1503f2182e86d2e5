//! Reading results.csv back, and the mean of each design point over its seeds.

use std::collections::BTreeMap;
use std::path::Path;

use super::StudyError;
use crate::sweep::{ID_COLUMNS, RUN_COLUMNS, TIMING_COLUMNS};

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
    /// Rows left out because they had too few cells (a sweep writing while read).
    pub incomplete_rows: usize,
}

impl Results {
    /// Reads a results file.
    pub fn read(path: &Path) -> Result<Self, StudyError> {
        let text = std::fs::read_to_string(path).map_err(|source| StudyError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Self::parse(&text, &path.display().to_string())
    }

    /// Parses results.csv `text`; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Self, StudyError> {
        let bad = |message: String| StudyError::Format {
            origin: origin.to_owned(),
            message,
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
        let position = |name: &str| {
            header.iter().position(|h| h == name).ok_or_else(|| {
                bad(format!(
                    "no column `{name}`: not a results.csv of `scream sweep` (see docs/sweeps.md)"
                ))
            })
        };
        for c in ID_COLUMNS.iter().chain(&RUN_COLUMNS).chain(&TIMING_COLUMNS) {
            position(c.name)?;
        }
        let [run_id, base, point, axis, transition] = ID_COLUMNS.map(|c| position(c.name));
        let [seed, status, _] = RUN_COLUMNS.map(|c| position(c.name));
        let (transition, seed, error) = (transition?, seed?, position("error")?);
        let wall = position(TIMING_COLUMNS[0].name)?;
        if !(transition < seed && seed < error && error < wall) {
            return Err(bad(
                "columns out of order: expected ids, parameters, seed/status/error, metrics, \
                 wall_time_s"
                    .to_owned(),
            ));
        }
        let (run_id, base, point, axis, status) = (run_id?, base?, point?, axis?, status?);
        let params = header[transition + 1..seed].to_vec();
        let metrics = header[error + 1..wall].to_vec();
        let mut rows = Vec::new();
        let mut incomplete_rows = 0;
        for (n, record) in reader.records().enumerate() {
            // Line numbers count the header as line 1.
            let line = n + 2;
            let record = record.map_err(|e| bad(format!("line {line}: {e}")))?;
            if record.len() != header.len() {
                incomplete_rows += 1;
                continue;
            }
            let cell = |i: usize| record[i].trim();
            let number = |i: usize| -> Result<Option<f64>, StudyError> {
                match cell(i) {
                    "" => Ok(None),
                    s => s.parse::<f64>().map(Some).map_err(|_| {
                        bad(format!(
                            "line {line}: {} is not a number: \"{s}\"",
                            header[i]
                        ))
                    }),
                }
            };
            let whole = |i: usize| -> Result<Option<u64>, StudyError> {
                match cell(i) {
                    "" => Ok(None),
                    s => s.parse::<u64>().map(Some).map_err(|_| {
                        bad(format!(
                            "line {line}: {} must be a whole number, not \"{s}\"",
                            header[i]
                        ))
                    }),
                }
            };
            let index = |i: usize| -> Result<Option<usize>, StudyError> {
                Ok(whole(i)?.and_then(|v| usize::try_from(v).ok()))
            };
            let present = |i: usize| (!cell(i).is_empty()).then(|| cell(i).to_owned());
            rows.push(Row {
                run_id: cell(run_id).to_owned(),
                base: cell(base).to_owned(),
                point: index(point)?.ok_or_else(|| bad(format!("line {line}: point is empty")))?,
                axis: present(axis),
                transition: index(transition)?,
                params: (transition + 1..seed).map(|i| cell(i).to_owned()).collect(),
                seed: whole(seed)?.unwrap_or(0),
                ok: cell(status) == "ok",
                error: cell(error).to_owned(),
                metrics: (error + 1..wall).map(number).collect::<Result<_, _>>()?,
            });
        }
        Ok(Self {
            params,
            metrics,
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

    /// Each (base, point) with its metrics averaged over the seeds that ran `ok`, ordered
    /// by base (first appearance) and point.
    pub fn point_means(&self) -> Vec<PointMean> {
        let bases = self.bases();
        let mut out: Vec<PointMean> = Vec::new();
        let mut sums: Vec<Vec<(f64, usize)>> = Vec::new();
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
                        seeds: 0,
                        errors: 0,
                    });
                    sums.push(vec![(0.0, 0); self.metrics.len()]);
                    out.len() - 1
                }
            };
            if !r.ok {
                out[slot].errors += 1;
                continue;
            }
            out[slot].seeds += 1;
            for (sum, v) in sums[slot].iter_mut().zip(&r.metrics) {
                if let Some(v) = v {
                    sum.0 += v;
                    sum.1 += 1;
                }
            }
        }
        for (p, s) in out.iter_mut().zip(sums) {
            p.metrics = s
                .into_iter()
                .map(|(sum, n)| (n > 0).then(|| sum / n as f64))
                .collect();
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
    /// Seeds that ran `ok`.
    pub seeds: usize,
    /// Seeds recorded as `error`.
    pub errors: usize,
}
