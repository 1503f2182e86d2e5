//! Resumable matrices of runs, shared by the RMCAT suite and the studies: each cell
//! leaves `cell.json` (a fingerprint of what it ran, and its outcome) in its folder, so
//! a second call reuses every cell whose fingerprint still matches, and a killed call
//! loses only the cells in progress.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::Executor;

/// A finished cell's record, in the cell's folder.
pub const CELL_JSON: &str = "cell.json";

/// What became of a cell with metrics `M`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CellOutcome<M> {
    /// It ran.
    Done(M),
    /// It could not be built or run: why.
    Error(String),
}

#[derive(Debug, Serialize, Deserialize)]
struct Record<M> {
    key: String,
    outcome: CellOutcome<M>,
}

/// FNV-1a over `parts`, each followed by a 0 byte so that ("ab", "c") and ("a", "bc")
/// differ: what a reused cell must match.
pub(crate) fn fingerprint<'a>(parts: impl IntoIterator<Item = &'a str>) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for b in part.bytes().chain([0u8]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

/// The outcome of the cell in `dir`: the recorded one if its key is `key` (and not
/// `fresh`), else `run`'s, recorded. Returns whether it was reused. `run` may write into
/// `dir` (figures); a panic in it is a simulator bug that some cell reaches and becomes
/// this cell's error, so that the others go on. Only a failure to write is an error.
pub(crate) fn run_or_reuse<M: Serialize + DeserializeOwned>(
    dir: &Path,
    key: String,
    fresh: bool,
    run: impl FnOnce() -> std::io::Result<Result<M, String>>,
) -> std::io::Result<(CellOutcome<M>, bool)> {
    let record_path = dir.join(CELL_JSON);
    if !fresh {
        if let Some(r) = std::fs::read_to_string(&record_path)
            .ok()
            .and_then(|t| serde_json::from_str::<Record<M>>(&t).ok())
            .filter(|r| r.key == key)
        {
            return Ok((r.outcome, true));
        }
    }
    std::fs::create_dir_all(dir)?;
    let outcome = match catch_unwind(AssertUnwindSafe(run)) {
        Ok(result) => result?.map_or_else(CellOutcome::Error, CellOutcome::Done),
        Err(_) => CellOutcome::Error("the simulator panicked".to_owned()),
    };
    let record = Record { key, outcome };
    let mut text = serde_json::to_string_pretty(&record).map_err(std::io::Error::other)?;
    text.push('\n');
    scream_sim::output::write_atomic(&record_path, text)?;
    Ok((record.outcome, false))
}

/// `work` on every cell through `executor`, the results in the cells' order;
/// `progress(done, total)` after each. Stops at the first error.
pub(crate) fn run_all<C: Sync, R: Send>(
    cells: &[C],
    executor: &dyn Executor,
    progress: &(dyn Fn(usize, usize) + Sync),
    work: impl Fn(&C) -> std::io::Result<R> + Sync,
) -> std::io::Result<Vec<R>> {
    let done = AtomicUsize::new(0);
    executor.run_batch(cells, |cell| {
        let result = work(cell)?;
        progress(done.fetch_add(1, Ordering::Relaxed) + 1, cells.len());
        Ok(result)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fingerprint_separates_its_parts() {
        assert_ne!(fingerprint(["ab", "c"]), fingerprint(["a", "bc"]));
        assert_eq!(fingerprint(["ab", "c"]), fingerprint(["ab", "c"]));
    }

    #[test]
    fn a_cell_runs_once_then_is_reused_until_its_key_changes_or_fresh() {
        let dir = std::env::temp_dir().join(format!("scream-cells-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let runs = AtomicUsize::new(0);
        let go = |key: &str, fresh: bool| {
            run_or_reuse::<u32>(&dir, key.to_owned(), fresh, || {
                runs.fetch_add(1, Ordering::Relaxed);
                Ok(Ok(7))
            })
            .expect("writable")
        };
        assert_eq!(go("a", false), (CellOutcome::Done(7), false));
        assert_eq!(go("a", false), (CellOutcome::Done(7), true));
        assert_eq!(go("b", false), (CellOutcome::Done(7), false));
        assert_eq!(go("b", true), (CellOutcome::Done(7), false));
        assert_eq!(runs.load(Ordering::Relaxed), 3);
        let panicked = run_or_reuse::<u32>(&dir, "c".to_owned(), false, || panic!("bug"));
        assert_eq!(
            panicked.expect("recorded"),
            (
                CellOutcome::Error("the simulator panicked".to_owned()),
                false
            )
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
