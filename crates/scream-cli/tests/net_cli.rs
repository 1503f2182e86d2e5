//! The real-network commands refuse bad arguments with a message that names the flag
//! or key, the reason and the allowed range, before opening any socket; a bad `--out`
//! or `--video` fails before the run, and a sender nobody answers fails after it.

mod common;
#[path = "common/process.rs"]
mod process;

use std::time::Duration;

use common::{scream, stderr};
use process::Running;

/// Long enough for a loaded machine; a command that should fail at once but runs
/// (a receiver serves until stopped) fails the test here instead of hanging it.
const AT_ONCE: Duration = Duration::from_secs(20);

fn refused(args: &[&str], says: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let o = scream(args, dir.path());
    assert!(!o.status.success(), "{args:?} was accepted");
    let err = stderr(&o);
    for s in says {
        assert!(err.contains(s), "{args:?}: `{s}` not in: {err}");
    }
}

#[test]
fn send_names_the_bad_flag() {
    refused(&["send", "--to", "nowhere"], &["--to nowhere", "HOST:PORT"]);
    refused(
        &["send", "--to", "127.0.0.1:9", "--fps", "0"],
        &["fps = 0", "(0, 1000]"],
    );
    refused(
        &[
            "send",
            "--to",
            "127.0.0.1:9",
            "--min-rate",
            "5",
            "--start-rate",
            "1",
        ],
        &["--min-rate <= --start-rate <= --max-rate"],
    );
    refused(
        &["send", "--to", "127.0.0.1:9", "--ecn", "l5s"],
        &["--ecn l5s", "l4s, classic or none"],
    );
    refused(
        &["send", "--to", "127.0.0.1:9", "--set", "mss_bytes=-3"],
        &["--set mss_bytes=-3", "mss_bytes"],
    );
    refused(
        &[
            "send",
            "--to",
            "127.0.0.1:9",
            "--improvements",
            "warp-drive",
        ],
        &["--improvements warp-drive"],
    );
    refused(
        &["send", "--to", "127.0.0.1:9", "--duration=-1"],
        &["--duration -1", "(0, 86400]"],
    );
}

#[test]
fn recv_names_the_bad_flag() {
    refused(
        &["recv", "--listen", "127.0.0.1:0", "--num-reports", "two"],
        &["--num-reports two", "rfc or minus-one"],
    );
    refused(
        &[
            "recv",
            "--listen",
            "127.0.0.1:0",
            "--sample-interval-ms",
            "0",
        ],
        &["--sample-interval-ms 0", "[1, 60000]"],
    );
}

#[test]
fn link_validates_its_link_as_a_scenario_does() {
    refused(
        &["link"],
        &["--listen and --forward", "--tun and --forward-net"],
    );
    refused(
        &[
            "link",
            "--listen",
            "127.0.0.1:0",
            "--forward",
            "127.0.0.1:9",
            "--rate=-5",
        ],
        &["link.capacity_mbps"],
    );
    refused(
        &[
            "link",
            "--listen",
            "127.0.0.1:0",
            "--forward",
            "127.0.0.1:9",
            "--queue",
            "red",
        ],
        &["queue.kind"],
    );
    refused(
        &[
            "link",
            "--listen",
            "127.0.0.1:0",
            "--forward",
            "127.0.0.1:9",
            "--loss",
            "1.5",
        ],
        &["link.loss"],
    );
    refused(
        &["link", "--tun", "sctun", "--forward-net", "10.0.0.0/40"],
        &["--forward-net 10.0.0.0/40", "0 to 32"],
    );
}

#[test]
fn a_bad_out_fails_before_the_run_starts() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("a-file");
    std::fs::write(&file, "not a folder").unwrap();
    let out = file.join("run");
    let out = out.to_str().unwrap();
    // Without --duration recv and link would serve until stopped: only the check of
    // --out ends them.
    for (args, started) in [
        (
            vec!["recv", "--listen", "127.0.0.1:0", "--out", out],
            "receiving on",
        ),
        (
            vec![
                "link",
                "--listen",
                "127.0.0.1:0",
                "--forward",
                "127.0.0.1:9",
                "--out",
                out,
            ],
            "link `",
        ),
        (
            vec![
                "send",
                "--to",
                "127.0.0.1:9",
                "--duration",
                "60",
                "--out",
                out,
            ],
            "sending from",
        ),
    ] {
        let mut p = Running::start(&args);
        let (status, stdout) = p.finish(AT_ONCE);
        let err = p.stderr();
        assert!(!status.success(), "{args:?} was accepted");
        assert!(err.contains(&format!("--out {out}")), "{args:?}: {err}");
        assert!(err.contains("cannot create the folder"), "{args:?}: {err}");
        assert!(!stdout.contains(started), "{args:?} started: {stdout}");
    }
}

#[test]
fn send_without_a_receiver_warns_then_fails_with_its_outputs_written() {
    let to = common::silent_loopback_addr();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("send");
    let mut p = Running::start(&[
        "send",
        "--to",
        &to,
        "--duration",
        "3.5",
        "--no-plots",
        "--out",
        out.to_str().unwrap(),
    ]);
    let (status, stdout) = p.finish(Duration::from_secs(60));
    let err = p.stderr();
    assert_eq!(status.code(), Some(1), "stdout:\n{stdout}\nstderr:\n{err}");
    let warning = format!("warning: no feedback from {to} in 3 s");
    assert_eq!(err.matches(&warning).count(), 1, "warned once: {err}");
    assert!(
        err.contains(&format!("error: no feedback from {to} in the whole run")),
        "{err}"
    );
    assert!(err.contains("scream recv"), "says what to start: {err}");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["feedback"], 0);
    assert!(summary["packets_sent"].as_u64().unwrap() > 0, "{summary}");
    assert!(out.join("timeseries.csv").exists());
}

#[test]
fn an_endless_or_huge_video_trace_fails_at_once_naming_the_limit() {
    let tmp = tempfile::tempdir().unwrap();
    // Valid lines, one frame size each, just past 16 MiB.
    let big = tmp.path().join("big.txt");
    let line = "1200\n";
    std::fs::write(&big, line.repeat((16 << 20) / line.len() + 1)).unwrap();
    let big = big.to_str().unwrap();
    for (video, says) in [
        ("/dev/zero", "line 1 is longer than 1024 bytes"),
        (big, "larger than 16 MiB"),
    ] {
        let mut p = Running::start(&["send", "--to", "127.0.0.1:9", "--video", video]);
        let (status, stdout) = p.finish(AT_ONCE);
        let err = p.stderr();
        assert!(!status.success(), "--video {video} was accepted");
        assert!(err.contains(&format!("--video: {video}: {says}")), "{err}");
        assert!(!stdout.contains("sending from"), "{stdout}");
    }
}

#[test]
fn a_bad_feedback_key_is_refused_naming_the_file_and_the_reason() {
    let keys = tempfile::tempdir().unwrap();
    let file = |name: &str, text: &str| {
        let p = keys.path().join(name);
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    };
    let short = file("short.key", "00112233\n");
    let not_hex = file("not-hex.key", &"zz".repeat(16));
    let huge = file("huge.key", &"00".repeat(4096));
    let missing = keys.path().join("missing.key").display().to_string();
    let cases = [
        (short, vec!["--feedback-key", "4 bytes", "16 to 64"]),
        (not_hex, vec!["--feedback-key", "not a hexadecimal digit"]),
        (huge, vec!["--feedback-key", "32 to 128 hex digits"]),
        (missing, vec!["--feedback-key", "missing.key"]),
    ];
    for (path, says) in &cases {
        let send = [
            "send",
            "--to",
            "127.0.0.1:9",
            "--feedback-key",
            path.as_str(),
        ];
        refused(&send, says);
        let recv = [
            "recv",
            "--listen",
            "127.0.0.1:0",
            "--feedback-key",
            path.as_str(),
        ];
        refused(&recv, says);
    }
}
