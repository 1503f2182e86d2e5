//! The statistics of a seed set: per flow and metric, the spread of the per-seed values
//! (seeds.csv, seeds.json).
//!
//! The metrics are the sweep's ([`crate::sweep::METRICS`]), measured the same way, so a
//! seed set's mean is what a sweep point with the same seeds reports.

use serde::Serialize;

use scream_records::stats::{mean, mean_interval, std_dev};

use crate::sweep::{METRICS, Metric, Scope};

/// Confidence level of the intervals of seeds.csv and of the report.
pub const CONFIDENCE: f64 = 0.95;

/// Which value of a run one row summarises: a metric of one flow, or of the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Measurement {
    /// The metric.
    pub metric: &'static Metric,
    /// Index of the flow for a per-flow metric; `None` for a per-run one.
    pub flow: Option<usize>,
}

impl Measurement {
    /// Its name as a column of one row per seed in a scenario of `flows` flows: the
    /// metric's name, prefixed `f<i>_` for a flow when there are several, as a sweep's
    /// results.csv names its columns.
    pub fn column(&self, flows: usize) -> String {
        match self.flow {
            Some(f) if flows > 1 => format!("f{f}_{}", self.metric.name),
            _ => self.metric.name.to_owned(),
        }
    }
}

/// Every flow's per-flow metrics, flow by flow in the order of [`METRICS`], then the
/// per-run metrics: the rows of a scenario with `flows` flows.
pub fn measurements(flows: usize) -> Vec<Measurement> {
    let per_flow = (0..flows).flat_map(|f| {
        METRICS
            .iter()
            .filter(|m| m.scope == Scope::Flow)
            .map(move |metric| Measurement {
                metric,
                flow: Some(f),
            })
    });
    let per_run = METRICS
        .iter()
        .filter(|m| m.scope == Scope::Run)
        .map(|metric| Measurement { metric, flow: None });
    per_flow.chain(per_run).collect()
}

/// One row of seeds.csv: the spread of one metric over the seeds. The field names are
/// the CSV header (docs/outputs.md lists them).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SeedStats {
    /// Flow name; `None` (an empty cell) for a per-run metric.
    pub flow: Option<String>,
    /// Metric name, as a results.csv column of a one-flow sweep.
    pub metric: &'static str,
    /// Its unit (empty: a ratio).
    pub unit: &'static str,
    /// Seeds that have a value (a run without a delivered frame has no frame delay).
    pub n: usize,
    /// Mean over those seeds.
    pub mean: Option<f64>,
    /// Sample standard deviation (n − 1); `None` below two values.
    pub sd: Option<f64>,
    /// Half width of the [`CONFIDENCE`] Student t interval of the mean; `None` below
    /// two values.
    pub ci95_half_width: Option<f64>,
    /// `mean - ci95_half_width`.
    pub ci95_low: Option<f64>,
    /// `mean + ci95_half_width`.
    pub ci95_high: Option<f64>,
    /// Smallest value.
    pub min: Option<f64>,
    /// Largest value.
    pub max: Option<f64>,
}

impl SeedStats {
    /// The statistics of `values` (one per seed; `None`: the seed has no value).
    pub fn of(flow: Option<String>, metric: &'static Metric, values: &[Option<f64>]) -> Self {
        let present: Vec<f64> = values.iter().flatten().copied().collect();
        let interval = mean_interval(&present, CONFIDENCE);
        let m = mean(present.iter().copied());
        let fold = |pick: fn(f64, f64) -> f64| present.iter().copied().reduce(pick);
        Self {
            flow,
            metric: metric.name,
            unit: metric.unit,
            n: present.len(),
            mean: m,
            sd: std_dev(&present),
            ci95_half_width: interval.map(|i| i.half_width),
            ci95_low: interval.map(|i| i.mean - i.half_width),
            ci95_high: interval.map(|i| i.mean + i.half_width),
            min: fold(f64::min),
            max: fold(f64::max),
        }
        .rounded()
    }

    /// Every number at six decimals at most, as every other output.
    fn rounded(mut self) -> Self {
        for v in [
            &mut self.mean,
            &mut self.sd,
            &mut self.ci95_half_width,
            &mut self.ci95_low,
            &mut self.ci95_high,
            &mut self.min,
            &mut self.max,
        ] {
            *v = v.and_then(round6);
        }
        self
    }
}

/// `v` at six decimals; no negative zero; `None` when not finite.
fn round6(v: f64) -> Option<f64> {
    if !v.is_finite() {
        return None;
    }
    let r = (v * 1e6).round() / 1e6;
    Some(if r == 0.0 { 0.0 } else { r })
}

/// A seed set's statistics, and the values they come from.
#[derive(Debug, Clone, PartialEq)]
pub struct SeedSummary {
    /// Scenario name.
    pub scenario: String,
    /// The seeds, in the order given.
    pub seeds: Vec<u64>,
    /// One row per measurement.
    pub rows: Vec<SeedStats>,
    /// Per row, the value of each seed (in [`SeedSummary::seeds`] order), rounded as
    /// the statistics.
    pub values: Vec<Vec<Option<f64>>>,
}

impl SeedSummary {
    /// The summary of `per_seed` (for each seed, the value of each of `measurements`),
    /// with flows named by `flow_names`.
    pub fn new(
        scenario: &str,
        seeds: &[u64],
        flow_names: &[String],
        measurements: &[Measurement],
        per_seed: &[Vec<Option<f64>>],
    ) -> Self {
        let (rows, values) = measurements
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let column: Vec<Option<f64>> = per_seed
                    .iter()
                    .map(|row| row.get(i).copied().flatten())
                    .collect();
                let flow = m.flow.and_then(|f| flow_names.get(f).cloned());
                let stats = SeedStats::of(flow, m.metric, &column);
                (
                    stats,
                    column.into_iter().map(|v| v.and_then(round6)).collect(),
                )
            })
            .unzip();
        Self {
            scenario: scenario.to_owned(),
            seeds: seeds.to_vec(),
            rows,
            values,
        }
    }

    /// seeds.csv text.
    pub fn csv(&self) -> std::io::Result<String> {
        scream_records::csv_text(&self.rows)
    }

    /// seeds.json text (pretty, every float at six decimals, newline-terminated).
    pub fn json(&self) -> std::io::Result<Vec<u8>> {
        #[derive(Serialize)]
        struct Row<'a> {
            #[serde(flatten)]
            stats: &'a SeedStats,
            values: &'a [Option<f64>],
        }
        #[derive(Serialize)]
        struct File<'a> {
            scenario: &'a str,
            seeds: &'a [u64],
            confidence: f64,
            rows: Vec<Row<'a>>,
        }
        let file = File {
            scenario: &self.scenario,
            seeds: &self.seeds,
            confidence: CONFIDENCE,
            rows: self
                .rows
                .iter()
                .zip(&self.values)
                .map(|(stats, values)| Row { stats, values })
                .collect(),
        };
        let mut out = scream_records::json_fixed(&file)?;
        out.push(b'\n');
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn throughput() -> &'static Metric {
        &METRICS[0]
    }

    #[test]
    fn the_row_holds_the_spread_of_the_seeds_that_have_a_value() {
        let values = [Some(50.0), None, Some(60.0), Some(55.0), Some(65.0)];
        let s = SeedStats::of(Some("video".into()), throughput(), &values);
        assert_eq!(
            (s.n, s.mean, s.min, s.max),
            (4, Some(57.5), Some(50.0), Some(65.0))
        );
        // Squares about 57.5 sum to 125: sd √(125/3); t(0.975, 3) = 3.182446.
        let sd = (125.0f64 / 3.0).sqrt();
        assert!((s.sd.expect("sd") - sd).abs() < 1e-6, "{s:?}");
        let hw = 3.182_446 * sd / 2.0;
        assert!((s.ci95_half_width.expect("ci") - hw).abs() < 1e-5, "{s:?}");
        let (lo, hi) = (s.ci95_low.expect("low"), s.ci95_high.expect("high"));
        assert!(lo < 57.5 && 57.5 < hi && (hi - lo - 2.0 * hw).abs() < 1e-5);
    }

    #[test]
    fn one_seed_has_a_mean_but_no_spread_and_none_has_nothing() {
        let s = SeedStats::of(None, throughput(), &[None, Some(3.0)]);
        assert_eq!(
            (s.n, s.mean, s.min, s.max),
            (1, Some(3.0), Some(3.0), Some(3.0))
        );
        assert_eq!((s.sd, s.ci95_half_width, s.ci95_low), (None, None, None));
        let s = SeedStats::of(None, throughput(), &[None]);
        assert_eq!((s.n, s.mean, s.min), (0, None, None));
    }

    #[test]
    fn flows_come_first_then_the_run() {
        let m = measurements(2);
        let per_flow = METRICS.iter().filter(|m| m.scope == Scope::Flow).count();
        assert_eq!(m.len(), 2 * per_flow + METRICS.len() - per_flow);
        assert_eq!((m[0].flow, m[per_flow].flow), (Some(0), Some(1)));
        assert_eq!(m.last().map(|l| l.flow), Some(None));
        assert_eq!(m[per_flow].column(2), format!("f1_{}", METRICS[0].name));
        assert_eq!(measurements(1)[0].column(1), METRICS[0].name);
        let last = m.last().expect("a run metric");
        assert_eq!(last.column(2), last.metric.name);
    }

    #[test]
    fn csv_and_json_hold_the_same_rows() {
        let measured = measurements(1);
        let per_seed: Vec<Vec<Option<f64>>> = [1.0, 2.0, 4.0]
            .iter()
            .map(|&v| measured.iter().map(|_| Some(v)).collect())
            .collect();
        let s = SeedSummary::new("x", &[1, 2, 3], &["f".into()], &measured, &per_seed);
        let csv = s.csv().expect("csv");
        let mut lines = csv.lines();
        assert_eq!(
            lines.next(),
            Some("flow,metric,unit,n,mean,sd,ci95_half_width,ci95_low,ci95_high,min,max")
        );
        assert!(
            lines
                .next()
                .is_some_and(|l| l.starts_with("f,throughput_mbps,Mbit/s,3,2.333333,")),
            "{csv}"
        );
        let json: serde_json::Value =
            serde_json::from_slice(&s.json().expect("json")).expect("parses");
        assert_eq!(json["rows"].as_array().map(Vec::len), Some(measured.len()));
        assert_eq!(
            json["rows"][0]["values"],
            serde_json::json!([1.0, 2.0, 4.0])
        );
        assert_eq!(json["rows"][0]["mean"], serde_json::json!(2.333333));
        assert!(json["rows"][measured.len() - 1]["flow"].is_null());
    }
}
