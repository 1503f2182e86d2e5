//! Delay markers applied at dequeue: a classic-ECN step threshold and an L4S ramp.
//!
//! Both compare the packet's *time at the link* — its queueing delay plus its own
//! transmission time at the current capacity — with their thresholds. That is the delay
//! the Ericsson reference simulator's bottleneck marks on, so the `ericsson-default*`
//! scenarios mark the same packets; CoDel and DualPI2 use the plain sojourn time of
//! their RFCs instead.

use super::fifo::{Fifo, Queued};
use crate::packet::NetPacket;
use crate::rng::RngStream;
use scream::{Bitrate, Duration, Ecn, Instant};

/// Classic ECN threshold marking: a packet whose time at the link exceeds `threshold`
/// is CE-marked if ECN-capable, dropped otherwise.
#[derive(Debug, Clone)]
pub struct EcnThreshold<P> {
    fifo: Fifo<P>,
    threshold: Duration,
}

impl<P: NetPacket> EcnThreshold<P> {
    /// A threshold marker.
    pub fn new(threshold: Duration) -> Self {
        Self {
            fifo: Fifo::new(),
            threshold,
        }
    }

    /// The storage.
    pub fn fifo(&self) -> &Fifo<P> {
        &self.fifo
    }

    /// Tail-drop admission.
    pub fn push(&mut self, now: Instant, pkt: P, limit_bytes: u64) -> Result<(), P> {
        self.fifo.push(now, pkt, limit_bytes)
    }

    /// The next packet to serialise at `now` on a link of capacity `rate`; Not-ECT
    /// packets above the threshold are dropped.
    pub fn pop(&mut self, now: Instant, rate: Bitrate, dropped: &mut Vec<P>) -> Option<Queued<P>> {
        while let Some(mut pkt) = self.fifo.pop() {
            if time_at_link(now, rate, &pkt) <= self.threshold {
                return Some(pkt);
            }
            if pkt.packet.ecn().is_ect() {
                pkt.packet.set_ecn(Ecn::Ce);
                return Some(pkt);
            }
            dropped.push(pkt.packet);
        }
        None
    }
}

/// L4S ramp marking: ECT(1) and CE packets are marked with a probability rising
/// linearly from 0 at a time at the link of `min` to 1 at `max`; ECT(0) and Not-ECT packets are not
/// marked (they only see the tail-drop limit).
#[derive(Debug, Clone)]
pub struct L4sRamp<P> {
    fifo: Fifo<P>,
    min: Duration,
    max: Duration,
}

impl<P: NetPacket> L4sRamp<P> {
    /// A ramp marker; `max` must exceed `min` (checked by scenario validation; an
    /// equal pair behaves as a step at `min`).
    pub fn new(min: Duration, max: Duration) -> Self {
        Self {
            fifo: Fifo::new(),
            min,
            max,
        }
    }

    /// The storage.
    pub fn fifo(&self) -> &Fifo<P> {
        &self.fifo
    }

    /// Tail-drop admission.
    pub fn push(&mut self, now: Instant, pkt: P, limit_bytes: u64) -> Result<(), P> {
        self.fifo.push(now, pkt, limit_bytes)
    }

    /// Marking probability for a time at the link.
    pub fn probability(&self, delay: Duration) -> f64 {
        ramp_probability(delay, self.min, self.max)
    }

    /// The next packet to serialise at `now` on a link of capacity `rate`, possibly
    /// CE-marked.
    pub fn pop(&mut self, now: Instant, rate: Bitrate, rng: &mut RngStream) -> Option<Queued<P>> {
        let mut pkt = self.fifo.pop()?;
        if matches!(pkt.packet.ecn(), Ecn::Ect1 | Ecn::Ce) {
            let p = self.probability(time_at_link(now, rate, &pkt));
            if rng.chance(p) {
                pkt.packet.set_ecn(Ecn::Ce);
            }
        }
        Some(pkt)
    }
}

/// Queueing delay so far plus the packet's own transmission time at `rate` (a stalled
/// link adds nothing: the packet's wait is then counted as it happens). Saturates
/// rather than overflowing at absurdly low rates.
fn time_at_link<P: NetPacket>(now: Instant, rate: Bitrate, pkt: &Queued<P>) -> Duration {
    let transmission = crate::capacity::transmit_time(rate, u64::from(pkt.packet.size_bytes()))
        .unwrap_or(Duration::ZERO);
    (now - pkt.enqueued_at).saturating_add(transmission)
}

/// Probability 0 at or below `min`, 1 at or above `max`, linear in between.
pub fn ramp_probability(sojourn: Duration, min: Duration, max: Duration) -> f64 {
    if sojourn <= min {
        0.0
    } else if sojourn >= max {
        1.0
    } else {
        (sojourn - min).as_secs_f64() / (max - min).as_secs_f64()
    }
}
