//! RTP data packet header (RFC 3550 §5.1): wire codec.
//!
//! Layout (RFC 3550 §5.1), all fields big-endian:
//!
//! ```text
//!  0                   1                   2                   3
//!  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |V=2|P|X|  CC   |M|     PT      |       sequence number         |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |                           timestamp                           |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |           synchronization source (SSRC) identifier            |
//! +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
//! |       contributing source (CSRC) identifiers, CC of them      |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |  profile-defined (if X=1)     |     length in 32-bit words    |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |                  header extension (length words)              |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |                 payload ...   | padding (if P=1) ... | count  |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! ```
//!
//! Two layers, as for [`ccfb`](super::ccfb):
//! - [`Packet`] is a zero-copy view over bytes. [`Packet::new_checked`] validates the
//!   version, the CSRC list, the header extension and the padding once; afterwards no
//!   accessor can panic or read past the buffer.
//! - [`Repr`] is the owned, high-level form with [`Repr::parse`], [`Repr::emit`] and
//!   [`Repr::buffer_len`]. It keeps the CSRC list in a fixed array ([`CsrcList`]), so
//!   neither parsing nor emitting allocates. It drops a header extension and padding:
//!   congestion control needs neither, and [`Repr::emit`] never writes them.
//!
//! [`classify`] tells RTP from RTCP when both share one port (RFC 5761 §4).

mod demux;
mod error;
mod packet;
mod repr;
#[cfg(test)]
mod tests;

pub use demux::{PacketKind, classify};
pub use error::{EmitError, Error};
pub use packet::{Packet, field};
pub use repr::{CsrcList, Repr};

/// RTP version (RFC 3550 §5.1).
pub const RTP_VERSION: u8 = 2;
/// Most CSRC identifiers a header can list: the CC field has 4 bits (RFC 3550 §5.1).
pub const MAX_CSRCS: usize = 15;
/// Largest payload type: the PT field has 7 bits (RFC 3550 §5.1).
pub const MAX_PAYLOAD_TYPE: u8 = 0x7f;
