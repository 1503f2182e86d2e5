//! What can be wrong with RTP bytes, and with a [`Repr`](super::Repr) to emit.

/// Why bytes are not a valid RTP packet (RFC 3550 §5.1, §5.3.1).
///
/// Lengths and offsets are in bytes from the start of the packet.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Fewer bytes than the 12-byte fixed header.
    #[error("RTP packet of {len} bytes is shorter than the 12-byte fixed header")]
    TooShort {
        /// Bytes in the buffer.
        len: usize,
    },
    /// The version field is not 2.
    #[error("RTP version {version}, expected 2")]
    Version {
        /// The two version bits found.
        version: u8,
    },
    /// The CSRC count (CC) lists more identifiers than the buffer holds.
    #[error(
        "CSRC count {count} needs a {needed}-byte header, the packet has only {available} bytes"
    )]
    CsrcTruncated {
        /// The CC field (0..=15).
        count: u8,
        /// Fixed header plus CSRC list, in bytes.
        needed: usize,
        /// Bytes in the buffer.
        available: usize,
    },
    /// The X bit is set but the header extension (its 4-byte header, or as many 32-bit
    /// words as its length field declares) runs past the buffer.
    #[error(
        "header extension at offset {offset} needs {needed} bytes, only {available} left \
         in the packet"
    )]
    ExtensionTruncated {
        /// Where the extension starts (after the CSRC list).
        offset: usize,
        /// Bytes the extension needs: 4, or 4 plus 4 per declared word once its header
        /// is readable.
        needed: usize,
        /// Bytes left in the buffer from `offset`.
        available: usize,
    },
    /// The P bit is set but the last octet is not a usable padding count: it counts
    /// itself, so it must be at least 1, and it may not reach into the header.
    #[error(
        "padding count {count} (last octet) is invalid: it must be between 1 and {max}, \
         the bytes after the {header_len}-byte header"
    )]
    BadPadding {
        /// The count found.
        count: u8,
        /// Length of the header (fixed part, CSRCs and extension).
        header_len: usize,
        /// Bytes after the header: the largest count that leaves the header intact.
        max: usize,
    },
}

/// Why a [`Repr`](super::Repr) cannot be written.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EmitError {
    /// The output buffer is smaller than [`Repr::buffer_len`](super::Repr::buffer_len).
    #[error("buffer of {available} bytes too small for a {needed}-byte RTP packet")]
    BufferTooSmall {
        /// Bytes the packet (header and payload) needs.
        needed: usize,
        /// Bytes in the buffer.
        available: usize,
    },
    /// The payload type does not fit its 7-bit field.
    #[error("payload type {payload_type} out of range: the field has 7 bits (0..=127)")]
    PayloadType {
        /// The value given.
        payload_type: u8,
    },
}
