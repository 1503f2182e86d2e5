//! Scenarios: the data model and its validation.

pub mod model;
pub mod validate;

pub use model::*;
pub use validate::ValidationError;
