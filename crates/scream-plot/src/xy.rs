//! Charts of a sweep's results (`scream report`): lines over an index (a parameter's
//! transition, an experiment number) and scatter plots, in the palette and fonts of
//! the run plots. The legend sits in a panel right of the plotting area, so however
//! many lines there are, it never covers one.

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

use super::palette::PALETTE;
use super::{FONT, PlotError};

/// Figure size in pixels (PNG) or user units (SVG).
const SIZE: (u32, u32) = (1100, 600);
/// Legend panel width per character of the longest label, and its bounds, px.
const LEGEND_PX_PER_CHAR: u32 = 9;
const LEGEND_MIN_PX: u32 = 150;
const LEGEND_MAX_PX: u32 = 380;
/// Above this many points a line is drawn without its markers, which would merge.
const MARKERS_UP_TO: usize = 60;

/// How a series is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// A line through the points, with markers while they are few.
    Line,
    /// Small hollow markers only.
    Scatter,
    /// Large filled markers joined by a dashed line (a Pareto front over a scatter).
    Front,
    /// Large filled markers, each with the series' label beside it (one point per
    /// compared run, where the legend alone would send the eye back and forth).
    Labelled,
}

/// One labelled series.
#[derive(Debug, Clone)]
pub struct Series {
    /// Legend text.
    pub label: String,
    /// (x, y) points, in drawing order.
    pub points: Vec<(f64, f64)>,
    /// Index into the palette (it wraps around).
    pub color: usize,
    /// How the points are drawn.
    pub style: Style,
    /// Vertical error bars: for each point, half the bar's height in y units (a
    /// confidence interval's half width); empty, or 0 or NaN at a point: no bar.
    pub y_errors: Vec<f64>,
    /// Horizontal error bars, in x units, likewise.
    pub x_errors: Vec<f64>,
}

impl Series {
    /// A series without error bars.
    pub fn new(label: String, points: Vec<(f64, f64)>, color: usize, style: Style) -> Self {
        Self {
            label,
            points,
            color,
            style,
            y_errors: Vec::new(),
            x_errors: Vec::new(),
        }
    }

    /// The points with their error bars, as `(x, y, x half width, y half width)`; a
    /// missing or unusable half width is 0.
    fn with_errors(&self) -> impl Iterator<Item = (f64, f64, f64, f64)> + '_ {
        let usable = |v: Option<&f64>| v.copied().filter(|e| e.is_finite() && *e > 0.0);
        self.points.iter().enumerate().map(move |(i, &(x, y))| {
            (
                x,
                y,
                usable(self.x_errors.get(i)).unwrap_or(0.0),
                usable(self.y_errors.get(i)).unwrap_or(0.0),
            )
        })
    }
}

/// A chart of series.
#[derive(Debug, Clone)]
pub struct XyChart {
    /// Title above the plotting area.
    pub title: String,
    /// Label of the x axis.
    pub x_label: String,
    /// Label of the y axis.
    pub y_label: String,
    /// The x values are indexes: ticks only at whole numbers.
    pub x_is_index: bool,
    /// The series, drawn in order (later ones on top).
    pub series: Vec<Series>,
}

/// Writes `chart` as `<name>.png` and `<name>.svg` into `dir`; returns the paths.
pub fn write(chart: &XyChart, dir: &Path, name: &str) -> Result<Vec<PathBuf>, PlotError> {
    write_as(chart, dir, name, false)
}

/// As [`write()`], with the x axis reversed (its values fall to the right): a delay axis
/// drawn so, as in throughput–delay charts, puts the better runs top right.
pub fn write_x_reversed(
    chart: &XyChart,
    dir: &Path,
    name: &str,
) -> Result<Vec<PathBuf>, PlotError> {
    write_as(chart, dir, name, true)
}

fn write_as(
    chart: &XyChart,
    dir: &Path,
    name: &str,
    x_reversed: bool,
) -> Result<Vec<PathBuf>, PlotError> {
    super::register_font();
    let png = super::render_png(SIZE, name, |root| draw(root, chart, true, x_reversed))?;
    let svg = super::render_svg(SIZE, name, |root| draw(root, chart, false, x_reversed))?;
    let png_path = dir.join(format!("{name}.png"));
    let svg_path = dir.join(format!("{name}.svg"));
    super::write_file(&png_path, &png)?;
    super::write_file(&svg_path, svg.as_bytes())?;
    Ok(vec![png_path, svg_path])
}

/// `[low, high]` around `values` with a margin; a range that starts near 0 starts at 0
/// (bars of a throughput read against zero), and a flat one gets some height.
fn padded(values: impl Iterator<Item = f64>, index: bool) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
    if lo > hi {
        return (0.0, 1.0);
    }
    if index {
        return (lo - 0.5, hi + 0.5);
    }
    let span = if hi > lo {
        hi - lo
    } else {
        hi.abs().max(1e-9) * 0.2
    };
    let low = if lo >= 0.0 && lo - 0.08 * span <= 0.0 {
        0.0
    } else {
        lo - 0.08 * span
    };
    (low, hi + 0.08 * span)
}

fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// `bitmap`: the backend joins thick lines badly (see below), so lines are thin copies.
fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &XyChart,
    bitmap: bool,
    x_reversed: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let root = root.titled(&chart.title, (FONT, 22))?;
    let longest = chart
        .series
        .iter()
        .map(|s| s.label.chars().count())
        .max()
        .unwrap_or(0);
    let legend_w = (u32::try_from(longest).unwrap_or(u32::MAX))
        .saturating_mul(LEGEND_PX_PER_CHAR)
        .saturating_add(60)
        .clamp(LEGEND_MIN_PX, LEGEND_MAX_PX);
    let (width, _) = root.dim_in_pixel();
    let (plot_area, legend_area) = root.split_horizontally(width.saturating_sub(legend_w));
    // The ranges hold the error bars' ends too.
    let all = || chart.series.iter().flat_map(Series::with_errors);
    let x = padded(
        all().flat_map(|(x, _, e, _)| [x - e, x + e]),
        chart.x_is_index,
    );
    let y = padded(all().flat_map(|(_, y, _, e)| [y - e, y + e]), false);
    // plotters maps a range that runs high to low as it is given, ticks included.
    let x_range = if x_reversed { x.1..x.0 } else { x.0..x.1 };
    let mut cc = ChartBuilder::on(&plot_area)
        .margin(14)
        .x_label_area_size(50)
        .y_label_area_size(80)
        .build_cartesian_2d(x_range, y.0..y.1)?;
    let x_span = x.1 - x.0;
    let y_span = y.1 - y.0;
    let x_fmt = |v: &f64| {
        if chart.x_is_index {
            // Only whole ticks name an index; the others stay blank.
            let r = v.round();
            if (v - r).abs() < 1e-6 && r >= 0.0 {
                format!("{r:.0}")
            } else {
                String::new()
            }
        } else {
            super::chart::tick_label(*v, x_span)
        }
    };
    let y_fmt = |v: &f64| super::chart::tick_label(*v, y_span);
    let x_ticks = if chart.x_is_index {
        // One tick per index while they fit, so none is skipped or halved.
        usize::try_from(x_span.round() as i64)
            .unwrap_or(1)
            .clamp(1, 12)
    } else {
        10
    };
    cc.configure_mesh()
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt)
        .x_desc(chart.x_label.as_str())
        .y_desc(chart.y_label.as_str())
        .axis_desc_style((FONT, 17))
        .label_style((FONT, 15))
        .light_line_style(WHITE.mix(0.0))
        .bold_line_style(BLACK.mix(0.08))
        .x_labels(x_ticks)
        .y_labels(8)
        .draw()?;
    // One pixel in data units. On a bitmap a line two pixels wide is drawn as thin
    // copies one pixel right and one up, because plotters joins thick bitmap lines with
    // unbounded miters, which turns every sharp turn of a dense series into a spike.
    let (w_px, h_px) = cc.plotting_area().dim_in_pixel();
    let px = (
        x_span / f64::from(w_px.max(1)),
        y_span / f64::from(h_px.max(1)),
    );
    let copies: &[(f64, f64)] = if bitmap {
        &[(0.0, 0.0), (1.0, 0.0), (0.0, 1.0)]
    } else {
        &[(0.0, 0.0)]
    };
    for s in &chart.series {
        draw_error_bars(&mut cc, s, px)?;
    }
    for s in &chart.series {
        let c = color(s.color);
        let line = ShapeStyle::from(c).stroke_width(if bitmap { 1 } else { 2 });
        let pts = s.points.iter().copied();
        match s.style {
            Style::Line => {
                for &(dx, dy) in copies {
                    let shifted = pts.clone().map(|(x, y)| (x + dx * px.0, y + dy * px.1));
                    cc.draw_series(LineSeries::new(shifted, line))?;
                }
                if s.points.len() <= MARKERS_UP_TO {
                    cc.draw_series(pts.map(|p| Circle::new(p, 4, c.filled())))?;
                }
            }
            Style::Scatter => {
                let hollow = ShapeStyle::from(c.mix(0.7)).stroke_width(1);
                cc.draw_series(pts.map(|p| Circle::new(p, 4, hollow)))?;
            }
            Style::Front => {
                let mut sorted = s.points.clone();
                sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
                let dashes = ShapeStyle::from(c).stroke_width(2);
                cc.draw_series(DashedLineSeries::new(sorted, 6, 4, dashes))?;
                cc.draw_series(pts.map(|p| {
                    EmptyElement::at(p)
                        + Circle::new((0, 0), 7, c.filled())
                        + Circle::new((0, 0), 7, BLACK.stroke_width(1))
                }))?;
            }
            Style::Labelled => {
                let text = TextStyle::from((FONT, 15)).color(&BLACK);
                cc.draw_series(pts.map(|p| {
                    EmptyElement::at(p)
                        + Circle::new((0, 0), 7, c.filled())
                        + Circle::new((0, 0), 7, BLACK.stroke_width(1))
                        + Text::new(s.label.clone(), (11, -20), text.clone())
                }))?;
            }
        }
    }
    draw_legend(&legend_area, chart)
}

/// Half the width of an error bar's cap, px.
const CAP_PX: f64 = 5.0;

/// The series' error bars, under its marks: a line from `v - e` to `v + e` with a cap
/// across each end, in the series' colour, lighter. `px` is one pixel in data units.
fn draw_error_bars<DB: DrawingBackend>(
    cc: &mut ChartContext<'_, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    s: &Series,
    px: (f64, f64),
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let style = ShapeStyle::from(color(s.color).mix(0.75)).stroke_width(1);
    let (cap_x, cap_y) = (CAP_PX * px.0, CAP_PX * px.1);
    let mut segments: Vec<[(f64, f64); 2]> = Vec::new();
    for (x, y, ex, ey) in s.with_errors() {
        if ey > 0.0 {
            segments.push([(x, y - ey), (x, y + ey)]);
            segments.push([(x - cap_x, y - ey), (x + cap_x, y - ey)]);
            segments.push([(x - cap_x, y + ey), (x + cap_x, y + ey)]);
        }
        if ex > 0.0 {
            segments.push([(x - ex, y), (x + ex, y)]);
            segments.push([(x - ex, y - cap_y), (x - ex, y + cap_y)]);
            segments.push([(x + ex, y - cap_y), (x + ex, y + cap_y)]);
        }
    }
    cc.draw_series(
        segments
            .into_iter()
            .map(|seg| PathElement::new(seg.to_vec(), style)),
    )?;
    Ok(())
}

/// The legend: one row per series, a sample of its mark and its label.
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &XyChart,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    const ROW_PX: i32 = 24;
    const TOP_PX: i32 = 40;
    let text = TextStyle::from((FONT, 15)).color(&BLACK);
    for (row, s) in chart.series.iter().enumerate() {
        let y = TOP_PX + ROW_PX * i32::try_from(row).unwrap_or(i32::MAX / ROW_PX - 1);
        let c = color(s.color);
        match s.style {
            Style::Line => {
                area.draw(&PathElement::new(
                    vec![(8, y), (36, y)],
                    ShapeStyle::from(c).stroke_width(2),
                ))?;
                if s.points.len() <= MARKERS_UP_TO {
                    area.draw(&Circle::new((22, y), 4, c.filled()))?;
                }
            }
            Style::Scatter => {
                area.draw(&Circle::new(
                    (22, y),
                    4,
                    ShapeStyle::from(c).stroke_width(1),
                ))?;
            }
            Style::Front | Style::Labelled => {
                area.draw(&Circle::new((22, y), 7, c.filled()))?;
                area.draw(&Circle::new((22, y), 7, BLACK.stroke_width(1)))?;
            }
        }
        area.draw(&Text::new(s.label.clone(), (44, y - 8), text.clone()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_pad_their_data_and_start_near_zero_at_zero() {
        assert_eq!(padded([2.0, 4.0].into_iter(), true), (1.5, 4.5));
        let (lo, hi) = padded([10.0, 20.0].into_iter(), false);
        assert!(
            (lo - 9.2).abs() < 1e-9 && (hi - 20.8).abs() < 1e-9,
            "{lo} {hi}"
        );
        assert_eq!(padded([0.1, 20.0].into_iter(), false).0, 0.0);
        let (lo, hi) = padded([5.0, 5.0].into_iter(), false);
        assert!(lo < 5.0 && hi > 5.0);
        assert_eq!(padded(std::iter::empty(), false), (0.0, 1.0));
    }

    #[test]
    fn error_bars_widen_the_range_and_unusable_ones_are_left_out() {
        let s = Series {
            y_errors: vec![3.0, f64::NAN, -1.0],
            x_errors: vec![0.25],
            ..Series::new(
                "a".into(),
                vec![(0.0, 10.0), (1.0, 11.0), (2.0, 12.0)],
                0,
                Style::Line,
            )
        };
        let bars: Vec<(f64, f64, f64, f64)> = s.with_errors().collect();
        assert_eq!(
            bars,
            [
                (0.0, 10.0, 0.25, 3.0),
                (1.0, 11.0, 0.0, 0.0),
                (2.0, 12.0, 0.0, 0.0)
            ]
        );
        let ys = bars.iter().flat_map(|&(_, y, _, e)| [y - e, y + e]);
        let (lo, hi) = padded(ys, false);
        assert!(lo < 7.0 && hi > 13.0, "{lo} {hi}");
    }

    #[test]
    fn a_chart_is_written_as_png_and_svg() {
        let dir = std::env::temp_dir().join(format!("scream-xy-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let chart = XyChart {
            title: "t".into(),
            x_label: "transition".into(),
            y_label: "throughput (Mbit/s)".into(),
            x_is_index: true,
            series: vec![
                Series {
                    y_errors: vec![0.5, f64::NAN],
                    ..Series::new("a".into(), vec![(0.0, 1.0), (1.0, 2.0)], 0, Style::Line)
                },
                Series::new("front".into(), vec![(0.0, 1.0)], 1, Style::Front),
            ],
        };
        let files = write(&chart, &dir, "x").expect("drawn");
        assert_eq!(files.len(), 2);
        let svg = std::fs::read_to_string(&files[1]).expect("svg");
        assert!(svg.contains("throughput (Mbit/s)"));
        std::fs::remove_dir_all(&dir).ok();
    }
}
