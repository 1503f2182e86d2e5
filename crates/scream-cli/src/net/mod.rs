//! `scream send`, `scream recv` and `scream link`: the library on real UDP sockets
//! (crate `scream-net`), with the simulator's encoder model, link model and output
//! formats, so that a real run is read and plotted like a simulated one.

pub(crate) mod link;
mod output;
pub(crate) mod plot;
pub(crate) mod recv;
pub(crate) mod send;

use std::io::Write;
use std::net::{SocketAddr, ToSocketAddrs};
use std::path::PathBuf;

use scream::{Duration, Instant};
use scream_net::auth::FeedbackKey;
use scream_net::{Clock, RunEnd, Stop, TERMINATION_SIGNALS};

/// Longest run, s: a day. Longer runs are better served by repeated runs, or by a
/// service without `--duration` (`recv`, `link`), stopped by a signal.
const MAX_DURATION_S: f64 = 86_400.0;
/// How long `scream send` sends without `--duration`, s: a test call has an end, and
/// half a minute shows a ramp-up and a steady state.
pub(crate) const SEND_DEFAULT_DURATION_S: f64 = 30.0;

/// How long a real-time command runs and what it writes.
#[derive(Debug, clap::Args)]
pub(crate) struct RunArgs {
    /// Seconds to run. `scream send` sends for 30 s without it; `scream recv` and
    /// `scream link` serve until stopped by SIGINT (Ctrl-C), SIGTERM or SIGHUP. A stop by
    /// signal writes the same outputs as a run that reached its end, and exits 0.
    #[arg(long)]
    duration: Option<f64>,
    /// Sampling interval of the time series (timeseries.csv, links.csv), ms.
    #[arg(long, default_value_t = 50.0)]
    sample_interval_ms: f64,
    /// Write summary.json, the time series and the plots here (created if missing,
    /// checked to be writable before the run starts).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Skip the PNG/SVG plots (`scream link` draws none).
    #[arg(long)]
    no_plots: bool,
}

impl RunArgs {
    /// Checks the output folder and starts catching SIGINT, SIGTERM and SIGHUP: the
    /// first thing a command does once its arguments are valid, so that neither a bad
    /// `--out` nor an early signal costs a run.
    fn start(&self) -> Result<Stop, String> {
        if let Some(dir) = &self.out {
            output::check_writable(dir)?;
        }
        Stop::on_signals(&TERMINATION_SIGNALS)
            .map_err(|e| format!("cannot catch SIGINT, SIGTERM and SIGHUP: {e}"))
    }

    /// The end of the run on `clock`, from now: after `--duration`, else after
    /// `default` seconds, else none (until stopped).
    fn end(&self, clock: &Clock, default: Option<f64>) -> Result<Option<Instant>, String> {
        self.duration
            .or(default)
            .map(|s| run_end(clock, s))
            .transpose()
    }

    /// How long the run lasts, for its first line.
    fn length(&self, default: Option<f64>) -> String {
        match self.duration.or(default) {
            Some(s) => format!("for {s} s"),
            None => "until stopped (Ctrl-C, SIGTERM or SIGHUP)".to_owned(),
        }
    }

    /// The sampling interval.
    fn interval(&self) -> Result<Duration, String> {
        sample_interval(self.sample_interval_ms)
    }

    /// The summary as printed, and the files written with `--out` (plots unless
    /// `--no-plots`). Floats are rounded as in the simulator's outputs.
    fn finish(&self, files: output::RunFiles<'_>) -> Result<String, String> {
        let mut files = files;
        output::round_floats(&mut files.summary);
        let mut text = format!(
            "{}\n",
            serde_json::to_string_pretty(&files.summary).unwrap_or_default()
        );
        if let Some(dir) = &self.out {
            let files = output::RunFiles {
                no_plots: files.no_plots || self.no_plots,
                ..files
            };
            let written = output::write_run(dir, &files)?;
            text.push_str(&format!(
                "wrote {} files to {}\n",
                written.len(),
                dir.display()
            ));
        }
        Ok(text)
    }
}

/// Says why a loop ended, if a signal ended it, and names the signal for summary.json.
fn ended(end: RunEnd, secs: f64) -> Option<String> {
    match end {
        RunEnd::Deadline => None,
        RunEnd::Stopped(signal) => {
            say(&format!(
                "stopped by {signal} after {secs:.1} s; writing the outputs"
            ));
            Some(signal.name())
        }
    }
}

/// Resolves `HOST:PORT` (`flag` names it in errors).
fn parse_addr(flag: &str, text: &str) -> Result<SocketAddr, String> {
    text.to_socket_addrs()
        .map_err(|e| format!("{flag} {text}: {e} (expected HOST:PORT, e.g. 127.0.0.1:5000)"))?
        .next()
        .ok_or_else(|| format!("{flag} {text}: resolves to no address"))
}

/// Largest key file read: a key is at most 128 hex digits, and a file much larger is
/// not a key file.
const MAX_KEY_FILE: u64 = 4096;

/// Reads the shared feedback key from the file `--feedback-key` names, if any.
fn feedback_key(path: Option<&std::path::Path>) -> Result<Option<FeedbackKey>, String> {
    let Some(path) = path else {
        return Ok(None);
    };
    let fail = |why: String| format!("--feedback-key {}: {why}", path.display());
    let len = std::fs::metadata(path)
        .map_err(|e| fail(e.to_string()))?
        .len();
    if len > MAX_KEY_FILE {
        return Err(fail(format!(
            "{len} bytes; a key file holds 32 to 128 hex digits"
        )));
    }
    let text = std::fs::read_to_string(path).map_err(|e| fail(e.to_string()))?;
    FeedbackKey::from_hex(&text)
        .map(Some)
        .map_err(|e| fail(e.to_string()))
}

/// The unspecified address of `peer`'s family, any port: where a socket that talks
/// to `peer` binds when not told.
fn any_addr_for(peer: SocketAddr) -> SocketAddr {
    if peer.is_ipv4() {
        (std::net::Ipv4Addr::UNSPECIFIED, 0).into()
    } else {
        (std::net::Ipv6Addr::UNSPECIFIED, 0).into()
    }
}

/// The end of a run of `seconds` from now on `clock`, after checking the value.
fn run_end(clock: &Clock, seconds: f64) -> Result<Instant, String> {
    if !(seconds.is_finite() && seconds > 0.0 && seconds <= MAX_DURATION_S) {
        return Err(format!(
            "--duration {seconds}: must be in (0, {MAX_DURATION_S}] seconds"
        ));
    }
    Ok(clock.now() + Duration::from_secs_f64(seconds))
}

/// Checks a sampling interval in ms.
fn sample_interval(ms: f64) -> Result<Duration, String> {
    if !(ms.is_finite() && (1.0..=60_000.0).contains(&ms)) {
        return Err(format!("--sample-interval-ms {ms}: must be in [1, 60000]"));
    }
    Ok(Duration::from_secs_f64(ms / 1e3))
}

/// One progress line on stdout, written at once (a real run is watched as it goes).
fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// A one-line warning on stderr: something is likely wrong, and the run goes on.
fn warning(message: &str) {
    let _ = writeln!(std::io::stderr(), "warning: {message}");
}

/// Text on stdout as it is, written at once.
fn print_now(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// Mbit/s of `bytes` over `secs`.
fn mbps(bytes: u64, secs: f64) -> f64 {
    if secs > 0.0 {
        bytes as f64 * 8.0 / secs / 1e6
    } else {
        0.0
    }
}
