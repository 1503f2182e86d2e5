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

crate::declare_keys! {
    /// The classic-ECN threshold's key as a scenario's `[link.queue]` writes it (kind
    /// `ecn-threshold`).
    pub struct EcnThresholdKeys {
        /// `ecn-threshold`: CE (drop for Not-ECT) when the time at the link (queueing +
        /// own transmission, as in the Ericsson reference) exceeds this
        ecn_threshold_ms: f64 = 30.0, unit "ms", range crate::keys::DELAY_MS;
    }
}

crate::declare_keys! {
    /// The L4S ramp's keys as a scenario's `[link.queue]` writes them (kind
    /// `l4s-ramp`).
    pub struct L4sRampKeys {
        /// `l4s-ramp`: time at the link (queueing + own transmission) at which the mark
        /// probability starts rising from 0
        ramp_min_ms: f64 = 8.0, unit "ms", range crate::keys::DELAY_MS;
        /// `l4s-ramp`: time at the link at which it reaches 1 (must be > `ramp_min_ms`).
        /// Applies to ECT(1) and CE packets; ECT(0) and Not-ECT packets only see tail
        /// drop
        ramp_max_ms: f64 = 12.0, unit "ms", range crate::keys::DELAY_MS;
    }
}

/// Classic ECN threshold marking: a packet whose time at the link exceeds `threshold`
/// is CE-marked if ECN-capable, dropped otherwise.
#[derive(Debug, Clone)]
pub struct EcnThreshold<P> {
    fifo: Fifo<P>,
    threshold: Duration,
}

impl<P: NetPacket> EcnThreshold<P> {
    /// A threshold marker configured by its scenario key.
    pub fn from_keys(k: &EcnThresholdKeys) -> Self {
        Self::new(crate::keys::ms(k.ecn_threshold_ms))
    }

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
    /// A ramp marker configured by its scenario keys.
    pub fn from_keys(k: &L4sRampKeys) -> Self {
        use crate::keys::ms;
        Self::new(ms(k.ramp_min_ms), ms(k.ramp_max_ms))
    }

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
