//! Deterministic discrete-event network simulator for SCReAM, built on the public API
//! of the `scream` crate only.
//!
//! [`run`] builds the network of a [`scenario::Scenario`] — each link as a forward and a
//! reverse directed link of the `scream-netmodel` crate, each flow as a sending and a
//! receiving endpoint joined by a media route and a feedback route — runs it on virtual
//! time with one master seed, and returns the periodic [`Sample`] rows, the per-link
//! [`metrics::LinkSample`] rows and the [`Summary`]. [`write_outputs`] writes them as
//! summary.json, summary.csv, links_summary.csv, timeseries.csv and links.csv, and
//! [`manifest::write_manifest`] the run's manifest.json. The same scenario and seed
//! always give byte-identical outputs, except manifest.json, which records when, where
//! and how fast the run happened.

mod build;
pub mod clock;
pub mod compat;
pub mod emulator;
mod endpoint;
pub mod engine;
pub mod error;
pub mod flow;
pub mod log;
pub mod manifest;
pub mod metrics;
pub mod output;
pub mod packet;
mod route;
pub mod scenario;
mod summarize;
pub mod summary;
mod wakes;
pub mod world;

pub use scream_netmodel as netmodel;

pub use error::SimError;
pub use metrics::Sample;
pub use output::write_outputs;
pub use scenario::Scenario;
pub use scream_records::FlowCdf;
pub use summary::Summary;
pub use world::World;

/// Everything one run produced.
#[derive(Debug, Clone)]
pub struct RunResult {
    /// summary.json content.
    pub summary: Summary,
    /// timeseries.csv rows, ordered by time, then flow, then stream.
    pub samples: Vec<Sample>,
    /// links.csv rows, ordered by time, then link, then direction.
    pub link_samples: Vec<metrics::LinkSample>,
    /// Scenario name.
    pub scenario_name: String,
    /// Each flow's delay distributions as cumulative curves, for the CDF plot.
    pub delay_cdfs: Vec<FlowCdf>,
    /// Each flow's frame delays (all its streams), for measures the summary does not
    /// carry, such as how many frames came later than a deadline.
    pub frame_delays: Vec<metrics::DelayHistogram>,
}

/// Points per cumulative curve.
const CDF_POINTS: usize = 201;

fn delay_cdfs(world: &World) -> Vec<FlowCdf> {
    world
        .flows
        .iter()
        .map(|f| {
            let metrics = || f.streams.iter().map(|&g| &world.stream_metrics[g as usize]);
            FlowCdf {
                flow: f.name.to_string(),
                frame_delay_ms: summarize::merged(metrics().map(|m| &m.frames.delay))
                    .cdf_ms(CDF_POINTS),
                queue_delay_ms: summarize::merged(metrics().map(|m| &m.queue_delay))
                    .cdf_ms(CDF_POINTS),
            }
        })
        .collect()
}

/// Runs `scenario` with master seed `seed`. `progress` receives the fraction of
/// simulated time done (0..=1), at most about 100 times.
pub fn run(
    scenario: &Scenario,
    seed: u64,
    progress: Option<&mut dyn FnMut(f64)>,
) -> Result<RunResult, SimError> {
    run_with_logs(scenario, seed, progress, log::LogOptions::default()).map(|(r, _)| r)
}

/// As [`run`], also writing the logs `logs` asks for ([`log`]). The results are the
/// same as without logs.
pub fn run_with_logs(
    scenario: &Scenario,
    seed: u64,
    progress: Option<&mut dyn FnMut(f64)>,
    logs: log::LogOptions,
) -> Result<(RunResult, log::LogReport), SimError> {
    let mut world = World::new(scenario, seed)?;
    world.set_logs(logs);
    world.run(progress);
    let report = world.finish_logs()?;
    let summary = summarize::summarize(&mut world, scenario, seed);
    let delay_cdfs = delay_cdfs(&world);
    let frame_delays = world
        .flows
        .iter()
        .map(|f| {
            summarize::merged(
                f.streams
                    .iter()
                    .map(|&g| &world.stream_metrics[g as usize].frames.delay),
            )
        })
        .collect();
    let result = RunResult {
        delay_cdfs,
        frame_delays,
        summary,
        samples: std::mem::take(&mut world.samples),
        link_samples: std::mem::take(&mut world.link_samples),
        scenario_name: scenario.name.clone(),
    };
    Ok((result, report))
}
