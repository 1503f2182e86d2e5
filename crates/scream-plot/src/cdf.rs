//! The delay CDFs: for each flow, the cumulative distribution of its frame delay and
//! of its packets' path queue delay, side by side, in the flow's overview colour.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::overview::stream_color;
use super::{FONT, PlotInput};

/// CDF figure size in pixels (PNG) or user units (SVG).
pub(super) const SIZE: (u32, u32) = (1200, 560);
/// The delay axis ends a little past the largest 99th percentile among the flows:
/// the last percent of a distribution (an outage's backlog) would otherwise squeeze
/// the rest against the left edge.
const TAIL_QUANTILE: f64 = 0.99;

/// Draws the delay CDFs of `input` on `root`.
pub(super) fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    input: &PlotInput<'_>,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let root = root.titled(
        &format!("{} — delay distributions", input.scenario_name),
        (FONT, 24),
    )?;
    let (left, right) = root.split_horizontally(root.dim_in_pixel().0 / 2);
    let frame = |c: &super::FlowCdf| c.frame_delay_ms.clone();
    let queue = |c: &super::FlowCdf| c.queue_delay_ms.clone();
    panel(&left, input, "frame delay (ms)", frame)?;
    panel(&right, input, "path queue delay (ms)", queue)?;
    Ok(())
}

fn panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    input: &PlotInput<'_>,
    x_label: &str,
    curve: impl Fn(&super::FlowCdf) -> Vec<(f64, f64)>,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let curves: Vec<(usize, Vec<(f64, f64)>)> = input
        .cdfs
        .iter()
        .enumerate()
        .map(|(i, c)| (i, curve(c)))
        .filter(|(_, c)| !c.is_empty())
        .collect();
    let tail = curves
        .iter()
        .filter_map(|(_, c)| c.iter().find(|p| p.1 >= TAIL_QUANTILE).map(|p| p.0))
        .fold(0.0_f64, f64::max);
    let x_max = if tail > 0.0 { tail * 1.1 } else { 1.0 };
    let mut chart = ChartBuilder::on(area)
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(55)
        .build_cartesian_2d(0.0..x_max, 0.0..1.0)?;
    let x_desc = format!("{x_label}, up to the largest 99th percentile");
    chart
        .configure_mesh()
        .x_desc(x_desc.as_str())
        .y_desc("fraction at or below")
        .axis_desc_style((FONT, 15))
        .label_style((FONT, 13))
        .light_line_style(WHITE.mix(0.0))
        .bold_line_style(BLACK.mix(0.08))
        .draw()?;
    for (flow, points) in curves {
        let color = stream_color(input, flow);
        let style = ShapeStyle::from(color).stroke_width(2);
        let label = input.cdfs[flow].flow.clone();
        let visible = points.into_iter().map(|(x, y)| (x.min(x_max), y));
        chart
            .draw_series(LineSeries::new(visible, style))?
            .label(label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
    }
    if input.cdfs.len() > 1 {
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .label_font((FONT, 13))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.4))
            .draw()?;
    }
    Ok(())
}
