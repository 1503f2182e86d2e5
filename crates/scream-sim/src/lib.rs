//! Deterministic discrete-event network simulator for SCReAM, built on the public API
//! of the `scream` crate only.

pub mod engine;
pub mod link;
pub mod packet;
pub mod path;
pub mod queue;
pub mod rng;
pub mod scenario;
pub mod source;
