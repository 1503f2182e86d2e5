//! `scream ccfb decode` end to end, on a packet captured from the Ericsson reference.

use std::process::Command;

/// Shipped in the repository (data/interop/).
const CAPTURE: &str = "interop/ccfb-ericsson-bwtest-rx.txt";

/// The captured packet whose report timestamp is 99380 (1.516 s), in hex.
fn captured_packet() -> String {
    let text = scream_data::read_to_string(CAPTURE).unwrap_or_else(|e| panic!("{e}"));
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_whitespace().nth(1))
        .find(|hex| hex.ends_with("00018434")) // 99380 = 0x18434
        .expect("packet with report timestamp 99380 in the capture")
        .to_owned()
}

fn scream(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_scream"))
        .args(args)
        .output()
        .expect("run scream")
}

#[test]
fn decodes_a_captured_packet_to_json() {
    let hex = captured_packet();
    // Split the hex with whitespace, as pasted from a dump.
    let spaced = format!("{} {}", &hex[..16], &hex[16..]);
    let out = scream(&["ccfb", "decode", &spaced]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    assert_eq!(v["sender_ssrc"], 10);
    assert_eq!(v["report_timestamp"], 99380);
    assert_eq!(v["count_convention"], "minus-one");
    let block = &v["blocks"][0];
    assert_eq!(block["media_ssrc"], 100);
    assert_eq!(block["begin_seq"], 139);
    assert_eq!(block["num_reports"], 64);
    let reports = block["reports"].as_array().expect("reports");
    assert_eq!(reports.len(), 64);
    assert_eq!(reports[0]["seq"], 139);
    assert_eq!(reports[63]["seq"], 202);
    assert!(
        reports
            .iter()
            .all(|r| r["received"] == true && r["ecn"] == "ect1")
    );
    assert_eq!(
        reports[63]["ato"], 0,
        "the newest packet triggered the report"
    );

    let forced = scream(&["ccfb", "decode", "--count-minus-one", &hex]);
    assert!(forced.status.success());
    assert_eq!(forced.stdout, out.stdout);
}

#[test]
fn invalid_input_gives_one_line_on_stderr_and_status_1() {
    for (input, expected) in [
        ("8bcd00zz", "not a hex digit"),
        ("8bcd0", "odd number of hex digits"),
        ("8bcd00240000000a", "declares 148 bytes"),
    ] {
        let out = scream(&["ccfb", "decode", input]);
        assert_eq!(out.status.code(), Some(1), "{input}");
        assert!(out.stdout.is_empty());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(expected), "{input}: {stderr}");
    }
}
