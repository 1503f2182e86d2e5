//! Scenario descriptions: the TOML data model, its validation, its loader and the
//! built-in scenarios.

pub mod apparatus;
pub mod builtin;
pub mod doc_table;
pub mod load;
pub mod model;
pub mod ranges;
pub mod validate;

pub use model::*;
pub use validate::ValidationError;

/// `scenario` as a scenario file that [`load`] reads back to the same scenario.
pub fn to_toml(scenario: &Scenario) -> Result<String, String> {
    toml_edit::ser::to_string_pretty(scenario).map_err(|e| e.to_string())
}
