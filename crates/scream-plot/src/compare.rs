//! Several runs on one set of axes (`scream compare`): a stacked time-series figure —
//! target bitrate, throughput, queue delay, sRTT — with one colour per run in every
//! panel. Each panel is an ordinary `chart::Figure`, so the runs look
//! as their own single figures do.
//!
//! A run of several flows draws every flow in the run's colour: its first flow solid,
//! the others dashed, so the colour always answers "which run" and the dash "which
//! flow". A flow of several streams is drawn as one line: the streams' rates summed,
//! their largest queue delay.

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;

use super::chart::{self, Figure, Line, Stroke};
use super::decimate::min_max;
use super::palette::PALETTE;
use super::{PlotError, Sample};

/// Figure size: four panels of the single figures' proportions, stacked.
const SIZE: (u32, u32) = (1100, 1760);
/// Points per drawn line at most.
const MAX_POINTS: usize = 2400;

/// One run to compare: the name it goes by in legends and its samples (all flows, in
/// time order).
#[derive(Debug, Clone, Copy)]
pub struct CompareRun<'a> {
    /// Legend label of the run.
    pub label: &'a str,
    /// The run's timeseries.csv rows.
    pub samples: &'a [Sample],
}

/// The colour of the `i`th run, in the palette of every other plot.
pub fn run_color(i: usize) -> usize {
    i % PALETTE.len()
}

/// One flow's values at one sampling instant, its streams merged.
#[derive(Debug, Clone, Copy, PartialEq)]
struct FlowPoint {
    t_s: f64,
    rx_mbps: f64,
    target_mbps: Option<f64>,
    queue_delay_ms: Option<f64>,
    srtt_ms: Option<f64>,
}

fn max_opt(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (x, y) => x.or(y),
    }
}

/// The samples split by flow (in order of first appearance), each flow's streams
/// merged per instant.
fn flows(samples: &[Sample]) -> Vec<(String, Vec<FlowPoint>)> {
    let mut out: Vec<(String, Vec<FlowPoint>)> = Vec::new();
    for s in samples {
        let known = out.iter().position(|(name, _)| **name == *s.flow);
        // A flow that has not started yet (it joins later) is left blank, not drawn
        // as a rate of zero.
        let idle = s.tx_mbps == 0.0 && s.rx_mbps == 0.0 && s.target_mbps.is_none();
        if known.is_none() && idle {
            continue;
        }
        let k = match known {
            Some(k) => k,
            None => {
                out.push((s.flow.to_string(), Vec::new()));
                out.len() - 1
            }
        };
        let points = &mut out[k].1;
        match points.last_mut() {
            // Another stream of the flow at the same instant.
            Some(p) if p.t_s == s.t_s => {
                p.rx_mbps += s.rx_mbps;
                p.target_mbps = match (p.target_mbps, s.target_mbps) {
                    (Some(a), Some(b)) => Some(a + b),
                    (a, b) => a.or(b),
                };
                p.queue_delay_ms = max_opt(p.queue_delay_ms, s.sojourn_ms);
                p.srtt_ms = p.srtt_ms.or(s.srtt_ms);
            }
            _ => points.push(FlowPoint {
                t_s: s.t_s,
                rx_mbps: s.rx_mbps,
                target_mbps: s.target_mbps,
                queue_delay_ms: s.sojourn_ms,
                srtt_ms: s.srtt_ms,
            }),
        }
    }
    out
}

/// Reads one plotted quantity of a flow point.
type Column = fn(&FlowPoint) -> Option<f64>;

/// The four panels: title, y label, column.
const PANELS: [(&str, &str, Column); 4] = [
    ("Target bitrate", "target (Mbit/s)", |p| p.target_mbps),
    ("Throughput (received)", "throughput (Mbit/s)", |p| {
        Some(p.rx_mbps)
    }),
    ("Path queue delay", "queue delay (ms)", |p| p.queue_delay_ms),
    ("Smoothed RTT", "sRTT (ms)", |p| p.srtt_ms),
];

/// The panels' figures for `runs`.
fn figures(runs: &[CompareRun<'_>]) -> Vec<Figure> {
    let split: Vec<Vec<(String, Vec<FlowPoint>)>> = runs.iter().map(|r| flows(r.samples)).collect();
    let x_max_s = runs
        .iter()
        .flat_map(|r| r.samples.iter().map(|s| s.t_s))
        .fold(0.0, f64::max);
    PANELS
        .iter()
        .map(|(title, y_label, column)| {
            let mut lines = Vec::new();
            for (i, (run, flows)) in runs.iter().zip(&split).enumerate() {
                let several = flows.len() > 1;
                for (k, (flow, points)) in flows.iter().enumerate() {
                    let points: Vec<(f64, f64)> = points
                        .iter()
                        .filter_map(|p| column(p).map(|v| (p.t_s, v)))
                        .collect();
                    // A flow without the quantity (a TCP flow's target) gets no entry.
                    if points.is_empty() {
                        continue;
                    }
                    lines.push(Line {
                        label: if several {
                            format!("{}: {flow}", run.label)
                        } else {
                            run.label.to_owned()
                        },
                        points: min_max(&points, MAX_POINTS),
                        color: PALETTE[run_color(i)],
                        stroke: if k == 0 {
                            Stroke::Solid(2)
                        } else {
                            Stroke::Dashed
                        },
                    });
                }
            }
            Figure {
                title: (*title).to_owned(),
                y_label: (*y_label).to_owned(),
                x_max_s,
                lines,
            }
        })
        .collect()
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    figures: &[Figure],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let panels = root.split_evenly((figures.len().max(1), 1));
    for (area, figure) in panels.iter().zip(figures) {
        chart::draw(area, figure)?;
    }
    Ok(())
}

/// Writes the stacked comparison of `runs` as `<name>.png` and `<name>.svg` into `dir`
/// (which must exist); returns the paths.
pub fn write_timeseries(
    runs: &[CompareRun<'_>],
    dir: &Path,
    name: &str,
) -> Result<Vec<PathBuf>, PlotError> {
    super::register_font();
    let figures = figures(runs);
    let png = super::render_png(SIZE, name, |root| draw(root, &figures))?;
    let svg = super::render_svg(SIZE, name, |root| draw(root, &figures))?;
    let png_path = dir.join(format!("{name}.png"));
    let svg_path = dir.join(format!("{name}.svg"));
    super::write_file(&png_path, &png)?;
    super::write_file(&svg_path, svg.as_bytes())?;
    Ok(vec![png_path, svg_path])
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    fn row(t: f64, flow: &str, stream: &str, rx: f64, sojourn: f64) -> Sample {
        let mut s = Sample::empty(t, Arc::from(flow), Arc::from(stream), 0);
        s.rx_mbps = rx;
        s.sojourn_ms = Some(sojourn);
        s.target_mbps = Some(rx + 1.0);
        s
    }

    #[test]
    fn streams_of_a_flow_merge_per_instant_and_flows_stay_apart() {
        let samples = [
            row(0.1, "a", "v", 1.0, 5.0),
            row(0.1, "a", "w", 2.0, 9.0),
            row(0.1, "b", "b", 4.0, 3.0),
            row(0.2, "a", "v", 1.5, 2.0),
        ];
        let mut waiting = Sample::empty(0.0, Arc::from("b"), Arc::from("b"), 1);
        waiting.target_mbps = None;
        let samples = [&[waiting][..], &samples].concat();
        let f = flows(&samples);
        assert_eq!(f.len(), 2);
        // The row before flow b started is left out (and does not make it first).
        assert_eq!(f[1].1.len(), 1);
        assert_eq!(f[0].0, "a");
        assert_eq!(f[0].1.len(), 2);
        let p = f[0].1[0];
        assert_eq!(
            (p.rx_mbps, p.target_mbps, p.queue_delay_ms),
            (3.0, Some(5.0), Some(9.0))
        );
        assert_eq!(f[1].1[0].rx_mbps, 4.0);
    }

    #[test]
    fn every_panel_has_one_colour_per_run_and_a_dash_per_further_flow() {
        let one = [row(0.1, "a", "a", 1.0, 5.0), row(0.2, "a", "a", 1.0, 5.0)];
        let two = [row(0.1, "x", "x", 2.0, 5.0), row(0.1, "y", "y", 3.0, 5.0)];
        let runs = [
            CompareRun {
                label: "one",
                samples: &one,
            },
            CompareRun {
                label: "two",
                samples: &two,
            },
        ];
        for fig in figures(&runs) {
            if fig.title == "Smoothed RTT" {
                // No run recorded an RTT: no line, no legend entry.
                assert!(fig.lines.is_empty());
                continue;
            }
            let labels: Vec<&str> = fig.lines.iter().map(|l| l.label.as_str()).collect();
            assert_eq!(labels, ["one", "two: x", "two: y"], "{}", fig.title);
            assert_eq!(fig.lines[1].color, fig.lines[2].color);
            assert_ne!(fig.lines[0].color, fig.lines[1].color);
            assert!(matches!(fig.lines[2].stroke, Stroke::Dashed));
            assert_eq!(fig.x_max_s, 0.2);
        }
    }
}
