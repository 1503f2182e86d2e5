//! `--packet-log`, `--event-log` and `--log-limit-mb` of `scream sim`: which JSON Lines
//! logs to write into the output folder (docs/logs.md), and what to say about them.

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

use scream_sim::log::{LogOptions, LogReport, SinkReport};

/// File name of the packet log in the output folder.
pub(crate) const PACKETS_FILE: &str = scream_sim::output::LOG_FILES[0];
/// File name of the event log in the output folder.
pub(crate) const EVENTS_FILE: &str = scream_sim::output::LOG_FILES[1];

/// The log arguments of `scream sim`.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct LogArgs {
    /// Write packets.jsonl: one row per media and feedback packet once its fate is
    /// known (hops with enqueue/dequeue times, delivery or drop with its cause).
    #[arg(long)]
    packet_log: bool,
    /// Write events.jsonl: the SCReAM senders' back-offs with their cause, stalls,
    /// target changes, RTP-queue discards and key-frame requests.
    #[arg(long)]
    event_log: bool,
    /// Size cap of each log in MB (10^6 bytes); past it, rows are left out and the
    /// file's last line says how many.
    #[arg(long, value_name = "MB", default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    log_limit_mb: u64,
}

impl LogArgs {
    /// Opens the files asked for in `dir` (which must exist).
    pub(crate) fn open(&self, dir: &Path) -> Result<LogOptions, String> {
        let create = |name: &str| -> Result<Box<dyn std::io::Write + Send>, String> {
            let path = dir.join(name);
            let file = File::create(&path)
                .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
            Ok(Box::new(BufWriter::with_capacity(1 << 16, file)))
        };
        Ok(LogOptions {
            packets: self.packet_log.then(|| create(PACKETS_FILE)).transpose()?,
            events: self.event_log.then(|| create(EVENTS_FILE)).transpose()?,
            limit_bytes: self.log_limit_mb * 1_000_000,
        })
    }

    /// Says on stderr which logs were cut short at the cap, and whether a sender lost
    /// congestion events.
    pub(crate) fn warn_about(&self, report: &LogReport) {
        for message in messages(report, self.log_limit_mb) {
            crate::warn(&message);
        }
    }
}

/// The stderr lines for `report`.
fn messages(report: &LogReport, limit_mb: u64) -> Vec<String> {
    let cut = |name: &str, r: &Option<SinkReport>| {
        let (omitted, from_s) = r.as_ref()?.truncated?;
        Some(format!(
            "{name} reached its {limit_mb} MB cap at t = {from_s:.3} s: {omitted} later rows \
             were left out (its last line says so); raise --log-limit-mb to keep them"
        ))
    };
    let mut out: Vec<String> = [
        cut(PACKETS_FILE, &report.packets),
        cut(EVENTS_FILE, &report.events),
    ]
    .into_iter()
    .flatten()
    .collect();
    if report.packets_untracked > 0 {
        out.push(format!(
            "{PACKETS_FILE}: {} packets have no row: more than 65 535 were released at the \
             same instant",
            report.packets_untracked
        ));
    }
    if report.cc_events_dropped > 0 {
        out.push(format!(
            "{EVENTS_FILE}: the senders dropped {} congestion events before they could be \
             written",
            report.cc_events_dropped
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_truncated_log_is_named_with_its_cap_and_what_was_left_out() {
        let report = LogReport {
            packets: Some(SinkReport {
                rows: 10,
                bytes: 1000,
                truncated: Some((42, 3.5)),
            }),
            events: Some(SinkReport::default()),
            cc_events_dropped: 0,
            packets_untracked: 0,
        };
        let m = messages(&report, 7);
        assert_eq!(m.len(), 1, "{m:?}");
        assert!(m[0].contains("packets.jsonl"), "{}", m[0]);
        assert!(m[0].contains("7 MB"), "{}", m[0]);
        assert!(m[0].contains("42 later rows"), "{}", m[0]);
        assert!(m[0].contains("t = 3.500 s"), "{}", m[0]);
        assert!(messages(&LogReport::default(), 7).is_empty());
    }
}
