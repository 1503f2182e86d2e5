//! The overview: one tall figure whose panels share the time axis — rates, path queue
//! delay, RTP queue delay, CE marks and losses, window and bytes in flight, sRTT — with
//! one colour per stream throughout, a legend beside the panels rather than on the
//! data, and the run's identity in a footer.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::chart::robust_top;
use super::decimate::min_max;
use super::palette::PALETTE;
use super::{FONT, PlotInput, Sample};

/// Overview size in pixels (PNG) or user units (SVG).
pub(super) const SIZE: (u32, u32) = (1200, 1500);
/// Width of the legend column on the right.
const LEGEND_W: u32 = 230;
/// Height of the footer.
const FOOTER_H: u32 = 28;
/// Points per drawn line at most.
const MAX_POINTS: usize = 1600;
/// A rate axis becomes logarithmic when the capacity's peak exceeds the largest
/// stream rate by this factor: a 100 Mbit/s flow under a 1.4 Gbit/s trace would
/// otherwise be a smear along the bottom.
const LOG_RATE_RATIO: f64 = 5.0;
/// A logarithmic rate axis spans this many decades below the flows' peak.
const LOG_DECADES: f64 = 3.0;

const CAPACITY: RGBColor = RGBColor(0, 0, 0);
const AGGREGATE: RGBColor = RGBColor(90, 90, 90);

/// One stream's rows and how it is drawn.
struct Stream<'a> {
    label: String,
    color: RGBColor,
    /// Whether it is its flow's first stream, whose rows carry the flow's values.
    first_of_flow: bool,
    max_bitrate_mbps: Option<f64>,
    rows: Vec<&'a Sample>,
}

/// How a line is drawn.
#[derive(Clone, Copy)]
enum Style {
    Bold,
    Thin,
    Dashed,
}

struct Series {
    points: Vec<(f64, f64)>,
    color: RGBColor,
    style: Style,
    /// A reference level (a maximum bitrate): it does not stretch the y range and is
    /// left out when above it.
    reference: bool,
}

/// One panel: a y label and its lines.
struct Panel {
    y_label: &'static str,
    log: bool,
    /// Bottom of a logarithmic axis.
    log_floor: f64,
    series: Vec<Series>,
}

fn streams<'a>(input: &PlotInput<'a>) -> Vec<Stream<'a>> {
    let mut out: Vec<(u32, Stream<'a>)> = Vec::new();
    for s in input.samples {
        if let Some((_, x)) = out.iter_mut().find(|(i, _)| *i == s.stream_index) {
            x.rows.push(s);
            continue;
        }
        let first_of_flow = !out
            .iter()
            .any(|(_, x)| x.rows[0].flow_index == s.flow_index);
        let label = if s.stream == s.flow {
            s.flow.to_string()
        } else {
            format!("{}/{}", s.flow, s.stream)
        };
        let index = s.stream_index as usize;
        out.push((
            s.stream_index,
            Stream {
                label,
                color: PALETTE[index % PALETTE.len()],
                first_of_flow,
                max_bitrate_mbps: input.max_bitrate_mbps.get(index).copied(),
                rows: vec![s],
            },
        ));
    }
    out.sort_by_key(|(i, _)| *i);
    out.into_iter().map(|(_, x)| x).collect()
}

/// The overview colour of flow `flow`: its first stream's.
pub(super) fn stream_color(input: &PlotInput<'_>, flow: usize) -> RGBColor {
    let stream = input
        .samples
        .iter()
        .find(|s| s.flow_index as usize == flow)
        .map_or(flow, |s| s.stream_index as usize);
    PALETTE[stream % PALETTE.len()]
}

/// Share of the period's received packets that were CE-marked, %.
fn ce_percent(s: &Sample) -> Option<f64> {
    (s.rx_packets > 0).then(|| 100.0 * s.ce_packets as f64 / s.rx_packets as f64)
}

/// Share of the period's packets (received or lost) that were lost, %.
fn loss_percent(s: &Sample) -> Option<f64> {
    let all = s.rx_packets + s.lost_packets;
    (all > 0).then(|| 100.0 * s.lost_packets as f64 / all as f64)
}

/// Whether a stream is sending at this row: idle periods are left blank.
fn active(s: &Sample) -> bool {
    s.target_mbps.is_some() || s.tx_mbps > 0.0 || s.rx_mbps > 0.0
}

fn series_of(rows: &[&Sample], value: impl Fn(&Sample) -> Option<f64>) -> Vec<(f64, f64)> {
    let points: Vec<(f64, f64)> = rows
        .iter()
        .filter(|s| active(s))
        .filter_map(|s| value(s).map(|v| (s.t_s, v)))
        .collect();
    min_max(&points, MAX_POINTS)
}

fn panels(streams: &[Stream<'_>]) -> Vec<Panel> {
    // The bottleneck capacity of each route, once per distinct route: flows on
    // different links have different bottlenecks.
    let mut capacities: Vec<Vec<(f64, f64)>> = Vec::new();
    for st in streams {
        let cap: Vec<(f64, f64)> = st
            .rows
            .iter()
            .filter(|s| s.capacity_mbps.is_finite())
            .map(|s| (s.t_s, s.capacity_mbps))
            .collect();
        let same = |c: &Vec<(f64, f64)>| c.iter().map(|p| p.1).eq(cap.iter().map(|p| p.1));
        if !cap.is_empty() && !capacities.iter().any(same) {
            capacities.push(cap);
        }
    }
    let mut rates: Vec<Series> = capacities
        .iter()
        .map(|cap| Series {
            points: min_max(cap, MAX_POINTS),
            color: CAPACITY,
            style: Style::Bold,
            reference: false,
        })
        .collect();
    let n_capacity = rates.len();
    if streams.len() > 1 {
        rates.push(Series {
            points: aggregate(streams),
            color: AGGREGATE,
            style: Style::Thin,
            reference: false,
        });
    }
    let (mut path, mut rtp, mut marks, mut window, mut srtt) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for st in streams {
        let c = st.color;
        let line = |points, style| Series {
            points,
            color: c,
            style,
            reference: false,
        };
        rates.push(line(series_of(&st.rows, |s| s.target_mbps), Style::Thin));
        rates.push(line(series_of(&st.rows, |s| Some(s.rx_mbps)), Style::Bold));
        if let (Some(max), Some(first), Some(last)) =
            (st.max_bitrate_mbps, st.rows.first(), st.rows.last())
        {
            rates.push(Series {
                reference: true,
                ..line(vec![(first.t_s, max), (last.t_s, max)], Style::Dashed)
            });
        }
        path.push(line(series_of(&st.rows, |s| s.sojourn_ms), Style::Bold));
        rtp.push(line(
            series_of(&st.rows, |s| s.rtp_queue_delay_ms),
            Style::Thin,
        ));
        marks.push(line(series_of(&st.rows, ce_percent), Style::Bold));
        marks.push(line(series_of(&st.rows, loss_percent), Style::Dashed));
        if st.first_of_flow {
            let kb = |v: Option<f64>| v.map(|b| b / 1000.0);
            window.push(line(
                series_of(&st.rows, |s| kb(s.bytes_in_flight)),
                Style::Thin,
            ));
            window.push(line(
                series_of(&st.rows, |s| kb(s.ref_window_bytes)),
                Style::Bold,
            ));
            srtt.push(line(series_of(&st.rows, |s| s.srtt_ms), Style::Bold));
        }
    }
    let peak_cap = rates[..n_capacity]
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(0.0, f64::max);
    // The capacities go on top of the flows, which would otherwise hide them.
    rates.rotate_left(n_capacity);
    let peak_flow = streams
        .iter()
        .flat_map(|s| {
            s.rows
                .iter()
                .map(|r| r.rx_mbps.max(r.target_mbps.unwrap_or(0.0)))
        })
        .fold(0.0, f64::max);
    let log = peak_flow > 0.0 && peak_cap > LOG_RATE_RATIO * peak_flow;
    let log_floor = 10f64.powf((peak_flow.max(1e-6).log10() - LOG_DECADES).floor());
    let linear = |y_label, series| Panel {
        y_label,
        log: false,
        log_floor,
        series,
    };
    vec![
        Panel {
            y_label: "rate (Mbit/s)",
            log,
            log_floor,
            series: rates,
        },
        linear("path queue delay (ms)", path),
        linear("RTP queue delay (ms)", rtp),
        linear("CE / lost (%)", marks),
        linear("window (kB)", window),
        linear("sRTT (ms)", srtt),
    ]
}

/// Sum of the streams' received rates at each sampling instant.
fn aggregate(streams: &[Stream<'_>]) -> Vec<(f64, f64)> {
    let mut sums: Vec<(f64, f64)> = Vec::new();
    for st in streams {
        for s in &st.rows {
            match sums.binary_search_by(|p| p.0.total_cmp(&s.t_s)) {
                Ok(i) => sums[i].1 += s.rx_mbps,
                Err(i) => sums.insert(i, (s.t_s, s.rx_mbps)),
            }
        }
    }
    min_max(&sums, MAX_POINTS)
}

/// The top of a panel's y range (reference lines left out), and whether it cuts off
/// a lone spike (see [`robust_top`]).
fn y_top(panel: &Panel) -> (f64, bool) {
    let ys: Vec<f64> = panel
        .series
        .iter()
        .filter(|s| !s.reference)
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .collect();
    if panel.log {
        let max = ys
            .iter()
            .copied()
            .filter(|y| y.is_finite())
            .fold(0.0, f64::max);
        return (max.max(1e-9), false);
    }
    let (top, clipped) = robust_top(ys);
    (if top > 0.0 { top * 1.05 } else { 1.0 }, clipped)
}

fn tick(v: f64, range: f64) -> String {
    if range >= 10.0 {
        format!("{v:.0}")
    } else if range >= 1.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// Draws the overview of `input` on `root`.
pub(super) fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    input: &PlotInput<'_>,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let streams = streams(input);
    let panels = panels(&streams);
    let x_max = input
        .samples
        .iter()
        .map(|s| s.t_s)
        .fold(0.0_f64, f64::max)
        .max(1e-9);
    let (w, h) = root.dim_in_pixel();
    let (body, footer) = root.split_vertically(h - FOOTER_H);
    let (main, legend) = body.split_horizontally(w - LEGEND_W);
    let main = main
        .margin(8, 0, 0, 0)
        .titled(&format!("{} — overview", input.scenario_name), (FONT, 24))?;
    let n = panels.len();
    let areas = main.split_evenly((n, 1));
    for (i, (panel, area)) in panels.iter().zip(areas.iter()).enumerate() {
        let last = i + 1 == n;
        draw_panel(area, panel, x_max, last)?;
    }
    draw_legend(&legend, &streams)?;
    footer.draw(&Text::new(
        input.footer.to_owned(),
        (12, 6),
        (FONT, 14).into_font().color(&BLACK.mix(0.7)),
    ))?;
    Ok(())
}

fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    panel: &Panel,
    x_max: f64,
    last: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (top, clipped) = y_top(panel);
    let floor = panel.log_floor;
    let map = |y: f64| if panel.log { y.max(floor).log10() } else { y };
    let (y_lo, y_hi) = if panel.log {
        (floor.log10(), top.max(floor * 10.0).log10() + 0.1)
    } else {
        (0.0, top)
    };
    let label = if clipped {
        format!("{} (cut at {})", panel.y_label, tick(top, top))
    } else if panel.log {
        format!("{} (log)", panel.y_label)
    } else {
        panel.y_label.to_owned()
    };
    let mut chart = ChartBuilder::on(area)
        .margin_left(8)
        .margin_right(12)
        .margin_top(6)
        .x_label_area_size(if last { 40 } else { 6 })
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..x_max, y_lo..y_hi)?;
    let log = panel.log;
    let y_fmt = move |y: &f64| {
        if log {
            let v = 10f64.powf(*y);
            if v >= 1.0 {
                format!("{v:.0}")
            } else {
                format!("{v}")
            }
        } else {
            tick(*y, y_hi - y_lo)
        }
    };
    let x_fmt = |x: &f64| tick(*x, x_max);
    let mut mesh = chart.configure_mesh();
    mesh.y_label_formatter(&y_fmt)
        .x_label_formatter(&x_fmt)
        .y_desc(label.as_str())
        .axis_desc_style((FONT, 14))
        .label_style((FONT, 13))
        .light_line_style(WHITE.mix(0.0))
        .bold_line_style(BLACK.mix(0.08))
        .y_labels(5)
        .x_labels(12);
    if last {
        mesh.x_desc("time (s)");
    } else {
        mesh.x_label_formatter(&|_| String::new());
    }
    mesh.draw()?;
    for s in &panel.series {
        if s.reference && s.points.iter().any(|p| p.1 > top) {
            continue;
        }
        let points = s.points.iter().map(|&(x, y)| (x, map(y.min(top))));
        let style = ShapeStyle {
            color: s.color.to_rgba(),
            filled: false,
            stroke_width: 1,
        };
        match s.style {
            Style::Bold => {
                chart.draw_series(LineSeries::new(points.clone(), style))?;
                // A second line one pixel up: plotters joins thick bitmap lines with
                // unbounded miters, which turns noise into long spikes.
                let px = (y_hi - y_lo) / f64::from(area.dim_in_pixel().1.max(1));
                chart.draw_series(LineSeries::new(points.map(|(x, y)| (x, y + px)), style))?;
            }
            Style::Thin => {
                let thin = ShapeStyle {
                    color: s.color.mix(0.55),
                    ..style
                };
                chart.draw_series(LineSeries::new(points, thin))?;
            }
            Style::Dashed => {
                chart.draw_series(DashedLineSeries::new(points, 6, 4, style))?;
            }
        }
    }
    Ok(())
}

fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    streams: &[Stream<'_>],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let font = (FONT, 14).into_font();
    let mut y = 50;
    let entry = |color: RGBAColor, style: Style, text: String, y: i32| {
        let line = match style {
            Style::Bold => ShapeStyle::from(color).stroke_width(3),
            Style::Thin => ShapeStyle::from(color).stroke_width(1),
            Style::Dashed => ShapeStyle::from(color).stroke_width(1),
        };
        let mut r = match style {
            // Dashes, as the panels draw them.
            Style::Dashed => [(8, 14), (18, 24), (28, 34)]
                .into_iter()
                .try_for_each(|(a, b)| area.draw(&PathElement::new(vec![(a, y), (b, y)], line))),
            _ => area.draw(&PathElement::new(vec![(8, y), (36, y)], line)),
        };
        if r.is_ok() {
            r = area.draw(&Text::new(text, (44, y - 8), font.clone()));
        }
        r
    };
    entry(
        CAPACITY.to_rgba(),
        Style::Bold,
        "route capacity".to_owned(),
        y,
    )?;
    y += 22;
    if streams.len() > 1 {
        entry(
            AGGREGATE.to_rgba(),
            Style::Thin,
            "all streams".to_owned(),
            y,
        )?;
        y += 22;
    }
    for st in streams.iter().take(PALETTE.len()) {
        entry(st.color.to_rgba(), Style::Bold, st.label.clone(), y)?;
        y += 20;
    }
    if streams.len() > PALETTE.len() {
        let more = format!("(+{} more, colours repeat)", streams.len() - PALETTE.len());
        entry(WHITE.to_rgba(), Style::Thin, more, y)?;
        y += 20;
    }
    y += 16;
    let grey = BLACK.mix(0.6);
    entry(grey, Style::Bold, "received / path delay".to_owned(), y)?;
    y += 20;
    entry(grey, Style::Thin, "target / RTP queue".to_owned(), y)?;
    y += 20;
    entry(grey, Style::Dashed, "max bitrate / lost".to_owned(), y)?;
    y += 20;
    entry(grey, Style::Thin, "bytes in flight".to_owned(), y)?;
    Ok(())
}
