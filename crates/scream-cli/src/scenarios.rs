//! `scream scenarios`: the built-in scenarios with their descriptions, and the text of
//! one of them to start a scenario file from.

use clap::{Args, Subcommand};
use scream_sim::scenario::builtin::{self, BUILTINS, RMCAT};

/// Arguments of `scream scenarios`.
#[derive(Debug, Args)]
pub(crate) struct ScenariosArgs {
    #[command(subcommand)]
    command: Option<ScenariosCommand>,
}

#[derive(Debug, Subcommand)]
enum ScenariosCommand {
    /// Print a built-in scenario's TOML as shipped, comments included
    /// (`scream scenarios show default > my.toml` starts a file of your own).
    Show {
        /// Name of the built-in scenario (see `scream scenarios`).
        name: String,
    },
}

/// Runs `scream scenarios [show NAME]`.
pub(crate) fn main(args: &ScenariosArgs) -> Result<String, String> {
    match &args.command {
        None => Ok(listing()),
        Some(ScenariosCommand::Show { name }) => show(name),
    }
}

/// The listing, one scenario per line: name, then description; the RMCAT cases after a
/// blank line and a heading.
pub(crate) fn listing() -> String {
    let all = || BUILTINS.iter().chain(RMCAT);
    let width = all().map(|b| b.name.len()).max().unwrap_or(0);
    let mut out = String::new();
    for b in BUILTINS {
        out.push_str(&format!("{:<width$}  {}\n", b.name, b.description()));
    }
    out.push_str("\n# RMCAT evaluation cases (scream suite rmcat; docs/rmcat.md)\n");
    for b in RMCAT {
        out.push_str(&format!("{:<width$}  {}\n", b.name, b.description()));
    }
    out
}

/// The scenario's file text, byte for byte as embedded (so comments survive).
pub(crate) fn show(name: &str) -> Result<String, String> {
    builtin::find(name)
        .map(|b| b.text.to_owned())
        .ok_or_else(|| {
            format!(
                "unknown built-in scenario \"{name}\" (built-in scenarios: {}; RMCAT cases: {})",
                builtin::names().join(", "),
                builtin::rmcat_names().join(", ")
            )
        })
}
