//! One time-series chart: a backend-independent description and its drawing.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::FONT;

/// How a line is stroked.
#[derive(Debug, Clone, Copy)]
pub(super) enum Stroke {
    Solid(u32),
    Dashed,
}

/// One labelled line.
#[derive(Debug, Clone)]
pub(super) struct Line {
    pub(super) label: String,
    pub(super) points: Vec<(f64, f64)>,
    pub(super) color: RGBColor,
    pub(super) stroke: Stroke,
}

/// A chart of lines against time.
#[derive(Debug, Clone)]
pub(super) struct Figure {
    pub(super) title: String,
    pub(super) y_label: String,
    pub(super) x_max_s: f64,
    pub(super) lines: Vec<Line>,
}

/// Approximate height of the plotting area in pixels and of one legend row: the y range
/// is stretched so the legend (upper right) sits above the data, not on it.
const PLOT_HEIGHT_PX: f64 = 500.0;
const PLOT_WIDTH_PX: f64 = 990.0;
const LEGEND_ROW_PX: f64 = 21.0;
const LEGEND_PADDING_PX: f64 = 30.0;

/// A y range taller than this many times the 95th percentile of the values is cut at
/// [`CLIP_HEADROOM`] times that percentile: one outage spike of a second would
/// otherwise flatten the milliseconds that the rest of the run is about. (The 95th, not
/// the 99th: a one-second spike in a 100 s run is more than 1 % of its points.)
const CLIP_RATIO: f64 = 4.0;
const CLIP_HEADROOM: f64 = 2.0;

/// The top of a y range over `ys`, and whether higher values are cut off.
pub(super) fn robust_top(mut ys: Vec<f64>) -> (f64, bool) {
    ys.retain(|y| y.is_finite());
    let max = ys.iter().copied().fold(0.0_f64, f64::max);
    if ys.is_empty() {
        return (max, false);
    }
    let k = (ys.len() * 95 / 100).min(ys.len() - 1);
    let p95 = *ys.select_nth_unstable_by(k, f64::total_cmp).1;
    if p95 > 0.0 && max > CLIP_RATIO * p95 {
        (CLIP_HEADROOM * p95, true)
    } else {
        (max, false)
    }
}

/// The top of the y range, and whether higher values are cut off.
fn y_range(fig: &Figure) -> (f64, bool) {
    robust_top(
        fig.lines
            .iter()
            .flat_map(|l| l.points.iter().map(|p| p.1))
            .collect(),
    )
}

pub(super) fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    fig: &Figure,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let (y_top, clipped) = y_range(fig);
    let caption = if clipped {
        format!(
            "{} (peaks above {} cut off)",
            fig.title,
            tick_label(y_top, y_top)
        )
    } else {
        fig.title.clone()
    };
    let y_data_top = y_top;
    let rows = u32::try_from(fig.lines.len()).unwrap_or(u32::MAX);
    let legend_share =
        ((f64::from(rows) * LEGEND_ROW_PX + LEGEND_PADDING_PX) / PLOT_HEIGHT_PX).min(0.6);
    let y_top = if y_top > 0.0 {
        y_top / (1.0 - legend_share)
    } else {
        1.0
    };
    let x_max = if fig.x_max_s > 0.0 { fig.x_max_s } else { 1.0 };

    let mut chart = ChartBuilder::on(root)
        .caption(&caption, (FONT, 24))
        .margin(12)
        .x_label_area_size(50)
        .y_label_area_size(80)
        .build_cartesian_2d(0.0..x_max, 0.0..y_top)?;
    let x_fmt = |x: &f64| tick_label(*x, x_max);
    let y_fmt = |y: &f64| tick_label(*y, y_top);
    chart
        .configure_mesh()
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt)
        .x_desc("time (s)")
        .y_desc(fig.y_label.as_str())
        .axis_desc_style((FONT, 18))
        .label_style((FONT, 16))
        .light_line_style(WHITE.mix(0.0))
        .bold_line_style(BLACK.mix(0.08))
        .x_labels(12)
        .y_labels(8)
        .draw()?;

    // One pixel of the plotting area in data units, for drawing thick lines as two thin
    // ones: plotters joins thick bitmap lines with unbounded miters, which turns every
    // sharp turn of a noisy series into a long spike.
    let (px_x, px_y) = (x_max / PLOT_WIDTH_PX, y_top / PLOT_HEIGHT_PX);
    for line in &fig.lines {
        let style = ShapeStyle {
            color: line.color.to_rgba(),
            filled: false,
            stroke_width: 1,
        };
        // Cut-off values run along the top edge.
        let clip = |(x, y): (f64, f64)| (x, y.min(y_data_top));
        let points = line.points.iter().copied().map(clip);
        let series = match line.stroke {
            Stroke::Solid(width) => {
                for k in 1..width {
                    let offset = f64::from(k);
                    let shifted = line
                        .points
                        .iter()
                        .copied()
                        .map(clip)
                        .map(|(x, y)| (x + offset * px_x, y + offset * px_y));
                    chart.draw_series(LineSeries::new(shifted, style))?;
                }
                chart.draw_series(LineSeries::new(points, style))?
            }
            Stroke::Dashed => chart.draw_series(DashedLineSeries::new(points, 8, 5, style))?,
        };
        let legend_style = match line.stroke {
            Stroke::Solid(w) => style.stroke_width(w),
            Stroke::Dashed => style,
        };
        series
            .label(line.label.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], legend_style));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .label_font((FONT, 15))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.4))
        .draw()?;
    Ok(())
}

/// A tick label with as many decimals as the axis range needs (none above 10).
pub(super) fn tick_label(value: f64, range: f64) -> String {
    if range >= 10.0 {
        format!("{value:.0}")
    } else if range >= 1.0 {
        format!("{value:.1}")
    } else {
        format!("{value:.2}")
    }
}

#[cfg(test)]
mod y_range_tests {
    use super::*;

    fn figure(ys: &[f64]) -> Figure {
        Figure {
            title: "t".into(),
            y_label: "y".into(),
            x_max_s: 1.0,
            lines: vec![Line {
                label: "l".into(),
                points: ys.iter().enumerate().map(|(i, y)| (i as f64, *y)).collect(),
                color: RGBColor(0, 0, 0),
                stroke: Stroke::Solid(1),
            }],
        }
    }

    #[test]
    fn a_lone_spike_is_cut_off_and_ordinary_ranges_are_not() {
        let mut ys: Vec<f64> = (0..1000).map(|i| f64::from(i % 10)).collect();
        assert_eq!(y_range(&figure(&ys)), (9.0, false));
        ys[500] = 1000.0;
        let (top, clipped) = y_range(&figure(&ys));
        assert!(clipped);
        assert!((top - 2.0 * 9.0).abs() < 1e-9, "{top}");
        // A range that is wide everywhere is kept whole.
        let wide: Vec<f64> = (0..1000).map(f64::from).collect();
        assert_eq!(y_range(&figure(&wide)), (999.0, false));
    }
}
