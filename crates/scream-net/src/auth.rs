//! Keyed authentication of the feedback: an opt-in for deployments whose two ends share
//! a key.
//!
//! Without it, the library's own rules already make a blind forger harmless (a report
//! must name a packet in flight to change anything: `scream::sender::FeedbackUse`).
//! What they cannot stop is an attacker on the path, who sees the media and can write
//! reports that name it: one that races a copy saying "all lost" ahead of each genuine
//! report starves the call (`crates/scream/tests/forged_feedback.rs`). A key stops that.
//!
//! The receiver appends a trailer modelled on SRTCP's (RFC 3711 §3.4) to each feedback
//! datagram: a 32-bit index, then an 80-bit tag, the first 10 bytes of HMAC-SHA-256
//! (RFC 2104) over the RTCP bytes and the index. 80 bits is SRTCP's default tag length
//! (RFC 3711 §5.2); SHA-256 rather than SRTCP's SHA-1 because nothing here needs to
//! interoperate with SRTCP. The feedback stays readable (RFC 8888 reveals sequence
//! numbers and arrival times only, which the media already shows an on-path observer).
//! This is not SRTCP and neither the Ericsson reference nor other RFC 8888 peers read it:
//! both ends must be ours and configured with the same key.
//!
//! The sender drops a datagram whose tag does not verify, and one whose index it has
//! already taken or that lies more than [`REPLAY_WINDOW`] behind the highest taken
//! (RFC 3711 §3.3.2's replay list), so a recorded report cannot be played back, not even
//! one from before a sequence-number wrap. The index counts on from the wall clock's
//! milliseconds when a receiver starts, so that a restarted receiver carries on ahead
//! of its former self as long as that sealed less than one datagram per millisecond on
//! average (a receiver reports at most once per packet, and at most every millisecond
//! under load); indices compare in serial-number arithmetic (RFC 1982), so the 49-day
//! wrap of the count is no break.
//!
//! An on-path attacker keeps what no authentication takes away: it can delay or drop
//! the feedback, which the sender treats as congestion or an outage, as it must.

use hmac::{Hmac, Mac};
use sha2::Sha256;
use std::fmt;

/// Bytes of the index in the trailer.
pub const INDEX_LEN: usize = 4;
/// Bytes of the tag in the trailer: 80 bits (RFC 3711 §5.2).
pub const TAG_LEN: usize = 10;
/// Bytes the trailer adds to each feedback datagram.
pub const TRAILER_LEN: usize = INDEX_LEN + TAG_LEN;
/// How far behind the highest index taken an index may lie and still be taken once:
/// the minimum window RFC 3711 §3.3.2 asks for, enough for feedback reordered on its
/// way back.
pub const REPLAY_WINDOW: u32 = 64;

type HmacSha256 = Hmac<Sha256>;

/// A shared feedback key: 16 to 64 bytes (128 to 512 bits).
#[derive(Clone, PartialEq, Eq)]
pub struct FeedbackKey(Vec<u8>);

impl FeedbackKey {
    /// Fewest key bytes: 128 bits, SRTP's master key length (RFC 3711 §8.2).
    pub const MIN_LEN: usize = 16;
    /// Most key bytes: one SHA-256 block, beyond which HMAC hashes the key first.
    pub const MAX_LEN: usize = 64;

    /// A key of these bytes.
    pub fn new(bytes: &[u8]) -> Result<Self, KeyError> {
        if !(Self::MIN_LEN..=Self::MAX_LEN).contains(&bytes.len()) {
            return Err(KeyError::Length(bytes.len()));
        }
        Ok(Self(bytes.to_vec()))
    }

    /// A key written as hexadecimal digits (white space around them is ignored).
    pub fn from_hex(text: &str) -> Result<Self, KeyError> {
        let digits = text.trim();
        if let Some((i, c)) = digits.char_indices().find(|(_, c)| !c.is_ascii_hexdigit()) {
            return Err(KeyError::NotHex { at: i, found: c });
        }
        if digits.len() % 2 == 1 {
            return Err(KeyError::OddDigits(digits.len()));
        }
        let bytes: Vec<u8> = digits
            .as_bytes()
            .chunks(2)
            .map(|pair| {
                let hex = |b: u8| (b as char).to_digit(16).unwrap_or(0) as u8;
                hex(pair[0]) << 4 | hex(pair[1])
            })
            .collect();
        Self::new(&bytes)
    }

    fn mac(&self) -> HmacSha256 {
        // HMAC takes keys of any length; the length was checked on construction.
        HmacSha256::new_from_slice(&self.0).unwrap_or_else(|_| unreachable!("HMAC key"))
    }
}

impl fmt::Debug for FeedbackKey {
    /// Never prints the key.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FeedbackKey({} bytes)", self.0.len())
    }
}

/// Why a key was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyError {
    /// The key has this many bytes, outside 16 to 64.
    Length(usize),
    /// A character that is not a hexadecimal digit, at this byte offset.
    NotHex { at: usize, found: char },
    /// An odd number of hexadecimal digits.
    OddDigits(usize),
}

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (min, max) = (FeedbackKey::MIN_LEN, FeedbackKey::MAX_LEN);
        match self {
            Self::Length(n) => write!(
                f,
                "the key has {n} bytes; it must have {min} to {max} ({} to {} hex digits)",
                2 * min,
                2 * max
            ),
            Self::NotHex { at, found } => {
                write!(f, "{found:?} at offset {at} is not a hexadecimal digit")
            }
            Self::OddDigits(n) => write!(f, "{n} hexadecimal digits: an odd count is no bytes"),
        }
    }
}

impl std::error::Error for KeyError {}

/// The receiver's half: seals each feedback datagram.
#[derive(Clone, Debug)]
pub struct Sealer {
    key: FeedbackKey,
    next_index: u32,
}

impl Sealer {
    /// A sealer whose first datagram carries `first_index`.
    pub fn new(key: FeedbackKey, first_index: u32) -> Self {
        Self {
            key,
            next_index: first_index,
        }
    }

    /// A sealer whose index starts at the wall clock's milliseconds (modulo 2^32), so
    /// that a restarted receiver continues ahead of its former self.
    pub fn starting_now(key: FeedbackKey) -> Self {
        let ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        // Modulo 2^32 on purpose: indices compare in serial-number arithmetic.
        Self::new(key, ms as u32)
    }

    /// Appends the trailer (index and tag) to the RTCP bytes in `datagram`.
    pub fn seal(&mut self, datagram: &mut Vec<u8>) {
        let index = self.next_index.to_be_bytes();
        self.next_index = self.next_index.wrapping_add(1);
        datagram.extend_from_slice(&index);
        let mut mac = self.key.mac();
        mac.update(datagram);
        let tag = mac.finalize().into_bytes();
        datagram.extend_from_slice(&tag[..TAG_LEN]);
    }
}

/// What [`Opener::open`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opened<'a> {
    /// Sealed with the key and not seen before: the RTCP bytes.
    Authentic(&'a [u8]),
    /// No trailer, or a tag that does not verify.
    Forged,
    /// Authentic, but its index was taken before or lies too far behind.
    Replayed,
}

/// The sender's half: checks each feedback datagram and its index.
#[derive(Clone, Debug)]
pub struct Opener {
    key: FeedbackKey,
    /// The highest index taken.
    highest: Option<u32>,
    /// Bit `k`: index `highest - k` was taken.
    taken: u64,
}

impl Opener {
    /// An opener that has taken nothing.
    pub fn new(key: FeedbackKey) -> Self {
        Self {
            key,
            highest: None,
            taken: 0,
        }
    }

    /// Checks `datagram`; on success its index counts as taken.
    pub fn open<'a>(&mut self, datagram: &'a [u8]) -> Opened<'a> {
        let Some(split) = datagram.len().checked_sub(TRAILER_LEN) else {
            return Opened::Forged;
        };
        let (sealed, tag) = datagram.split_at(split + INDEX_LEN);
        let mut mac = self.key.mac();
        mac.update(sealed);
        // Constant-time comparison of the truncated tag.
        if mac.verify_truncated_left(tag).is_err() {
            return Opened::Forged;
        }
        let (rtcp, index) = sealed.split_at(split);
        let index = u32::from_be_bytes([index[0], index[1], index[2], index[3]]);
        if self.take(index) {
            Opened::Authentic(rtcp)
        } else {
            Opened::Replayed
        }
    }

    /// Marks `index` taken; false if it was taken already or is too old.
    fn take(&mut self, index: u32) -> bool {
        let Some(highest) = self.highest else {
            self.highest = Some(index);
            self.taken = 1;
            return true;
        };
        // RFC 1982: the signed distance modulo 2^32.
        let ahead = index.wrapping_sub(highest) as i32;
        if ahead > 0 {
            let shift = ahead as u32;
            self.taken = if shift >= 64 { 0 } else { self.taken << shift };
            self.taken |= 1;
            self.highest = Some(index);
            return true;
        }
        let behind = ahead.unsigned_abs();
        if behind >= REPLAY_WINDOW || self.taken >> behind & 1 == 1 {
            return false;
        }
        self.taken |= 1 << behind;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(byte: u8) -> FeedbackKey {
        FeedbackKey::new(&[byte; 32]).expect("32 bytes")
    }

    fn sealed(sealer: &mut Sealer, body: &[u8]) -> Vec<u8> {
        let mut d = body.to_vec();
        sealer.seal(&mut d);
        d
    }

    #[test]
    fn a_sealed_datagram_opens_to_its_rtcp_once() {
        let mut sealer = Sealer::new(key(7), 5);
        let mut opener = Opener::new(key(7));
        let d = sealed(&mut sealer, b"rtcp bytes");
        assert_eq!(d.len(), 10 + TRAILER_LEN);
        assert_eq!(opener.open(&d), Opened::Authentic(b"rtcp bytes"));
        assert_eq!(opener.open(&d), Opened::Replayed);
    }

    #[test]
    fn a_wrong_key_a_changed_byte_or_no_trailer_is_forged() {
        let mut sealer = Sealer::new(key(7), 0);
        let d = sealed(&mut sealer, b"rtcp bytes");
        assert_eq!(Opener::new(key(8)).open(&d), Opened::Forged);
        for i in 0..d.len() {
            let mut bad = d.clone();
            bad[i] ^= 0x01;
            assert_eq!(Opener::new(key(7)).open(&bad), Opened::Forged, "byte {i}");
        }
        assert_eq!(Opener::new(key(7)).open(b"rtcp bytes"), Opened::Forged);
        assert_eq!(Opener::new(key(7)).open(&d[..5]), Opened::Forged);
    }

    #[test]
    fn reordering_within_the_window_passes_and_replays_do_not() {
        let mut sealer = Sealer::new(key(1), u32::MAX - 40);
        let all: Vec<_> = (0..200).map(|_| sealed(&mut sealer, b"x")).collect();
        let mut opener = Opener::new(key(1));
        // In order across the wrap of the index, then late ones within the window.
        for d in &all[100..] {
            assert_eq!(opener.open(d), Opened::Authentic(b"x"));
        }
        for d in &all[200 - 64..200 - 60] {
            assert_eq!(opener.open(d), Opened::Replayed, "taken already");
        }
        let mut opener = Opener::new(key(1));
        for (i, d) in all.iter().enumerate().filter(|(i, _)| i % 2 == 0) {
            assert_eq!(opener.open(d), Opened::Authentic(b"x"), "{i}");
        }
        // The odd ones arrive late: those within 64 of the highest pass, once.
        for (i, d) in all.iter().enumerate().filter(|(i, _)| i % 2 == 1) {
            let want = if i + 64 > 198 {
                Opened::Authentic(&b"x"[..])
            } else {
                Opened::Replayed
            };
            assert_eq!(opener.open(d), want, "{i}");
            assert_eq!(opener.open(d), Opened::Replayed, "{i} again");
        }
    }

    #[test]
    fn keys_are_checked_and_never_printed() {
        assert_eq!(FeedbackKey::new(&[0; 15]), Err(KeyError::Length(15)));
        assert_eq!(FeedbackKey::new(&[0; 65]), Err(KeyError::Length(65)));
        let k = FeedbackKey::from_hex(" 00112233445566778899aabbccddeeff\n").expect("16 bytes");
        assert_eq!(k.0[15], 0xff);
        assert_eq!(format!("{k:?}"), "FeedbackKey(16 bytes)");
        assert_eq!(
            FeedbackKey::from_hex("0011x2"),
            Err(KeyError::NotHex { at: 4, found: 'x' })
        );
        assert_eq!(FeedbackKey::from_hex("001"), Err(KeyError::OddDigits(3)));
        let e = FeedbackKey::from_hex("0011").unwrap_err().to_string();
        assert!(e.contains("2 bytes") && e.contains("16 to 64"), "{e}");
    }
}
