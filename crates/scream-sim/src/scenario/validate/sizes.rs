//! The counts that a run's time and memory grow with, each capped with a clear error:
//! flows, links, the rows sampled from them, and the entries of step lists.

use super::{Check, MAX_SAMPLE_ROWS, fail};
use crate::scenario::model::Scenario;

/// Most entries of one list of steps (`capacity_steps`, `loss_steps`) or of a flow's
/// `pauses`. Each entry is written by hand or by a script into the scenario text, whose
/// parsed form costs about 1 kB per entry (10^5 steps took 100 MB); 10^4 is a step
/// every 10 ms for 100 s, or every second for almost three hours. A longer capacity
/// table belongs in a trace file (`trace`), which is read as numbers, not as TOML.
pub const MAX_STEPS: usize = 10_000;

/// Most flows of a scenario. Each flow costs its sender, receiver and source, with its
/// own parsed copy of its frame-size trace, and its share of the summary: about 1 ms
/// and 42 kB before and after the simulated time itself (20,000 flows over 20 ms took
/// 20 s and 840 MB on the development machine; the time grows linearly with the
/// flows). 10^4 is far beyond the published studies (a few flows) and keeps that
/// overhead near ten seconds.
pub const MAX_FLOWS: usize = 10_000;
/// Most links of a scenario. A path crosses at most 255 of them; each direction keeps
/// its own queue, statistics and a links.csv row per sample.
pub const MAX_LINKS: usize = 1_000;
/// Most rows of links.csv (link directions x samples). A row is about half the size of
/// a time-series row, so this bounds them to about 2 GB, as [`MAX_SAMPLE_ROWS`] does
/// the streams' rows; one link sampled as often as one stream is always allowed.
pub const MAX_LINK_SAMPLE_ROWS: f64 = 2e7;

/// `key` holds `n` entries (`what`): at most [`MAX_STEPS`].
pub(super) fn check_count(key: &str, n: usize, what: &str) -> Check {
    if n <= MAX_STEPS {
        return Ok(());
    }
    let hint = if key.ends_with("capacity_steps") {
        "; give a longer capacity table as a trace file (trace, see docs/scenarios.md)"
    } else {
        ""
    };
    fail(
        key,
        format!("has {n} {what}, more than the limit of {MAX_STEPS}{hint}"),
    )
}

impl Scenario {
    /// The counts that time and memory grow with: flows, links, and the rows sampled
    /// from them.
    pub(super) fn validate_sizes(&self) -> Check {
        if self.flows.len() > MAX_FLOWS {
            return fail(
                "flows",
                format!(
                    "has {} flows, more than the limit of {MAX_FLOWS}",
                    self.flows.len()
                ),
            );
        }
        let links = self.link_configs().len();
        if links > MAX_LINKS {
            return fail(
                "links",
                format!("has {links} links, more than the limit of {MAX_LINKS}"),
            );
        }
        let samples = self.duration_s * 1e3 / self.sample_interval_ms;
        let streams: usize = self.flows.iter().map(|f| f.streams.len().max(1)).sum();
        let rows = samples * streams as f64;
        if rows > MAX_SAMPLE_ROWS {
            return fail(
                "sample_interval_ms",
                format!(
                    "gives {rows:.3e} time-series rows for duration_s and the flows' streams; \
                     at most {MAX_SAMPLE_ROWS:e} are kept: use a longer interval"
                ),
            );
        }
        let link_rows = samples * (2 * links) as f64;
        if link_rows > MAX_LINK_SAMPLE_ROWS {
            return fail(
                "sample_interval_ms",
                format!(
                    "gives {link_rows:.3e} links.csv rows for duration_s and the {links} links' \
                     two directions; at most {MAX_LINK_SAMPLE_ROWS:e} are kept: use a longer \
                     interval"
                ),
            );
        }
        Ok(())
    }
}
