//! The elements against the command-line endpoints: `screamsend` to `scream recv`,
//! and `scream send` to `screamrecv`, on loopback.

mod common;

use std::process::Command;
use std::time::Duration;

use common::*;

fn summary(dir: &std::path::Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("summary.json")).expect("a summary.json");
    serde_json::from_str(&text).expect("summary.json is JSON")
}

#[test]
fn screamsend_is_answered_by_scream_recv() {
    init();
    let dir = tempfile::tempdir().expect("a temporary folder");
    let port = free_port();
    let recv = scream(
        &[
            "recv",
            "--listen",
            &format!("127.0.0.1:{port}"),
            "--duration",
            "5",
        ],
        dir.path(),
    );
    let sender = play(&format!(
        "videotestsrc is-live=true ! video/x-raw,width=320,height=180,framerate=25/1 \
         ! x264enc tune=zerolatency speed-preset=ultrafast ! rtph264pay \
         ! screamsend name=send port={port} ecn=l4s"
    ));
    sleep(Duration::from_secs(3));
    let send = element(&sender, "send");
    let (sent, acked, feedback) = (
        stat(&send, "packets-sent"),
        stat(&send, "packets-acked"),
        stat(&send, "feedback"),
    );
    let problems = bus_problems(&sender);
    stop(&sender);
    let mut recv = recv;
    let status = recv.0.wait().expect("scream recv ends after its duration");
    assert!(status.success(), "scream recv: {status}");
    assert!(problems.is_empty(), "bus: {problems:#?}");
    println!("screamsend -> scream recv: {sent} sent, {acked} acked, {feedback} reports");
    assert!(feedback > 10, "{feedback} reports read");
    // Packets of the last few tens of milliseconds may not be acknowledged yet.
    assert!(
        acked + 20 >= sent && acked > 0,
        "{acked} of {sent} acknowledged"
    );
    let peers = summary(dir.path())["peers"].clone();
    let peer = &peers[0];
    assert_eq!(peer["packets"].as_u64(), Some(sent), "scream recv: {peers}");
    assert_eq!(
        peer["ecn_capable"].as_u64(),
        Some(sent),
        "every packet arrived ECT(1): {peers}"
    );
}

#[test]
fn scream_send_is_answered_by_screamrecv() {
    init();
    let dir = tempfile::tempdir().expect("a temporary folder");
    let port = free_port();
    let receiver = play(&format!(
        "screamrecv name=recv port={port} ! fakesink sync=false"
    ));
    let status = Command::new(scream_bin())
        .args(["send", "--to", &format!("127.0.0.1:{port}"), "--ecn", "l4s"])
        .args(["--duration", "3", "--out"])
        .arg(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .expect("scream send runs");
    let recv = element(&receiver, "recv");
    let (packets, ect, feedback) = (
        stat(&recv, "packets"),
        stat(&recv, "ecn-capable"),
        stat(&recv, "feedback"),
    );
    let problems = bus_problems(&receiver);
    stop(&receiver);
    // `scream send` exits 1 when no feedback came in the whole run.
    assert!(status.success(), "scream send: {status}");
    assert!(problems.is_empty(), "bus: {problems:#?}");
    let s = summary(dir.path());
    println!(
        "scream send -> screamrecv: {packets} packets, {feedback} reports; sender: {} acked, {} reports",
        s["packets_acked"], s["feedback"]
    );
    assert_eq!(s["packets_sent"].as_u64(), Some(packets));
    assert_eq!(ect, packets, "every packet arrived ECN-capable");
    assert_eq!(
        s["feedback"].as_u64(),
        Some(feedback),
        "every report was read"
    );
    assert_eq!(s["feedback_malformed"].as_u64(), Some(0));
    let acked = s["packets_acked"].as_u64().unwrap_or(0);
    assert!(
        acked + 20 >= packets && acked > 0,
        "{acked} of {packets} acknowledged"
    );
}
