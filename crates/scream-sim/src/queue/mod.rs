//! Queue disciplines at a link's input.
//!
//! Every discipline stamps packets at enqueue and makes its AQM decision at dequeue,
//! i.e. when the serializer takes the packet. CoDel and DualPI2 judge the sojourn time
//! (enqueue -> start of serialisation) as their RFCs define it; the two reference-style
//! markers judge the time at the link (see [`marker`]). AQMs mark only ECN-capable packets and drop the others where they
//! would mark. All disciplines share a tail-drop admission limit in bytes.

pub mod codel;
pub mod dualpi2;
pub mod fifo;
pub mod marker;

pub use codel::Codel;
pub use dualpi2::{DualPi2, DualPi2Params};
pub use fifo::Fifo;
pub use marker::{EcnThreshold, L4sRamp, ramp_probability};

use crate::packet::Packet;
use crate::rng::RngStream;
use scream::{Bitrate, Instant};

/// A queue discipline (an enum, so the per-packet path has no dynamic dispatch).
#[derive(Debug, Clone)]
pub enum Queue {
    /// Plain FIFO with tail drop.
    TailDrop(Fifo),
    /// CoDel (RFC 8289).
    Codel(Codel),
    /// Classic ECN step threshold.
    EcnThreshold(EcnThreshold),
    /// L4S linear ramp marker.
    L4sRamp(L4sRamp),
    /// DualPI2 (RFC 9332).
    DualPi2(DualPi2),
}

impl Queue {
    /// Admits `pkt` at `now` under `limit_bytes` (0 = unlimited), or hands it back.
    pub fn enqueue(&mut self, now: Instant, pkt: Packet, limit_bytes: u64) -> Result<(), Packet> {
        match self {
            Self::TailDrop(q) => q.push(now, pkt, limit_bytes),
            Self::Codel(q) => q.push(now, pkt, limit_bytes),
            Self::EcnThreshold(q) => q.push(now, pkt, limit_bytes),
            Self::L4sRamp(q) => q.push(now, pkt, limit_bytes),
            Self::DualPi2(q) => q.push(now, pkt, limit_bytes),
        }
    }

    /// The packet the serializer takes at `now` on a link whose capacity is now `rate`
    /// (ECN possibly set to CE); packets the AQM drops on the way are appended to
    /// `dropped`.
    pub fn dequeue(
        &mut self,
        now: Instant,
        rate: Bitrate,
        rng: &mut RngStream,
        dropped: &mut Vec<Packet>,
    ) -> Option<Packet> {
        match self {
            Self::TailDrop(q) => q.pop(),
            Self::Codel(q) => q.pop(now, dropped),
            Self::EcnThreshold(q) => q.pop(now, rate, dropped),
            Self::L4sRamp(q) => q.pop(now, rate, rng),
            Self::DualPi2(q) => q.pop(now, rng, dropped),
        }
    }

    /// Bytes queued.
    pub fn bytes(&self) -> u64 {
        match self {
            Self::TailDrop(q) => q.bytes(),
            Self::Codel(q) => q.fifo().bytes(),
            Self::EcnThreshold(q) => q.fifo().bytes(),
            Self::L4sRamp(q) => q.fifo().bytes(),
            Self::DualPi2(q) => q.bytes(),
        }
    }

    /// Packets queued.
    pub fn len(&self) -> usize {
        match self {
            Self::TailDrop(q) => q.len(),
            Self::Codel(q) => q.fifo().len(),
            Self::EcnThreshold(q) => q.fifo().len(),
            Self::L4sRamp(q) => q.fifo().len(),
            Self::DualPi2(q) => q.len(),
        }
    }

    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
