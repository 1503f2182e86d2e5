//! report.md of an LTE study: the setup, then per load one table in the shape of the
//! draft's (rows: users; per algorithm: frame delay, packet delay, loss, bitrate, and
//! the FTP throughput reached), and the figures over the number of users.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::execute::{CellOutcome, CellResult};
use super::scenario::{FTP_SOURCES, Setup, USER_STAGGER_S, idle_mean_s};
use super::stats::CellMetrics;
use scream_plot::PlotError;
use scream_plot::xy::{Series, Style, XyChart};

/// The report's file name in the output folder.
pub const REPORT_MD: &str = "report.md";

/// The figures, each as PNG and SVG: (file name, title, y label, value).
type Figure = (
    &'static str,
    &'static str,
    &'static str,
    fn(&CellMetrics) -> f64,
);
const FIGURES: [Figure; 3] = [
    (
        "frame-delay",
        "Video frame delay (user 95th percentile of per-user 98th percentile)",
        "frame delay (ms)",
        |m| m.frame_delay_ms,
    ),
    (
        "packet-delay",
        "IP packet delay (user 95th percentile of per-user 98th percentile)",
        "one-way packet delay (ms)",
        |m| m.packet_delay_ms,
    ),
    (
        "bitrate",
        "Video bitrate (mean per user)",
        "bitrate per user (Mbit/s)",
        |m| m.bitrate_mbps,
    ),
];

fn find<'a>(
    results: &'a [CellResult],
    load: f64,
    algorithm: &str,
    users: usize,
) -> Option<&'a CellOutcome> {
    results
        .iter()
        .find(|r| {
            r.cell.load_mbps == load && r.cell.algorithm == algorithm && r.cell.users == users
        })
        .map(|r| &r.outcome)
}

/// What the template and the trace give every cell, for the text: the link's mean
/// capacity, from the first cell that ran.
fn capacity(results: &[CellResult]) -> Option<f64> {
    results.iter().find_map(|r| match &r.outcome {
        CellOutcome::Done(m) if m.capacity_mbps.is_finite() => Some(m.capacity_mbps),
        _ => None,
    })
}

/// The Markdown report; `command` is the command line that made it and `figures`
/// whether the figures were written beside it.
pub fn render(setup: &Setup, results: &[CellResult], command: &str, figures: bool) -> String {
    let mut out = String::from("# LTE-style comparison\n\n");
    let _ = writeln!(
        out,
        "`{command}`\n\n\
         N video users share one bottleneck whose capacity follows `{}` (mean {} Mbit/s \
         over the run), with FTP-like background load: {FTP_SOURCES} TCP NewReno sources \
         of 500 kB objects separated by exponential idle times. The template is the \
         built-in scenario `{}` (link, queue, video flow); {} s per cell, seed {}, users \
         starting {USER_STAGGER_S} s apart. docs/lte-comparison.md gives the model and how it differs from \
         the draft's LTE system simulator.\n",
        setup.trace,
        capacity(results).map_or_else(|| "?".to_owned(), |c| format!("{c:.2}")),
        super::TEMPLATE,
        setup.duration_s,
        setup.seed,
    );
    out.push_str(
        "Columns per algorithm: **frame** = video frame delay and **packet** = IP packet \
         one-way delay, each the 98th percentile per user and then the 95th percentile \
         over users (nearest rank: up to 19 users, the worst user), ms; **RTP queue** = \
         the same statistic of the sender's RTP queue delay (20 ms samples), the wait \
         that frame delay includes and packet delay does not, ms; **loss** = video \
         packets dropped / sent, all users, %; **rate** = mean bitrate per user, Mbit/s; \
         **FTP** = throughput the background flows reached, Mbit/s (the offered load \
         counts idle time only, so it is an upper bound).\n",
    );
    for &load in &setup.loads_mbps {
        let idle = idle_mean_s(FTP_SOURCES, 500e3, load);
        if load > 0.0 {
            let _ = write!(
                out,
                "\n## FTP load {load} Mbit/s\n\nMean idle time per source {idle:.1} s.\n\n"
            );
        } else {
            out.push_str("\n## No FTP load\n\n");
        }
        let mut head = String::from("| users |");
        let mut rule = String::from("|---:|");
        for a in &setup.algorithms {
            for col in [
                "frame ms",
                "packet ms",
                "RTP queue ms",
                "loss %",
                "rate Mbit/s",
                "FTP Mbit/s",
            ] {
                let _ = write!(head, " {a} {col} |");
                rule.push_str("---:|");
            }
        }
        let _ = writeln!(out, "{head}\n{rule}");
        for &users in &setup.users {
            let _ = write!(out, "| {users} |");
            for a in &setup.algorithms {
                match find(results, load, a, users) {
                    Some(CellOutcome::Done(m)) => {
                        let _ = write!(
                            out,
                            " {:.0} | {:.0} | {:.0} | {:.2} | {:.2} | {:.2} |",
                            m.frame_delay_ms,
                            m.packet_delay_ms,
                            m.sender_queue_ms,
                            m.loss_ratio * 100.0,
                            m.bitrate_mbps,
                            m.ftp_mbps
                        );
                    }
                    Some(CellOutcome::Error(_)) => out.push_str(" error | | | | | |"),
                    None => out.push_str(" — | | | | | |"),
                }
            }
            out.push('\n');
        }
    }
    let errors: Vec<String> = results
        .iter()
        .filter_map(|r| match &r.outcome {
            CellOutcome::Error(e) => Some(format!(
                "- load {} Mbit/s, {}, {} users: {}",
                r.cell.load_mbps,
                r.cell.algorithm,
                r.cell.users,
                e.split_whitespace().collect::<Vec<_>>().join(" ")
            )),
            CellOutcome::Done(_) => None,
        })
        .collect();
    if !errors.is_empty() {
        let _ = write!(out, "\n## Errors\n\n{}\n", errors.join("\n"));
    }
    if figures {
        out.push_str("\n## Figures\n\n");
        for (name, title, _, _) in FIGURES {
            let _ = writeln!(out, "![{title}]({name}.png)\n");
        }
    }
    out
}

/// The chart of one figure: one line per algorithm and load over the number of users.
fn chart(setup: &Setup, results: &[CellResult], figure: &Figure) -> XyChart {
    let (_, title, y_label, value) = *figure;
    let mut series = Vec::new();
    for (li, &load) in setup.loads_mbps.iter().enumerate() {
        for (ai, a) in setup.algorithms.iter().enumerate() {
            let points: Vec<(f64, f64)> = setup
                .users
                .iter()
                .filter_map(|&n| match find(results, load, a, n) {
                    Some(CellOutcome::Done(m)) => Some((n as f64, value(m))),
                    _ => None,
                })
                .filter(|p| p.1.is_finite())
                .collect();
            series.push(Series::new(
                format!("{a}, FTP {load} Mbit/s"),
                points,
                li * setup.algorithms.len() + ai,
                Style::Line,
            ));
        }
    }
    XyChart {
        title: title.to_owned(),
        x_label: "video users".to_owned(),
        y_label: y_label.to_owned(),
        x_is_index: true,
        series,
    }
}

/// Writes report.md and the figures into `dir`; returns the files written.
pub fn write(
    dir: &Path,
    setup: &Setup,
    results: &[CellResult],
    command: &str,
) -> Result<Vec<PathBuf>, PlotError> {
    let mut written = Vec::new();
    for figure in &FIGURES {
        written.extend(scream_plot::xy::write(
            &chart(setup, results, figure),
            dir,
            figure.0,
        )?);
    }
    let path = dir.join(REPORT_MD);
    scream_sim::output::write_atomic(&path, render(setup, results, command, true)).map_err(
        |e| PlotError::Write {
            path: path.clone(),
            source: e,
        },
    )?;
    written.insert(0, path);
    Ok(written)
}
