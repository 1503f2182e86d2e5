//! The `scream` command line.

mod bench;
mod ccfb;
mod columns;
mod compare;
mod data;
mod eval;
mod folder;
mod logs;
mod manifest;
mod net;
mod params;
mod report_cmd;
mod scenarios;
mod sim;
mod study;
mod suite;
mod sweep;

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(name = "scream", version, about = "SCReAM congestion control toolkit")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run a simulation scenario and write summary.json and .csv, timeseries.csv,
    /// links.csv, plots and manifest.json (see docs/outputs.md).
    Sim(sim::SimArgs),
    /// List the built-in scenarios, or print one (`scream scenarios show NAME`).
    Scenarios(scenarios::ScenariosArgs),
    /// Run a fixed evaluation matrix and print its table (`scream eval v2`).
    Eval(eval::EvalArgs),
    /// List the sender parameters per generation, with unit, default, range and source.
    Params(params::ParamsArgs),
    /// Measure simulator speed (simulated seconds and packets per wall-clock second).
    Bench(bench::BenchArgs),
    /// Run a parameter sweep from a spec file into results.csv (see docs/sweeps.md).
    Sweep(sweep::SweepArgs),
    /// Tables and figures (report.md, SVG, PNG) from a sweep's results.csv.
    Report(report_cmd::ReportArgs),
    /// Run an evaluation suite into report.md (`scream suite rmcat`, docs/rmcat.md).
    Suite(suite::SuiteArgs),
    /// Run a built-in study into report.md and figures (`scream study lte`,
    /// docs/lte-comparison.md).
    Study(study::StudyArgs),
    /// The data files (traces, captures, published figures): list them, fetch the ones
    /// the repository does not ship (data/README.md).
    Data(data::DataArgs),
    /// RFC 8888 congestion control feedback tools.
    Ccfb(ccfb::CcfbArgs),
    /// Send modelled video with SCReAM over UDP to a receiver for 30 s or --duration
    /// (docs/real-network.md).
    Send(net::send::SendArgs),
    /// Receive RTP over UDP and answer each sender with RFC 8888 feedback, until
    /// stopped (Ctrl-C, SIGTERM, SIGHUP) or --duration.
    Recv(net::recv::RecvArgs),
    /// A real-time UDP bottleneck: capacity, queue/AQM with ECN marking, delay,
    /// jitter and loss in both directions, until stopped or --duration.
    Link(net::link::LinkArgs),
    /// Redraw a real run's figures with the link's true queue delay and capacity and a
    /// competing iperf3 flow merged in (`scream plot out/cs244-real`).
    Plot(net::plot::PlotArgs),
    /// Several runs side by side: one time-series figure, a throughput-delay chart and
    /// a table of their headline metrics (docs/compare.md).
    Compare(compare::CompareArgs),
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Sim(args) => sim::main(&args),
        Command::Scenarios(args) => scenarios::main(&args),
        Command::Eval(args) => eval::main(&args),
        Command::Params(args) => params::main(&args),
        Command::Bench(args) => bench::main(&args),
        Command::Sweep(args) => sweep::main(&args),
        Command::Report(args) => report_cmd::main(&args),
        Command::Suite(args) => suite::main(&args),
        Command::Study(args) => study::main(&args),
        Command::Data(args) => data::main(&args),
        Command::Ccfb(args) => ccfb::main(args),
        Command::Send(args) => net::send::main(&args),
        Command::Recv(args) => net::recv::main(&args),
        Command::Link(args) => net::link::main(&args),
        Command::Plot(args) => net::plot::main(&args),
        Command::Compare(args) => compare::main(&args),
    };
    report(result);
}

/// Prints a command's output, or its error as one line on stderr with exit status 1.
fn report(result: Result<String, String>) {
    use std::io::Write;
    match result {
        Ok(text) => {
            // A closed stdout (e.g. piped into `head`) is not an error worth reporting.
            let _ = std::io::stdout().write_all(text.as_bytes());
        }
        Err(message) => {
            let _ = writeln!(std::io::stderr(), "error: {message}");
            std::process::exit(1);
        }
    }
}

/// A one-line note on stderr that does not stop the command.
fn warn(message: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "note: {message}");
}

/// Parses `--set KEY=VALUE` arguments.
fn parse_overrides(args: &[String]) -> Result<Vec<scream_sim::scenario::load::Override>, String> {
    args.iter()
        .map(|a| {
            a.parse()
                .map_err(|e: scream_sim::scenario::load::ScenarioError| e.to_string())
        })
        .collect()
}
