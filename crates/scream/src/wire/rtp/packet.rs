//! Zero-copy view of one RTP packet.

use super::RTP_VERSION;
use super::error::Error;

/// Byte positions of the fields (RFC 3550 §5.1, §5.3.1).
pub mod field {
    /// A byte range in a packet.
    pub type Field = core::ops::Range<usize>;

    /// Version (2 bits), padding flag, extension flag, CSRC count (4 bits).
    pub const VER_PAD_EXT_CC: usize = 0;
    /// Marker bit and payload type (7 bits).
    pub const MARKER_PT: usize = 1;
    /// Sequence number.
    pub const SEQUENCE_NUMBER: Field = 2..4;
    /// Media timestamp.
    pub const TIMESTAMP: Field = 4..8;
    /// Synchronization source.
    pub const SSRC: Field = 8..12;
    /// Length of the fixed header, present in every packet (RFC 3550 §5.1).
    pub const FIXED_HEADER_LEN: usize = 12;
    /// Length of one CSRC identifier.
    pub const CSRC_LEN: usize = 4;
    /// Length of the header extension's own header: a profile-defined 16-bit value and
    /// a 16-bit length (RFC 3550 §5.3.1).
    pub const EXTENSION_HEADER_LEN: usize = 4;
    /// The extension's length field counts 32-bit words after its own header
    /// (RFC 3550 §5.3.1).
    pub const EXTENSION_WORD_LEN: usize = 4;

    /// Byte range of CSRC identifier `index` (0-based).
    pub const fn csrc(index: usize) -> Field {
        let start = FIXED_HEADER_LEN + index * CSRC_LEN;
        start..start + CSRC_LEN
    }

    /// Offset of the header extension (or of the payload without one) after `count`
    /// CSRC identifiers.
    pub const fn csrc_end(count: usize) -> usize {
        FIXED_HEADER_LEN + count * CSRC_LEN
    }
}

const PADDING_BIT: u8 = 0x20;
const EXTENSION_BIT: u8 = 0x10;
const CC_MASK: u8 = 0x0f;
const MARKER_BIT: u8 = 0x80;
const PT_MASK: u8 = 0x7f;

/// Extents of a validated packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    /// Fixed header, CSRC list and header extension, in bytes.
    pub(crate) header_len: usize,
    /// End of the payload: the buffer length less the padding.
    pub(crate) payload_end: usize,
}

fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    let b = bytes.get(at..at + 2)?;
    Some(u16::from_be_bytes([b[0], b[1]]))
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at + 4)?;
    Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

/// Checks everything the accessors rely on. The packet is the whole of `bytes`: RTP has
/// no length field, the datagram delimits it.
fn validate(bytes: &[u8]) -> Result<Layout, Error> {
    let len = bytes.len();
    let Some(&first) = bytes.get(..field::FIXED_HEADER_LEN).and_then(<[u8]>::first) else {
        return Err(Error::TooShort { len });
    };
    let version = first >> 6;
    if version != RTP_VERSION {
        return Err(Error::Version { version });
    }
    let count = first & CC_MASK;
    let csrc_end = field::csrc_end(usize::from(count));
    if csrc_end > len {
        return Err(Error::CsrcTruncated {
            count,
            needed: csrc_end,
            available: len,
        });
    }
    let mut header_len = csrc_end;
    if first & EXTENSION_BIT != 0 {
        let available = len - csrc_end;
        let truncated = |needed| Error::ExtensionTruncated {
            offset: csrc_end,
            needed,
            available,
        };
        let words = u16_at(bytes, csrc_end + 2).ok_or(truncated(field::EXTENSION_HEADER_LEN))?;
        let needed = field::EXTENSION_HEADER_LEN + usize::from(words) * field::EXTENSION_WORD_LEN;
        if needed > available {
            return Err(truncated(needed));
        }
        header_len += needed;
    }
    let mut payload_end = len;
    if first & PADDING_BIT != 0 {
        // RFC 3550 §5.1: the last octet counts the padding octets, itself included, so
        // 0 is meaningless. A count equal to everything after the header (no payload)
        // is accepted: padding-only packets are sent to probe bandwidth.
        let count = bytes[len - 1];
        let max = len - header_len;
        if count == 0 || usize::from(count) > max {
            return Err(Error::BadPadding {
                count,
                header_len,
                max,
            });
        }
        payload_end = len - usize::from(count);
    }
    Ok(Layout {
        header_len,
        payload_end,
    })
}

/// An RTP packet over any byte buffer; the packet is the whole buffer.
#[derive(Clone, Debug)]
pub struct Packet<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Packet<T> {
    /// Wraps a buffer without checking it, to write a header into it (see
    /// [`Repr::emit`](super::Repr::emit)).
    ///
    /// Getters and setters panic if the buffer is shorter than the 12-byte fixed header;
    /// past it, getters read only what the buffer holds ([`csrc`](Self::csrc) and the
    /// extension getters return `None`, [`payload`](Self::payload) an empty slice). Use
    /// [`new_checked`](Self::new_checked) for bytes from the network.
    pub const fn new_unchecked(buffer: T) -> Self {
        Self { buffer }
    }

    /// Wraps a buffer after [`check_len`](Self::check_len). Afterwards no accessor can
    /// panic, whatever the bytes.
    pub fn new_checked(buffer: T) -> Result<Self, Error> {
        let packet = Self::new_unchecked(buffer);
        packet.check_len()?;
        Ok(packet)
    }

    /// Validates the version (2), and that the CSRC list, the header extension and the
    /// padding the header announces all fit the buffer.
    pub fn check_len(&self) -> Result<(), Error> {
        self.layout().map(|_| ())
    }

    pub(crate) fn layout(&self) -> Result<Layout, Error> {
        validate(self.bytes())
    }

    /// The underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    fn bytes(&self) -> &[u8] {
        self.buffer.as_ref()
    }

    /// Length of the packet in bytes: the whole buffer.
    pub fn total_len(&self) -> usize {
        self.bytes().len()
    }

    /// RTP version; always 2 in a validated packet.
    pub fn version(&self) -> u8 {
        self.bytes()[field::VER_PAD_EXT_CC] >> 6
    }

    /// Whether the padding flag (P) is set.
    pub fn padding(&self) -> bool {
        self.bytes()[field::VER_PAD_EXT_CC] & PADDING_BIT != 0
    }

    /// Whether the extension flag (X) is set.
    pub fn extension(&self) -> bool {
        self.bytes()[field::VER_PAD_EXT_CC] & EXTENSION_BIT != 0
    }

    /// Number of CSRC identifiers after the fixed header (CC, 0..=15).
    pub fn csrc_count(&self) -> u8 {
        self.bytes()[field::VER_PAD_EXT_CC] & CC_MASK
    }

    /// The marker bit (M); for video, usually the last packet of a frame.
    pub fn marker(&self) -> bool {
        self.bytes()[field::MARKER_PT] & MARKER_BIT != 0
    }

    /// Payload type (PT, 0..=127).
    pub fn payload_type(&self) -> u8 {
        self.bytes()[field::MARKER_PT] & PT_MASK
    }

    /// Sequence number.
    pub fn sequence_number(&self) -> u16 {
        let b = &self.bytes()[field::SEQUENCE_NUMBER];
        u16::from_be_bytes([b[0], b[1]])
    }

    /// Media timestamp.
    pub fn timestamp(&self) -> u32 {
        let b = &self.bytes()[field::TIMESTAMP];
        u32::from_be_bytes([b[0], b[1], b[2], b[3]])
    }

    /// Synchronization source (SSRC).
    pub fn ssrc(&self) -> u32 {
        let b = &self.bytes()[field::SSRC];
        u32::from_be_bytes([b[0], b[1], b[2], b[3]])
    }

    /// CSRC identifier `index` (0-based), or `None` if `index` is not below
    /// [`csrc_count`](Self::csrc_count) or the buffer ends first.
    pub fn csrc(&self, index: usize) -> Option<u32> {
        if index >= usize::from(self.csrc_count()) {
            return None;
        }
        u32_at(self.bytes(), field::csrc(index).start)
    }

    /// The 16-bit profile-defined value of the header extension (RFC 3550 §5.3.1), or
    /// `None` without one.
    pub fn extension_profile(&self) -> Option<u16> {
        if !self.extension() {
            return None;
        }
        u16_at(
            self.bytes(),
            field::csrc_end(usize::from(self.csrc_count())),
        )
    }

    /// The header extension's words after its 4-byte header (possibly empty), or `None`
    /// without an extension or if the buffer ends before it does.
    pub fn extension_data(&self) -> Option<&[u8]> {
        if !self.extension() {
            return None;
        }
        let start = field::csrc_end(usize::from(self.csrc_count())) + field::EXTENSION_HEADER_LEN;
        self.bytes().get(start..self.header_len())
    }

    /// Length of the header: 12 bytes, 4 per CSRC, and the header extension if X is set.
    ///
    /// In a validated packet this is at most [`total_len`](Self::total_len).
    pub fn header_len(&self) -> usize {
        let csrc_end = field::csrc_end(usize::from(self.csrc_count()));
        if !self.extension() {
            return csrc_end;
        }
        let words = u16_at(self.bytes(), csrc_end + 2).unwrap_or(0);
        csrc_end + field::EXTENSION_HEADER_LEN + usize::from(words) * field::EXTENSION_WORD_LEN
    }

    /// Bytes of padding at the end, the count octet included (0 without the P bit).
    pub fn padding_len(&self) -> usize {
        if !self.padding() {
            return 0;
        }
        self.bytes().last().map_or(0, |&count| usize::from(count))
    }

    fn payload_range(&self) -> core::ops::Range<usize> {
        let end = self.total_len().saturating_sub(self.padding_len());
        self.header_len()..end
    }

    /// The payload: what follows the header, less the padding. Empty if the header
    /// disagrees with the buffer (never the case after [`new_checked`](Self::new_checked)
    /// unless setters have changed CC, X or P since).
    pub fn payload(&self) -> &[u8] {
        self.bytes().get(self.payload_range()).unwrap_or_default()
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Packet<T> {
    fn bytes_mut(&mut self) -> &mut [u8] {
        self.buffer.as_mut()
    }

    fn set_bits(&mut self, at: usize, mask: u8, value: u8) {
        let byte = &mut self.bytes_mut()[at];
        *byte = (*byte & !mask) | (value & mask);
    }

    /// Sets the version field (its 2 low bits of `version`).
    pub fn set_version(&mut self, version: u8) {
        self.set_bits(field::VER_PAD_EXT_CC, 0xc0, version << 6);
    }

    /// Sets or clears the padding flag (P). The caller provides the padding itself.
    pub fn set_padding(&mut self, padding: bool) {
        self.set_bits(field::VER_PAD_EXT_CC, PADDING_BIT, u8::from(padding) << 5);
    }

    /// Sets or clears the extension flag (X). The caller provides the extension itself.
    pub fn set_extension(&mut self, extension: bool) {
        self.set_bits(
            field::VER_PAD_EXT_CC,
            EXTENSION_BIT,
            u8::from(extension) << 4,
        );
    }

    /// Sets the CSRC count (its 4 low bits of `count`).
    pub fn set_csrc_count(&mut self, count: u8) {
        self.set_bits(field::VER_PAD_EXT_CC, CC_MASK, count);
    }

    /// Sets or clears the marker bit (M).
    pub fn set_marker(&mut self, marker: bool) {
        self.set_bits(field::MARKER_PT, MARKER_BIT, u8::from(marker) << 7);
    }

    /// Sets the payload type (its 7 low bits of `payload_type`).
    pub fn set_payload_type(&mut self, payload_type: u8) {
        self.set_bits(field::MARKER_PT, PT_MASK, payload_type);
    }

    /// Sets the sequence number.
    pub fn set_sequence_number(&mut self, seq: u16) {
        self.bytes_mut()[field::SEQUENCE_NUMBER].copy_from_slice(&seq.to_be_bytes());
    }

    /// Sets the media timestamp.
    pub fn set_timestamp(&mut self, timestamp: u32) {
        self.bytes_mut()[field::TIMESTAMP].copy_from_slice(&timestamp.to_be_bytes());
    }

    /// Sets the synchronization source.
    pub fn set_ssrc(&mut self, ssrc: u32) {
        self.bytes_mut()[field::SSRC].copy_from_slice(&ssrc.to_be_bytes());
    }

    /// Writes CSRC identifier `index` (0-based) without touching the CSRC count.
    ///
    /// # Panics
    ///
    /// If the buffer ends before the identifier's slot (`16 + 4 * index` bytes needed).
    pub fn set_csrc(&mut self, index: usize, csrc: u32) {
        self.bytes_mut()[field::csrc(index)].copy_from_slice(&csrc.to_be_bytes());
    }

    /// The payload, writable; the same bytes as [`payload`](Self::payload).
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let range = self.payload_range();
        self.bytes_mut().get_mut(range).unwrap_or_default()
    }
}
