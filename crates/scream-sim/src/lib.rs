//! Deterministic discrete-event network simulator for SCReAM, built on the public API
//! of the `scream` crate only.
//!
//! [`run`] builds the network of a [`scenario::Scenario`] (links with capacity models,
//! queues and path effects; flows with a media source and a controller), runs it on
//! virtual time with one master seed, and returns the periodic [`Sample`] rows and the
//! [`Summary`]. [`write_outputs`] writes them as summary.json and timeseries.csv. The
//! same scenario and seed always give byte-identical outputs.

pub mod compat;
pub mod engine;
pub mod error;
pub mod flow;
pub mod link;
pub mod metrics;
pub mod output;
pub mod packet;
pub mod path;
pub mod plot;
pub mod queue;
pub mod report;
pub mod rng;
pub mod scenario;
pub mod source;
pub mod summary;
pub mod world;

pub use error::SimError;
pub use metrics::Sample;
pub use output::write_outputs;
pub use scenario::Scenario;
pub use summary::Summary;
pub use world::World;

/// Everything one run produced.
#[derive(Debug, Clone)]
pub struct RunResult {
    /// summary.json content.
    pub summary: Summary,
    /// timeseries.csv rows, ordered by time then flow.
    pub samples: Vec<Sample>,
    /// Scenario name.
    pub scenario_name: String,
    /// Flow names by index.
    pub flow_names: Vec<String>,
    /// Link names by index.
    pub link_names: Vec<String>,
}

/// Runs `scenario` with master seed `seed`. `progress` receives the fraction of
/// simulated time done (0..=1), at most about 100 times.
pub fn run(
    scenario: &Scenario,
    seed: u64,
    progress: Option<&mut dyn FnMut(f64)>,
) -> Result<RunResult, SimError> {
    let mut world = World::new(scenario, seed)?;
    world.run(progress);
    let summary = report::summarize(&mut world, scenario, seed);
    Ok(RunResult {
        summary,
        flow_names: world.flows.iter().map(|f| f.name.clone()).collect(),
        link_names: world.links.iter().map(|l| l.name.clone()).collect(),
        samples: std::mem::take(&mut world.samples),
        scenario_name: scenario.name.clone(),
    })
}
