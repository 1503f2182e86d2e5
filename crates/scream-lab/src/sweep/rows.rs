//! What a row of results.csv must hold. A resumed sweep and `scream report` check rows
//! the same way: the sweep moves a bad row aside and runs its run again, the report
//! refuses the file, naming the line (docs/sweeps.md, "Resume").
//!
//! Only what `scream sweep` writes passes: the cells of the header, a `run_id` that is
//! `<base>/p<point>/s<seed>` of the row's own cells, whole numbers where the columns
//! hold indexes and seeds, `ok` or `error`, and a number (or nothing) in every metric.
//! Parameter cells are free text, as any TOML value may be varied.

use std::ops::Range;

use csv::StringRecord;

use super::{ID_COLUMNS, RUN_COLUMNS, TIMING_COLUMNS};

/// Where each column of a results file sits, read from its header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Layout {
    /// Cells per row.
    pub(crate) len: usize,
    pub(crate) run_id: usize,
    pub(crate) base: usize,
    pub(crate) point: usize,
    pub(crate) axis: usize,
    pub(crate) transition: usize,
    /// The varied parameters.
    pub(crate) params: Range<usize>,
    pub(crate) seed: usize,
    pub(crate) status: usize,
    pub(crate) error: usize,
    /// The metrics.
    pub(crate) metrics: Range<usize>,
    pub(crate) wall_time: usize,
}

impl Layout {
    /// The layout of `header`, or why it is not the header of a results file.
    pub(crate) fn of(header: &[String]) -> Result<Self, String> {
        let position = |name: &str| {
            header.iter().position(|h| h == name).ok_or_else(|| {
                format!(
                    "no column `{name}`: not a results.csv of `scream sweep` (see docs/sweeps.md)"
                )
            })
        };
        for c in ID_COLUMNS.iter().chain(&RUN_COLUMNS).chain(&TIMING_COLUMNS) {
            position(c.name)?;
        }
        let [run_id, base, point, axis, transition] = ID_COLUMNS.map(|c| position(c.name));
        let [seed, status, error] = RUN_COLUMNS.map(|c| position(c.name));
        let (transition, seed, error) = (transition?, seed?, error?);
        let wall_time = position(TIMING_COLUMNS[0].name)?;
        if !(transition < seed && seed < error && error < wall_time) {
            return Err(
                "columns out of order: expected ids, parameters, seed/status/error, \
                        metrics, wall_time_s"
                    .to_owned(),
            );
        }
        Ok(Self {
            len: header.len(),
            run_id: run_id?,
            base: base?,
            point: point?,
            axis: axis?,
            transition,
            params: transition + 1..seed,
            seed,
            status: status?,
            error,
            metrics: error + 1..wall_time,
            wall_time,
        })
    }

    /// What is wrong with `row` (the header names each column), or nothing.
    pub(crate) fn check(&self, header: &[String], row: &StringRecord) -> Result<(), String> {
        if row.len() != self.len {
            return Err(format!(
                "{} cells where the header has {}",
                row.len(),
                self.len
            ));
        }
        let cell = |i: usize| row[i].trim();
        let whole = |i: usize| {
            cell(i)
                .parse::<u64>()
                .map_err(|_| format!("{} must be a whole number, not \"{}\"", header[i], cell(i)))
        };
        let point = whole(self.point)?;
        let seed = whole(self.seed)?;
        if !cell(self.transition).is_empty() {
            whole(self.transition)?;
        }
        let expected_id = format!("{}/p{point}/s{seed}", cell(self.base));
        if cell(self.run_id) != expected_id {
            return Err(format!(
                "run_id is \"{}\", but base, point and seed make it \"{expected_id}\"",
                cell(self.run_id)
            ));
        }
        match (cell(self.status), cell(self.error).is_empty()) {
            ("ok", true) | ("error", false) => {}
            ("ok", false) => return Err("status is ok but error is not empty".to_owned()),
            ("error", true) => return Err("status is error but error is empty".to_owned()),
            (other, _) => {
                return Err(format!("status must be ok or error, not \"{other}\""));
            }
        }
        for i in self.metrics.clone() {
            number(cell(i)).map_err(|v| format!("{} is not a number: \"{v}\"", header[i]))?;
        }
        match number(cell(self.wall_time)) {
            Ok(Some(t)) if t >= 0.0 => Ok(()),
            _ => Err(format!(
                "{} must be a number of seconds, not \"{}\"",
                header[self.wall_time],
                cell(self.wall_time)
            )),
        }
    }
}

/// A metric cell: six decimals at most, as the other outputs, without trailing zeros;
/// empty when not finite. [`number`] reads it back.
pub(crate) fn cell_text(v: f64) -> String {
    if !v.is_finite() {
        return String::new();
    }
    let r = (v * 1e6).round() / 1e6;
    // -0 and 0 must print alike.
    let r = if r == 0.0 { 0.0 } else { r };
    format!("{r}")
}

/// A metric cell: empty (no value) or a finite number; `Err` holds the cell.
pub(crate) fn number(cell: &str) -> Result<Option<f64>, &str> {
    if cell.is_empty() {
        return Ok(None);
    }
    match cell.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(Some(v)),
        _ => Err(cell),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str =
        "run_id,base,point,axis,transition,k,seed,status,error,throughput_mbps,wall_time_s";

    fn check(row: &str) -> Result<(), String> {
        let header: Vec<String> = HEADER.split(',').map(str::to_owned).collect();
        let layout = Layout::of(&header).expect("a results header");
        let record = StringRecord::from(row.split(',').collect::<Vec<_>>());
        layout.check(&header, &record)
    }

    #[test]
    fn rows_as_a_sweep_writes_them_pass() {
        assert_eq!(check("b/p0/s1,b,0,,,5,1,ok,,3.5,0.012"), Ok(()));
        assert_eq!(check("b/p2/s7,b,2,k,1,x y,7,error,it failed,,0.5"), Ok(()));
    }

    #[test]
    fn each_kind_of_damage_is_named() {
        let cases = [
            (
                "b/p0/s1,b,0,,,5,1,ok,,3.5",
                "10 cells where the header has 11",
            ),
            (
                "b/p0/s1,b,zero,,,5,1,ok,,3.5,0.1",
                "point must be a whole number",
            ),
            ("b/p0/s2,b,0,,,5,1,ok,,3.5,0.1", "run_id is \"b/p0/s2\""),
            (
                "b/p0/s1,b,0,,,5,1,done,,3.5,0.1",
                "status must be ok or error",
            ),
            ("b/p0/s1,b,0,,,5,1,ok,oops,3.5,0.1", "error is not empty"),
            (
                "b/p0/s1,b,0,,,5,1,ok,,3.x,0.1",
                "throughput_mbps is not a number",
            ),
            (
                "b/p0/s1,b,0,,,5,1,ok,,NaN,0.1",
                "throughput_mbps is not a number",
            ),
            ("b/p0/s1,b,0,,,5,1,ok,,3.5,", "wall_time_s must be a number"),
        ];
        for (row, why) in cases {
            let e = check(row).expect_err(row);
            assert!(e.contains(why), "{row}: {e}");
        }
    }
}
