//! `scream send`, `scream link` and `scream recv` behave as services: each stopped by
//! SIGINT, SIGTERM or SIGHUP ends its loop, writes the outputs a run that reached its
//! end writes, and exits 0. One test per signal runs send → link → recv on loopback
//! and stops all three with it, sender first.

#[path = "common/process.rs"]
mod process;

use std::path::Path;
use std::time::Duration;

use nix::sys::signal::Signal;
use process::{Running, addr_after};
use serde_json::Value;

/// Generous bounds for a loaded two-core machine: they only matter when something
/// hangs, and the tests wait for what they need rather than for fixed times.
const READY: Duration = Duration::from_secs(30);
const EXIT: Duration = Duration::from_secs(60);

/// The feedback count on one of the sender's progress lines.
fn feedback_on(line: &str) -> Option<u64> {
    let mut words = line.split_whitespace();
    words.find(|w| *w == "feedback")?;
    words.next()?.parse().ok()
}

fn summary(dir: &Path) -> Value {
    let path = dir.join("summary.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Data rows of a CSV file (lines after the header).
fn csv_rows(path: &Path) -> usize {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines().skip(1).filter(|l| !l.is_empty()).count()
}

/// The PNG and SVG a run with a time series draws.
fn assert_plots(dir: &Path) {
    for name in [
        "overview",
        "throughput",
        "delay",
        "window",
        "rtt",
        "delay_cdf",
    ] {
        for ext in ["png", "svg"] {
            let f = dir.join(format!("{name}.{ext}"));
            let len = std::fs::metadata(&f)
                .unwrap_or_else(|e| panic!("{}: {e}", f.display()))
                .len();
            assert!(len > 0, "{} is empty", f.display());
        }
    }
}

/// Sends `signal` to `p` and checks that it ends by itself with status 0, saying so.
fn stop(p: &mut Running, signal: Signal) -> String {
    p.signal(signal);
    let (status, out) = p.finish(EXIT);
    assert!(
        status.success(),
        "{signal:?} ended it with {status}\nstdout:\n{out}\nstderr:\n{}",
        p.stderr()
    );
    assert!(
        out.contains(&format!("stopped by {}", signal.as_str())),
        "{out}"
    );
    out
}

fn stops_cleanly_on(signal: Signal) {
    let tmp = tempfile::tempdir().unwrap();
    let dirs = ["recv", "link", "send"].map(|d| tmp.path().join(d));
    let [recv_out, link_out, send_out] = dirs.each_ref().map(|d| d.to_str().unwrap());
    // No --duration: the receiver and the link serve until stopped.
    let mut recv = Running::start(&["recv", "--listen", "127.0.0.1:0", "--out", recv_out]);
    let first = recv.line_where(READY, |l| l.contains("receiving on"));
    assert!(first.contains("until stopped"), "{first}");
    let recv_addr = addr_after(&first, "receiving on ");
    let mut link = Running::start(&[
        "link",
        "--listen",
        "127.0.0.1:0",
        "--forward",
        &recv_addr,
        "--rate",
        "5",
        "--delay",
        "5",
        "--out",
        link_out,
    ]);
    let first = link.line_where(READY, |l| l.starts_with("link "));
    let link_addr = addr_after(&first, ": ");
    // A duration far longer than the test: only the signal can end it in time.
    let mut send = Running::start(&[
        "send",
        "--to",
        &link_addr,
        "--duration",
        "600",
        "--out",
        send_out,
    ]);
    send.line_where(READY, |l| feedback_on(l).is_some_and(|n| n > 0));

    stop(&mut send, signal);
    let s = summary(&dirs[2]);
    assert_eq!(s["stopped_by"], signal.as_str());
    assert!(s["duration_s"].as_f64().unwrap() < 600.0);
    assert!(s["feedback"].as_u64().unwrap() > 0, "{s}");
    assert!(csv_rows(&dirs[2].join("timeseries.csv")) > 0);
    assert_plots(&dirs[2]);

    stop(&mut link, signal);
    let l = summary(&dirs[1]);
    assert_eq!(l["stopped_by"], signal.as_str());
    assert!(
        l["forward"]["packets_delivered"].as_u64().unwrap() > 0,
        "{l}"
    );
    assert!(csv_rows(&dirs[1].join("links.csv")) > 0);

    stop(&mut recv, signal);
    let r = summary(&dirs[0]);
    assert_eq!(r["stopped_by"], signal.as_str());
    assert!(r["peers"][0]["packets"].as_u64().unwrap() > 0, "{r}");
    assert!(csv_rows(&dirs[0].join("timeseries.csv")) > 0);
    assert_plots(&dirs[0]);
}

#[test]
fn sigint_stops_send_link_and_recv_with_complete_outputs() {
    stops_cleanly_on(Signal::SIGINT);
}

#[test]
fn sigterm_stops_send_link_and_recv_with_complete_outputs() {
    stops_cleanly_on(Signal::SIGTERM);
}

#[test]
fn sighup_stops_send_link_and_recv_with_complete_outputs() {
    stops_cleanly_on(Signal::SIGHUP);
}
