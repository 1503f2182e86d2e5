//! Reading capacity traces: mahimahi delivery-opportunity files and time/rate tables
//! (Lumos5G files are `seconds<TAB>Mbit/s`, one row per second).

use super::capacity::{
    Capacity, MAX_MAHIMAHI_MS, MIN_RATE_BPS, MahimahiTrace, RateSchedule, TraceEnd,
};
use scream::Bitrate;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// How to read a capacity trace file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TraceFormat {
    /// Mahimahi if every line holds exactly one integer, else a table.
    #[default]
    Auto,
    /// One integer millisecond time stamp per line, one delivery opportunity each.
    Mahimahi,
    /// Whitespace- or comma-separated columns: a time in seconds and a rate.
    Table,
}

/// Unit of the rate column of a table trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RateUnit {
    /// Bits per second.
    Bps,
    /// Kilobits (10^3) per second.
    Kbps,
    /// Megabits (10^6) per second.
    #[default]
    Mbps,
    /// Bytes per second.
    BytesPerS,
}

impl RateUnit {
    fn to_bitrate(self, v: f64) -> Bitrate {
        match self {
            Self::Bps => Bitrate::from_bps(v),
            Self::Kbps => Bitrate::from_kbps(v),
            Self::Mbps => Bitrate::from_mbps(v),
            Self::BytesPerS => Bitrate::from_bps(v * 8.0),
        }
    }
}

/// Unit of the time column of a table trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TimeUnit {
    /// Seconds (Lumos5G and most 1 Hz throughput logs).
    #[default]
    S,
    /// Milliseconds.
    Ms,
}

impl TimeUnit {
    /// Seconds per unit.
    fn seconds(self) -> f64 {
        match self {
            Self::S => 1.0,
            Self::Ms => 1e-3,
        }
    }

    /// `s` or `ms`, as written in scenarios and messages.
    pub fn name(self) -> &'static str {
        match self {
            Self::S => "s",
            Self::Ms => "ms",
        }
    }
}

/// How to read a table trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableSpec {
    /// Zero-based column of the time stamp, seconds.
    pub time_column: usize,
    /// Zero-based column of the rate.
    pub rate_column: usize,
    /// Unit of the rate column.
    pub unit: RateUnit,
    /// What follows the last row.
    pub end: TraceEnd,
    /// Row `i` applies during `[i x row_ns, (i + 1) x row_ns)` ns and the time column is
    /// not read (a trace replayed faster or slower than it was recorded); `None`: the
    /// time column places the rows.
    pub row_ns: Option<u64>,
}

/// A trace file that could not be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TraceError {
    /// The file could not be read.
    #[error("cannot read {path}: {reason}")]
    Io {
        /// The file.
        path: String,
        /// The OS error.
        reason: String,
    },
    /// A line could not be parsed.
    #[error("line {line}: {reason}")]
    Parse {
        /// One-based line number.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// The trace holds no usable data.
    #[error("trace is empty or has no time span")]
    Empty,
    /// A problem inside a trace file, with the file's name.
    #[error("{}", in_file(path, source))]
    InFile {
        /// The file.
        path: String,
        /// The problem ([`TraceError::Parse`] or [`TraceError::Empty`]).
        source: Box<TraceError>,
    },
}

/// `path:line: reason` for a line, as compilers write it; `path: problem` otherwise.
fn in_file(path: &str, e: &TraceError) -> String {
    match e {
        TraceError::Parse { line, reason } => format!("{path}:{line}: {reason}"),
        other => format!("{path}: {other}"),
    }
}

/// Latest time stamp of a table trace, s (about 317 years): its nanoseconds, 10^19,
/// still fit in a `u64`. Large enough for Unix time stamps in seconds.
pub const MAX_TABLE_TIME_S: f64 = 1e10;
/// Highest rate a trace row may give, bit/s (10 Tbit/s): a 1500-byte packet then
/// takes 1.2 ns, the resolution of the clock; faster is a unit mistake.
pub const MAX_TRACE_RATE_BPS: f64 = 1e13;

fn data_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
}

fn looks_like_mahimahi(text: &str) -> bool {
    data_lines(text).all(|(_, l)| l.parse::<u64>().is_ok())
}

/// The format `format` means for `text` (`Auto` resolved).
fn resolve_format(text: &str, format: TraceFormat) -> TraceFormat {
    match format {
        TraceFormat::Auto if looks_like_mahimahi(text) => TraceFormat::Mahimahi,
        TraceFormat::Auto => TraceFormat::Table,
        f => f,
    }
}

/// Parses a capacity trace from its text (table times in seconds).
pub fn parse_capacity_trace(
    text: &str,
    format: TraceFormat,
    table: &TableSpec,
    mahimahi_packet_bytes: u32,
) -> Result<Capacity, TraceError> {
    parse_capacity_trace_with_time_unit(text, format, table, TimeUnit::S, mahimahi_packet_bytes)
}

/// Parses a capacity trace from its text, reading a table's time column in `time_unit`.
pub fn parse_capacity_trace_with_time_unit(
    text: &str,
    format: TraceFormat,
    table: &TableSpec,
    time_unit: TimeUnit,
    mahimahi_packet_bytes: u32,
) -> Result<Capacity, TraceError> {
    match resolve_format(text, format) {
        TraceFormat::Mahimahi => parse_mahimahi(text, mahimahi_packet_bytes),
        _ => parse_table(text, table, time_unit),
    }
}

/// Reads and parses a capacity trace file (table times in seconds); errors name the
/// file.
pub fn load_capacity_trace(
    path: &Path,
    format: TraceFormat,
    table: &TableSpec,
    mahimahi_packet_bytes: u32,
) -> Result<Capacity, TraceError> {
    load_capacity_trace_with_time_unit(path, format, table, TimeUnit::S, mahimahi_packet_bytes)
}

/// Reads and parses a capacity trace file, reading a table's time column in
/// `time_unit`; errors name the file.
pub fn load_capacity_trace_with_time_unit(
    path: &Path,
    format: TraceFormat,
    table: &TableSpec,
    time_unit: TimeUnit,
    mahimahi_packet_bytes: u32,
) -> Result<Capacity, TraceError> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| TraceError::Io {
        path: shown.clone(),
        reason: e.to_string(),
    })?;
    parse_capacity_trace_with_time_unit(&text, format, table, time_unit, mahimahi_packet_bytes)
        .map_err(|e| TraceError::InFile {
            path: shown,
            source: Box::new(e),
        })
}

/// What a table trace holds, to tell a plausible reading from a unit mistake.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TableFacts {
    /// Rows read.
    pub rows: usize,
    /// Median time between consecutive rows, s (0 for a single row).
    pub median_spacing_s: f64,
    /// Highest rate of any row, bit/s.
    pub peak_bps: f64,
}

/// The facts of a table trace as it would be read, or `None` for a mahimahi trace or
/// a table that does not parse (its error comes when the trace is loaded).
pub fn table_facts(
    text: &str,
    format: TraceFormat,
    table: &TableSpec,
    time_unit: TimeUnit,
) -> Option<TableFacts> {
    if resolve_format(text, format) == TraceFormat::Mahimahi {
        return None;
    }
    let (rows, _) = table_rows(text, table, time_unit).ok()?;
    let mut gaps: Vec<u64> = rows.windows(2).map(|w| w[1].0 - w[0].0).collect();
    gaps.sort_unstable();
    let median_spacing_s = gaps.get(gaps.len() / 2).map_or(0.0, |ns| *ns as f64 / 1e9);
    let peak_bps = rows.iter().map(|r| r.1.bps()).fold(0.0, f64::max);
    Some(TableFacts {
        rows: rows.len(),
        median_spacing_s,
        peak_bps,
    })
}

fn parse_mahimahi(text: &str, packet_bytes: u32) -> Result<Capacity, TraceError> {
    let mut times = Vec::new();
    for (line, l) in data_lines(text) {
        let t: u64 = l.parse().map_err(|_| TraceError::Parse {
            line,
            reason: format!("expected an integer millisecond time stamp, found `{l}`"),
        })?;
        if t > MAX_MAHIMAHI_MS {
            return Err(TraceError::Parse {
                line,
                reason: format!(
                    "time stamp {t} ms is beyond {MAX_MAHIMAHI_MS} ms (about 317 years), \
                     the latest whose nanoseconds fit in 64 bits"
                ),
            });
        }
        if times.last().is_some_and(|prev| t < *prev) {
            return Err(TraceError::Parse {
                line,
                reason: "time stamps must not decrease".into(),
            });
        }
        times.push(t);
    }
    MahimahiTrace::new(&times, packet_bytes)
        .map(Capacity::Mahimahi)
        .ok_or(TraceError::Empty)
}

fn parse_table(text: &str, spec: &TableSpec, time_unit: TimeUnit) -> Result<Capacity, TraceError> {
    let (rows, last_line) = table_rows(text, spec, time_unit)?;
    let first = rows.first().ok_or(TraceError::Empty)?.0;
    let last = rows.last().ok_or(TraceError::Empty)?.0;
    // The last row lasts as long as the spacing before it (1 s for a single row).
    let spacing = match (spec.row_ns, rows.len()) {
        (Some(row), _) => row,
        (None, 0 | 1) => 1_000_000_000,
        (None, n) => rows[n - 1].0 - rows[n - 2].0,
    };
    let period = match spec.end {
        TraceEnd::Loop => {
            Some(
                (last - first)
                    .checked_add(spacing)
                    .ok_or_else(|| TraceError::Parse {
                        line: last_line,
                        reason: "a looping trace must span less than about 584 years".into(),
                    })?,
            )
        }
        TraceEnd::Hold => None,
    };
    RateSchedule::new(&rows, period)
        .map(Capacity::Schedule)
        .ok_or(TraceError::Empty)
}

/// The rows of a table trace as (time in ns, rate), and the line of the last row.
fn table_rows(
    text: &str,
    spec: &TableSpec,
    time_unit: TimeUnit,
) -> Result<(Vec<(u64, Bitrate)>, usize), TraceError> {
    let unit = time_unit.name();
    let mut rows: Vec<(u64, Bitrate)> = Vec::new();
    let mut last_line = 0;
    for (line, l) in data_lines(text) {
        let cols: Vec<&str> = l
            .split(|c: char| c.is_whitespace() || c == ',' || c == ';')
            .filter(|c| !c.is_empty())
            .collect();
        let field = |col: usize, what: &str| -> Result<f64, TraceError> {
            let raw = cols.get(col).ok_or_else(|| TraceError::Parse {
                line,
                reason: format!("no column {col} for the {what}"),
            })?;
            raw.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v >= 0.0)
                .ok_or_else(|| TraceError::Parse {
                    line,
                    reason: format!("{what} `{raw}` is not a non-negative number"),
                })
        };
        // A header row (non-numeric first line) is skipped.
        if rows.is_empty()
            && cols
                .get(spec.time_column)
                .is_some_and(|c| c.parse::<f64>().is_err())
        {
            continue;
        }
        let r = field(spec.rate_column, "rate")?;
        let raw_r = cols[spec.rate_column];
        let rate = spec.unit.to_bitrate(r);
        check_rate(rate, raw_r, line)?;
        if let Some(row_ns) = spec.row_ns {
            let t_ns = (rows.len() as u64)
                .checked_mul(row_ns)
                .filter(|t| row_ns > 0 && *t as f64 <= MAX_TABLE_TIME_S * 1e9)
                .ok_or_else(|| TraceError::Parse {
                    line,
                    reason: format!(
                        "row {} at {row_ns} ns per row is beyond {MAX_TABLE_TIME_S:e} s",
                        rows.len()
                    ),
                })?;
            last_line = line;
            rows.push((t_ns, rate));
            continue;
        }
        let t = field(spec.time_column, "time")? * time_unit.seconds();
        // As written, for the messages (the column exists: `field` found it).
        let raw_t = cols[spec.time_column];
        if t > MAX_TABLE_TIME_S {
            return Err(TraceError::Parse {
                line,
                reason: format!(
                    "time `{raw_t}` {unit} is beyond {MAX_TABLE_TIME_S:e} s (about 317 years), \
                     the latest whose nanoseconds fit in 64 bits"
                ),
            });
        }
        let t_ns = (t * 1e9).round() as u64;
        if rows.last().is_some_and(|(prev, _)| t_ns <= *prev) {
            return Err(TraceError::Parse {
                line,
                reason: "time stamps must increase".into(),
            });
        }
        last_line = line;
        rows.push((t_ns, rate));
    }
    Ok((rows, last_line))
}

/// A rate must be 0 or within what a link can model.
fn check_rate(rate: Bitrate, raw: &str, line: usize) -> Result<(), TraceError> {
    if rate.bps() != 0.0 && !(MIN_RATE_BPS..=MAX_TRACE_RATE_BPS).contains(&rate.bps()) {
        return Err(TraceError::Parse {
            line,
            reason: format!(
                "rate `{raw}` is {:e} bit/s: a rate must be 0 (an outage) or in \
                 [{MIN_RATE_BPS}, {MAX_TRACE_RATE_BPS:e}] bit/s (check the unit)",
                rate.bps()
            ),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use scream::Instant;

    const SPEC: TableSpec = TableSpec {
        time_column: 0,
        rate_column: 1,
        unit: RateUnit::Mbps,
        end: TraceEnd::Loop,
        row_ns: None,
    };

    #[test]
    fn auto_detects_mahimahi_and_tables() {
        let m = parse_capacity_trace("0\n0\n5\n", TraceFormat::Auto, &SPEC, 1500).unwrap();
        assert!(matches!(m, Capacity::Mahimahi(_)));
        let t =
            parse_capacity_trace("1.0\t5.0\n2.0\t7.0\n", TraceFormat::Auto, &SPEC, 1500).unwrap();
        assert!(matches!(t, Capacity::Schedule(_)));
    }

    #[test]
    fn table_times_are_relative_to_the_first_row_and_loop() {
        let mut c =
            parse_capacity_trace("1.0\t5.0\n2.0\t7.0\n", TraceFormat::Table, &SPEC, 1500).unwrap();
        assert_eq!(
            c.rate_at(Instant::from_millis(500)),
            Bitrate::from_mbps(5.0)
        );
        assert_eq!(
            c.rate_at(Instant::from_millis(1500)),
            Bitrate::from_mbps(7.0)
        );
        assert_eq!(
            c.rate_at(Instant::from_millis(2500)),
            Bitrate::from_mbps(5.0)
        );
        let hold = TableSpec {
            end: TraceEnd::Hold,
            ..SPEC
        };
        let mut c =
            parse_capacity_trace("1.0\t5.0\n2.0\t7.0\n", TraceFormat::Table, &hold, 1500).unwrap();
        assert_eq!(
            c.rate_at(Instant::from_millis(9500)),
            Bitrate::from_mbps(7.0)
        );
    }

    #[test]
    fn seconds_per_row_place_row_i_at_i_times_the_span_and_ignore_the_time_column() {
        // The time column says 1 s apart; at 20 ms per row the third row (4 Mbit/s)
        // applies during [40, 60) ms, and the trace loops after 60 ms.
        let spec = TableSpec {
            row_ns: Some(20_000_000),
            ..SPEC
        };
        let text = "0 2\n1 3\n2 4\n";
        let mut c = parse_capacity_trace(text, TraceFormat::Table, &spec, 1500).unwrap();
        let at = |ms| Instant::from_millis(ms);
        assert_eq!(c.rate_at(at(0)), Bitrate::from_mbps(2.0));
        assert_eq!(c.rate_at(at(39)), Bitrate::from_mbps(3.0));
        assert_eq!(c.rate_at(at(40)), Bitrate::from_mbps(4.0));
        assert_eq!(c.rate_at(at(59)), Bitrate::from_mbps(4.0));
        assert_eq!(c.rate_at(at(60)), Bitrate::from_mbps(2.0));
        // Held, the last row lasts.
        let hold = TableSpec {
            end: TraceEnd::Hold,
            ..spec
        };
        let mut c = parse_capacity_trace(text, TraceFormat::Table, &hold, 1500).unwrap();
        assert_eq!(c.rate_at(at(5000)), Bitrate::from_mbps(4.0));
    }

    #[test]
    fn malformed_lines_are_reported_with_their_number() {
        let e = parse_capacity_trace("1\t5\n2\tx\n", TraceFormat::Table, &SPEC, 1500).unwrap_err();
        assert!(matches!(e, TraceError::Parse { line: 2, .. }), "{e}");
        let e = parse_capacity_trace("5\n3\n", TraceFormat::Mahimahi, &SPEC, 1500).unwrap_err();
        assert!(matches!(e, TraceError::Parse { line: 2, .. }), "{e}");
        assert_eq!(
            parse_capacity_trace("", TraceFormat::Table, &SPEC, 1500).unwrap_err(),
            TraceError::Empty
        );
    }

    #[test]
    fn a_time_column_in_milliseconds_is_read_with_time_unit_ms() {
        let text = "0\t5.0\n1000\t7.0\n";
        let mut c = parse_capacity_trace_with_time_unit(
            text,
            TraceFormat::Table,
            &SPEC,
            TimeUnit::Ms,
            1500,
        )
        .unwrap();
        assert_eq!(
            c.rate_at(Instant::from_millis(500)),
            Bitrate::from_mbps(5.0)
        );
        assert_eq!(
            c.rate_at(Instant::from_millis(1500)),
            Bitrate::from_mbps(7.0)
        );
        let facts = table_facts(text, TraceFormat::Auto, &SPEC, TimeUnit::S).unwrap();
        assert_eq!(facts.median_spacing_s, 1000.0);
        let facts = table_facts(text, TraceFormat::Auto, &SPEC, TimeUnit::Ms).unwrap();
        assert_eq!(
            (facts.rows, facts.median_spacing_s, facts.peak_bps),
            (2, 1.0, 7e6)
        );
        assert_eq!(
            table_facts("0\n5\n", TraceFormat::Auto, &SPEC, TimeUnit::S),
            None
        );
    }

    #[test]
    fn errors_in_a_trace_file_name_the_file_and_line() {
        let path = std::env::temp_dir().join(format!("scream-trace-{}.tsv", std::process::id()));
        std::fs::write(&path, "0 5\n1 x\n").unwrap();
        let e = load_capacity_trace(&path, TraceFormat::Table, &SPEC, 1500).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "{}:2: rate `x` is not a non-negative number",
                path.display()
            )
        );
        std::fs::write(&path, "# nothing\n").unwrap();
        let e = load_capacity_trace(&path, TraceFormat::Table, &SPEC, 1500).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("{}: trace is empty or has no time span", path.display())
        );
        let _ = std::fs::remove_file(&path);
    }
}
