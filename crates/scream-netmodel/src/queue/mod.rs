//! Queue disciplines at a link's input.
//!
//! Every discipline stamps packets at enqueue (in its own [`Queued`] wrapper) and makes
//! its AQM decision at dequeue, i.e. when the serializer takes the packet. CoDel and
//! DualPI2 judge the sojourn time (enqueue -> start of serialisation) as their RFCs
//! define it; the two reference-style markers judge the time at the link (see
//! [`marker`]); the cellular L4S marker judges the queued bytes over the rate the link
//! recently offered ([`cellular`]). AQMs mark only ECN-capable packets and drop the others where they would
//! mark. All disciplines share a tail-drop admission limit in bytes.

pub mod cellular;
pub mod codel;
pub mod dualpi2;
pub mod fifo;
pub mod marker;
pub mod netqueue;

pub use cellular::{L4sCellular, L4sCellularKeys};
pub use codel::{Codel, CodelKeys};
pub use dualpi2::{DualPi2, DualPi2Keys, DualPi2Params};
pub use fifo::{Fifo, Queued};
pub use marker::{EcnThreshold, EcnThresholdKeys, L4sRamp, L4sRampKeys, ramp_probability};
pub use netqueue::{NetQueue, NetQueueKeys, NetQueueParams, Vintage};

use crate::capacity::Capacity;
use crate::packet::NetPacket;
use crate::rng::RngStream;
use scream::{Bitrate, Duration, Instant};

/// A queue discipline (an enum, so the per-packet path has no dynamic dispatch).
#[derive(Debug, Clone)]
pub enum Queue<P> {
    /// Plain FIFO with tail drop.
    TailDrop(Fifo<P>),
    /// CoDel (RFC 8289).
    Codel(Codel<P>),
    /// Classic ECN step threshold.
    EcnThreshold(EcnThreshold<P>),
    /// L4S linear ramp marker.
    L4sRamp(L4sRamp<P>),
    /// DualPI2 (RFC 9332).
    DualPi2(DualPi2<P>),
    /// Cellular L4S marker: the ramp on queued bytes over the recently offered rate.
    L4sCellular(L4sCellular<P>),
}

impl<P: NetPacket> Queue<P> {
    /// Admits `pkt` at `now` under `limit_bytes` (0 = unlimited), or hands it back.
    pub fn enqueue(&mut self, now: Instant, pkt: P, limit_bytes: u64) -> Result<(), P> {
        match self {
            Self::TailDrop(q) => q.push(now, pkt, limit_bytes),
            Self::Codel(q) => q.push(now, pkt, limit_bytes),
            Self::EcnThreshold(q) => q.push(now, pkt, limit_bytes),
            Self::L4sRamp(q) => q.push(now, pkt, limit_bytes),
            Self::DualPi2(q) => q.push(now, pkt, limit_bytes),
            Self::L4sCellular(q) => q.push(now, pkt, limit_bytes),
        }
    }

    /// The packet the serializer takes at `now` on a link whose capacity is now `rate`
    /// (for a discipline with a [`Self::rate_window`]: the mean capacity over that
    /// window) (ECN possibly set to CE); packets the AQM drops on the way are appended
    /// to `dropped`.
    pub fn dequeue(
        &mut self,
        now: Instant,
        rate: Bitrate,
        rng: &mut RngStream,
        dropped: &mut Vec<P>,
    ) -> Option<Queued<P>> {
        match self {
            Self::TailDrop(q) => q.pop(),
            Self::Codel(q) => q.pop(now, dropped),
            Self::EcnThreshold(q) => q.pop(now, rate, dropped),
            Self::L4sRamp(q) => q.pop(now, rate, rng),
            Self::DualPi2(q) => q.pop(now, rng, dropped),
            Self::L4sCellular(q) => q.pop(rate, rng),
        }
    }

    /// The window over which this discipline wants the link's capacity averaged, for
    /// [`Self::dequeue`]'s `rate`; `None` for those that judge the rate of the moment.
    pub fn rate_window(&self) -> Option<Duration> {
        match self {
            Self::L4sCellular(q) => Some(q.window()),
            _ => None,
        }
    }
}

impl<P: NetPacket> Queue<P> {
    /// Bytes queued.
    pub fn bytes(&self) -> u64 {
        match self {
            Self::TailDrop(q) => q.bytes(),
            Self::Codel(q) => q.fifo().bytes(),
            Self::EcnThreshold(q) => q.fifo().bytes(),
            Self::L4sRamp(q) => q.fifo().bytes(),
            Self::DualPi2(q) => q.bytes(),
            Self::L4sCellular(q) => q.fifo().bytes(),
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
            Self::L4sCellular(q) => q.fifo().len(),
        }
    }

    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A queue's admission limit: in time (turned into bytes at the link's capacity when a
/// packet arrives) and in bytes; when both are set the smaller applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct QueueLimit {
    /// Limit in time; zero = none.
    pub time: Duration,
    /// Limit in bytes; zero = none.
    pub bytes: u64,
}

crate::declare_keys! {
    /// The admission limit as a scenario's `[link.queue]` writes it; every discipline
    /// reads it.
    pub struct QueueLimitKeys {
        /// queue limit in time at the current capacity (0 = unlimited)
        limit_ms: f64 = 300.0, unit "ms", range crate::keys::DELAY_MS;
        /// queue limit in bytes (0 = unlimited)
        limit_bytes: u64 = 0, unit "bytes", range crate::keys::LIMIT_BYTES;
    }
}

impl From<&QueueLimitKeys> for QueueLimit {
    fn from(k: &QueueLimitKeys) -> Self {
        Self {
            time: crate::keys::ms(k.limit_ms),
            bytes: k.limit_bytes,
        }
    }
}

impl QueueLimit {
    /// No limit at all.
    pub const UNLIMITED: Self = Self {
        time: Duration::ZERO,
        bytes: 0,
    };

    /// The limit in bytes at `now` on a link of `capacity` (0 = unlimited). A time limit
    /// is turned into bytes at the current (mahimahi: mean) capacity.
    pub fn bytes_at(&self, capacity: &mut Capacity, now: Instant) -> u64 {
        let by_time = if self.time.is_zero() {
            u64::MAX
        } else {
            match capacity.nominal_rate(now) {
                // An unlimited link never queues: no byte limit follows from time.
                r if r.bps().is_infinite() => u64::MAX,
                // At zero capacity nothing more may wait (the queue still admits one
                // packet when empty), hence at least 1.
                r => (r.bytes_in(self.time).min(u64::MAX as f64) as u64).max(1),
            }
        };
        let by_bytes = if self.bytes == 0 {
            u64::MAX
        } else {
            self.bytes
        };
        match by_time.min(by_bytes) {
            u64::MAX => 0,
            l => l,
        }
    }
}

#[cfg(test)]
mod key_tests {
    use super::*;
    use crate::keys::{Key, ms};

    fn all_keys() -> Vec<&'static Key> {
        [
            QueueLimitKeys::keys(),
            CodelKeys::keys(),
            EcnThresholdKeys::keys(),
            L4sRampKeys::keys(),
            DualPi2Keys::keys(),
            NetQueueKeys::keys(),
            L4sCellularKeys::keys(),
        ]
        .into_iter()
        .flatten()
        .collect()
    }

    #[test]
    fn declared_defaults_are_the_rfc_constants() {
        assert_eq!(
            DualPi2Params::from(&DualPi2Keys::default()),
            DualPi2Params::default()
        );
        let codel = CodelKeys::default();
        assert_eq!(ms(codel.codel_target_ms), codel::CODEL_TARGET);
        assert_eq!(ms(codel.codel_interval_ms), codel::CODEL_INTERVAL);
    }

    #[test]
    fn every_default_lies_in_its_range_and_every_name_is_unique() {
        let keys = all_keys();
        for k in &keys {
            assert!(k.range.contains(k.default), "{}: {}", k.name, k.default);
            assert!(!k.doc.is_empty(), "{} has no meaning", k.name);
            assert_eq!(
                keys.iter().filter(|o| o.name == k.name).count(),
                1,
                "{}",
                k.name
            );
        }
    }

    #[test]
    fn a_value_out_of_range_is_named_with_the_range() {
        let k = DualPi2Keys {
            dualpi2_alpha: 5000.0,
            ..DualPi2Keys::default()
        };
        assert_eq!(
            k.check(),
            Err((
                "dualpi2_alpha",
                "must be in [0, 1000] Hz (is 5000)".to_owned()
            ))
        );
        assert_eq!(k.get("dualpi2_alpha"), Some(5000.0));
        assert_eq!(k.get("codel_target_ms"), None);
    }
}
