//! `scream ccfb decode` on the shipped capture of the Ericsson reference's feedback:
//! the whole file, from a path or standard input, and hex in the other usual spellings.

use std::io::Write;
use std::process::{Command, Stdio};

/// Shipped in the repository (data/interop/).
const CAPTURE: &str = "interop/ccfb-ericsson-bwtest-rx.txt";

fn scream(args: &[&str], stdin: Option<&str>) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_scream"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run scream");
    let mut pipe = child.stdin.take().expect("stdin");
    pipe.write_all(stdin.unwrap_or("").as_bytes())
        .expect("write stdin");
    drop(pipe);
    child.wait_with_output().expect("scream output")
}

fn objects(out: &std::process::Output) -> Vec<serde_json::Value> {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect()
}

fn capture_path() -> String {
    scream_data::find(CAPTURE)
        .unwrap_or_else(|e| panic!("{e}"))
        .display()
        .to_string()
}

fn capture_text() -> String {
    scream_data::read_to_string(CAPTURE).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn the_whole_capture_decodes_from_a_file_and_from_stdin() {
    let packets = capture_text()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .count();
    let from_file = objects(&scream(&["ccfb", "decode", &capture_path()], None));
    assert_eq!(from_file.len(), packets);
    // The reference writes num_reports as count-1; detection finds it in every packet.
    assert!(
        from_file
            .iter()
            .all(|v| v["count_convention"] == "minus-one")
    );
    let first = &from_file[0];
    assert_eq!(first["capture_time_s"], 0.501504);
    assert_eq!(first["sender_ssrc"], 10);
    // Q16 seconds since the receiver started: 32937 / 65536 s.
    assert_eq!(first["report_timestamp"], 32937);
    assert_eq!(first["report_timestamp_s"], 32937.0 / 65536.0);
    let from_stdin = objects(&scream(&["ccfb", "decode", "-"], Some(&capture_text())));
    assert_eq!(from_stdin, from_file);
}

#[test]
fn arrival_offsets_are_also_given_in_milliseconds() {
    let all = objects(&scream(&["ccfb", "decode", &capture_path()], None));
    let packet = all
        .iter()
        .find(|v| v["report_timestamp"] == 99380)
        .expect("the packet of 1.516 s");
    let reports = packet["blocks"][0]["reports"].as_array().expect("reports");
    for r in reports {
        let ato = r["ato"].as_f64().expect("ato");
        assert_eq!(r["ato_ms"].as_f64(), Some(ato * 1000.0 / 1024.0), "{r}");
    }
    // The oldest report of that packet is 0x13d/1024 s old.
    assert_eq!(reports[0]["ato"], 0x13d);
    assert_eq!(reports[0]["ato_ms"], 317.0 * 1000.0 / 1024.0);
}

#[test]
fn colon_separated_and_0x_prefixed_hex_decode_alike() {
    let hex = "8bcd00060000000100000064ffff0003a0110000ffff000000018000".to_owned();
    let colons: Vec<String> = hex
        .as_bytes()
        .chunks(2)
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect();
    let plain = objects(&scream(&["ccfb", "decode", &hex], None));
    let with_colons = objects(&scream(&["ccfb", "decode", &colons.join(":")], None));
    let prefixed = objects(&scream(&["ccfb", "decode", &format!("0x{hex}")], None));
    assert_eq!(plain, with_colons);
    assert_eq!(plain, prefixed);
    assert_eq!(plain[0]["report_timestamp_s"], 1.5);
}

#[test]
fn an_error_in_a_capture_names_the_file_and_line() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("bad.txt");
    std::fs::write(&path, "# header\n0.1 8bcd0006\n").expect("write");
    let out = scream(&["ccfb", "decode", path.to_str().expect("utf-8")], None);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with(&format!(
            "error: {}:2: malformed RTCP packet",
            path.display()
        )),
        "{stderr}"
    );
    let missing = scream(&["ccfb", "decode", "no-such-capture.txt"], None);
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert!(
        stderr.contains("cannot read no-such-capture.txt"),
        "{stderr}"
    );
}
