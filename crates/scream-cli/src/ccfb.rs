//! `scream ccfb decode`: shows RFC 8888 feedback bytes as JSON.

mod input;

use std::fmt;
use std::io::Read;
use std::path::Path;

use clap::{Args, Subcommand};
use scream::wire::ccfb::{self, Packet, ParseOptions};
use serde_json::{Value, json};

use input::HexError;

/// Arguments of `scream ccfb`.
#[derive(Debug, Args)]
pub(crate) struct CcfbArgs {
    #[command(subcommand)]
    command: CcfbCommand,
}

#[derive(Debug, Subcommand)]
enum CcfbCommand {
    /// Decode RFC 8888 packets (alone or in compound RTCP packets) and print each
    /// congestion control feedback packet as one JSON object per line.
    ///
    /// The input is hex (`8bcd0024...`, `8b:cd:00:24`, `0x8bcd 0x0024`; whitespace is
    /// ignored, several arguments are joined), or a capture file with one packet per line
    /// as `seconds hex` and `#` comments (the format of the Ericsson bandwidth-test dumps).
    Decode {
        /// The packet in hex, or the path of a file holding hex or a capture; `-` reads
        /// either from standard input.
        #[arg(required = true, num_args = 1..)]
        hex: Vec<String>,
        /// Read num_reports as (number of reports - 1), as the Ericsson reference writes
        /// it. Without this flag the convention is detected per packet, RFC when ambiguous.
        #[arg(long)]
        count_minus_one: bool,
        /// Indent the JSON.
        #[arg(long)]
        pretty: bool,
    },
}

/// Runs `scream ccfb ...`: the JSON text to print, or the one-line error.
pub(crate) fn main(args: CcfbArgs) -> Result<String, String> {
    let CcfbCommand::Decode {
        hex,
        count_minus_one,
        pretty,
    } = args.command;
    let options = if count_minus_one {
        ParseOptions::MINUS_ONE
    } else {
        ParseOptions::AUTO
    };
    let (origin, text) = read_input(&hex)?;
    decode(&text, &options, pretty)
        .map(|json| format!("{json}\n"))
        .map_err(|e| match origin {
            // Hex given as arguments is one line: its line number says nothing.
            None => e.kind.to_string(),
            Some(origin) => format!("{origin}:{}: {}", e.line, e.kind),
        })
}

/// The text to decode and, for a file or standard input, its name for errors.
fn read_input(args: &[String]) -> Result<(Option<String>, String), String> {
    if args == ["-"] {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        return Ok((Some("<stdin>".to_owned()), text));
    }
    if let [path] = args {
        // Hex never holds `.` or `/`, so a file name is not mistaken for a packet.
        let one_word = !path.contains(char::is_whitespace);
        if Path::new(path).is_file() || (one_word && path.contains(['.', '/'])) {
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
            return Ok((Some(path.clone()), text));
        }
    }
    Ok((None, args.join(" ")))
}

/// Why `decode` failed, and on which line of the input.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct DecodeError {
    /// One-based line of the input holding the packet.
    pub(crate) line: usize,
    /// What is wrong.
    pub(crate) kind: DecodeErrorKind,
}

/// What is wrong with a packet.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum DecodeErrorKind {
    /// The text is not hex.
    Hex(HexError),
    /// The bytes are not a valid RFC 8888 packet.
    Packet(ccfb::Error),
}

impl fmt::Display for DecodeErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Hex(e) => e.fmt(f),
            Self::Packet(e) => write!(f, "malformed RTCP packet: {e}"),
        }
    }
}

/// Decodes hex or a capture to JSON: one object per CCFB packet, one per line
/// (indented with `pretty`).
pub(crate) fn decode(
    text: &str,
    options: &ParseOptions,
    pretty: bool,
) -> Result<String, DecodeError> {
    let datagrams = input::datagrams(text).map_err(|(line, e)| DecodeError {
        line,
        kind: DecodeErrorKind::Hex(e),
    })?;
    let mut lines = Vec::new();
    for d in &datagrams {
        let fail = |e| DecodeError {
            line: d.line,
            kind: DecodeErrorKind::Packet(e),
        };
        // Validates the whole datagram first, so errors carry datagram offsets.
        ccfb::parse_compound(&d.bytes, options).map_err(fail)?;
        for item in ccfb::ccfb_packets(&d.bytes, options) {
            let (_, packet) = item.map_err(fail)?;
            let value = packet_json(&packet, d.capture_time_s);
            let text = if pretty {
                serde_json::to_string_pretty(&value)
            } else {
                serde_json::to_string(&value)
            };
            // Serialising a `Value` cannot fail.
            lines.push(text.unwrap_or_default());
        }
    }
    Ok(lines.join("\n"))
}

/// The packet as JSON: the wire fields, plus the same values in seconds and
/// milliseconds (`report_timestamp_s`, `ato_ms`) so that nobody has to remember that the
/// timestamp is Q16 seconds and the arrival time offset 1/1024 s.
fn packet_json(packet: &Packet<&[u8]>, capture_time_s: Option<f64>) -> Value {
    let blocks: Vec<Value> = packet
        .blocks()
        .map(|block| {
            let reports: Vec<Value> = block
                .metrics()
                .enumerate()
                .map(|(i, m)| {
                    // Not received, or no arrival time known: no offset to give.
                    let ato_ms = (m.received && m.ato != ccfb::ATO_UNAVAILABLE)
                        .then(|| f64::from(m.ato) * 1e3 / ccfb::ATO_UNITS_PER_SECOND as f64);
                    json!({
                        "seq": block.seq(i),
                        "received": m.received,
                        "ecn": m.ecn.name(),
                        "ato": m.ato,
                        "ato_ms": ato_ms,
                    })
                })
                .collect();
            json!({
                "media_ssrc": block.media_ssrc(),
                "begin_seq": block.begin_seq(),
                "num_reports": block.report_count(),
                "reports": reports,
            })
        })
        .collect();
    let timestamp = packet.report_timestamp();
    let mut out = serde_json::Map::new();
    if let Some(t) = capture_time_s {
        out.insert("capture_time_s".into(), json!(t));
    }
    out.insert("sender_ssrc".into(), json!(packet.sender_ssrc()));
    out.insert("report_timestamp".into(), json!(timestamp));
    out.insert(
        "report_timestamp_s".into(),
        json!(f64::from(timestamp) / ccfb::Q16_TICKS_PER_SECOND as f64),
    );
    out.insert("blocks".into(), Value::Array(blocks));
    out.insert(
        "count_convention".into(),
        json!(packet.count_convention().name()),
    );
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One block, SSRC 100, begin_seq 65535, 3 reports (odd: padded), timestamp 1.5 s.
    const PACKET: &str = "8bcd0006 00000001 00000064 ffff0003 a011 0000 ffff 0000 00018000";

    #[test]
    fn decodes_a_packet_with_whitespace_in_the_hex() {
        let json = decode(PACKET, &ParseOptions::AUTO, false).expect("valid");
        let v: Value = serde_json::from_str(&json).expect("json");
        assert_eq!(v["sender_ssrc"], 1);
        assert_eq!(v["report_timestamp"], 0x18000);
        assert_eq!(v["report_timestamp_s"], 1.5);
        assert_eq!(v["count_convention"], "rfc");
        let block = &v["blocks"][0];
        assert_eq!(block["media_ssrc"], 100);
        assert_eq!(block["begin_seq"], 65535);
        assert_eq!(block["num_reports"], 3);
        // ATO 17/1024 s; 0x1FFF is "unknown" and a lost packet has no offset at all.
        assert_eq!(
            block["reports"],
            json!([
                {"seq": 65535, "received": true, "ecn": "ect1", "ato": 17, "ato_ms": 16.6015625},
                {"seq": 0, "received": false, "ecn": "not-ect", "ato": 0, "ato_ms": null},
                {"seq": 1, "received": true, "ecn": "ce", "ato": 0x1fff, "ato_ms": null},
            ])
        );
        // Keys come out in the documented order.
        assert!(json.starts_with(r#"{"sender_ssrc":1,"report_timestamp":98304,"report_timestamp_s":1.5,"blocks":[{"media_ssrc":100,"begin_seq":65535,"num_reports":3,"reports":[{"seq":65535,"received":true"#));
    }

    #[test]
    fn count_minus_one_reads_one_more_report() {
        // Same bytes read the Ericsson way: 4 reports, the padding word becomes a lost one.
        let json = decode(PACKET, &ParseOptions::MINUS_ONE, false).expect("valid");
        let v: Value = serde_json::from_str(&json).expect("json");
        assert_eq!(v["blocks"][0]["num_reports"], 4);
        assert_eq!(v["count_convention"], "minus-one");
    }

    #[test]
    fn a_capture_decodes_one_object_per_line_with_its_capture_time() {
        let capture = format!(
            "# two packets\n0.25 {PACKET}\n0.5 0x{}\n",
            PACKET.replace(' ', "")
        );
        let json = decode(&capture, &ParseOptions::AUTO, false).expect("valid");
        let times: Vec<f64> = json
            .lines()
            .map(|l| {
                serde_json::from_str::<Value>(l).expect("json")["capture_time_s"]
                    .as_f64()
                    .expect("time")
            })
            .collect();
        assert_eq!(times, [0.25, 0.5]);
        assert!(
            json.starts_with(r#"{"capture_time_s":0.25,"sender_ssrc":1"#),
            "{json}"
        );
    }

    #[test]
    fn malformed_packets_name_the_problem_and_the_line() {
        let err = decode("8bcd0009 00000001", &ParseOptions::AUTO, false).expect_err("truncated");
        let message = err.kind.to_string();
        assert!(
            message.contains("declares 40 bytes, only 8 available"),
            "{message}"
        );
        assert!(!message.contains('\n'));
        let err = decode("80c80000", &ParseOptions::AUTO, false).expect_err("no ccfb");
        assert!(err.kind.to_string().contains("no CCFB packet"), "{err:?}");
        let capture = format!("# c\n0.1 {PACKET}\n0.2 8bcd0009 00000001\n");
        let err = decode(&capture, &ParseOptions::AUTO, false).expect_err("line 3 truncated");
        assert_eq!(err.line, 3);
    }
}
