//! PNG and SVG plots of one run: the stacked `overview` (every quantity on one shared
//! time axis, one colour per stream, the run's identity in a footer), and single
//! figures in the style of the published SCReAM figures: capacity vs throughput vs
//! target, queue delays, congestion window (V2: reference window) vs bytes in flight, and smoothed RTT.
//!
//! Text is drawn with the bundled DejaVu Sans (assets/fonts), so rendering needs no
//! system font.
//!
//! The crate knows rows, not simulators: [`PlotInput`] carries the time series
//! ([`Sample`] of `scream-records`) and whatever else a figure shows, filled by the
//! caller, so a simulated run and a real-network run draw the same figures.
//! [`write_plots`] draws one run (the files of [`PLOT_NAMES`]), [`write_figures`] some
//! of its single figures, [`xy`] the line charts of sweeps and reports, and
//! [`compare`] several runs on one set of axes.

#![warn(missing_docs)]

mod cdf;
mod chart;
pub mod compare;
mod decimate;
mod figures;
mod overview;
mod palette;
pub mod xy;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::prelude::*;

pub use scream_records::{FlowCdf, Sample};

/// Font family name the bundled font is registered under.
const FONT: &str = "sans-serif";
static FONT_BYTES: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans.ttf");

/// Plot size in pixels (PNG) or user units (SVG).
const SIZE: (u32, u32) = (1100, 620);

/// Why a plot could not be written.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// Drawing failed (a backend or font problem).
    #[error("cannot draw {file}: {message}")]
    Draw {
        /// The plot file being drawn.
        file: String,
        /// The backend's message.
        message: String,
    },
    /// The file could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// What the plots show: one run's samples with the names to put on them.
#[derive(Debug, Clone, Copy)]
pub struct PlotInput<'a> {
    /// Scenario name, shown in every title.
    pub scenario_name: &'a str,
    /// Samples of all flows, in time order.
    pub samples: &'a [Sample],
    /// Printed at the foot of the overview: what produced the run (scenario, seed,
    /// version).
    pub footer: &'a str,
    /// Highest target bitrate of each stream, Mbit/s, by global stream index (flows in
    /// order, each flow's streams in order); drawn as a dashed line in the overview.
    /// Empty (or short) when unknown: no line for those streams.
    pub max_bitrate_mbps: &'a [f64],
    /// Each flow's delay distributions; empty when the run has none (the `delay_cdf`
    /// figure then shows empty axes).
    pub cdfs: &'a [FlowCdf],
}

/// The base names of the plots [`write_plots`] produces; each is written as `.png` and
/// `.svg`.
pub const PLOT_NAMES: [&str; 6] = [
    "overview",
    "delay_cdf",
    "throughput",
    "delay",
    "window",
    "rtt",
];

/// Writes the stacked `overview`, the `delay_cdf` of each flow and the single figures
/// `throughput`, `delay`, `window` and `rtt` as PNG and SVG into `dir` (which must exist). Returns the files
/// written.
pub fn write_plots(input: &PlotInput<'_>, dir: &Path) -> Result<Vec<PathBuf>, PlotError> {
    register_font();
    let mut written = Vec::new();
    let mut write = |name: &str, png: Vec<u8>, svg: String| -> Result<(), PlotError> {
        let png_path = dir.join(format!("{name}.png"));
        write_file(&png_path, &png)?;
        let svg_path = dir.join(format!("{name}.svg"));
        write_file(&svg_path, svg.as_bytes())?;
        written.extend([png_path, svg_path]);
        Ok(())
    };
    let name = "overview";
    let png = render_png(overview::SIZE, name, |root| overview::draw(root, input))?;
    let svg = render_svg(overview::SIZE, name, |root| overview::draw(root, input))?;
    write(name, png, svg)?;
    let name = "delay_cdf";
    let png = render_png(cdf::SIZE, name, |root| cdf::draw(root, input))?;
    let svg = render_svg(cdf::SIZE, name, |root| cdf::draw(root, input))?;
    write(name, png, svg)?;
    let data = figures::Data::new(input);
    for (name, figure) in figures::all(&data) {
        let png = render_png(SIZE, name, |root| chart::draw(root, &figure))?;
        let svg = render_svg(SIZE, name, |root| chart::draw(root, &figure))?;
        write(name, png, svg)?;
    }
    Ok(written)
}

/// Writes the single figures of [`PLOT_NAMES`] named in `names` (`throughput`,
/// `delay`, `window`, `rtt`) as PNG and SVG into `dir` (which must exist). Returns the
/// files written.
pub fn write_figures(
    input: &PlotInput<'_>,
    dir: &Path,
    names: &[&str],
) -> Result<Vec<PathBuf>, PlotError> {
    register_font();
    let data = figures::Data::new(input);
    let mut written = Vec::new();
    for (name, figure) in figures::all(&data) {
        if !names.contains(&name) {
            continue;
        }
        let png = render_png(SIZE, name, |root| chart::draw(root, &figure))?;
        let png_path = dir.join(format!("{name}.png"));
        write_file(&png_path, &png)?;
        let svg = render_svg(SIZE, name, |root| chart::draw(root, &figure))?;
        let svg_path = dir.join(format!("{name}.svg"));
        write_file(&svg_path, svg.as_bytes())?;
        written.extend([png_path, svg_path]);
    }
    Ok(written)
}

fn register_font() {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    REGISTERED.get_or_init(|| register_font_bytes(FONT, FONT_BYTES));
}

fn register_font_bytes(name: &str, bytes: &'static [u8]) -> bool {
    plotters::style::register_font(name, FontStyle::Normal, bytes).is_ok()
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<(), PlotError> {
    scream_records::write_atomic(path, bytes).map_err(|source| PlotError::Write {
        path: path.to_path_buf(),
        source,
    })
}

fn draw_error(file: &str, e: impl std::fmt::Display) -> PlotError {
    PlotError::Draw {
        file: file.to_owned(),
        message: e.to_string(),
    }
}

fn render_png<F>(size: (u32, u32), name: &str, draw: F) -> Result<Vec<u8>, PlotError>
where
    F: for<'b> FnOnce(
        &DrawingArea<BitMapBackend<'b>, plotters::coord::Shift>,
    ) -> Result<
        (),
        DrawingAreaErrorKind<<BitMapBackend<'b> as DrawingBackend>::ErrorType>,
    >,
{
    let (w, h) = size;
    let mut rgb = vec![0u8; (w * h * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, size).into_drawing_area();
        draw(&root).map_err(|e| draw_error(name, e))?;
        root.present().map_err(|e| draw_error(name, e))?;
    }
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, w, h);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    // Fast compression: a plot is mostly flat colour and compresses well anyway.
    encoder.set_compression(png::Compression::Fast);
    let mut writer = encoder.write_header().map_err(|e| draw_error(name, e))?;
    writer
        .write_image_data(&rgb)
        .map_err(|e| draw_error(name, e))?;
    writer.finish().map_err(|e| draw_error(name, e))?;
    Ok(out)
}

fn render_svg<F>(size: (u32, u32), name: &str, draw: F) -> Result<String, PlotError>
where
    F: for<'b> FnOnce(
        &DrawingArea<SVGBackend<'b>, plotters::coord::Shift>,
    ) -> Result<
        (),
        DrawingAreaErrorKind<<SVGBackend<'b> as DrawingBackend>::ErrorType>,
    >,
{
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        draw(&root).map_err(|e| draw_error(name, e))?;
        root.present().map_err(|e| draw_error(name, e))?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests;
