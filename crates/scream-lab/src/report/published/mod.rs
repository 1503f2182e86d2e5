//! `scream report --compare-published sensors2023`: a sweep's results set beside the
//! figures of a published study (data/published/README.md).
//!
//! For a one-at-a-time sweep, each row of Sensors 2023 Tables 6-11 (parameter × metric ×
//! L4S mode × min/max) is scored: where our minimum or maximum of that metric falls over
//! the parameter's ten values, against where the paper puts it — the same index, within
//! one step, or in the same half of the ten — with the chance level of each for a
//! uniformly random index. The paper's defaults are set beside ours; for a factorial
//! sweep, the hybrid study's averages are. [`compare`] is the library door (a search over
//! setups calls it per setup); [`markdown`] and [`csv_text`] turn its answer into Markdown and CSV.

mod mapping;
mod render;
mod score;
mod sensors2023;

use std::str::FromStr;

pub use mapping::{AxisKey, AxisMap, Mapping, MetricMap, SENSORS2023_MAPPING};
pub use render::{COMPARE_CSV, csv_text, markdown, setups_markdown};
pub use score::{
    Comparison, Design, Figure, Levels, Marks, Ours, Position, Score, compare, compare_setups,
};
pub use sensors2023::{
    End, L4s, MinMaxRow, Parameter, PublishedAt, PublishedMetric, Sensors2023, SummaryFigure,
    TRANSITIONS,
};

/// A published study the report can compare with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PublishedStudy {
    /// Zubaydi, Jagmagji, Molnár, *Sensors* 23(22) 9148, 2023: Tables 6-11.
    Sensors2023,
}

impl PublishedStudy {
    /// Every study, by its command-line name.
    pub const ALL: [(&'static str, Self); 1] = [("sensors2023", Self::Sensors2023)];

    /// Its command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Sensors2023 => "sensors2023",
        }
    }
}

impl FromStr for PublishedStudy {
    type Err = CompareError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .iter()
            .find(|(name, _)| *name == s)
            .map(|&(_, study)| study)
            .ok_or_else(|| CompareError::UnknownStudy(s.to_owned()))
    }
}

/// Why a comparison could not be made.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    /// No such published study.
    #[error("unknown published study `{0}`; known: {known}", known = known_studies())]
    UnknownStudy(String),
    /// A published data file is missing or unreadable.
    #[error(transparent)]
    Data(scream_data::ReadError),
    /// A published data file is malformed.
    #[error("{file} line {line}: {message}")]
    Published {
        /// The data file.
        file: String,
        /// Its line (0: the file as a whole).
        line: u64,
        /// What is wrong.
        message: String,
    },
    /// The results lack a base the mapping names.
    #[error(
        "the results have no base `{base}` (they have: {}); the comparison needs one base \
         per L4S mode, named as in studies/paper-standalone.toml",
        found.join(", ")
    )]
    MissingBase {
        /// The base looked for.
        base: String,
        /// The bases present.
        found: Vec<String>,
    },
    /// The results lack a published parameter's axis.
    #[error(
        "the results have no axis for the published parameter {abbreviation} on base \
         `{base}` (looked for {}); the tables need all eleven parameters swept, as \
         studies/paper-standalone.toml does",
        keys.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(" or ")
    )]
    MissingParameter {
        /// The paper's abbreviation.
        abbreviation: String,
        /// Our keys that may carry it.
        keys: Vec<String>,
        /// The base.
        base: String,
    },
    /// The results lack a metric column.
    #[error(
        "the results have no `{column}` column (the paper's {metric}); add it to the sweep \
         spec's `metrics`"
    )]
    MissingMetric {
        /// Our column.
        column: String,
        /// The paper's metric.
        metric: String,
    },
    /// An axis value is none of the paper's ten.
    #[error(
        "axis `{key}` on base `{base}` has value `{value}`: {why}; the paper's values in \
         this key's unit are {}",
        expected.iter().map(f64::to_string).collect::<Vec<_>>().join(", ")
    )]
    AxisValue {
        /// The key.
        key: String,
        /// The base.
        base: String,
        /// The cell.
        value: String,
        /// Why it does not match.
        why: String,
        /// The paper's ten values scaled to the key's unit.
        expected: Vec<f64>,
    },
    /// The mapping has no entry for a name of the paper.
    #[error("the mapping has no entry for `{0}`")]
    Unmapped(String),
}

fn known_studies() -> String {
    PublishedStudy::ALL.map(|(n, _)| n).join(", ")
}

/// Loads `study`'s published figures through the data search path and compares
/// `results` with them through the study's mapping for our sender's keys.
/// Results whose bases are setups (`SETUP.l4s-off`, `SETUP.l4s-on`) give one
/// comparison per setup ([`compare_setups`]); plain bases give one, named "".
pub fn compare_published(
    results: &crate::report::Results,
    study: PublishedStudy,
) -> Result<(Sensors2023, Vec<(String, Comparison)>), CompareError> {
    match study {
        PublishedStudy::Sensors2023 => {
            let paper = Sensors2023::load()?;
            let c = compare_setups(results, &paper, &SENSORS2023_MAPPING)?;
            Ok((paper, c))
        }
    }
}
