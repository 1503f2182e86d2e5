//! Scenario descriptions: the TOML data model, its loader and the built-in scenarios.

pub mod builtin;
pub mod load;
