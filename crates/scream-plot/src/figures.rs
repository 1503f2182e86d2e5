//! The four standard figures of a run, built from its samples.

use plotters::style::RGBColor;

use super::chart::{Figure, Line, Stroke};
use super::decimate::min_max;
use super::palette::PALETTE as STREAM_COLORS;
use super::{PlotInput, Sample};

/// Points per drawn line at most; a 100 s run sampled every 20 ms has 5000.
const MAX_POINTS: usize = 2400;

/// Colours by series kind (single flow) or by flow (several flows): the first seven
/// of the overview's palette, the colour-blind-safe Okabe-Ito set; past them lines
/// repeat the colours dashed.
const PALETTE: &[RGBColor] = STREAM_COLORS.split_at(7).0;
const CAPACITY_COLOR: RGBColor = RGBColor(0, 0, 0);

/// Reads one plotted quantity from a sample (`None`: no point there).
type Column = fn(&Sample) -> Option<f64>;

/// One stream's rows, with the labels it goes by.
struct Series<'a> {
    /// `flow` for a single-stream flow, `flow/stream` otherwise.
    stream_label: String,
    flow_label: String,
    /// Whether it is its flow's first stream, whose rows speak for the flow.
    first_of_flow: bool,
    rows: Vec<&'a Sample>,
}

/// Whose quantity a column is: each stream's own, or its flow's (repeated in every
/// stream's row, so drawn once per flow).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Scope {
    Stream,
    Flow,
}

/// Samples split by stream.
pub(super) struct Data<'a> {
    scenario: &'a str,
    series: Vec<Series<'a>>,
    x_max_s: f64,
}

impl<'a> Data<'a> {
    pub(super) fn new(input: &PlotInput<'a>) -> Self {
        let mut series: Vec<(u32, Series<'a>)> = Vec::new();
        for s in input.samples {
            match series.iter_mut().find(|(g, _)| *g == s.stream_index) {
                Some((_, x)) => x.rows.push(s),
                None => {
                    let first_of_flow = !series
                        .iter()
                        .any(|(_, x)| x.rows[0].flow_index == s.flow_index);
                    let stream_label = if s.stream == s.flow {
                        s.flow.to_string()
                    } else {
                        format!("{}/{}", s.flow, s.stream)
                    };
                    series.push((
                        s.stream_index,
                        Series {
                            stream_label,
                            flow_label: s.flow.to_string(),
                            first_of_flow,
                            rows: vec![s],
                        },
                    ));
                }
            }
        }
        series.sort_by_key(|(g, _)| *g);
        let x_max_s = input.samples.iter().map(|s| s.t_s).fold(0.0, f64::max);
        Self {
            scenario: input.scenario_name,
            series: series.into_iter().map(|(_, x)| x).collect(),
            x_max_s,
        }
    }

    fn figure(&self, what: &str, y_label: &str, lines: Vec<Line>) -> Figure {
        Figure {
            title: format!("{} — {what}", self.scenario),
            y_label: y_label.to_owned(),
            x_max_s: self.x_max_s,
            lines,
        }
    }

    /// Appends one line per stream (or per flow) per series kind, each in its own
    /// colour; the first kind (the headline series) is drawn thicker. Past the palette,
    /// lines repeat its colours dashed.
    fn add(&self, lines: &mut Vec<Line>, scope: Scope, kinds: &[(&str, Column)]) {
        let chosen: Vec<(&str, &[&Sample])> = self
            .series
            .iter()
            .filter(|x| scope == Scope::Stream || x.first_of_flow)
            .map(|x| {
                let label = match scope {
                    Scope::Stream => &x.stream_label,
                    Scope::Flow => &x.flow_label,
                };
                (label.as_str(), x.rows.as_slice())
            })
            .collect();
        let several = chosen.len() > 1;
        for (name, rows) in chosen {
            for (k, (kind, value)) in kinds.iter().enumerate() {
                let points: Vec<(f64, f64)> = rows
                    .iter()
                    .filter_map(|s| value(s).map(|v| (s.t_s, v)))
                    .collect();
                // A series this kind of flow never has (a TCP flow's target bitrate or
                // RTP queue) would only add a legend entry for nothing.
                if points.is_empty() {
                    continue;
                }
                let n = lines.len();
                let stroke = if n >= PALETTE.len() {
                    Stroke::Dashed
                } else {
                    Stroke::Solid(if k == 0 { 2 } else { 1 })
                };
                lines.push(Line {
                    label: if several {
                        format!("{name}: {kind}")
                    } else {
                        (*kind).to_owned()
                    },
                    points: min_max(&points, MAX_POINTS),
                    color: PALETTE[n % PALETTE.len()],
                    stroke,
                });
            }
        }
    }

    fn throughput(&self) -> Figure {
        let mut lines = Vec::new();
        if let Some(first) = self.series.first() {
            let points: Vec<(f64, f64)> = first
                .rows
                .iter()
                .filter(|s| s.capacity_mbps.is_finite())
                .map(|s| (s.t_s, s.capacity_mbps))
                .collect();
            lines.push(Line {
                label: "bottleneck capacity".to_owned(),
                points: min_max(&points, MAX_POINTS),
                color: CAPACITY_COLOR,
                stroke: Stroke::Solid(2),
            });
        }
        self.add(
            &mut lines,
            Scope::Stream,
            &[
                // The sender's acknowledged rate; a flow without feedback (cbr) has
                // none, and its received rate stands in.
                ("throughput", |s| s.acked_mbps.or(Some(s.rx_mbps))),
                ("target bitrate", |s| s.target_mbps),
            ],
        );
        self.figure("throughput", "rate (Mbit/s)", lines)
    }

    fn delay(&self) -> Figure {
        let mut lines = Vec::new();
        self.add(
            &mut lines,
            Scope::Stream,
            // The RTP queue's per-frame sawtooth is drawn first, so that it does not
            // hide the path queue delay.
            &[
                ("RTP queue delay", |s| s.rtp_queue_delay_ms),
                ("path queue delay", |s| s.sojourn_ms),
            ],
        );
        self.add(
            &mut lines,
            Scope::Flow,
            &[("estimated queue delay", |s| s.est_queue_delay_ms)],
        );
        self.figure("queue delay", "delay (ms)", lines)
    }

    fn window(&self) -> Figure {
        let mut lines = Vec::new();
        self.add(
            &mut lines,
            Scope::Flow,
            // Bytes in flight swing with every frame; drawn first, they leave the
            // window visible. "window": V2's reference window, V1's and draft-00's
            // congestion window, TCP's cwnd.
            &[
                ("bytes in flight", |s| s.bytes_in_flight.map(|b| b / 1000.0)),
                ("window", |s| s.ref_window_bytes.map(|b| b / 1000.0)),
            ],
        );
        self.figure("congestion window", "size (kB)", lines)
    }

    fn rtt(&self) -> Figure {
        let mut lines = Vec::new();
        self.add(&mut lines, Scope::Flow, &[("smoothed RTT", |s| s.srtt_ms)]);
        self.figure("smoothed RTT", "sRTT (ms)", lines)
    }
}

/// Every figure with its file base name, in the order of [`super::PLOT_NAMES`].
pub(super) fn all(data: &Data<'_>) -> [(&'static str, Figure); 4] {
    [
        ("throughput", data.throughput()),
        ("delay", data.delay()),
        ("window", data.window()),
        ("rtt", data.rtt()),
    ]
}
