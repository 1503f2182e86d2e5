//! The `scream` command line.

use clap::{Parser, Subcommand};

mod ccfb;

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
    /// RFC 8888 congestion control feedback tools.
    Ccfb(ccfb::CcfbArgs),
}

fn main() {
    let cli = Cli::parse();
    match cli.command {
        Command::Version => {}
        Command::Ccfb(args) => ccfb::main(args),
    }
}
