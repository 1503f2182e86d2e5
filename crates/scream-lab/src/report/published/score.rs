//! Scoring a sweep against Tables 6-11: where our minimum and maximum of each metric fall
//! over a parameter's ten values, against where the paper puts them.

use super::CompareError;
use super::mapping::Mapping;
use super::sensors2023::{
    End, L4s, MinMaxRow, PublishedAt, PublishedMetric, Sensors2023, SummaryFigure, TRANSITIONS,
};
use crate::report::{PointMean, Results};
use crate::sweep::metric_of_column;

/// Where our extreme falls: every tied index (ascending) and the value.
#[derive(Debug, Clone, PartialEq)]
pub struct Ours {
    /// The indexes (of the ten values) where the extreme is reached; all of them on a tie.
    pub indexes: Vec<usize>,
    /// The extreme, in the unit of our column.
    pub value: f64,
}

/// Probabilities, or the fractions of rows, of the three kinds of match.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Levels {
    /// Same index.
    pub exact: f64,
    /// At most one step apart.
    pub within_one: f64,
    /// Same half of the ten (index < 5, or >= 5).
    pub same_end: f64,
}

/// How one scoreable position matched, and what a uniformly random index would score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Marks {
    /// Some tied index of ours equals a published one.
    pub exact: bool,
    /// Some tied index of ours is within one step of a published one.
    pub within_one: bool,
    /// Some tied index of ours is in the same half as a published one.
    pub same_end: bool,
    /// The chance of each for one index drawn uniformly from the ten.
    pub chance: Levels,
}

/// One published row beside ours.
#[derive(Debug, Clone, PartialEq)]
pub struct Position {
    /// The published row.
    pub published: MinMaxRow,
    /// Ours (`None`: no point of that axis measured the metric).
    pub ours: Option<Ours>,
    /// The unit of our value.
    pub ours_unit: &'static str,
    /// The marks (`None`: not scoreable, `all (no effect)`, or not measured by us).
    pub marks: Option<Marks>,
}

/// Counts for one column (metric × L4S mode) or for all of them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Score {
    /// The metric (`None`: every column).
    pub metric: Option<PublishedMetric>,
    /// The L4S mode (`None`: every column).
    pub l4s: Option<L4s>,
    /// Positions scored.
    pub scoreable: usize,
    /// `all (no effect)` positions, set apart.
    pub not_scoreable: usize,
    /// Of those, where our metric is also the same at all ten values.
    pub no_effect_agreed: usize,
    /// Scoreable positions without a value of ours (failed runs), set apart.
    pub unmeasured: usize,
    /// Exact matches.
    pub exact: usize,
    /// Matches within one step.
    pub within_one: usize,
    /// Matches at the same end.
    pub same_end: usize,
    /// Expected fraction of each for uniformly random indexes (mean over the positions).
    pub chance: Levels,
}

impl Score {
    fn add(&mut self, p: &Position) {
        match (&p.published.at, &p.marks) {
            (PublishedAt::NoEffect, _) => {
                self.not_scoreable += 1;
                if p.ours
                    .as_ref()
                    .is_some_and(|o| o.indexes.len() == TRANSITIONS)
                {
                    self.no_effect_agreed += 1;
                }
            }
            (_, None) => self.unmeasured += 1,
            (_, Some(m)) => {
                self.scoreable += 1;
                self.exact += usize::from(m.exact);
                self.within_one += usize::from(m.within_one);
                self.same_end += usize::from(m.same_end);
                // Summed here, divided by `scoreable` in `finish`.
                self.chance.exact += m.chance.exact;
                self.chance.within_one += m.chance.within_one;
                self.chance.same_end += m.chance.same_end;
            }
        }
    }

    fn finish(mut self) -> Self {
        let n = self.scoreable.max(1) as f64;
        self.chance.exact /= n;
        self.chance.within_one /= n;
        self.chance.same_end /= n;
        self
    }

    /// `count` as a fraction of the scoreable positions (0 when there are none).
    pub fn fraction(&self, count: usize) -> f64 {
        if self.scoreable == 0 {
            0.0
        } else {
            count as f64 / self.scoreable as f64
        }
    }
}

/// A published single figure beside ours.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    /// The published figure as transcribed.
    pub published: SummaryFigure,
    /// It in the unit of our column.
    pub published_value: f64,
    /// Our column's unit.
    pub unit: &'static str,
    /// Ours: the mean over `points`.
    pub ours: Option<f64>,
    /// The design points averaged (one-at-a-time: those at the default).
    pub points: usize,
}

/// The kind of sweep compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Design {
    /// One parameter at a time: positions are scored; the defaults are set beside ours.
    OneAtATime,
    /// Every point of a design without axes (factorial): its means beside the hybrid
    /// study's.
    Factorial,
}

/// A sweep compared with the paper.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// What was compared.
    pub design: Design,
    /// Tables 6-11, row by row (one-at-a-time only).
    pub positions: Vec<Position>,
    /// Per column, in the order of the tables.
    pub columns: Vec<Score>,
    /// Over all columns.
    pub overall: Score,
    /// Single figures.
    pub figures: Vec<Figure>,
}

/// The points of one base on one parameter's axis, each with its index among the
/// paper's ten values: (L4S mode, abbreviation, points).
type AxisPoints<'a> = (L4s, String, Vec<(usize, &'a PointMean)>);

/// Tolerance for a tie between two of our means (they come from identical runs or not).
fn tied(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

/// Scores `results` against `paper` through `mapping`.
pub fn compare(
    results: &Results,
    paper: &Sensors2023,
    mapping: &Mapping,
) -> Result<Comparison, CompareError> {
    compare_setup(results, paper, mapping, "")
}

/// Scores every setup of `results` whose bases are named `SETUP.l4s-off` and
/// `SETUP.l4s-on` (the mapping's base names after a setup prefix), in the order the
/// results first name them: a search over the unknowns of a study's apparatus runs one
/// sweep whose bases are its setups. Results with the plain base names are one setup,
/// named "".
pub fn compare_setups(
    results: &Results,
    paper: &Sensors2023,
    mapping: &Mapping,
) -> Result<Vec<(String, Comparison)>, CompareError> {
    let bases = results.bases();
    let mut setups: Vec<String> = Vec::new();
    for b in &bases {
        for &(_, name) in mapping.bases {
            if let Some(prefix) = b.strip_suffix(name).and_then(|p| p.strip_suffix('.')) {
                let complete = mapping
                    .bases
                    .iter()
                    .all(|&(_, n)| bases.iter().any(|x| *x == format!("{prefix}.{n}")));
                if complete && !setups.iter().any(|s| s == prefix) {
                    setups.push(prefix.to_owned());
                }
            }
        }
    }
    if setups.is_empty() {
        return Ok(vec![(String::new(), compare(results, paper, mapping)?)]);
    }
    setups
        .into_iter()
        .map(|s| compare_setup(results, paper, mapping, &s).map(|c| (s, c)))
        .collect()
}

/// The base of `l4s` in the setup `prefix` ("" = the mapping's own names).
fn base_name(mapping: &Mapping, l4s: L4s, prefix: &str) -> Option<String> {
    let name = mapping.base(l4s)?;
    Some(if prefix.is_empty() {
        name.to_owned()
    } else {
        format!("{prefix}.{name}")
    })
}

fn compare_setup(
    results: &Results,
    paper: &Sensors2023,
    mapping: &Mapping,
    prefix: &str,
) -> Result<Comparison, CompareError> {
    let bases = results.bases();
    for &(l4s, _) in mapping.bases {
        let base = base_name(mapping, l4s, prefix).unwrap_or_default();
        if !bases.contains(&base) {
            return Err(CompareError::MissingBase { base, found: bases });
        }
    }
    let points = results.point_means();
    let design = if points.iter().any(|p| p.axis.is_some()) {
        Design::OneAtATime
    } else {
        Design::Factorial
    };
    let mut axes: Vec<AxisPoints<'_>> = Vec::new();
    if design == Design::OneAtATime {
        for &(l4s, _) in mapping.bases {
            let base = base_name(mapping, l4s, prefix).unwrap_or_default();
            for p in &paper.parameters {
                axes.push((
                    l4s,
                    p.abbreviation.clone(),
                    axis_points(results, &points, paper, mapping, &base, &p.abbreviation)?,
                ));
            }
        }
    }
    let on_axis = |l4s: L4s, abbreviation: &str| {
        axes.iter()
            .find(|(m, a, _)| *m == l4s && a == abbreviation)
            .map(|(_, _, v)| v.as_slice())
            .unwrap_or(&[])
    };
    let mut positions = Vec::new();
    if design == Design::OneAtATime {
        for row in &paper.rows {
            let (column, unit) = metric_column(results, mapping, row.metric)?;
            let values: Vec<(usize, f64)> = on_axis(row.l4s, &row.abbreviation)
                .iter()
                .filter_map(|(i, p)| p.metrics[column].map(|v| (*i, v)))
                .collect();
            let ours = extreme(&values, row.end);
            let marks = match (&row.at, &ours) {
                (PublishedAt::At { indexes, .. }, Some(o)) => Some(marks(indexes, &o.indexes)),
                _ => None,
            };
            positions.push(Position {
                published: row.clone(),
                ours,
                ours_unit: unit,
                marks,
            });
        }
    }
    let mut columns: Vec<Score> = Vec::new();
    let mut overall = Score::default();
    for p in &positions {
        let (metric, l4s) = (p.published.metric, p.published.l4s);
        let i = match columns
            .iter()
            .position(|s| s.metric == Some(metric) && s.l4s == Some(l4s))
        {
            Some(i) => i,
            None => {
                columns.push(Score {
                    metric: Some(metric),
                    l4s: Some(l4s),
                    ..Score::default()
                });
                columns.len() - 1
            }
        };
        columns[i].add(p);
        overall.add(p);
    }
    let figures = figures(results, &points, paper, mapping, design, &axes, prefix)?;
    Ok(Comparison {
        design,
        positions,
        columns: columns.into_iter().map(Score::finish).collect(),
        overall: overall.finish(),
        figures,
    })
}

/// The points of `base` on the axis of `abbreviation`, each with its index among the
/// paper's ten values.
fn axis_points<'a>(
    results: &Results,
    points: &'a [PointMean],
    paper: &Sensors2023,
    mapping: &Mapping,
    base: &str,
    abbreviation: &str,
) -> Result<Vec<(usize, &'a PointMean)>, CompareError> {
    let parameter = paper
        .parameter(abbreviation)
        .ok_or_else(|| CompareError::Unmapped(abbreviation.to_owned()))?;
    let map = mapping
        .axis(abbreviation)
        .ok_or_else(|| CompareError::Unmapped(abbreviation.to_owned()))?;
    let of_base = || points.iter().filter(move |p| p.base == base);
    let Some(key) = map
        .keys
        .iter()
        .find(|k| of_base().any(|p| p.axis.as_deref() == Some(k.key)))
    else {
        return Err(CompareError::MissingParameter {
            abbreviation: abbreviation.to_owned(),
            keys: map.keys.iter().map(|k| k.key.to_owned()).collect(),
            base: base.to_owned(),
        });
    };
    let column = results.params.iter().position(|c| c == key.key);
    let scaled: Vec<f64> = parameter.values.iter().map(|v| v * key.scale).collect();
    // A value matches a transition when it is nearer to it than a quarter of the
    // smallest step between transitions: exact for plain keys, and loose enough for an
    // axis that rounds the paper's values to its own units (RAI in clock ticks).
    let step = scaled
        .windows(2)
        .map(|w| (w[1] - w[0]).abs())
        .fold(f64::INFINITY, f64::min);
    let mut out = Vec::new();
    for p in of_base().filter(|p| p.axis.as_deref() == Some(key.key)) {
        let cell = column.map_or("", |c| p.params[c].as_str());
        let bad = |why: &str| CompareError::AxisValue {
            key: key.key.to_owned(),
            base: base.to_owned(),
            value: cell.to_owned(),
            why: why.to_owned(),
            expected: scaled.clone(),
        };
        let v: f64 = cell.trim().parse().map_err(|_| bad("not a number"))?;
        let nearest = (0..scaled.len())
            .min_by(|&a, &b| (scaled[a] - v).abs().total_cmp(&(scaled[b] - v).abs()))
            .ok_or_else(|| bad("the paper gives no values"))?;
        if (scaled[nearest] - v).abs() > step / 4.0 {
            return Err(bad("none of the paper's ten values"));
        }
        out.push((nearest, p));
    }
    Ok(out)
}

/// The results column of a published metric and its unit.
fn metric_column(
    results: &Results,
    mapping: &Mapping,
    metric: PublishedMetric,
) -> Result<(usize, &'static str), CompareError> {
    let map = mapping
        .metric(metric)
        .ok_or_else(|| CompareError::Unmapped(metric.to_string()))?;
    results
        .metrics
        .iter()
        .position(|c| c == map.column)
        .or_else(|| {
            results
                .metrics
                .iter()
                .position(|c| metric_of_column(c).is_some_and(|m| m.name == map.column))
        })
        .map(|i| (i, map.unit))
        .ok_or_else(|| CompareError::MissingMetric {
            column: map.column.to_owned(),
            metric: metric.to_string(),
        })
}

/// The minimum or maximum of `(index, value)` with every tied index.
fn extreme(values: &[(usize, f64)], end: End) -> Option<Ours> {
    let pick = |a: f64, b: f64| match end {
        End::Min => a.min(b),
        End::Max => a.max(b),
    };
    let value = values.iter().map(|&(_, v)| v).reduce(pick)?;
    let mut indexes: Vec<usize> = values
        .iter()
        .filter(|&&(_, v)| tied(v, value))
        .map(|&(i, _)| i)
        .collect();
    indexes.sort_unstable();
    indexes.dedup();
    Some(Ours { indexes, value })
}

/// The lower half of the ten is indexes 0..5.
fn upper(i: usize) -> bool {
    i >= TRANSITIONS / 2
}

/// The three marks of ours against the published set, and their chance levels.
pub(super) fn marks(published: &[usize], ours: &[usize]) -> Marks {
    let any =
        |f: &dyn Fn(usize, usize) -> bool| ours.iter().any(|&o| published.iter().any(|&p| f(o, p)));
    let exact = |o: usize, p: usize| o == p;
    let within = |o: usize, p: usize| o.abs_diff(p) <= 1;
    let end = |o: usize, p: usize| upper(o) == upper(p);
    // A single index drawn uniformly from the ten, against the published set.
    let share = |f: &dyn Fn(usize, usize) -> bool| {
        (0..TRANSITIONS)
            .filter(|&i| published.iter().any(|&p| f(i, p)))
            .count() as f64
            / TRANSITIONS as f64
    };
    Marks {
        exact: any(&exact),
        within_one: any(&within),
        same_end: any(&end),
        chance: Levels {
            exact: share(&exact),
            within_one: share(&within),
            same_end: share(&end),
        },
    }
}

/// `value` in `from` expressed in `to` (`s`/`ms`/`us`, or `Mbit/s`).
fn convert(value: f64, from: &str, to: &str) -> Option<f64> {
    let time = |u: &str| match u {
        "s" => Some(1.0),
        "ms" => Some(1e-3),
        "us" => Some(1e-6),
        _ => None,
    };
    if from == to {
        return Some(value);
    }
    Some(value * time(from)? / time(to)?)
}

/// The paper's single figures of this design beside ours.
fn figures(
    results: &Results,
    points: &[PointMean],
    paper: &Sensors2023,
    mapping: &Mapping,
    design: Design,
    axes: &[AxisPoints<'_>],
    prefix: &str,
) -> Result<Vec<Figure>, CompareError> {
    let study = match design {
        Design::OneAtATime => "standalone",
        Design::Factorial => "hybrid",
    };
    let mut out = Vec::new();
    for f in paper.figures.iter().filter(|f| f.study == study) {
        let Some(base) = base_name(mapping, f.l4s, prefix) else {
            continue;
        };
        let (column, unit) = metric_column(results, mapping, f.metric)?;
        let published_value = convert(f.value, &f.unit, unit).ok_or_else(|| {
            CompareError::Unmapped(format!("unit {} of {} {}", f.unit, f.figure, f.metric))
        })?;
        let chosen: Vec<&PointMean> = match design {
            // Every axis passes through the default: those points are the default run.
            Design::OneAtATime => axes
                .iter()
                .filter(|(m, _, _)| *m == f.l4s)
                .flat_map(|(_, abbreviation, on_axis)| {
                    let default = paper
                        .parameter(abbreviation)
                        .and_then(|p| p.index_of(p.default));
                    on_axis
                        .iter()
                        .filter(move |(i, _)| Some(*i) == default)
                        .map(|(_, p)| *p)
                })
                .collect(),
            Design::Factorial => points.iter().filter(|p| p.base == base).collect(),
        };
        let values: Vec<f64> = chosen.iter().filter_map(|p| p.metrics[column]).collect();
        out.push(Figure {
            published: f.clone(),
            published_value,
            unit,
            ours: (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64),
            points: values.len(),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chance_levels_follow_the_published_set() {
        let m = marks(&[0], &[9]);
        assert_eq!((m.exact, m.within_one, m.same_end), (false, false, false));
        assert!((m.chance.exact - 0.1).abs() < 1e-12);
        assert!((m.chance.within_one - 0.2).abs() < 1e-12);
        assert!((m.chance.same_end - 0.5).abs() < 1e-12);
        let m = marks(&[4, 5], &[6]);
        assert_eq!((m.exact, m.within_one, m.same_end), (false, true, true));
        assert!((m.chance.exact - 0.2).abs() < 1e-12);
        assert!((m.chance.within_one - 0.4).abs() < 1e-12);
        assert!((m.chance.same_end - 1.0).abs() < 1e-12);
    }

    #[test]
    fn a_step_across_the_middle_is_within_one_but_not_the_same_end() {
        let m = marks(&[4], &[5]);
        assert_eq!((m.exact, m.within_one, m.same_end), (false, true, false));
    }

    #[test]
    fn an_extreme_keeps_every_tied_index() {
        let o = extreme(&[(0, 2.0), (1, 1.0), (2, 2.0)], End::Max).unwrap();
        assert_eq!(o.indexes, [0, 2]);
        assert_eq!(o.value, 2.0);
        assert_eq!(extreme(&[], End::Min), None);
    }

    #[test]
    fn microseconds_convert_to_milliseconds() {
        assert_eq!(convert(435.0, "us", "ms"), Some(0.435));
        assert_eq!(convert(1.0, "Mbit/s", "ms"), None);
    }
}
