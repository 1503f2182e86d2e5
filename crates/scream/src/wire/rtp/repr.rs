//! Owned, high-level form of an RTP header.

use super::error::{EmitError, Error};
use super::packet::{Packet, field};
use super::{MAX_CSRCS, MAX_PAYLOAD_TYPE, RTP_VERSION};

/// Up to 15 CSRC identifiers, stored inline so that parsing never allocates.
///
/// Equality and hashing look only at the identifiers in the list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct CsrcList {
    len: u8,
    // Slots at and past `len` stay zero, so the derived comparisons see only the list.
    ids: [u32; MAX_CSRCS],
}

impl CsrcList {
    /// An empty list.
    pub const fn new() -> Self {
        Self {
            len: 0,
            ids: [0; MAX_CSRCS],
        }
    }

    /// The identifiers in `csrcs`, or `None` if there are more than 15
    /// ([`MAX_CSRCS`](super::MAX_CSRCS)).
    pub fn from_slice(csrcs: &[u32]) -> Option<Self> {
        let mut list = Self::new();
        list.ids.get_mut(..csrcs.len())?.copy_from_slice(csrcs);
        list.len = u8::try_from(csrcs.len()).ok()?;
        Some(list)
    }

    /// Appends `csrc`; returns `false` (and leaves the list as it was) if it is full.
    pub fn push(&mut self, csrc: u32) -> bool {
        let Some(slot) = self.ids.get_mut(usize::from(self.len)) else {
            return false;
        };
        *slot = csrc;
        self.len += 1;
        true
    }

    /// The identifiers in order.
    pub fn as_slice(&self) -> &[u32] {
        &self.ids[..usize::from(self.len)]
    }

    /// Number of identifiers (0..=15).
    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// An RTP header and the length of the payload behind it.
///
/// Parsing keeps the CSRC list and drops a header extension and padding; emitting writes
/// version 2 without either. So parse then emit reproduces a packet byte for byte exactly
/// when it has neither extension nor padding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Repr {
    /// The marker bit (for video, usually the last packet of a frame).
    pub marker: bool,
    /// Payload type, 0..=127 ([`MAX_PAYLOAD_TYPE`](super::MAX_PAYLOAD_TYPE)).
    pub payload_type: u8,
    /// Sequence number (wraps modulo 2^16).
    pub sequence_number: u16,
    /// Media timestamp (wraps modulo 2^32), in the payload format's clock rate.
    pub timestamp: u32,
    /// Synchronization source.
    pub ssrc: u32,
    /// Contributing sources, as listed by a mixer.
    pub csrcs: CsrcList,
    /// Bytes of payload after the header, without padding.
    pub payload_len: usize,
}

impl Repr {
    /// Validates `packet` (it may have been built with
    /// [`Packet::new_unchecked`](super::Packet::new_unchecked) or changed since it was
    /// checked) and reads its header.
    pub fn parse<T: AsRef<[u8]>>(packet: &Packet<T>) -> Result<Self, Error> {
        let layout = packet.layout()?;
        let mut csrcs = CsrcList::new();
        for index in 0..usize::from(packet.csrc_count()) {
            // Validation guarantees the list fits; the count is at most 15.
            if let Some(csrc) = packet.csrc(index) {
                csrcs.push(csrc);
            }
        }
        Ok(Self {
            marker: packet.marker(),
            payload_type: packet.payload_type(),
            sequence_number: packet.sequence_number(),
            timestamp: packet.timestamp(),
            ssrc: packet.ssrc(),
            csrcs,
            payload_len: layout.payload_end - layout.header_len,
        })
    }

    /// Validates and reads the RTP packet that is the whole of `bytes`.
    pub fn parse_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Self::parse(&Packet::new_unchecked(bytes))
    }

    /// Bytes of the header [`emit`](Self::emit) writes: 12 plus 4 per CSRC.
    pub fn header_len(&self) -> usize {
        field::csrc_end(self.csrcs.len())
    }

    /// Bytes of the whole packet: header and payload (saturating at `usize::MAX`).
    pub fn buffer_len(&self) -> usize {
        self.header_len().saturating_add(self.payload_len)
    }

    /// Writes the header (version 2, no padding, no extension) at the start of
    /// `packet`, which must hold at least [`buffer_len`](Self::buffer_len) bytes; the
    /// payload bytes after the header are left for the caller. Returns the packet length.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(
        &self,
        packet: &mut Packet<T>,
    ) -> Result<usize, EmitError> {
        if self.payload_type > MAX_PAYLOAD_TYPE {
            return Err(EmitError::PayloadType {
                payload_type: self.payload_type,
            });
        }
        let needed = self.buffer_len();
        let available = packet.total_len();
        if available < needed {
            return Err(EmitError::BufferTooSmall { needed, available });
        }
        packet.set_version(RTP_VERSION);
        packet.set_padding(false);
        packet.set_extension(false);
        // At most 15 by construction of the list.
        packet.set_csrc_count(self.csrcs.len() as u8);
        packet.set_marker(self.marker);
        packet.set_payload_type(self.payload_type);
        packet.set_sequence_number(self.sequence_number);
        packet.set_timestamp(self.timestamp);
        packet.set_ssrc(self.ssrc);
        for (index, &csrc) in self.csrcs.as_slice().iter().enumerate() {
            packet.set_csrc(index, csrc);
        }
        Ok(needed)
    }

    /// Writes the header at the start of `buf` and checks that `buf` also has room for
    /// the payload, which the caller writes at `buf[header_len()..]`. Returns the packet
    /// length, header and payload.
    pub fn emit_bytes(&self, buf: &mut [u8]) -> Result<usize, EmitError> {
        self.emit(&mut Packet::new_unchecked(buf))
    }
}
