//! CoDel (RFC 8289): drops (or CE-marks ECN-capable packets) at dequeue once the
//! sojourn time has stayed above `target` for at least `interval`, then at intervals
//! shrinking as `interval / sqrt(count)`.

use super::fifo::{Fifo, Queued};
use crate::packet::NetPacket;
use scream::{Duration, Ecn, Instant};

/// RFC 8289 §4.3: default target sojourn time.
pub const CODEL_TARGET: Duration = Duration::from_millis(5);
/// RFC 8289 §4.4: default interval (a worst-case RTT).
pub const CODEL_INTERVAL: Duration = Duration::from_millis(100);
/// RFC 8289 §5.1 (`maxpacket`): a queue holding at most one MTU is never "above target".
pub const CODEL_MAX_PACKET_BYTES: u64 = 1500;
/// RFC 8289 §5.6: reuse the previous drop count if the drop state was left less than
/// this many intervals ago.
const CODEL_COUNT_MEMORY_INTERVALS: u32 = 16;

crate::declare_keys! {
    /// CoDel's keys as a scenario's `[link.queue]` writes them (kind `codel`).
    pub struct CodelKeys {
        /// CoDel target (RFC 8289)
        codel_target_ms: f64 = 5.0, unit "ms", range crate::keys::AQM_TIME_MS;
        /// CoDel interval (RFC 8289)
        codel_interval_ms: f64 = 100.0, unit "ms", range crate::keys::AQM_TIME_MS;
    }
}

/// CoDel state around a FIFO.
#[derive(Debug, Clone)]
pub struct Codel<P> {
    fifo: Fifo<P>,
    target: Duration,
    interval: Duration,
    first_above_time: Option<Instant>,
    drop_next: Instant,
    count: u32,
    lastcount: u32,
    dropping: bool,
}

impl<P: NetPacket> Codel<P> {
    /// A CoDel queue configured by its scenario keys.
    pub fn from_keys(k: &CodelKeys) -> Self {
        use crate::keys::ms;
        Self::new(ms(k.codel_target_ms), ms(k.codel_interval_ms))
    }

    /// A CoDel queue with `target` and `interval`.
    pub fn new(target: Duration, interval: Duration) -> Self {
        Self {
            fifo: Fifo::new(),
            target,
            interval,
            first_above_time: None,
            drop_next: Instant::ZERO,
            count: 0,
            lastcount: 0,
            dropping: false,
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

    /// RFC 8289 §5.5 control law: `t + interval / sqrt(count)` (saturating, so an
    /// interval near `Duration::MAX` cannot overflow the conversion).
    fn control_law(&self, t: Instant, count: u32) -> Instant {
        let secs = self.interval.as_secs_f64() / f64::from(count.max(1)).sqrt();
        t + Duration::try_from_secs_f64(secs).unwrap_or(Duration::MAX)
    }

    /// RFC 8289 §5.4 `dodequeue`: the head packet and whether it may be dropped.
    fn do_dequeue(&mut self, now: Instant) -> Option<(Queued<P>, bool)> {
        let Some(pkt) = self.fifo.pop() else {
            self.first_above_time = None;
            return None;
        };
        let sojourn = now - pkt.enqueued_at;
        let mut ok_to_drop = false;
        if sojourn < self.target || self.fifo.bytes() <= CODEL_MAX_PACKET_BYTES {
            self.first_above_time = None;
        } else {
            match self.first_above_time {
                None => self.first_above_time = Some(now + self.interval),
                Some(t) if now >= t => ok_to_drop = true,
                Some(_) => {}
            }
        }
        Some((pkt, ok_to_drop))
    }

    /// RFC 8289 §5.5 dequeue. A packet the law selects is CE-marked and sent if it is
    /// ECN-capable (ending this round of drops), otherwise pushed to `dropped`.
    pub fn pop(&mut self, now: Instant, dropped: &mut Vec<P>) -> Option<Queued<P>> {
        let Some((mut pkt, mut ok_to_drop)) = self.do_dequeue(now) else {
            self.dropping = false;
            return None;
        };
        if self.dropping {
            if !ok_to_drop {
                self.dropping = false;
            }
            while self.dropping && now >= self.drop_next {
                self.count += 1;
                if pkt.packet.ecn().is_ect() {
                    pkt.packet.set_ecn(Ecn::Ce);
                    self.drop_next = self.control_law(self.drop_next, self.count);
                    return Some(pkt);
                }
                dropped.push(pkt.packet);
                match self.do_dequeue(now) {
                    None => {
                        self.dropping = false;
                        return None;
                    }
                    Some((p, ok)) => {
                        pkt = p;
                        ok_to_drop = ok;
                    }
                }
                if ok_to_drop {
                    self.drop_next = self.control_law(self.drop_next, self.count);
                } else {
                    self.dropping = false;
                }
            }
        } else if ok_to_drop {
            let delta = self.count.saturating_sub(self.lastcount);
            let recent = now.saturating_duration_since(self.drop_next)
                < self.interval.saturating_mul(CODEL_COUNT_MEMORY_INTERVALS);
            self.count = if delta > 1 && recent { delta } else { 1 };
            self.drop_next = self.control_law(now, self.count);
            self.lastcount = self.count;
            self.dropping = true;
            if pkt.packet.ecn().is_ect() {
                pkt.packet.set_ecn(Ecn::Ce);
                return Some(pkt);
            }
            dropped.push(pkt.packet);
            return self.do_dequeue(now).map(|(p, _)| p);
        }
        Some(pkt)
    }
}
