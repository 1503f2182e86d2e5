//! From a spec file to the list of runs: every check that can be made before anything
//! runs, with the spec's line in each message.

use std::path::{Path, PathBuf};

use super::SweepError;
use super::columns::{ID_COLUMNS, Metric, RUN_COLUMNS, TIMING_COLUMNS};
use super::design::{self, PointSpec};
use super::spec::{RawDesign, RawSpec, Seeds};
use scream_sim::Scenario;
use scream_sim::scenario::load::{Document, Override, ScenarioError, load_checked_str};

mod axes;
mod bases;
mod points;

use axes::{axis_keys, grid_axes, range_axes};
use bases::load_bases;
use points::{list_points, metric_columns, preflight, to_points};

/// Most runs one sweep may hold: far beyond what a machine runs in a day, small
/// enough that the plan itself (a few hundred bytes per run) fits in memory.
pub const MAX_RUNS: usize = 1_000_000;

/// The kind of design.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DesignKind {
    /// Each axis over its values, the others at their base value.
    OneAtATime,
    /// The full cross product of the axes' values.
    Factorial,
    /// Explicit points.
    List,
    /// `samples` points, one per stratum of every axis' range.
    LatinHypercube,
    /// `samples` points drawn uniformly over the ranges.
    Random,
}

impl DesignKind {
    /// Every kind, in the order docs/sweeps.md describes them.
    pub const ALL: [Self; 5] = [
        Self::OneAtATime,
        Self::Factorial,
        Self::List,
        Self::LatinHypercube,
        Self::Random,
    ];

    /// The name a spec gives it (`kind = "..."`).
    pub fn name(self) -> &'static str {
        match self {
            Self::OneAtATime => "one-at-a-time",
            Self::Factorial => "factorial",
            Self::List => "list",
            Self::LatinHypercube => "latin-hypercube",
            Self::Random => "random",
        }
    }

    /// Whether the design draws `samples` points over ranges (rather than taking the
    /// axes' values or the listed points).
    pub fn is_sampled(self) -> bool {
        matches!(self, Self::LatinHypercube | Self::Random)
    }

    /// The keys `[design]` takes for this kind.
    pub fn keys(self) -> &'static [&'static str] {
        if self.is_sampled() {
            &["kind", "samples", "seed"]
        } else {
            &["kind"]
        }
    }
}

/// The seed of a sampled design that gives none.
const DEFAULT_SAMPLE_SEED: u64 = 1;

/// A base scenario, loaded once: every run of it starts from this text.
#[derive(Debug, Clone)]
pub struct Base {
    /// Name in results.csv.
    pub name: String,
    /// The built-in name or file path as the spec gives it.
    pub scenario: String,
    pub(super) origin: String,
    pub(super) text: String,
    pub(super) base_dir: Option<PathBuf>,
    pub(super) set: Vec<Override>,
    /// Number of flows of the scenario.
    pub(super) flows: usize,
    /// The seeds every point of this base runs with.
    pub seeds: Vec<u64>,
}

impl Base {
    /// The scenario of this base with `extra` overrides applied after its own, checked
    /// as a whole: a value out of range names the override that set it.
    pub(super) fn load(&self, extra: &[Override]) -> Result<Scenario, ScenarioError> {
        let all: Vec<Override> = self.set.iter().chain(extra).cloned().collect();
        load_checked_str(&self.text, &self.origin, self.base_dir.as_deref(), &all)
    }
}

/// A design point: the same overrides on every base.
#[derive(Debug, Clone)]
pub struct Point {
    /// Index in the design (the `point` column).
    pub index: usize,
    /// One-at-a-time: the index of the axis varied here (in [`Plan::params`]).
    pub axis: Option<usize>,
    /// One-at-a-time: the index of the value on that axis.
    pub transition: Option<usize>,
    /// Per parameter of [`Plan::params`]: its value as `--set` takes it (`None`: the
    /// base scenario's own). Kept as text, not as parsed overrides, so that a plan of a
    /// million points stays small; a run parses its few overrides when it starts.
    pub(super) texts: Vec<Option<Box<str>>>,
}

impl Point {
    /// Per parameter of [`Plan::params`]: its cell in results.csv (`None`: the base
    /// scenario's own value).
    pub fn values(&self) -> Vec<Option<String>> {
        self.texts
            .iter()
            .map(|t| t.as_deref().map(cell_of))
            .collect()
    }

    /// The overrides this point applies to a base, as `--set` takes them (a run parses
    /// them when it starts: one that does not parse is that run's error).
    pub(super) fn override_texts<'a>(
        &'a self,
        params: &'a [String],
    ) -> impl Iterator<Item = String> + 'a {
        params
            .iter()
            .zip(&self.texts)
            .filter_map(|(key, t)| t.as_deref().map(|t| format!("{key}={t}")))
    }
}

/// A value as a results.csv cell: a TOML string without its quotes, anything else
/// (numbers, lists, bare words) as written.
pub(super) fn cell_of(text: &str) -> String {
    match text.parse::<toml_edit::Value>() {
        Ok(v) => v.as_str().map_or_else(|| text.to_owned(), str::to_owned),
        Err(_) => text.to_owned(),
    }
}

/// One run: a point of a base with a seed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedRun {
    /// Index into [`Plan::bases`].
    pub base: usize,
    /// Index into [`Plan::points`].
    pub point: usize,
    /// Master seed.
    pub seed: u64,
}

/// A metric column: which metric of which flow.
#[derive(Debug, Clone)]
pub(super) struct MetricColumn {
    pub(super) name: String,
    pub(super) metric: &'static Metric,
    pub(super) flow: usize,
}

/// A checked spec, expanded to its runs.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The spec's `name` (default: its file stem).
    pub name: String,
    /// The spec's `description`.
    pub description: String,
    /// The design.
    pub design: DesignKind,
    pub(super) bases: Vec<Base>,
    pub(super) params: Vec<String>,
    pub(super) points: Vec<Point>,
    pub(super) runs: Vec<PlannedRun>,
    pub(super) metric_columns: Vec<MetricColumn>,
}

impl Plan {
    /// Reads and checks the spec file at `path`. Relative scenario paths in it resolve
    /// against its folder.
    pub fn from_file(path: &Path) -> Result<Self, SweepError> {
        let text = std::fs::read_to_string(path).map_err(|source| SweepError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let origin = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let dir = path.parent().filter(|p| !p.as_os_str().is_empty());
        Self::from_str(&text, &origin, dir)
    }

    /// Checks spec `text`; `origin` names it in errors and gives the default name,
    /// `dir` is where relative scenario paths resolve (`None`: the current directory).
    pub fn from_str(text: &str, origin: &str, dir: Option<&Path>) -> Result<Self, SweepError> {
        let doc = Document::parse(text, origin)?;
        let raw: RawSpec = doc.deserialize()?;
        let err = |path: &str, message: String| SweepError::Spec {
            location: doc.locate(
                &path
                    .split('.')
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect::<Vec<_>>(),
            ),
            message,
        };
        let name = raw.name.clone().unwrap_or_else(|| {
            Path::new(origin)
                .file_stem()
                .map_or_else(|| origin.to_owned(), |s| s.to_string_lossy().into_owned())
        });
        check_name(&name).map_err(|m| err("name", format!("name: {m}")))?;
        // Before the bases: a count of seeds becomes a list there.
        check_seeds(&raw, &err)?;
        let bases = load_bases(&raw, dir, &err)?;
        let (design, params, point_specs) = expand(&raw, &err)?;
        let points = to_points(point_specs);
        let metric_columns = metric_columns(&raw, &bases, &err)?;
        preflight(&raw, &bases, &params, &points, &err)?;
        let runs = bases
            .iter()
            .enumerate()
            .flat_map(|(b, base)| {
                points.iter().flat_map(move |p| {
                    base.seeds.iter().map(move |&seed| PlannedRun {
                        base: b,
                        point: p.index,
                        seed,
                    })
                })
            })
            .collect();
        Ok(Self {
            name,
            description: raw.description,
            design,
            bases,
            params,
            points,
            runs,
            metric_columns,
        })
    }

    /// The base scenarios.
    pub fn bases(&self) -> &[Base] {
        &self.bases
    }

    /// The varied parameters (dotted keys), in column order.
    pub fn params(&self) -> &[String] {
        &self.params
    }

    /// The design points.
    pub fn points(&self) -> &[Point] {
        &self.points
    }

    /// Every run: bases in order, each base's points in order, each point's seeds.
    pub fn runs(&self) -> &[PlannedRun] {
        &self.runs
    }

    /// The folder a sweep of this plan writes into unless told otherwise:
    /// `out/sweep-<name>`, relative to the current folder.
    pub fn default_out_dir(&self) -> PathBuf {
        Path::new("out").join(format!("sweep-{}", self.name))
    }

    /// The id of `run` in results.csv: `<base>/p<point>/s<seed>`.
    pub fn run_id(&self, run: &PlannedRun) -> String {
        format!("{}/p{}/s{}", self.bases[run.base].name, run.point, run.seed)
    }

    /// The header of results.csv.
    pub fn columns(&self) -> Vec<String> {
        let fixed = |c: &[super::Column]| c.iter().map(|c| c.name.to_owned()).collect::<Vec<_>>();
        let mut out = fixed(&ID_COLUMNS);
        out.extend(self.params.iter().cloned());
        out.extend(fixed(&RUN_COLUMNS));
        out.extend(self.metric_columns.iter().map(|m| m.name.clone()));
        out.extend(fixed(&TIMING_COLUMNS));
        out
    }

    /// A hash of everything that decides the results: the columns, each base's name,
    /// scenario text and overrides, and every run's overrides and seed. Comments and
    /// layout of the spec do not count; a changed scenario file does.
    pub fn hash(&self) -> String {
        let mut h = Fnv::new();
        h.write("scream sweep plan 1");
        for c in self.columns() {
            h.write(&c);
        }
        for b in &self.bases {
            h.write(&b.name);
            h.write(&b.origin);
            h.write(&b.text);
            for o in &b.set {
                h.write(o.raw());
            }
        }
        for r in &self.runs {
            h.write(&self.run_id(r));
            for t in self.points[r.point].texts.iter().flatten() {
                h.write(t);
            }
        }
        format!("{:016x}", h.0)
    }
}

/// FNV-1a, 64 bits: stable across Rust releases and platforms (std's hashers are
/// not), and plenty to notice a changed spec.
struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }

    /// Hashes `s` and a separator, so that `("ab", "c")` and `("a", "bc")` differ.
    fn write(&mut self, s: &str) {
        for b in s.bytes().chain([0xff]) {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

/// Makes the error at a dotted path of the spec (`axis.2.values`).
type ErrFn<'a> = dyn Fn(&str, String) -> SweepError + 'a;

/// Base and sweep names become run ids, folder names and figure file names.
fn check_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name != "."
        && name != ".."
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "\"{name}\" must be letters, digits, '-', '_' or '.' (it names files and run ids)"
        ))
    }
}

/// The design kind, the parameter keys and the points before they become overrides.
fn expand(
    raw: &RawSpec,
    err: &ErrFn<'_>,
) -> Result<(DesignKind, Vec<String>, Vec<PointSpec>), SweepError> {
    let kind = raw.design.kind;
    let name = kind.name();
    let samples = design_keys(&raw.design, err)?;
    if kind == DesignKind::List {
        if !raw.axes.is_empty() {
            return Err(err(
                "axis.0",
                "a list design takes its points from [[point]] tables, not [[axis]]".to_owned(),
            ));
        }
        return list_points(raw, err).map(|(params, points)| (kind, params, points));
    }
    if !raw.points.is_empty() {
        return Err(err(
            "point.0",
            format!("[[point]] tables belong to a list design, not {name}"),
        ));
    }
    if raw.axes.is_empty() {
        return Err(err(
            "design",
            format!("a {name} design needs at least one [[axis]]"),
        ));
    }
    let params = axis_keys(raw, err)?;
    let seeds = seed_count(raw);
    let bases = raw.bases.len().max(1);
    let too_many = |points: Option<usize>| {
        let total = points
            .and_then(|p| p.checked_mul(seeds))
            .and_then(|p| p.checked_mul(bases));
        match total {
            Some(t) if t <= MAX_RUNS => Ok(()),
            _ => Err(err(
                "design",
                format!(
                    "the sweep would make {} runs ({} points x {seeds} seeds x {bases} bases), \
                     more than the limit of {MAX_RUNS}; use fewer values, axes or seeds, or \
                     split it into several sweeps",
                    total.map_or_else(|| "over 2^64".to_owned(), |t| t.to_string()),
                    points.map_or_else(|| "over 2^64".to_owned(), |p| p.to_string()),
                ),
            )),
        }
    };
    if let Some((samples, seed)) = samples {
        if samples == 0 {
            return Err(err(
                "design.samples",
                format!("design.samples: a {name} design needs at least 1 sample"),
            ));
        }
        too_many(usize::try_from(samples).ok())?;
        let axes = range_axes(raw, name, err)?;
        let n = usize::try_from(samples).unwrap_or(usize::MAX);
        let latin = kind == DesignKind::LatinHypercube;
        return Ok((kind, params, design::sampled(&axes, n, seed, latin)));
    }
    let axes = grid_axes(raw, kind, err)?;
    let factorial = kind == DesignKind::Factorial;
    too_many(design::grid_len(&axes, factorial))?;
    let points = if factorial {
        design::factorial(&axes)
    } else {
        design::one_at_a_time(&axes)
    };
    Ok((kind, params, points))
}

/// Checks that `[design]` holds only keys its kind takes; returns `(samples, seed)`
/// of a sampled design.
fn design_keys(design: &RawDesign, err: &ErrFn<'_>) -> Result<Option<(u64, u64)>, SweepError> {
    let kind = design.kind;
    let written = [
        ("samples", design.samples.is_some()),
        ("seed", design.seed.is_some()),
    ];
    if let Some((key, _)) = written
        .iter()
        .find(|(key, present)| *present && !kind.keys().contains(key))
    {
        let sampled: Vec<&str> = DesignKind::ALL
            .iter()
            .filter(|k| k.is_sampled())
            .map(|k| k.name())
            .collect();
        return Err(err(
            &format!("design.{key}"),
            format!(
                "unknown key \"{key}\" in [design]: a {} design takes only {} ({key} belongs \
                 to the {} designs)",
                kind.name(),
                kind.keys().join(", "),
                sampled.join(" and ")
            ),
        ));
    }
    if !kind.is_sampled() {
        return Ok(None);
    }
    let samples = design.samples.ok_or_else(|| {
        err(
            "design",
            format!(
                "missing key \"samples\" in [design]: a {} design needs the number of points \
                 (it takes {})",
                kind.name(),
                kind.keys().join(", ")
            ),
        )
    })?;
    Ok(Some((samples, design.seed.unwrap_or(DEFAULT_SAMPLE_SEED))))
}

/// Runs per point and base (before the bases are loaded; without `seeds`, one).
fn seed_count(raw: &RawSpec) -> usize {
    raw.seeds.as_ref().map_or(1, |s| match s {
        Seeds::Count(n) => usize::try_from(*n).unwrap_or(usize::MAX),
        Seeds::List(l) => l.len(),
    })
}

fn check_seeds(raw: &RawSpec, err: &ErrFn<'_>) -> Result<(), SweepError> {
    match &raw.seeds {
        Some(Seeds::Count(0)) => Err(err(
            "seeds",
            "seeds: 0 seeds runs nothing; give a count of 1 or more, or a list".to_owned(),
        )),
        Some(Seeds::Count(n)) if usize::try_from(*n).map_or(true, |n| n > MAX_RUNS) => Err(err(
            "seeds",
            format!("seeds: {n} is more than the limit of {MAX_RUNS} runs"),
        )),
        Some(Seeds::List(l)) if l.is_empty() => Err(err(
            "seeds",
            "seeds: the list is empty; give at least one seed".to_owned(),
        )),
        Some(Seeds::List(l)) => {
            let mut seen = std::collections::BTreeSet::new();
            match l.iter().find(|s| !seen.insert(**s)) {
                Some(s) => Err(err(
                    "seeds",
                    format!("seeds: {s} is listed twice (each seed names its runs)"),
                )),
                None => Ok(()),
            }
        }
        _ => Ok(()),
    }
}
