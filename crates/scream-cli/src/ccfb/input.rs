//! What `scream ccfb decode` accepts: one packet as hex, or a capture of many.
//!
//! Hex may be written as a plain run of digits, with whitespace or `:` between bytes
//! (as `tcpdump -x` and Wireshark's "copy as hex" give it), or with `0x` before each
//! group. A capture is the format of the Ericsson bandwidth-test dumps: `#` comment
//! lines, then one packet per line as `seconds hex`.

use std::fmt;

/// One packet to decode: its bytes, and where it came from.
#[derive(Debug, PartialEq)]
pub(crate) struct Datagram {
    /// One-based line of the input (1 for hex given as arguments).
    pub(crate) line: usize,
    /// The capture time written before the hex, s (`None` for a bare packet).
    pub(crate) capture_time_s: Option<f64>,
    /// The packet.
    pub(crate) bytes: Vec<u8>,
}

/// Why hex could not be read.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum HexError {
    /// No hex digits at all.
    Empty,
    /// A character that is neither a hex digit nor a separator.
    BadDigit { character: char, position: usize },
    /// An odd number of hex digits.
    OddLength { digits: usize },
}

impl fmt::Display for HexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => write!(f, "invalid hex: no hex digits given"),
            Self::BadDigit {
                character,
                position,
            } => write!(
                f,
                "invalid hex: {character:?} at character {position} is not a hex digit \
                 (accepted: digits 0-9 a-f, optional 0x prefixes, whitespace or : between bytes)"
            ),
            Self::OddLength { digits } => {
                write!(f, "invalid hex: odd number of hex digits ({digits})")
            }
        }
    }
}

/// Whether `c` separates hex groups.
fn is_separator(c: char) -> bool {
    c.is_whitespace() || c == ':'
}

/// Hex digits to bytes. Whitespace and `:` anywhere are ignored, and a `0x` (or `0X`)
/// at the start of a group is a prefix, not digits. `position` in errors counts
/// characters of `text` from 0.
pub(crate) fn parse_hex(text: &str) -> Result<Vec<u8>, HexError> {
    let chars: Vec<char> = text.chars().collect();
    let mut nibbles = Vec::with_capacity(chars.len());
    let mut position = 0;
    while position < chars.len() {
        let character = chars[position];
        if is_separator(character) {
            position += 1;
            continue;
        }
        let group_start = position == 0 || is_separator(chars[position - 1]);
        let prefix = character == '0' && matches!(chars.get(position + 1), Some('x' | 'X'));
        if group_start && prefix {
            position += 2;
            continue;
        }
        let digit = character.to_digit(16).ok_or(HexError::BadDigit {
            character,
            position,
        })?;
        // A hex digit is below 16.
        nibbles.push(digit as u8);
        position += 1;
    }
    if nibbles.is_empty() {
        return Err(HexError::Empty);
    }
    if nibbles.len() % 2 != 0 {
        return Err(HexError::OddLength {
            digits: nibbles.len(),
        });
    }
    Ok(nibbles
        .chunks_exact(2)
        .map(|p| (p[0] << 4) | p[1])
        .collect())
}

/// The capture time of a capture line: a first word that is a decimal number with a
/// point. Hex has no `.`, so this never mistakes a hex group for a time.
fn capture_time(line: &str) -> Option<(f64, &str)> {
    let (first, rest) = line.trim_start().split_once(char::is_whitespace)?;
    if !first.contains('.') {
        return None;
    }
    let t = first.parse::<f64>().ok().filter(|t| t.is_finite())?;
    Some((t, rest))
}

/// The packets in `text`.
///
/// If any line (outside `#` comments) starts with a capture time, the text is a
/// capture: every such line is one packet. Otherwise the whole text, comments removed,
/// is one packet, however its hex is broken into lines. Errors name the line.
pub(crate) fn datagrams(text: &str) -> Result<Vec<Datagram>, (usize, HexError)> {
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .filter(|(_, l)| !l.trim_start().starts_with('#') && !l.trim().is_empty())
        .collect();
    let is_capture = lines.iter().any(|(_, l)| capture_time(l).is_some());
    if !is_capture {
        let joined: Vec<&str> = lines.iter().map(|(_, l)| *l).collect();
        let first_line = lines.first().map_or(1, |(n, _)| *n);
        let bytes = parse_hex(&joined.join("\n")).map_err(|e| (first_line, e))?;
        return Ok(vec![Datagram {
            line: first_line,
            capture_time_s: None,
            bytes,
        }]);
    }
    lines
        .into_iter()
        .map(|(line, l)| {
            let (time, hex) = match capture_time(l) {
                Some((t, hex)) => (Some(t), hex),
                None => (None, l),
            };
            let bytes = parse_hex(hex).map_err(|e| (line, e))?;
            Ok(Datagram {
                line,
                capture_time_s: time,
                bytes,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_is_read_with_spaces_colons_and_0x_prefixes() {
        let want = vec![0x8b, 0xcd, 0x00, 0x24];
        for text in [
            "8bcd0024",
            "8b cd 00 24",
            "8b:cd:00:24",
            "0x8bcd0024",
            "0x8b 0xcd 0X00 0x24",
        ] {
            assert_eq!(parse_hex(text), Ok(want.clone()), "{text}");
        }
    }

    #[test]
    fn bad_hex_is_reported_with_its_position() {
        assert_eq!(
            parse_hex("8bcd 00x6"),
            Err(HexError::BadDigit {
                character: 'x',
                position: 7
            })
        );
        assert_eq!(parse_hex("abc"), Err(HexError::OddLength { digits: 3 }));
        assert_eq!(parse_hex(" \n"), Err(HexError::Empty));
        assert_eq!(parse_hex("0x"), Err(HexError::Empty));
    }

    #[test]
    fn a_capture_gives_one_packet_per_line_with_its_time() {
        let text = "# comment\n0.5 8bcd\n\n1.25 0x0024\n";
        let got = datagrams(text).expect("capture");
        assert_eq!(
            got,
            vec![
                Datagram {
                    line: 2,
                    capture_time_s: Some(0.5),
                    bytes: vec![0x8b, 0xcd]
                },
                Datagram {
                    line: 4,
                    capture_time_s: Some(1.25),
                    bytes: vec![0x00, 0x24]
                },
            ]
        );
        assert_eq!(datagrams("# c\n0.5 8bcd\n0.6 8bc\n").unwrap_err().0, 3);
    }

    #[test]
    fn hex_over_several_lines_is_one_packet() {
        let got = datagrams("8bcd 0024\n0000 000a\n").expect("one packet");
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].bytes, vec![0x8b, 0xcd, 0, 0x24, 0, 0, 0, 0x0a]);
        assert_eq!(got[0].capture_time_s, None);
    }
}
