//! RFC 8888 congestion control feedback ("CCFB"): wire codec and conversion to and from
//! the abstract [`Feedback`](crate::feedback::Feedback).
//!
//! Layout (RFC 8888 §3.1), all fields big-endian:
//!
//! ```text
//!  0                   1                   2                   3
//!  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |V=2|P| FMT=11  |   PT = 205    |          length               |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |                 SSRC of RTCP packet sender                    |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |                   SSRC of 1st RTP stream                      |  one block
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+  per media
//! |          begin_seq            |          num_reports          |  SSRC
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |R|ECN|  arrival time offset    | ... (zero 16 bits if odd)     |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! .                               ...                             .
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |                       report timestamp                        |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! ```
//!
//! Two layers, in the style of smoltcp:
//! - [`Packet`] is a zero-copy view over bytes. [`Packet::new_checked`] validates the whole
//!   packet once; afterwards no accessor can panic or read past the buffer.
//! - [`Repr`] is the owned, high-level form with [`Repr::parse`], [`Repr::emit`] and
//!   [`Repr::buffer_len`].
//!
//! `num_reports` is the number of metric blocks (RFC 8888 erratum 8166). Some writers,
//! among them the Ericsson reference receiver, write that number minus one; see
//! [`ParseOptions`] for how the parser accepts both.
//!
//! For the common case of moving a [`Feedback`](crate::feedback::Feedback) through bytes,
//! use [`encode_feedback`] and [`decode_feedback`].

mod compound;
mod convert;
mod error;
mod layout;
mod options;
mod packet;
mod repr;
mod timestamp;

pub use compound::{CcfbPackets, RtcpPackets, ccfb_packets, is_ccfb, parse_compound, rtcp_packets};
pub use convert::{
    decode_feedback, encode_feedback, encode_feedback_with, from_feedback, to_feedback,
    to_feedback_into,
};
pub use error::{EmitError, Error};
pub use options::{CountConvention, CountMode, ParseOptions};
pub use packet::{BlockView, Blocks, Metrics, Packet, field};
pub use repr::{BlockRepr, MetricBlock, Repr};
pub use timestamp::{
    Q16_TICKS_PER_ATO, Q16_TICKS_PER_SECOND, TimestampUnwrapper, ato_to_duration, duration_to_ato,
    nanos_to_q16, q16_to_nanos,
};

/// RTCP version (RFC 3550 §6.4.1).
pub const RTCP_VERSION: u8 = 2;
/// Packet type of transport-layer feedback, RTPFB (RFC 4585 §6.1).
pub const PT_RTPFB: u8 = 205;
/// Feedback message type of congestion control feedback (RFC 8888 §3.1).
pub const FMT_CCFB: u8 = 11;
/// Most metric blocks one SSRC block may carry (RFC 8888 §3.1: at most 16384 reports,
/// a quarter of the sequence number space, so ranges cannot alias across a wrap).
pub const MAX_REPORTS_PER_BLOCK: usize = 16384;
/// Arrival time offsets count 1/1024 s (RFC 8888 §3.1).
pub const ATO_UNITS_PER_SECOND: u64 = 1024;
/// Largest representable offset; on the wire it means "this many 1/1024 s or more"
/// (RFC 8888 §3.1).
pub const ATO_MAX: u16 = 0x1FFE;
/// Offset value meaning "arrival time unavailable" (RFC 8888 §3.1).
pub const ATO_UNAVAILABLE: u16 = 0x1FFF;
/// Largest value of the 16-bit RTCP length field, in 32-bit words minus one
/// (RFC 3550 §6.4.1), so an RTCP packet has at most 262144 bytes.
pub const MAX_PACKET_LEN: usize = (u16::MAX as usize + 1) * 4;
