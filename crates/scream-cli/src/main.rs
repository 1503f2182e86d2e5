//! The `scream` command line.

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(name = "scream", version, about = "SCReAM congestion control toolkit")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Placeholder until the subcommands land.
    Version,
}

fn main() {
    let cli = Cli::parse();
    match cli.command {
        Command::Version => {}
    }
}
