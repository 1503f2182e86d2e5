//! Reading back an earlier call's results.csv before a sweep resumes.
//!
//! Every row is checked as `scream report` checks it (`rows`), and also against the
//! plan: its run must be one of the plan's, its parameter cells those of its point,
//! and no other row may hold the same run. A row that fails is damage from outside
//! (an edit, a second writer, a disk error), and it would make `scream report` fail or
//! count a run twice. Since every run is a pure function of the spec, nothing is lost
//! by running it again: the bad lines are moved, as they were, to `results.rejected.csv`
//! beside results.csv (appended, so repeated repairs keep every line), results.csv is
//! rewritten without them, and their runs run again. The caller is told which lines
//! moved and why ([`SetAside`]).

use std::collections::BTreeMap;
use std::io::Write;
use std::ops::Range;
use std::path::{Path, PathBuf};

use csv::{ByteRecord, StringRecord};

use super::rows::Layout;
use super::{Plan, SweepError};

/// Where a resume moves the lines of results.csv it cannot use.
pub const REJECTED_CSV: &str = "results.rejected.csv";

/// Lines of results.csv that a resume moved to [`REJECTED_CSV`]; their runs ran again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetAside {
    /// The file they were appended to.
    pub file: PathBuf,
    /// Each line's number in results.csv as it was (1 is the header) and what was wrong.
    pub lines: Vec<(u64, String)>,
}

/// The runs an existing results file holds, after any repair.
#[derive(Debug)]
pub(super) struct Existing {
    /// Run ids of the good rows, each with its line.
    pub(super) done: BTreeMap<String, u64>,
    pub(super) set_aside: Option<SetAside>,
}

/// Checks the complete lines `bytes` of results.csv at `path` (its header already
/// matched to `columns`), moving the bad ones aside.
pub(super) fn verify(
    path: &Path,
    bytes: &[u8],
    plan: &Plan,
    columns: &[String],
) -> Result<Existing, SweepError> {
    let layout = Layout::of(columns).map_err(SweepError::Resume)?;
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(bytes);
    let mut record = ByteRecord::new();
    // The header line: its bytes are kept as they are.
    let header_end = match reader.read_byte_record(&mut record) {
        Ok(true) => position(&reader),
        _ => bytes.len(),
    };
    let mut done: BTreeMap<String, u64> = BTreeMap::new();
    let mut good: Vec<Range<usize>> = Vec::new();
    let mut bad: Vec<(u64, String, Range<usize>)> = Vec::new();
    loop {
        let start = position(&reader);
        match reader.read_byte_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {
                let line = record.position().map_or(0, csv::Position::line);
                let span = start..position(&reader);
                match check(&layout, columns, plan, &record, &done) {
                    Ok(id) => {
                        done.insert(id, line);
                        good.push(span);
                    }
                    Err(why) => bad.push((line, why, span)),
                }
            }
            Err(e) => {
                // Nothing a sweep writes fails to split into cells: the rest of the
                // file is unreadable, and set aside whole.
                let line = e.position().map_or(0, csv::Position::line);
                bad.push((line, e.to_string(), start..bytes.len()));
                break;
            }
        }
    }
    if bad.is_empty() {
        return Ok(Existing {
            done,
            set_aside: None,
        });
    }
    let rejected = path.with_file_name(REJECTED_CSV);
    set_aside(&rejected, &bytes[..header_end], bytes, &bad)?;
    let mut kept = bytes[..header_end].to_vec();
    for span in &good {
        kept.extend_from_slice(&bytes[span.clone()]);
    }
    scream_sim::output::write_atomic(path, kept).map_err(|source| SweepError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(Existing {
        done,
        set_aside: Some(SetAside {
            file: rejected,
            lines: bad.into_iter().map(|(line, why, _)| (line, why)).collect(),
        }),
    })
}

fn position<R: std::io::Read>(reader: &csv::Reader<R>) -> usize {
    usize::try_from(reader.position().byte()).unwrap_or(usize::MAX)
}

/// The run id of a good row, or why it is not one.
fn check(
    layout: &Layout,
    columns: &[String],
    plan: &Plan,
    record: &ByteRecord,
    done: &BTreeMap<String, u64>,
) -> Result<String, String> {
    let row = StringRecord::from_byte_record(record.clone())
        .map_err(|_| "not valid UTF-8 text".to_owned())?;
    let id = check_row(layout, columns, plan, &row)?;
    if let Some(first) = done.get(&id) {
        return Err(format!("run {id} is also on line {first}"));
    }
    Ok(id)
}

/// The run id of `row` if it is a row this sweep writes for one of `plan`'s runs (the
/// checks of `rows` and its point's parameter cells), or why it is not. A resume
/// checks the rows it finds with it, and a session the rows it is given to append.
pub(super) fn check_row(
    layout: &Layout,
    columns: &[String],
    plan: &Plan,
    row: &StringRecord,
) -> Result<String, String> {
    layout.check(columns, row)?;
    let id = row[layout.run_id].trim().to_owned();
    let cell = |i: usize| row[i].trim();
    let (Ok(point), Ok(seed)) = (
        cell(layout.point).parse::<usize>(),
        cell(layout.seed).parse::<u64>(),
    ) else {
        return Err(format!("run {id} is not a run of this sweep"));
    };
    let point = plan
        .bases()
        .iter()
        .find(|b| b.name == cell(layout.base))
        .filter(|b| b.seeds.contains(&seed))
        .and_then(|_| plan.points().get(point))
        .ok_or_else(|| format!("run {id} is not a run of this sweep"))?;
    // Untrimmed: a varied string may begin or end with a space.
    let written = layout.params.clone().map(|i| row[i].to_owned());
    let planned = point.values().into_iter().map(Option::unwrap_or_default);
    if let Some((column, (w, p))) = columns[layout.params.clone()]
        .iter()
        .zip(written.zip(planned))
        .find(|(_, (w, p))| w != p)
    {
        return Err(format!(
            "{column} is \"{w}\", but point {} of this sweep sets \"{p}\"",
            point.index
        ));
    }
    Ok(id)
}

/// Appends the bad lines to `rejected` (starting it with the header).
fn set_aside(
    rejected: &Path,
    header: &[u8],
    bytes: &[u8],
    bad: &[(u64, String, Range<usize>)],
) -> Result<(), SweepError> {
    let fail = |source| SweepError::Io {
        path: rejected.to_path_buf(),
        source,
    };
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(rejected)
        .map_err(fail)?;
    let new = file.metadata().map_err(fail)?.len() == 0;
    let mut out = Vec::new();
    if new {
        out.extend_from_slice(header);
    }
    for (_, _, span) in bad {
        out.extend_from_slice(&bytes[span.clone()]);
        if !out.ends_with(b"\n") {
            out.push(b'\n');
        }
    }
    file.write_all(&out).map_err(fail)?;
    // On the disk before results.csv loses them.
    file.sync_all().map_err(fail)
}
