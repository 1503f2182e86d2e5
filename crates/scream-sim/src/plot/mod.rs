//! PNG and SVG plots of one run, in the style of the published SCReAM figures:
//! capacity vs throughput vs target, queue delays, reference window vs bytes in flight,
//! and smoothed RTT, all against simulated time.
//!
//! Text is drawn with the bundled DejaVu Sans (assets/fonts), so rendering needs no
//! system font.

mod chart;
mod decimate;
mod figures;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::prelude::*;

pub use crate::metrics::Sample;

/// Font family name the bundled font is registered under.
const FONT: &str = "sans-serif";
static FONT_BYTES: &[u8] = include_bytes!("../../../../assets/fonts/DejaVuSans.ttf");

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
}

/// The base names of the plots [`write_plots`] produces; each is written as `.png` and
/// `.svg`.
pub const PLOT_NAMES: [&str; 4] = ["throughput", "delay", "window", "rtt"];

/// Writes `throughput`, `delay`, `window` and `rtt` as PNG and SVG into `dir` (which
/// must exist). Returns the files written.
pub fn write_plots(input: &PlotInput<'_>, dir: &Path) -> Result<Vec<PathBuf>, PlotError> {
    register_font();
    let data = figures::Data::new(input);
    let mut written = Vec::new();
    for (name, figure) in figures::all(&data) {
        let png = dir.join(format!("{name}.png"));
        write_file(&png, &render_png(&figure, name)?)?;
        let svg = dir.join(format!("{name}.svg"));
        write_file(&svg, render_svg(&figure, name)?.as_bytes())?;
        written.extend([png, svg]);
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
    std::fs::write(path, bytes).map_err(|source| PlotError::Write {
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

fn render_png(figure: &chart::Figure, name: &str) -> Result<Vec<u8>, PlotError> {
    let (w, h) = SIZE;
    let mut rgb = vec![0u8; (w * h * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, SIZE).into_drawing_area();
        chart::draw(&root, figure).map_err(|e| draw_error(name, e))?;
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

fn render_svg(figure: &chart::Figure, name: &str) -> Result<String, PlotError> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        chart::draw(&root, figure).map_err(|e| draw_error(name, e))?;
        root.present().map_err(|e| draw_error(name, e))?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests;
