//! `scream ccfb decode`: shows RFC 8888 feedback bytes as JSON.

use std::fmt;
use std::io::Read;

use clap::{Args, Subcommand};
use scream::wire::ccfb::{self, Packet, ParseOptions};
use serde_json::{Value, json};

/// Arguments of `scream ccfb`.
#[derive(Debug, Args)]
pub(crate) struct CcfbArgs {
    #[command(subcommand)]
    command: CcfbCommand,
}

#[derive(Debug, Subcommand)]
enum CcfbCommand {
    /// Decode an RFC 8888 packet (alone or in a compound RTCP packet) given in hex and
    /// print each congestion control feedback packet in it as one JSON object.
    Decode {
        /// The packet in hex; whitespace is ignored, several arguments are joined.
        /// `-` reads the hex from standard input.
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
    let input = if hex == ["-"] {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        text
    } else {
        hex.concat()
    };
    decode(&input, &options, pretty)
        .map(|json| format!("{json}\n"))
        .map_err(|e| e.to_string())
}

/// Why `decode` failed.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum DecodeError {
    /// No hex digits at all.
    Empty,
    /// A character that is neither a hex digit nor whitespace.
    BadDigit { character: char, position: usize },
    /// An odd number of hex digits.
    OddLength { digits: usize },
    /// The bytes are not a valid RFC 8888 packet.
    Packet(ccfb::Error),
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => write!(f, "invalid hex: no hex digits given"),
            Self::BadDigit {
                character,
                position,
            } => write!(
                f,
                "invalid hex: {character:?} at character {position} is not a hex digit"
            ),
            Self::OddLength { digits } => {
                write!(f, "invalid hex: odd number of hex digits ({digits})")
            }
            Self::Packet(e) => write!(f, "malformed RTCP packet: {e}"),
        }
    }
}

/// Hex digits to bytes; whitespace anywhere is ignored.
pub(crate) fn parse_hex(text: &str) -> Result<Vec<u8>, DecodeError> {
    let mut nibbles = Vec::with_capacity(text.len());
    for (position, character) in text.chars().enumerate() {
        if character.is_whitespace() {
            continue;
        }
        let digit = character.to_digit(16).ok_or(DecodeError::BadDigit {
            character,
            position,
        })?;
        // A hex digit is below 16.
        nibbles.push(digit as u8);
    }
    if nibbles.is_empty() {
        return Err(DecodeError::Empty);
    }
    if nibbles.len() % 2 != 0 {
        return Err(DecodeError::OddLength {
            digits: nibbles.len(),
        });
    }
    Ok(nibbles
        .chunks_exact(2)
        .map(|p| (p[0] << 4) | p[1])
        .collect())
}

/// Decodes hex to JSON: one object per CCFB packet, one per line (indented with
/// `pretty`).
pub(crate) fn decode(
    hex: &str,
    options: &ParseOptions,
    pretty: bool,
) -> Result<String, DecodeError> {
    let bytes = parse_hex(hex)?;
    // Validates the whole datagram first, so errors carry datagram offsets.
    ccfb::parse_compound(&bytes, options).map_err(DecodeError::Packet)?;
    let mut lines = Vec::new();
    for item in ccfb::ccfb_packets(&bytes, options) {
        let (_, packet) = item.map_err(DecodeError::Packet)?;
        let value = packet_json(&packet);
        let text = if pretty {
            serde_json::to_string_pretty(&value)
        } else {
            serde_json::to_string(&value)
        };
        // Serialising a `Value` cannot fail.
        lines.push(text.unwrap_or_default());
    }
    Ok(lines.join("\n"))
}

fn packet_json(packet: &Packet<&[u8]>) -> Value {
    let blocks: Vec<Value> = packet
        .blocks()
        .map(|block| {
            let reports: Vec<Value> = block
                .metrics()
                .enumerate()
                .map(|(i, m)| {
                    json!({
                        "seq": block.seq(i),
                        "received": m.received,
                        "ecn": m.ecn.name(),
                        "ato": m.ato,
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
    json!({
        "sender_ssrc": packet.sender_ssrc(),
        "report_timestamp": packet.report_timestamp(),
        "blocks": blocks,
        "count_convention": packet.count_convention().name(),
    })
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
        assert_eq!(v["count_convention"], "rfc");
        let block = &v["blocks"][0];
        assert_eq!(block["media_ssrc"], 100);
        assert_eq!(block["begin_seq"], 65535);
        assert_eq!(block["num_reports"], 3);
        assert_eq!(
            block["reports"],
            json!([
                {"seq": 65535, "received": true, "ecn": "ect1", "ato": 17},
                {"seq": 0, "received": false, "ecn": "not-ect", "ato": 0},
                {"seq": 1, "received": true, "ecn": "ce", "ato": 0x1fff},
            ])
        );
        // Keys come out in the documented order.
        assert!(json.starts_with(r#"{"sender_ssrc":1,"report_timestamp":98304,"blocks":[{"media_ssrc":100,"begin_seq":65535,"num_reports":3,"reports":[{"seq":65535,"received":true"#));
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
    fn bad_hex_is_reported_with_its_position() {
        assert_eq!(
            parse_hex("8bcd 00x6"),
            Err(DecodeError::BadDigit {
                character: 'x',
                position: 7
            })
        );
        assert_eq!(parse_hex("abc"), Err(DecodeError::OddLength { digits: 3 }));
        assert_eq!(parse_hex(" \n"), Err(DecodeError::Empty));
    }

    #[test]
    fn malformed_packets_name_the_problem() {
        let err = decode("8bcd0009 00000001", &ParseOptions::AUTO, false).expect_err("truncated");
        let message = err.to_string();
        assert!(
            message.contains("declares 40 bytes, only 8 available"),
            "{message}"
        );
        assert!(!message.contains('\n'));
        let err = decode("80c80000", &ParseOptions::AUTO, false).expect_err("no ccfb");
        assert!(err.to_string().contains("no CCFB packet"), "{err}");
    }
}
