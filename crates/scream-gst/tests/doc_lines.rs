//! The quick start of docs/gstreamer.md, run as written: its receiver, `scream link`
//! and sender lines, read from the page (not copied here), each run by the shell.

mod common;

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::*;

/// The lines of the first `sh` block under the "Quick start" heading.
fn quick_start() -> Vec<String> {
    let doc = std::fs::read_to_string(repo_root().join("docs/gstreamer.md")).expect("the doc");
    let start = doc.find("## Quick start").expect("a Quick start section");
    let rest = &doc[start..];
    let open = rest.find("```sh\n").expect("a sh block") + "```sh\n".len();
    let close = rest[open..].find("```").expect("the block closes");
    rest[open..open + close]
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Where `cargo build` put libgstscreamrs.so: beside the test's `deps` folder.
fn plugin_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's path");
    let dir = exe
        .parent()
        .and_then(|d| d.parent())
        .expect("target/<profile>/deps");
    assert!(
        dir.join("libgstscreamrs.so").exists(),
        "no libgstscreamrs.so in {} (build the crate first)",
        dir.display()
    );
    dir.to_path_buf()
}

fn spawn(line: &str) -> Service {
    let bin_dir = scream_bin().parent().expect("a folder").to_path_buf();
    let path = std::env::join_paths(std::iter::once(bin_dir).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .expect("a PATH");
    let child = Command::new("sh")
        .args(["-c", &format!("exec {line}")])
        .env("PATH", path)
        .env("GST_PLUGIN_PATH", plugin_dir())
        // The receiver line ends in autovideosink, which takes the best-ranked video
        // sink installed. Headless, which one that is depends on the plugins present,
        // and some (waylandsink, kmssink) wait forever for a display instead of
        // failing; ranking fakevideosink first makes the choice the same everywhere
        // without changing the line.
        .env("GST_PLUGIN_FEATURE_RANK", "fakevideosink:MAX")
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sh starts");
    Service(child)
}

/// Stops `s` and returns what it printed.
fn output(mut s: Service) -> String {
    let _ = s.0.kill();
    let _ = s.0.wait();
    let mut text = String::new();
    for pipe in [
        s.0.stdout.take().map(|p| Box::new(p) as Box<dyn Read>),
        s.0.stderr.take().map(|p| Box::new(p) as Box<dyn Read>),
    ]
    .into_iter()
    .flatten()
    {
        let mut p = pipe;
        let _ = p.read_to_string(&mut text);
    }
    text
}

/// The last value of `field=(guint64)N` in `text`.
fn last_count(text: &str, field: &str) -> Option<u64> {
    let key = format!(" {field}=(guint64)");
    let at = text.rfind(&key)? + key.len();
    text[at..]
        .split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

#[test]
fn the_quick_start_lines_carry_video_across_scream_link() {
    let lines = quick_start();
    let find = |what: &str| {
        lines
            .iter()
            .find(|l| l.contains(what))
            .unwrap_or_else(|| panic!("no line with {what} in {lines:#?}"))
            .clone()
    };
    let (recv_line, link_line, send_line) =
        (find("screamrecv"), find("scream link"), find("screamsend"));
    assert!(recv_line.starts_with("gst-launch-1.0") && send_line.starts_with("gst-launch-1.0"));
    let recv = spawn(&recv_line);
    let link = spawn(&link_line);
    sleep(Duration::from_millis(500));
    let send = spawn(&send_line);
    sleep(Duration::from_secs(6));
    let sent = output(send);
    sleep(Duration::from_millis(300));
    let received = output(recv);
    drop(link);
    let packets = last_count(&received, "packets").unwrap_or(0);
    let ect = last_count(&received, "ecn-capable").unwrap_or(0);
    let acked = last_count(&sent, "packets-acked").unwrap_or(0);
    println!(
        "doc lines: the receiver counted {packets} packets ({ect} ECN-capable), the sender {acked} acked"
    );
    assert!(
        !received.contains("ERROR") && !sent.contains("ERROR"),
        "receiver:\n{received}\nsender:\n{sent}"
    );
    assert!(packets > 200, "receiver:\n{received}");
    assert_eq!(ect, packets, "every packet arrived ECN-capable");
    assert!(acked > 200, "sender:\n{sent}");
    assert!(
        sent.contains("scream-target"),
        "the sender posted no target:\n{sent}"
    );
}
