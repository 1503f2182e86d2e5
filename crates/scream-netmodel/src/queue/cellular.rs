//! A cellular L4S marker: the L4S ramp applied to the queue's delay as a radio access
//! network estimates it, queued bytes over the rate the link recently offered, instead
//! of the sojourn of the packet at the head.
//!
//! Why a second L4S marker. On a link that delivers in bursts (a cellular scheduler
//! hands out transmission opportunities with silences of tens of ms between them), a
//! packet that waits for the next opportunity has a long sojourn even when it is alone
//! in the queue: [`super::L4sRamp`] marks it however little the sender sends, so
//! lowering the rate never lowers the marking and an L4S sender is driven to its
//! minimum. A radio access network marks on an estimate of the queue's delay that
//! grows with the queue, not with the wait for the scheduler:
//! - L4Span (Wan and Jamieson, "L4Span: Spanning Congestion Signaling over NextG
//!   Networks for Interactive Applications", ACM CoNEXT 2025; its srsRAN code,
//!   `lib/mark/mark_entity_impl.h`) marks L4S packets on the standing queue in bytes
//!   divided by a predicted dequeue rate, against a 10 ms queue-delay target.
//! - PIE (RFC 8033; DOCSIS-PIE is RFC 8034) needs no per-packet time stamps: it divides
//!   the queue length by the departure rate it measures (Little's law).
//!
//! The rate here is what the link could deliver over the last `cellular_window_ms`
//! (the transport blocks a scheduler granted this queue). While the queue stays
//! backlogged that is exactly the rate it was served at; where it emptied, a measured
//! throughput would be the sender's rate instead of the link's (the reason PIE's
//! departure-rate estimate only measures while a backlog is queued). The probability
//! follows the same linear ramp as [`super::L4sRamp`], so the two markers
//! differ only in the delay they judge.

use super::fifo::{Fifo, Queued};
use super::marker::ramp_probability;
use crate::packet::NetPacket;
use crate::rng::RngStream;
use scream::{Bitrate, Duration, Ecn, Instant};

crate::declare_keys! {
    /// The cellular L4S marker's keys as a scenario's `[link.queue]` writes them (kind
    /// `l4s-cellular`).
    pub struct L4sCellularKeys {
        /// `l4s-cellular`: estimated queue delay (queued bytes / rate offered over the
        /// window) at which the mark probability starts rising from 0
        cellular_min_ms: f64 = 8.0, unit "ms", range crate::keys::DELAY_MS;
        /// `l4s-cellular`: estimated queue delay at which it reaches 1 (must be >
        /// `cellular_min_ms`). Applies to ECT(1) and CE packets; ECT(0) and Not-ECT
        /// packets only see tail drop
        cellular_max_ms: f64 = 12.0, unit "ms", range crate::keys::DELAY_MS;
        /// `l4s-cellular`: the window over which the rate the link offered is averaged;
        /// it must span several scheduling silences so that it measures the link, not
        /// one burst or one silence
        cellular_window_ms: f64 = 100.0, unit "ms", range crate::keys::AQM_TIME_MS;
    }
}

/// Cellular L4S marking: ECT(1) and CE packets are marked with a probability rising
/// linearly from 0 at an estimated queue delay of `min` to 1 at `max`, the estimate
/// being the bytes queued when the packet is served divided by the rate the link
/// offered over the last `window`.
#[derive(Debug, Clone)]
pub struct L4sCellular<P> {
    fifo: Fifo<P>,
    min: Duration,
    max: Duration,
    window: Duration,
}

impl<P: NetPacket> L4sCellular<P> {
    /// A cellular marker configured by its scenario keys.
    pub fn from_keys(k: &L4sCellularKeys) -> Self {
        use crate::keys::ms;
        Self::new(
            ms(k.cellular_min_ms),
            ms(k.cellular_max_ms),
            ms(k.cellular_window_ms),
        )
    }

    /// A cellular marker; `max` must exceed `min` (checked by scenario validation; an
    /// equal pair behaves as a step at `min`).
    pub fn new(min: Duration, max: Duration, window: Duration) -> Self {
        Self {
            fifo: Fifo::new(),
            min,
            max,
            window,
        }
    }

    /// The storage.
    pub fn fifo(&self) -> &Fifo<P> {
        &self.fifo
    }

    /// The window over which the link's offered rate is averaged.
    pub fn window(&self) -> Duration {
        self.window
    }

    /// Tail-drop admission.
    pub fn push(&mut self, now: Instant, pkt: P, limit_bytes: u64) -> Result<(), P> {
        self.fifo.push(now, pkt, limit_bytes)
    }

    /// The estimated queue delay of `bytes` queued on a link that offered `recent`
    /// over the window: infinite when it offered nothing (a queue that is not drained
    /// at all is as congested as it gets).
    pub fn estimate(bytes: u64, recent: Bitrate) -> Duration {
        crate::capacity::transmit_time(recent, bytes).unwrap_or(Duration::MAX)
    }

    /// The next packet to serialise; `recent` is the rate the link offered over the
    /// last [`Self::window`]. The estimate counts the packet itself and every byte
    /// queued behind it: the queue the link still has to drain.
    pub fn pop(&mut self, recent: Bitrate, rng: &mut RngStream) -> Option<Queued<P>> {
        let queued = self.fifo.bytes();
        let mut pkt = self.fifo.pop()?;
        if matches!(pkt.packet.ecn(), Ecn::Ect1 | Ecn::Ce) {
            let p = ramp_probability(Self::estimate(queued, recent), self.min, self.max);
            if rng.chance(p) {
                pkt.packet.set_ecn(Ecn::Ce);
            }
        }
        Some(pkt)
    }
}
