//! Abstract per-packet feedback, independent of the wire format.
//!
//! The receiver produces a [`Feedback`]; the sender consumes one. Between them it may
//! travel as RFC 8888 bytes ([`crate::wire::ccfb`]) or any other encoding that can say,
//! per RTP packet, whether it arrived, when (on the receiver's clock) and with which
//! ECN codepoint.

use crate::ecn::Ecn;
use crate::time::RemoteInstant;

/// What the receiver knows about one RTP packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketStatus {
    /// Not (yet) received. Whether it is lost is the sender's call (reordering window).
    NotReceived,
    /// Received. `arrival` is `None` when the arrival time is not representable in the
    /// report (RFC 8888 §3.1, arrival time offset 0x1FFF).
    Received {
        /// Arrival time on the receiver's clock.
        arrival: Option<RemoteInstant>,
        /// ECN codepoint as received.
        ecn: Ecn,
    },
}

/// One per-packet entry of a feedback report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PacketReport {
    /// RTP SSRC of the media stream.
    pub ssrc: u32,
    /// RTP sequence number (16 bits, wraps).
    pub seq: u16,
    /// Reception status.
    pub status: PacketStatus,
}

/// One feedback report: per-packet reports for one or more media streams.
///
/// Reports of one SSRC appear in increasing sequence order (modulo 2^16) and may
/// overlap earlier reports: a receiver repeats recent packets so a lost feedback packet
/// is repaired by the next one.
///
/// A report covers, per SSRC, every sequence number from its lowest to its highest
/// reported one, as an RFC 8888 block does (§3.1: `begin_seq` and `num_reports`): a
/// number inside that range without an entry means not received, like an explicit
/// [`PacketStatus::NotReceived`]. A number outside every report's range says nothing;
/// the sender does not take such a packet for lost.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Feedback {
    /// When the receiver generated the report, on the receiver's clock.
    pub report_time: RemoteInstant,
    /// Per-packet reports.
    pub reports: Vec<PacketReport>,
}

impl Feedback {
    /// Empties the report, keeping its allocation for reuse.
    pub fn clear(&mut self) {
        self.reports.clear();
    }
}
