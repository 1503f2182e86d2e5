//! Runs of a plan's bases outside its design: the trials of a tuner, which picks each
//! point as it goes. A trial's job is built as [`Plan::job`] builds a design point's
//! (the base's text and `set`, then the point's overrides, the base's seed), so a
//! trial that lands on a design point makes exactly that point's run; it only gets a
//! row of its own (its run id, the tuner's parameters) and may record more metrics.

use scream_sim::scenario::load::{Override, suggestion};

use super::columns::{ID_COLUMNS, METRICS, RUN_COLUMNS, Scope, TIMING_COLUMNS};
use super::job::{JOB_FORMAT, JobMetric, JobScenario, RunJob};
use super::plan::{Plan, cell_of};
use super::{Base, SweepError};

/// One trial: which base, the values of the tuner's parameters, what else to set.
#[derive(Debug, Clone, Copy)]
pub struct Trial<'a> {
    /// The base's name.
    pub base: &'a str,
    /// The trial's number, which names its row (`<base>/t<number>/s<seed>`) and fills
    /// the `point` column.
    pub number: usize,
    /// Overrides applied after the base's own `set`, before the parameters.
    pub set: &'a [String],
    /// The parameters: dotted key and value as `--set` takes it.
    pub params: &'a [(String, String)],
    /// Master seed.
    pub seed: u64,
}

impl Plan {
    /// The base named `name`; an error lists the plan's bases.
    pub fn base_named(&self, name: &str) -> Result<&Base, SweepError> {
        self.bases.iter().find(|b| b.name == name).ok_or_else(|| {
            let names: Vec<String> = self.bases.iter().map(|b| b.name.clone()).collect();
            SweepError::Job(format!(
                "sweep {} has no base \"{name}\"{} (its bases: {})",
                self.name,
                suggestion(name, &names),
                names.join(", ")
            ))
        })
    }

    /// Per varied parameter of the plan, its distinct values over the design's points
    /// in the order they first appear, as `--set` takes them: a factorial design's
    /// axes exactly.
    pub fn param_values(&self) -> Vec<(String, Vec<String>)> {
        self.params
            .iter()
            .enumerate()
            .map(|(p, key)| {
                let mut values: Vec<String> = Vec::new();
                for text in self.points.iter().filter_map(|pt| pt.texts[p].as_deref()) {
                    if !values.iter().any(|v| v == text) {
                        values.push(text.to_owned());
                    }
                }
                (key.clone(), values)
            })
            .collect()
    }

    /// The plan's metric column names followed by those of `extra` (metric names of
    /// [`METRICS`], measured on the first selected flow) that it lacks; an error names
    /// an unknown metric and the known ones.
    pub fn trial_metrics(&self, extra: &[String]) -> Result<Vec<(String, JobMetric)>, SweepError> {
        let mut out: Vec<(String, JobMetric)> = self
            .metric_columns
            .iter()
            .map(|c| {
                let job = JobMetric {
                    metric: c.metric.name.to_owned(),
                    flow: c.flow,
                };
                (c.name.clone(), job)
            })
            .collect();
        let first_flow = self
            .metric_columns
            .iter()
            .find(|c| c.metric.scope == Scope::Flow)
            .map_or(0, |c| c.flow);
        for name in extra {
            if out.iter().any(|(column, _)| column == name) {
                continue;
            }
            let metric = METRICS.iter().find(|m| m.name == name).ok_or_else(|| {
                let known: Vec<String> = out
                    .iter()
                    .map(|(c, _)| c.clone())
                    .chain(METRICS.iter().map(|m| m.name.to_owned()))
                    .fold(Vec::new(), |mut all, c| {
                        if !all.contains(&c) {
                            all.push(c);
                        }
                        all
                    });
                SweepError::Job(format!(
                    "unknown metric \"{name}\"{} (known: {})",
                    suggestion(name, &known),
                    known.join(", ")
                ))
            })?;
            let job = JobMetric {
                metric: metric.name.to_owned(),
                flow: if metric.scope == Scope::Flow {
                    first_flow
                } else {
                    0
                },
            };
            out.push((metric.name.to_owned(), job));
        }
        Ok(out)
    }

    /// Checks that base `base` loads with `overrides` after its own `set`: the first
    /// error (a misspelt key, a value out of range) in the scenario's words.
    pub fn check_overrides(&self, base: &str, overrides: &[String]) -> Result<(), SweepError> {
        let base = self.base_named(base)?;
        let parsed = overrides
            .iter()
            .map(|o| o.parse::<Override>())
            .collect::<Result<Vec<_>, _>>()?;
        base.load(&parsed)?;
        Ok(())
    }

    /// The job of `trial` and the header of its row, recording `metrics` (as
    /// [`Plan::trial_metrics`] gives them).
    pub fn trial_job(
        &self,
        trial: &Trial<'_>,
        metrics: &[(String, JobMetric)],
    ) -> Result<(RunJob, Vec<String>), SweepError> {
        let base = self.base_named(trial.base)?;
        let overrides = base
            .set
            .iter()
            .map(|o| o.raw().to_owned())
            .chain(trial.set.iter().cloned())
            .chain(trial.params.iter().map(|(k, v)| format!("{k}={v}")))
            .collect();
        let job = RunJob {
            format: JOB_FORMAT,
            run_id: format!("{}/t{}/s{}", base.name, trial.number, trial.seed),
            base: base.name.clone(),
            point: trial.number,
            axis: None,
            transition: None,
            params: trial.params.iter().map(|(_, v)| Some(cell_of(v))).collect(),
            scenario: JobScenario {
                text: base.text.clone(),
                origin: base.origin.clone(),
                base_dir: base.base_dir.clone(),
            },
            overrides,
            seed: trial.seed,
            metrics: metrics.iter().map(|(_, m)| m.clone()).collect(),
            keep: None,
        };
        let names = |c: &[super::Column]| c.iter().map(|c| c.name.to_owned()).collect::<Vec<_>>();
        let mut columns = names(&ID_COLUMNS);
        columns.extend(trial.params.iter().map(|(k, _)| k.clone()));
        columns.extend(names(&RUN_COLUMNS));
        columns.extend(metrics.iter().map(|(c, _)| c.clone()));
        columns.extend(names(&TIMING_COLUMNS));
        Ok((job, columns))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: &str = r#"
        name = "t"
        metrics = ["throughput_mbps"]
        seeds = [7]
        [design]
        kind = "factorial"
        [[base]]
        name = "b"
        scenario = "paper-step-v2"
        set = ["duration_s=0.5"]
        [[axis]]
        key = "link.capacity_mbps"
        values = [5, 20.0]
        [[axis]]
        key = "flows.0.params.qdelay_target"
        values = [0.02, 6e-2]
    "#;

    fn plan() -> Plan {
        Plan::from_str(SPEC, "t.toml", None).expect("the spec plans")
    }

    #[test]
    fn a_trial_at_a_design_point_makes_that_points_run() {
        let plan = plan();
        let values = plan.param_values();
        assert_eq!(values[0].1, ["5", "20.0"]);
        assert_eq!(values[1].1, ["0.02", "0.06"]);
        let run = &plan.runs()[3];
        let design = plan.job(run, None);
        let params: Vec<(String, String)> = plan
            .params()
            .iter()
            .zip(&plan.points()[run.point].texts)
            .map(|(k, t)| (k.clone(), t.as_deref().unwrap_or_default().to_owned()))
            .collect();
        let trial = Trial {
            base: "b",
            number: 11,
            set: &[],
            params: &params,
            seed: run.seed,
        };
        let metrics = plan.trial_metrics(&[]).expect("no extra metric");
        let (job, columns) = plan.trial_job(&trial, &metrics).expect("a job");
        assert_eq!(job.overrides, design.overrides);
        assert_eq!(job.scenario, design.scenario);
        assert_eq!(job.metrics, design.metrics);
        assert_eq!((job.seed, job.run_id.as_str()), (7, "b/t11/s7"));
        assert_eq!(columns, plan.columns());
    }

    #[test]
    fn extra_metrics_are_appended_once_and_unknown_ones_named() {
        let plan = plan();
        let extra = ["qdelay_p95_ms".to_owned(), "throughput_mbps".to_owned()];
        let metrics = plan.trial_metrics(&extra).expect("known metrics");
        let names: Vec<&str> = metrics.iter().map(|(c, _)| c.as_str()).collect();
        assert_eq!(names, ["throughput_mbps", "qdelay_p95_ms"]);
        let e = plan
            .trial_metrics(&["qdelay_p59_ms".to_owned()])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("qdelay_p59_ms") && e.contains("link_utilization"),
            "{e}"
        );
    }

    #[test]
    fn an_unknown_base_or_a_bad_override_is_named() {
        let plan = plan();
        let e = plan.check_overrides("c", &[]).unwrap_err().to_string();
        assert!(e.contains("\"c\"") && e.contains("bases: b"), "{e}");
        let bad = ["flows.0.params.qdelay_targt=0.1".to_owned()];
        let e = plan.check_overrides("b", &bad).unwrap_err().to_string();
        assert!(e.contains("qdelay_targt"), "{e}");
        plan.check_overrides("b", &["duration_s=1".to_owned()])
            .expect("a valid override");
    }
}
