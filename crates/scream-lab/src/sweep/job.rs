//! One run of a plan as data: everything a process needs to produce the run's row of
//! results.csv, with no reference to the plan, the folder or the machine that made it.
//!
//! A run is a pure function of its base scenario's text, its overrides and its seed, so
//! a [`RunJob`] carries exactly those, plus the cells that place the row in the design
//! (run id, base, point, axis, transition, parameter values) and the metrics to record.
//! It crosses processes and machines as JSON ([`RunJob::to_json`],
//! [`RunJob::from_json`]); [`super::run_job`] turns it into the row.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::columns::METRICS;
use super::plan::{Plan, PlannedRun};
use super::{Metric, SweepError};

/// Version of the job's layout. A process refuses a job of another layout instead of
/// guessing at it: the rows of two builds must not mix in one results file.
pub const JOB_FORMAT: u32 = 1;

/// One run of a sweep, self-contained (see the module documentation).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunJob {
    /// [`JOB_FORMAT`] of the build that made the job.
    pub format: u32,
    /// `<base>/p<point>/s<seed>`, the key of the row.
    pub run_id: String,
    /// The base's name (the `base` column).
    pub base: String,
    /// Index of the design point.
    pub point: usize,
    /// One-at-a-time: the key of the axis this point varies.
    pub axis: Option<String>,
    /// One-at-a-time: the index of the value on that axis.
    pub transition: Option<usize>,
    /// The parameter cells of the row, one per varied key of the plan (`None`: the
    /// base's own value, an empty cell).
    pub params: Vec<Option<String>>,
    /// The base scenario, as the plan loaded it.
    pub scenario: JobScenario,
    /// The base's `set`, then the point's overrides, as `--set` takes them.
    pub overrides: Vec<String>,
    /// Master seed.
    pub seed: u64,
    /// The metric columns to fill, in order.
    pub metrics: Vec<JobMetric>,
    /// Also write the run's output folder (`--keep-runs`).
    pub keep: Option<KeepRun>,
}

/// The text a run starts from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JobScenario {
    /// The scenario file's text.
    pub text: String,
    /// Names the text in errors (`builtin:NAME` or the file's name) and gives the
    /// scenario's default name.
    pub origin: String,
    /// Where relative file paths written in the text resolve (`None`: the current
    /// folder of the process that runs the job).
    pub base_dir: Option<PathBuf>,
}

/// A metric column of the row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JobMetric {
    /// The metric's name in [`METRICS`] (`throughput_mbps`).
    pub metric: String,
    /// The flow it is measured on (ignored for a per-run metric).
    pub flow: usize,
}

/// Where a kept run's folder goes and what its manifest names as the command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeepRun {
    /// The run's folder (`<out>/runs/<run id>`).
    pub dir: PathBuf,
    /// The command that started the sweep, for manifest.json.
    pub command_line: Vec<String>,
}

impl RunJob {
    /// The job as one line of JSON; refused only for a folder whose name is not
    /// UTF-8, which JSON cannot carry (and which a lossy copy would misname).
    pub fn to_json(&self) -> Result<String, SweepError> {
        serde_json::to_string(self).map_err(|e| {
            SweepError::Job(format!(
                "run job {} cannot be written as JSON ({e}): give the sweep's and the \
                 scenario's folders names in UTF-8",
                self.run_id
            ))
        })
    }

    /// Reads a job made by [`RunJob::to_json`], refusing one of another
    /// [`JOB_FORMAT`] or with a metric this build does not know.
    pub fn from_json(text: &str) -> Result<Self, SweepError> {
        let job: Self = serde_json::from_str(text)
            .map_err(|e| SweepError::Job(format!("not a run job of a sweep: {e}")))?;
        if job.format != JOB_FORMAT {
            return Err(SweepError::Job(format!(
                "run job {} has format {}, but this build runs format {JOB_FORMAT}: install \
                 the same scream build on every machine of the sweep",
                job.run_id, job.format
            )));
        }
        job.resolved_metrics()?;
        Ok(job)
    }

    /// The metric of each [`RunJob::metrics`] entry, with its flow.
    pub(super) fn resolved_metrics(&self) -> Result<Vec<(&'static Metric, usize)>, SweepError> {
        self.metrics
            .iter()
            .map(|m| {
                METRICS
                    .iter()
                    .find(|known| known.name == m.metric)
                    .map(|known| (known, m.flow))
                    .ok_or_else(|| {
                        SweepError::Job(format!(
                            "run job {}: unknown metric \"{}\" (this build records: {})",
                            self.run_id,
                            m.metric,
                            METRICS.map(|k| k.name).join(", ")
                        ))
                    })
            })
            .collect()
    }

    /// Makes the job's folders absolute, against this process's current folder, so
    /// that a process started elsewhere (a worker on a cluster) finds the same files.
    /// The local sweep leaves them as the plan wrote them: relative paths then appear
    /// in the kept runs' manifests as `scream sweep` always wrote them.
    ///
    /// A scenario file in the current folder has no folder of its own (`None`): it
    /// gets the current folder. A built-in scenario keeps `None`; it names files by
    /// `data:` references, which every machine resolves in its own data folder.
    pub fn anchor_paths(&mut self) -> std::io::Result<()> {
        let builtin = self.scenario.origin.starts_with("builtin:");
        match self.scenario.base_dir.as_mut() {
            Some(dir) => *dir = std::path::absolute(&*dir)?,
            None if !builtin => self.scenario.base_dir = Some(std::env::current_dir()?),
            None => {}
        }
        if let Some(keep) = self.keep.as_mut() {
            keep.dir = std::path::absolute(&keep.dir)?;
        }
        Ok(())
    }
}

impl Plan {
    /// The job of `run`, a run of this plan. `keep` is where kept runs go
    /// (`<out>/runs`) and the command for their manifests; `None` keeps nothing.
    pub fn job(&self, run: &PlannedRun, keep: Option<(&std::path::Path, &[String])>) -> RunJob {
        let base = &self.bases[run.base];
        let point = &self.points[run.point];
        let run_id = self.run_id(run);
        let overrides = base
            .set
            .iter()
            .map(|o| o.raw().to_owned())
            .chain(point.override_texts(&self.params))
            .collect();
        RunJob {
            format: JOB_FORMAT,
            base: base.name.clone(),
            point: point.index,
            axis: point.axis.map(|a| self.params[a].clone()),
            transition: point.transition,
            params: point.values(),
            scenario: JobScenario {
                text: base.text.clone(),
                origin: base.origin.clone(),
                base_dir: base.base_dir.clone(),
            },
            overrides,
            seed: run.seed,
            metrics: self
                .metric_columns
                .iter()
                .map(|c| JobMetric {
                    metric: c.metric.name.to_owned(),
                    flow: c.flow,
                })
                .collect(),
            keep: keep.map(|(runs_dir, command_line)| KeepRun {
                dir: runs_dir.join(&run_id),
                command_line: command_line.to_vec(),
            }),
            run_id,
        }
    }
}
