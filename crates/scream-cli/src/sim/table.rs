//! The table `scream sim` prints: one row per flow (and per stream of a flow with
//! several), one per link direction, then the output folder.

use std::path::Path;

use scream_records::DECIMALS;
use scream_sim::Summary;
use scream_sim::summary::{Distribution, FlowSummary, LinkSummary, StreamSummary, WindowSummary};

use crate::columns::{
    Align::{Left, Right},
    Columns,
};

/// The human-readable summary: one row per flow, one per link, then the output folder.
pub(crate) fn table(summary: &Summary, out_dir: &Path) -> String {
    let mut out = format!(
        "scenario {}  seed {}  {:.1} s simulated in {:.2} s\n\n",
        summary.scenario,
        summary.seed,
        as_written(summary.duration_s),
        as_written(summary.wall_time_s),
    );
    out.push_str(&flow_table(&summary.flows).render());
    out.push('\n');
    out.push_str(&link_table(&summary.links).render());
    out.push_str(&format!("\noutputs in {}\n", out_dir.display()));
    out
}

/// A number as summary.json holds it: rounded to [`DECIMALS`] places and read back,
/// `NaN` for the `null` a non-finite number becomes. The table prints what the file
/// says: rounding the file's digits differs from rounding the exact number near a tie
/// (0.04999996 is 0.050000 in the file, 0.1 in the table).
fn as_written(v: f64) -> f64 {
    if !v.is_finite() {
        return f64::NAN;
    }
    // The file writes no negative zero.
    let v = if v == 0.0 { 0.0 } else { v };
    // Read back as any reader of summary.json reads it.
    serde_json::from_str(&format!("{v:.DECIMALS$}")).unwrap_or(f64::NAN)
}

/// `{:.prec$}` of the number as written.
fn fixed(v: f64, prec: usize) -> String {
    format!("{:.prec$}", as_written(v))
}

/// A ratio as written, in percent.
fn percent(ratio: f64) -> String {
    format!("{:.2}", 100.0 * as_written(ratio))
}

/// `mean/p95/p99` of a delay distribution, ms.
fn triple(d: &Distribution) -> String {
    format!(
        "{:.1}/{:.1}/{:.1}",
        as_written(d.mean),
        as_written(d.p95),
        as_written(d.p99)
    )
}

/// Flows, each followed by its streams (when it has several) and its report window.
fn flow_table(flows: &[FlowSummary]) -> Columns {
    // Columns as wide as their widest cell: a long flow or link name widens its
    // column instead of shifting every number after it.
    let mut table = Columns::new(&[Left, Right, Right, Right, Right, Right, Right, Right, Right]);
    table.row([
        "flow",
        "tput",
        "target",
        "queue delay",
        "est.qd",
        "sRTT",
        "frame p95",
        "loss",
        "CE",
    ]);
    table.row([
        "",
        "Mbit/s",
        "Mbit/s",
        "mean/p95/p99 ms",
        "mean ms",
        "mean ms",
        "ms",
        "%",
        "%",
    ]);
    for flow in flows {
        table.row(flow_row(flow));
        if flow.streams.len() > 1 {
            for stream in &flow.streams {
                table.row(stream_row(stream));
            }
        }
        if let Some(w) = &flow.window {
            window_row(&mut table, w);
        }
    }
    table
}

fn flow_row(flow: &FlowSummary) -> [String; 9] {
    [
        flow.name.clone(),
        fixed(flow.throughput_mbps, 2),
        fixed(flow.target_bitrate_mbps.mean, 2),
        triple(&flow.queue_delay_ms),
        fixed(flow.estimated_queue_delay_ms.mean, 1),
        fixed(flow.srtt_ms.mean, 1),
        fixed(flow.frame_delay_ms.p95, 1),
        percent(flow.loss_ratio),
        percent(flow.ce_ratio),
    ]
}

/// A stream of a flow with several: indented, without the flow's delays.
fn stream_row(stream: &StreamSummary) -> [String; 9] {
    [
        format!("  {}", stream.name),
        fixed(stream.throughput_mbps, 2),
        fixed(stream.target_bitrate_mbps.mean, 2),
        String::new(),
        String::new(),
        String::new(),
        fixed(stream.frame_delay_ms.p95, 1),
        percent(stream.loss_ratio),
        percent(stream.ce_ratio),
    ]
}

/// The flow's throughput and queue delay within its report window.
fn window_row(table: &mut Columns, w: &WindowSummary) {
    let note = format!(
        "  ({:.0}-{:.0} s window)",
        as_written(w.from_s),
        as_written(w.to_s)
    );
    table.row_with_note(
        [
            String::new(),
            fixed(w.throughput_mbps, 2),
            String::new(),
            triple(&w.queue_delay_ms),
        ],
        &note,
    );
}

/// Link directions, but for an unlimited one that carried nothing and dropped nothing
/// (it says nothing worth a row).
fn link_table(links: &[LinkSummary]) -> Columns {
    let mut table = Columns::new(&[Left, Left, Right, Right, Right, Right]);
    table.row([
        "link",
        "dir",
        "capacity",
        "utilisation",
        "dropped",
        "CE-mark",
    ]);
    for link in links {
        let lost = link.packets_dropped + link.packets_lost;
        // summary.json writes an unlimited capacity as null.
        let unlimited = as_written(link.capacity_mean_mbps).is_nan();
        if unlimited && lost == 0 {
            continue;
        }
        let capacity = if unlimited {
            "unlimited".to_owned()
        } else {
            format!("{} Mbit/s", fixed(link.capacity_mean_mbps, 2))
        };
        table.row([
            link.name.clone(),
            link.direction.to_owned(),
            capacity,
            format!("{:.1}%", 100.0 * as_written(link.utilization)),
            lost.to_string(),
            link.packets_ce_marked.to_string(),
        ]);
    }
    table
}

#[cfg(test)]
mod tests {
    use scream_sim::summary::{FeedbackSummary, FrameCounts, Mean};

    use super::*;

    fn delays(mean: f64, p95: f64, p99: f64) -> Distribution {
        Distribution {
            mean,
            p95,
            p99,
            ..Distribution::default()
        }
    }

    fn flow(name: &str) -> FlowSummary {
        FlowSummary {
            name: name.to_owned(),
            algorithm: "scream-v2".to_owned(),
            throughput_mbps: 7.25,
            target_bitrate_mbps: Mean { mean: 7.5 },
            queue_delay_ms: delays(3.68, 8.97, 11.0),
            estimated_queue_delay_ms: delays(2.0, 0.0, 0.0),
            srtt_ms: delays(55.0, 0.0, 0.0),
            rtp_queue_delay_ms: Distribution::default(),
            frame_delay_ms: delays(0.0, 80.0, 0.0),
            frames: FrameCounts::default(),
            loss_ratio: 0.001,
            ce_ratio: 0.05,
            ref_window_bytes: Mean::default(),
            bytes_in_flight: Mean::default(),
            packets_sent: 0,
            packets_received: 0,
            packets_dropped: 0,
            packets_lost: 0,
            packets_ce: 0,
            feedback: FeedbackSummary::default(),
            window: None,
            streams: Vec::new(),
        }
    }

    fn link(direction: &'static str, capacity_mean_mbps: f64, dropped: u64) -> LinkSummary {
        LinkSummary {
            name: "bottleneck".to_owned(),
            direction,
            capacity_mean_mbps,
            utilization: 0.91,
            packets_out: 0,
            packets_dropped: dropped,
            packets_lost: 0,
            packets_ce_marked: 4,
        }
    }

    fn summary(flows: Vec<FlowSummary>, links: Vec<LinkSummary>) -> Summary {
        Summary {
            scenario: "x".to_owned(),
            seed: 3,
            duration_s: 20.0,
            wall_time_s: 0.5,
            links,
            flows,
        }
    }

    #[test]
    fn table_shows_every_flow_and_link_with_units() {
        let s = summary(vec![flow("video")], vec![link("forward", 8.5, 0)]);
        let t = table(&s, Path::new("out/x"));
        assert!(
            t.starts_with("scenario x  seed 3  20.0 s simulated in 0.50 s\n"),
            "{t}"
        );
        assert!(t.contains("video"), "{t}");
        assert!(t.contains("7.25"), "{t}");
        assert!(t.contains("3.7/9.0/11.0"), "{t}");
        assert!(t.contains("8.50 Mbit/s"), "{t}");
        assert!(t.contains("91.0%"), "{t}");
        assert!(t.contains("0.10"), "loss in percent: {t}");
        assert!(t.contains("outputs in out/x"), "{t}");
    }

    #[test]
    fn streams_show_only_for_a_flow_with_several_and_the_window_as_a_note() {
        let mut one = flow("solo");
        let stream = |name: &str| StreamSummary {
            name: name.to_owned(),
            throughput_mbps: 1.5,
            target_bitrate_mbps: Mean { mean: 2.0 },
            queue_delay_ms: Distribution::default(),
            rtp_queue_delay_ms: Distribution::default(),
            frame_delay_ms: Distribution::default(),
            frames: FrameCounts::default(),
            loss_ratio: 0.0,
            ce_ratio: 0.0,
            packets_sent: 0,
            packets_received: 0,
        };
        one.streams = vec![stream("solo-cam")];
        let mut two = flow("pair");
        two.streams = vec![stream("cam"), stream("screen")];
        two.window = Some(WindowSummary {
            from_s: 10.0,
            to_s: 20.0,
            throughput_mbps: 6.125,
            queue_delay_ms: delays(1.0, 2.0, 3.0),
        });
        let t = table(&summary(vec![one, two], Vec::new()), Path::new("o"));
        assert!(!t.contains("solo-cam"), "{t}");
        assert!(t.contains("\n  cam "), "{t}");
        assert!(t.contains("\n  screen "), "{t}");
        assert!(t.contains("(10-20 s window)"), "{t}");
        assert!(t.contains("1.0/2.0/3.0"), "{t}");
    }

    #[test]
    fn an_unlimited_link_shows_only_when_it_dropped_something() {
        let quiet = summary(Vec::new(), vec![link("reverse", f64::INFINITY, 0)]);
        let t = table(&quiet, Path::new("o"));
        assert!(!t.contains("unlimited"), "{t}");
        let lossy = summary(Vec::new(), vec![link("reverse", f64::INFINITY, 2)]);
        let t = table(&lossy, Path::new("o"));
        assert!(t.contains("unlimited"), "{t}");
        assert!(t.contains("reverse"), "{t}");
    }

    #[test]
    fn the_table_rounds_the_numbers_summary_json_holds() {
        // The file holds 0.050000, which the table rounds up; the exact number
        // rounds down.
        let mut f = flow("video");
        f.srtt_ms.mean = 0.049_999_96;
        assert_eq!(format!("{:.1}", f.srtt_ms.mean), "0.0");
        let t = table(&summary(vec![f], Vec::new()), Path::new("o"));
        let row = t
            .lines()
            .find(|l| l.starts_with("video"))
            .unwrap_or_default();
        let cells: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(cells[5], "0.1", "{t}");
        // A number the file cannot hold reads as null, printed NaN.
        assert_eq!(as_written(f64::NAN).to_string(), "NaN");
        assert_eq!(as_written(-0.0).to_string(), "0");
    }
}
