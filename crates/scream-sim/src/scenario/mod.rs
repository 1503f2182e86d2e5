//! Scenario descriptions: the TOML data model, its validation, its loader and the
//! built-in scenarios.

pub mod builtin;
pub mod load;
pub mod model;
pub mod ranges;
pub mod validate;

pub use model::*;
pub use validate::ValidationError;
