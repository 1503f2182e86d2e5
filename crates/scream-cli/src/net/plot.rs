//! `scream plot DIR`: the figures of a real run, drawn by the simulator's plots
//! (scream-plot) from the sender's time series, with what only the link emulator and a
//! TCP load generator saw merged in: the true queue delay and capacity at the bottleneck
//! (DIR/link/links.csv) and the competing TCP flow's rate (DIR/iperf3-server.json or
//! DIR/iperf3.json).
//! The processes' time lines are lined up by the wall-clock start each summary.json
//! records.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use scream_records::Sample;
use scream_records::read::{CsvTable, read_samples};

use super::output::{RunFiles, write_run};

/// Arguments of `scream plot`.
#[derive(Debug, clap::Args)]
pub(crate) struct PlotArgs {
    /// A real run's folder: `send/` (from `scream send --out`), and optionally
    /// `link/` (`scream link --out`) and `iperf3-server.json` or `iperf3.json`
    /// (`iperf3 -J`) beside it.
    dir: PathBuf,
    /// Where to write the figures (default: DIR/plots).
    #[arg(long)]
    out: Option<PathBuf>,
}

fn started(dir: &Path) -> Result<Option<f64>, String> {
    let path = dir.join("summary.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(None);
    };
    let v: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(v["started_unix_s"].as_f64())
}

/// The link's forward rows as (time on the sender's line, capacity, sojourn max).
fn link_rows(dir: &Path, offset_s: f64) -> Result<Vec<(f64, f64, Option<f64>)>, String> {
    let path = dir.join("links.csv");
    let table = CsvTable::read(&path)?;
    let mut out = Vec::new();
    for r in table.rows() {
        if r.text("direction")? == "forward" {
            let t = r.num("t_s")? + offset_s;
            out.push((t, r.num("capacity_mbps")?, r.opt("sojourn_max_ms")?));
        }
    }
    Ok(out)
}

/// The competing TCP flow's rate from iperf3's JSON report: (start, end, Mbit/s) of
/// each interval on the sender's time line.
fn iperf_intervals(path: &Path, send_start: f64) -> Result<Vec<(f64, f64, f64)>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let v: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    // iperf3 stamps its start in whole seconds; `iperf3.start` beside it, if there,
    // holds the client's start to the nanosecond (scripts/cs244-real.sh writes it).
    let fine = path
        .parent()
        .and_then(|d| std::fs::read_to_string(d.join("iperf3.start")).ok())
        .and_then(|t| t.trim().parse::<f64>().ok());
    let Some(start) = fine.or_else(|| v["start"]["timestamp"]["timesecs"].as_f64()) else {
        return Err(format!("{}: no start.timestamp.timesecs", path.display()));
    };
    let at = start - send_start;
    Ok(v["intervals"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|i| {
                    let s = &i["sum"];
                    let rate = s["bits_per_second"].as_f64()? / 1e6;
                    Some((at + s["start"].as_f64()?, at + s["end"].as_f64()?, rate))
                })
                .collect()
        })
        .unwrap_or_default())
}

/// A row of the TCP flow at each of the sender's sampling instants, at the rate of
/// the iperf3 interval that covers it (0 outside the transfer), so that both flows
/// share the time axis and their sum is drawn right.
fn tcp_rows(video: &[Sample], intervals: &[(f64, f64, f64)]) -> Vec<Sample> {
    let flow: Arc<str> = "tcp (iperf3)".into();
    video
        .iter()
        .map(|v| {
            let rate = intervals
                .iter()
                .find(|(a, b, _)| *a < v.t_s && v.t_s <= *b)
                .map_or(0.0, |i| i.2);
            Sample {
                tx_mbps: rate,
                rx_mbps: rate,
                capacity_mbps: v.capacity_mbps,
                ..Sample::empty(v.t_s, flow.clone(), flow.clone(), 1)
            }
        })
        .collect()
}

pub(crate) fn main(args: &PlotArgs) -> Result<String, String> {
    let send = args.dir.join("send");
    let mut samples = read_samples(&send.join("timeseries.csv"))?;
    let send_start = started(&send)?.ok_or_else(|| {
        format!(
            "{}: no started_unix_s (not a `scream send` run?)",
            send.join("summary.json").display()
        )
    })?;
    let mut notes = Vec::new();
    let link = args.dir.join("link");
    if let Some(link_start) = started(&link)? {
        let rows = link_rows(&link, link_start - send_start)?;
        let mut j = 0;
        for s in &mut samples {
            // The link row whose period ends first at or after the sample's end.
            while j + 1 < rows.len() && rows[j].0 < s.t_s {
                j += 1;
            }
            if let Some(&(_, capacity, sojourn)) = rows.get(j) {
                s.capacity_mbps = capacity;
                s.sojourn_ms = sojourn;
            }
        }
        notes.push("queue delay and capacity from link/links.csv");
    }
    // What arrived (the server's report) rather than what the client wrote into its
    // socket, which runs ahead of the link while the socket buffer fills.
    let iperf = ["iperf3-server.json", "iperf3.json"]
        .map(|f| args.dir.join(f))
        .into_iter()
        .find(|p| p.is_file());
    if let Some(path) = iperf {
        let intervals = iperf_intervals(&path, send_start)?;
        let tcp = tcp_rows(&samples, &intervals);
        samples = samples
            .into_iter()
            .zip(tcp)
            .flat_map(|(v, t)| [v, t])
            .collect();
        notes.push("TCP rate from iperf3");
    }
    let out = args.out.clone().unwrap_or_else(|| args.dir.join("plots"));
    let summary = serde_json::json!({ "role": "plot", "from": args.dir.display().to_string() });
    let title = args.dir.file_name().map_or_else(
        || "real run".to_owned(),
        |n| n.to_string_lossy().into_owned(),
    );
    let files = RunFiles {
        title: &title,
        samples: &samples,
        link_samples: &[],
        summary,
        max_bitrate_mbps: None,
        no_plots: false,
    };
    let written = write_run(&out, &files)?;
    Ok(format!(
        "wrote {} files to {} ({})\n",
        written.len(),
        out.display(),
        if notes.is_empty() {
            "sender only".to_owned()
        } else {
            notes.join("; ")
        }
    ))
}
