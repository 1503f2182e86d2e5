//! The published Sensors 2023 figures as typed tables, read from the repository's
//! `data/published/sensors2023/` (data/published/README.md says how they were read).

use std::fmt;

use super::CompareError;

/// Table 2: the eleven parameters with their defaults.
pub(super) const TABLE2: &str = "published/sensors2023/table2_parameters.csv";
/// Table 5: the ten values of each parameter in the standalone study.
pub(super) const TABLE5: &str = "published/sensors2023/table5_transition_values.csv";
/// Tables 6-11: per parameter, metric and L4S mode, the minimum and maximum and where.
pub(super) const TABLES6_11: &str = "published/sensors2023/tables6-11_min_max.csv";
/// Single figures: the standalone defaults and the hybrid averages.
pub(super) const SUMMARY: &str = "published/sensors2023/summary_figures.csv";

/// Values per parameter in the standalone study (Table 5).
pub const TRANSITIONS: usize = 10;

/// L4S off or on (the paper's two series).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum L4s {
    /// No ECN.
    Off,
    /// L4S marking at the bottleneck.
    On,
}

/// The metrics the paper reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PublishedMetric {
    /// The sender's queue delay estimate.
    QueueDelay,
    /// The sender's smoothed RTT.
    Srtt,
    /// Throughput.
    Throughput,
}

/// The minimum or the maximum of a metric over a parameter's ten values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum End {
    /// Smallest.
    Min,
    /// Largest.
    Max,
}

impl fmt::Display for L4s {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Off => "off",
            Self::On => "on",
        })
    }
}

impl fmt::Display for PublishedMetric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::QueueDelay => "queue_delay",
            Self::Srtt => "srtt",
            Self::Throughput => "throughput",
        })
    }
}

impl fmt::Display for End {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Min => "min",
            Self::Max => "max",
        })
    }
}

/// A parameter of the standalone study.
#[derive(Debug, Clone, PartialEq)]
pub struct Parameter {
    /// Abbreviation (Table 2).
    pub abbreviation: String,
    /// Unit as the paper writes it.
    pub unit: String,
    /// Default (Table 2), in the paper's unit.
    pub default: f64,
    /// The ten values (Table 5), in the paper's unit and order.
    pub values: Vec<f64>,
}

impl Parameter {
    /// The index of `v` among the ten values, if it is one of them.
    pub fn index_of(&self, v: f64) -> Option<usize> {
        self.values.iter().position(|&x| close(x, v))
    }

    /// The index of the value nearest to `v`.
    pub fn nearest(&self, v: f64) -> usize {
        let mut best = 0;
        for (i, x) in self.values.iter().enumerate() {
            if (x - v).abs() < (self.values[best] - v).abs() {
                best = i;
            }
        }
        best
    }
}

/// Where the paper puts a minimum or maximum.
#[derive(Debug, Clone, PartialEq)]
pub enum PublishedAt {
    /// At these indexes of the ten values (any of them counts).
    At {
        /// The indexes, ascending.
        indexes: Vec<usize>,
        /// How the printed cell was read, when it needed reading (`0.005` → `0.01`).
        note: Option<String>,
    },
    /// `all (no effect)`: the parameter did not change the metric; not scoreable.
    NoEffect,
}

/// A row of Tables 6-11.
#[derive(Debug, Clone, PartialEq)]
pub struct MinMaxRow {
    /// The table (6..=11).
    pub table: u32,
    /// Metric.
    pub metric: PublishedMetric,
    /// L4S mode.
    pub l4s: L4s,
    /// The unit of `value` (`ms`, `us`, `Mbit/s`).
    pub unit: String,
    /// Parameter abbreviation.
    pub abbreviation: String,
    /// Minimum or maximum.
    pub end: End,
    /// The extreme value (none for `all (no effect)`).
    pub value: Option<f64>,
    /// The `at` cell as printed.
    pub printed_at: String,
    /// The `at` cell read as positions.
    pub at: PublishedAt,
}

/// A single figure of `summary_figures.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct SummaryFigure {
    /// `standalone` or `hybrid`.
    pub study: String,
    /// `default` or `mean`.
    pub figure: String,
    /// L4S mode.
    pub l4s: L4s,
    /// Metric.
    pub metric: PublishedMetric,
    /// Unit of `value`.
    pub unit: String,
    /// The figure.
    pub value: f64,
    /// Where in the paper it is read.
    pub source: String,
}

/// Everything the scorer needs of the paper.
#[derive(Debug, Clone, PartialEq)]
pub struct Sensors2023 {
    /// Tables 2 and 5, in Table 2's order.
    pub parameters: Vec<Parameter>,
    /// Tables 6-11, in file order.
    pub rows: Vec<MinMaxRow>,
    /// The single figures.
    pub figures: Vec<SummaryFigure>,
}

/// Two transcribed numbers are the same value (0.1 and 0.10, 1e6 and 1000000).
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1e-12)
}

impl Sensors2023 {
    /// Reads the four files through the data search path (`scream_data::read_to_string`).
    pub fn load() -> Result<Self, CompareError> {
        let read = |name: &str| scream_data::read_to_string(name).map_err(CompareError::Data);
        Self::parse(
            &read(TABLE2)?,
            &read(TABLE5)?,
            &read(TABLES6_11)?,
            &read(SUMMARY)?,
        )
    }

    /// Parses the four files' texts.
    pub fn parse(
        table2: &str,
        table5: &str,
        tables6_11: &str,
        summary: &str,
    ) -> Result<Self, CompareError> {
        let mut parameters = Vec::new();
        for (line, r) in records(TABLE2, table2)? {
            let bad = |m: String| format_error(TABLE2, line, m);
            parameters.push(Parameter {
                abbreviation: cell(&r, 0).to_owned(),
                unit: cell(&r, 2).to_owned(),
                default: number(cell(&r, 3)).map_err(bad)?,
                values: Vec::new(),
            });
        }
        for (line, r) in records(TABLE5, table5)? {
            let bad = |m: String| format_error(TABLE5, line, m);
            let name = cell(&r, 0);
            let p = parameters
                .iter_mut()
                .find(|p| p.abbreviation == name)
                .ok_or_else(|| bad(format!("parameter `{name}` is not in Table 2")))?;
            if r.len() != TRANSITIONS + 1 {
                return Err(bad(format!(
                    "{} values where the study has {TRANSITIONS}",
                    r.len().saturating_sub(1)
                )));
            }
            p.values = (1..r.len())
                .map(|i| number(cell(&r, i)))
                .collect::<Result<_, _>>()
                .map_err(bad)?;
        }
        if let Some(p) = parameters.iter().find(|p| p.values.is_empty()) {
            return Err(format_error(
                TABLE5,
                0,
                format!("no values for `{}`", p.abbreviation),
            ));
        }
        let mut rows = Vec::new();
        for (line, r) in records(TABLES6_11, tables6_11)? {
            let bad = |m: String| format_error(TABLES6_11, line, m);
            let abbreviation = cell(&r, 4).to_owned();
            let parameter = parameters
                .iter()
                .find(|p| p.abbreviation == abbreviation)
                .ok_or_else(|| bad(format!("parameter `{abbreviation}` is not in Table 2")))?;
            let printed_at = cell(&r, 7).to_owned();
            rows.push(MinMaxRow {
                table: cell(&r, 0)
                    .parse()
                    .map_err(|_| bad(format!("table `{}` is not a number", cell(&r, 0))))?,
                metric: metric(cell(&r, 1)).map_err(bad)?,
                l4s: l4s(cell(&r, 2)).map_err(bad)?,
                unit: cell(&r, 3).to_owned(),
                end: match cell(&r, 5) {
                    "min" => End::Min,
                    "max" => End::Max,
                    other => return Err(bad(format!("end `{other}` is neither min nor max"))),
                },
                value: match cell(&r, 6) {
                    "" => None,
                    v => Some(number(v).map_err(bad)?),
                },
                at: read_at(&printed_at, parameter).map_err(bad)?,
                abbreviation,
                printed_at,
            });
        }
        let mut figures = Vec::new();
        for (line, r) in records(SUMMARY, summary)? {
            let bad = |m: String| format_error(SUMMARY, line, m);
            figures.push(SummaryFigure {
                study: cell(&r, 0).to_owned(),
                figure: cell(&r, 1).to_owned(),
                l4s: l4s(cell(&r, 2)).map_err(bad)?,
                metric: metric(cell(&r, 3)).map_err(bad)?,
                unit: cell(&r, 4).to_owned(),
                value: number(cell(&r, 5)).map_err(bad)?,
                source: cell(&r, 6).to_owned(),
            });
        }
        Ok(Self {
            parameters,
            rows,
            figures,
        })
    }

    /// The parameter named `abbreviation`.
    pub fn parameter(&self, abbreviation: &str) -> Option<&Parameter> {
        self.parameters
            .iter()
            .find(|p| p.abbreviation == abbreviation)
    }
}

/// Reads an `at` cell: a value, `default`, `>=x`, a `;` set of those, or
/// `all (no effect)`. A printed value that is none of the ten is read as the nearest
/// (Table 7 prints 0.005 for QDlow, whose lowest value is 0.01), with a note.
pub(super) fn read_at(printed: &str, parameter: &Parameter) -> Result<PublishedAt, String> {
    if printed == "all (no effect)" {
        return Ok(PublishedAt::NoEffect);
    }
    let mut indexes = Vec::new();
    let mut notes = Vec::new();
    for part in printed.split(';').map(str::trim) {
        if part == "default" {
            let i = parameter.index_of(parameter.default).ok_or_else(|| {
                format!(
                    "`default` ({}) of {} is none of its ten values",
                    parameter.default, parameter.abbreviation
                )
            })?;
            indexes.push(i);
        } else if let Some(bound) = part.strip_prefix(">=") {
            let bound = number(bound)?;
            let at_least: Vec<usize> = (0..parameter.values.len())
                .filter(|&i| parameter.values[i] >= bound || close(parameter.values[i], bound))
                .collect();
            if at_least.is_empty() {
                return Err(format!(
                    "`{part}`: no value of {} is that large",
                    parameter.abbreviation
                ));
            }
            indexes.extend(at_least);
        } else {
            let v = number(part)?;
            match parameter.index_of(v) {
                Some(i) => indexes.push(i),
                None => {
                    let i = parameter.nearest(v);
                    notes.push(format!("{part} read as {}", parameter.values[i]));
                    indexes.push(i);
                }
            }
        }
    }
    indexes.sort_unstable();
    indexes.dedup();
    Ok(PublishedAt::At {
        indexes,
        note: (!notes.is_empty()).then(|| notes.join("; ")),
    })
}

fn records(file: &str, text: &str) -> Result<Vec<(u64, csv::StringRecord)>, CompareError> {
    csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(text.as_bytes())
        .records()
        .map(|r| {
            r.map(|r| (r.position().map_or(0, csv::Position::line), r))
                .map_err(|e| format_error(file, 0, e.to_string()))
        })
        .collect()
}

fn cell(r: &csv::StringRecord, i: usize) -> &str {
    r.get(i).unwrap_or("").trim()
}

fn number(s: &str) -> Result<f64, String> {
    s.trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| format!("`{s}` is not a number"))
}

fn metric(s: &str) -> Result<PublishedMetric, String> {
    match s {
        "queue_delay" => Ok(PublishedMetric::QueueDelay),
        "srtt" => Ok(PublishedMetric::Srtt),
        "throughput" => Ok(PublishedMetric::Throughput),
        other => Err(format!(
            "metric `{other}` is none of queue_delay, srtt, throughput"
        )),
    }
}

fn l4s(s: &str) -> Result<L4s, String> {
    match s {
        "off" => Ok(L4s::Off),
        "on" => Ok(L4s::On),
        other => Err(format!("l4s `{other}` is neither off nor on")),
    }
}

fn format_error(file: &str, line: u64, message: String) -> CompareError {
    CompareError::Published {
        file: file.to_owned(),
        line,
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tbmax() -> Parameter {
        Parameter {
            abbreviation: "TBmax".into(),
            unit: "Mbit/s".into(),
            default: 100.0,
            values: vec![10., 15., 20., 25., 30., 40., 50., 60., 80., 100.],
        }
    }

    fn indexes(at: PublishedAt) -> Vec<usize> {
        match at {
            PublishedAt::At { indexes, .. } => indexes,
            PublishedAt::NoEffect => panic!("no effect"),
        }
    }

    #[test]
    fn at_cells_read_as_sets_of_indexes() {
        let p = tbmax();
        assert_eq!(indexes(read_at("60", &p).unwrap()), [7]);
        assert_eq!(indexes(read_at("default", &p).unwrap()), [9]);
        assert_eq!(indexes(read_at(">=80", &p).unwrap()), [8, 9]);
        assert_eq!(indexes(read_at("15;default", &p).unwrap()), [1, 9]);
        assert_eq!(
            read_at("all (no effect)", &p).unwrap(),
            PublishedAt::NoEffect
        );
    }

    #[test]
    fn a_value_outside_the_ten_reads_as_the_nearest_with_a_note() {
        let at = read_at("12", &tbmax()).unwrap();
        let PublishedAt::At { indexes, note } = at else {
            panic!("no effect")
        };
        assert_eq!(indexes, [0]);
        assert_eq!(note.as_deref(), Some("12 read as 10"));
    }

    #[test]
    fn the_shipped_tables_read_whole() {
        let Some(dir) = scream_data::for_test(TABLES6_11) else {
            return;
        };
        let _ = dir;
        let s = Sensors2023::load().unwrap();
        assert_eq!(s.parameters.len(), 11);
        assert_eq!(s.rows.len(), 132);
        let no_effect = s
            .rows
            .iter()
            .filter(|r| r.at == PublishedAt::NoEffect)
            .count();
        assert_eq!(no_effect, 12);
    }
}
