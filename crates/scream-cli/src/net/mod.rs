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

use scream::{Duration, Instant};
use scream_net::Clock;

/// Longest run, s: a day. Longer runs are better served by repeated runs, and the
/// time series would grow without a useful bound.
const MAX_DURATION_S: f64 = 86_400.0;

/// Resolves `HOST:PORT` (`flag` names it in errors).
fn parse_addr(flag: &str, text: &str) -> Result<SocketAddr, String> {
    text.to_socket_addrs()
        .map_err(|e| format!("{flag} {text}: {e} (expected HOST:PORT, e.g. 127.0.0.1:5000)"))?
        .next()
        .ok_or_else(|| format!("{flag} {text}: resolves to no address"))
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

/// Mbit/s of `bytes` over `secs`.
fn mbps(bytes: u64, secs: f64) -> f64 {
    if secs > 0.0 {
        bytes as f64 * 8.0 / secs / 1e6
    } else {
        0.0
    }
}
