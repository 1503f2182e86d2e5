//! The Ericsson test application's `NetQueue` (`code/NetQueue.cpp`, used twice by
//! `code/scream_v_a.cpp`: a delay-only instance, then the rate instance the trace drives),
//! at the two vintages the published 5G studies ran: ac89024 (2021-10-26) and 0924c0b
//! (2023-08-17).
//!
//! It replaces a link's queue *and* serializer, because the reference decides release
//! times its own way:
//! - ac89024 `NetQueue::insert`: the release time is fixed when the packet enters, as
//!   `max(now + bytes queued (this packet included) x 8 / rate, previous release)`;
//!   later rate changes do not move it. `extract` then marks on `release - enqueue`.
//! - 0924c0b `NetQueue::extract`: a packet leaves at the first step at or after both its
//!   arrival and `nextTx`; leaving sets `nextTx = now + size x 8 / rate`, where `size` is
//!   the caller's shared variable (the last packet size the loop wrote), not the
//!   leaving packet's own. It marks on the time it waited, `now - arrival`.
//! - Both: `if (rate > 0)` guards the serialisation, so a rate of 0 means no limit, and
//!   `extract` hands out at most one packet per call, i.e. per step of the loop.
//!
//! Time inside runs shifted by the link's propagation delay (`lookahead`): the reference
//! delays packets *before* its rate queue (`netQueueDelay`, then `netQueueRate`), so the
//! rate queue sees a packet, and reads the rate, one delay after it was sent. Reading the
//! capacity `lookahead` ahead and handing the packet out `lookahead` early, before the
//! link's path effects add the delay back, is the same timing for a fixed delay.

use std::collections::VecDeque;

use crate::capacity::Capacity;
use crate::keys::Range;
use crate::packet::NetPacket;
use scream::{Bitrate, Duration, Ecn, Instant};

/// Items the reference's ring holds (`NetQueueSize`, NetQueue.h at both vintages).
/// The reference overwrites a slot when more are queued; this model refuses the packet.
pub const NETQUEUE_ITEMS: usize = 10_000;
/// ac89024 `NetQueue::NetQueue`: the L4S threshold's floor, `max(0.005, ...)`.
const L4S_TH_FLOOR: Duration = Duration::from_millis(5);
/// ac89024 `NetQueue::NetQueue`: the threshold's rate term, `5.0 * 1200 * 8 / rate` bits.
const L4S_TH_BITS: f64 = 5.0 * 1200.0 * 8.0;
/// ac89024 `NetQueue::extract`: a packet at most this long at the queue resets the
/// CoDel-ish marker's clock (`<= 0.005`).
const CLASSIC_LOW: Duration = Duration::from_millis(5);
/// ac89024 `NetQueue::extract`: CE when the queue was not low for this long (`> 0.1`).
const CLASSIC_INTERVAL: Duration = Duration::from_millis(100);
/// 0924c0b `NetQueue.cpp` `l4sThLo`, `l4sThHi`: the L4S ramp, s.
const RAMP_LO_S: f64 = 0.004;
const RAMP_HI_S: f64 = 0.010;

crate::declare_keys! {
    /// The NetQueue's keys as a scenario's `[link.queue]` writes them (kind `netqueue`).
    pub struct NetQueueKeys {
        /// `netqueue`: the reference's vintage, 2021 (ac89024: release fixed at enqueue,
        /// L4S step at max(5 ms, 48000 bit / rate), else a CoDel-ish classic marker) or
        /// 2023 (0924c0b: spacing at release, L4S ramp 4-10 ms that marks everything
        /// above 4 ms, no classic marking)
        netqueue_vintage: u64 = 2021, unit "", range Range::closed(2021.0, 2023.0, "");
        /// `netqueue`: the reference's `isL4s` (true: the vintage's L4S marker; false:
        /// 2021's classic marker, none at 2023). Marks ECN-capable packets only; the
        /// NetQueue never drops for its marker
        netqueue_l4s: bool = false, unit "", range FLAG;
        /// `netqueue`: true: a rate of 0 means no serialisation limit (the reference's
        /// `if (rate > 0)`); false: an outage, packets wait for a positive rate
        netqueue_zero_unlimited: bool = true, unit "", range FLAG;
        /// `netqueue` 2021 with L4S: the rate the NetQueue was constructed with, from
        /// which its L4S threshold is computed once (scream_v_a.cpp ac89024: 20e6)
        netqueue_l4s_rate_mbps: f64 = 20.0, unit "Mbit/s", range RATE_MBPS;
    }
}

/// A flag key, written `true` or `false`.
const FLAG: Range = Range::closed(0.0, 1.0, "");
/// A constructor rate: positive, at most the largest trace rate (10 Tbit/s).
const RATE_MBPS: Range = Range::above(0.0, 1e7, "Mbit/s");

/// Which reference release the NetQueue follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vintage {
    /// ac89024, 2021-10-26.
    Ac89024,
    /// 0924c0b, 2023-08-17.
    V0924c0b,
}

impl NetQueueKeys {
    /// The vintage the keys name, or why they name none.
    pub fn vintage(&self) -> Result<Vintage, String> {
        match self.netqueue_vintage {
            2021 => Ok(Vintage::Ac89024),
            2023 => Ok(Vintage::V0924c0b),
            v => Err(format!("must be 2021 (ac89024) or 2023 (0924c0b) (is {v})")),
        }
    }
}

/// How a NetQueue behaves.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NetQueueParams {
    /// The reference release it follows.
    pub vintage: Vintage,
    /// The reference's `isL4s`.
    pub l4s: bool,
    /// Whether a rate of 0 means no limit (else an outage).
    pub zero_unlimited: bool,
    /// Loop steps per second, one release per step (0: none). Not a key of its own:
    /// the scenario's loop clock (`[clock] step_hz`) sets it, as one loop drives the
    /// whole reference application.
    pub steps_per_s: u64,
    /// The rate at construction (ac89024's L4S threshold).
    pub construction_rate: Bitrate,
    /// The propagation delay the reference applies before this queue.
    pub lookahead: Duration,
}

impl NetQueueParams {
    /// Parameters from the scenario keys, the link's forward delay and the loop's steps
    /// per second (0: continuous); `None` for a vintage the keys do not name (see
    /// [`NetQueueKeys::vintage`]).
    pub fn from_keys(k: &NetQueueKeys, lookahead: Duration, steps_per_s: u64) -> Option<Self> {
        Some(Self {
            vintage: k.vintage().ok()?,
            l4s: k.netqueue_l4s,
            zero_unlimited: k.netqueue_zero_unlimited,
            steps_per_s,
            construction_rate: Bitrate::from_mbps(k.netqueue_l4s_rate_mbps),
            lookahead,
        })
    }

    /// ac89024 `NetQueue::NetQueue`: `l4sTh = max(0.005, 5*1200*8/rate)`, once.
    fn l4s_threshold(&self) -> Duration {
        let bps = self.construction_rate.bps();
        if bps <= 0.0 {
            // The reference divides by zero: an infinite threshold never marks.
            return Duration::MAX;
        }
        Duration::try_from_secs_f64(L4S_TH_BITS / bps)
            .unwrap_or(Duration::MAX)
            .max(L4S_TH_FLOOR)
    }
}

#[derive(Debug, Clone)]
struct Item<P> {
    packet: P,
    size: u32,
    /// When it entered the rate queue (shifted time).
    arrival: Instant,
    /// ac89024: its release step, fixed at enqueue; 0924c0b: unused.
    release: Instant,
}

/// A packet the NetQueue handed out.
#[derive(Debug)]
pub struct Released<P> {
    /// The packet (ECN possibly set to CE).
    pub packet: P,
    /// When it left, in the link's time (the reference's step minus the lookahead).
    pub at: Instant,
    /// Release minus arrival, as the reference judges it.
    pub time_at_link: Duration,
    /// Whether this queue set CE on it.
    pub marked: bool,
}

/// The reference test application's NetQueue (see the module docs).
#[derive(Debug, Clone)]
pub struct NetQueue<P> {
    p: NetQueueParams,
    l4s_threshold: Duration,
    items: VecDeque<Item<P>>,
    bytes: u64,
    /// The reference's `nextTx` (shifted time).
    next_tx: Instant,
    /// Step and size of the last release.
    last_release: Option<(Instant, u32)>,
    /// Arrival step of the last packet in (the delay instance releases one per step).
    last_arrival: Option<Instant>,
    /// ac89024's `lastQueueLow`.
    last_low: Instant,
    /// When the head leaves (shifted time); `None`: empty, or never.
    head_release: Option<Instant>,
}

impl<P: NetPacket> NetQueue<P> {
    /// An empty NetQueue.
    pub fn new(p: NetQueueParams) -> Self {
        Self {
            l4s_threshold: p.l4s_threshold(),
            p,
            items: VecDeque::new(),
            bytes: 0,
            next_tx: Instant::ZERO,
            last_release: None,
            last_arrival: None,
            last_low: Instant::ZERO,
            head_release: None,
        }
    }

    /// Bytes held (including packets whose release time is set but not reached).
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Packets held.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether nothing is held.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// When the next packet leaves, in the link's time.
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.head_release
            .map(|v| v.saturating_sub(self.p.lookahead))
    }

    /// One step of the loop, or zero without steps.
    fn step(&self) -> Duration {
        match self.p.steps_per_s {
            0 => Duration::ZERO,
            s => Duration::from_nanos(1_000_000_000u64.div_ceil(s).max(1)),
        }
    }

    /// The first step of the loop at or after `t` (step `n` is at `n * 1e9 / s` ns,
    /// floored, so 1/65536 s steps stay exact over any run).
    fn step_at_or_after(&self, t: Instant) -> Instant {
        let s = self.p.steps_per_s;
        if s == 0 {
            return t;
        }
        // In 64 bits while the products fit (runs shorter than about 200 days at 1e9
        // steps per second): a 128-bit division costs several times a 64-bit one, and
        // this runs for every packet.
        let narrow = t
            .as_nanos()
            .checked_mul(s)
            .map(|p| p.div_ceil(1_000_000_000))
            .and_then(|n| n.checked_mul(1_000_000_000))
            .map(|p| p / s);
        let ns = narrow.unwrap_or_else(|| {
            let s = u128::from(s);
            let n = (u128::from(t.as_nanos()) * s).div_ceil(1_000_000_000);
            u64::try_from(n * 1_000_000_000 / s).unwrap_or(u64::MAX)
        });
        Instant::from_nanos(ns)
    }

    /// The step after `t`'s step (one release, or one arrival, per step).
    fn after_step(&self, t: Instant) -> Instant {
        match self.p.steps_per_s {
            0 => t,
            _ => self.step_at_or_after(t.saturating_add(Duration::from_nanos(1))),
        }
    }

    /// A packet reaches the link at `now`; refused (handed back) when the ring is full
    /// or `limit_bytes` (0 = none) would be exceeded.
    pub fn enqueue(
        &mut self,
        now: Instant,
        pkt: P,
        capacity: &mut Capacity,
        limit_bytes: u64,
    ) -> Result<(), P> {
        let size = pkt.size_bytes();
        let over_limit =
            limit_bytes > 0 && !self.items.is_empty() && self.bytes + u64::from(size) > limit_bytes;
        if self.items.len() >= NETQUEUE_ITEMS || over_limit {
            return Err(pkt);
        }
        // scream_v_a.cpp (both vintages): `netQueueDelay->extract` hands one packet per
        // step to `netQueueRate->insert`.
        let mut arrival = self.step_at_or_after(now.saturating_add(self.p.lookahead));
        if let Some(prev) = self.last_arrival {
            arrival = arrival.max(self.after_step(prev));
        }
        self.last_arrival = Some(arrival);
        let release = match self.p.vintage {
            Vintage::Ac89024 => self.release_fixed_at_insert(arrival, size, capacity),
            Vintage::V0924c0b => arrival,
        };
        self.bytes += u64::from(size);
        self.items.push_back(Item {
            packet: pkt,
            size,
            arrival,
            release,
        });
        if self.items.len() == 1 {
            self.schedule_head(capacity);
        }
        Ok(())
    }

    /// ac89024 `NetQueue::insert`: `tRelease = max(time + sizeOfQueue()*8/rate,
    /// nextTx)` (the rate instance has no delay or jitter), then one release per step.
    fn release_fixed_at_insert(
        &mut self,
        arrival: Instant,
        size: u32,
        capacity: &mut Capacity,
    ) -> Instant {
        // `sizeOfQueue()` counts every unreleased item, this one included. Packets
        // released before `arrival` are gone; one released at `arrival` itself is still
        // there, since the loop inserts before it extracts.
        let gone: u64 = self
            .items
            .iter()
            .take_while(|i| i.release < arrival)
            .map(|i| u64::from(i.size))
            .sum();
        let queued = self.bytes - gone + u64::from(size);
        // `extract` at an empty queue sets `lastQueueLow` at every step: the last one
        // before this arrival, if the latest packet had left by then.
        let latest = self
            .items
            .back()
            .map(|i| i.release)
            .or(self.last_release.map(|(t, _)| t));
        let prev_step = arrival.saturating_sub(self.step());
        let was_empty = match latest {
            None => true,
            Some(r) if self.step().is_zero() => r <= arrival,
            Some(r) => r < prev_step,
        };
        if was_empty {
            self.last_low = self.last_low.max(prev_step);
        }
        let mut start = arrival;
        let mut rate = capacity.rate_at(arrival);
        if rate.bps() <= 0.0 && !self.p.zero_unlimited {
            // An outage: the bytes start draining when the rate comes back.
            match capacity.service_start(arrival) {
                Some(s) => {
                    start = s;
                    rate = capacity.rate_at(s);
                }
                None => return Instant::MAX,
            }
        }
        let mut due = start;
        if rate.bps() > 0.0 && rate.bps().is_finite() {
            let secs = queued as f64 * 8.0 / rate.bps();
            due = due.saturating_add(Duration::try_from_secs_f64(secs).unwrap_or(Duration::MAX));
        }
        due = due.max(self.next_tx);
        self.next_tx = due;
        let mut release = self.step_at_or_after(due);
        if let Some(prev) = self.items.back() {
            release = release.max(self.after_step(prev.release));
        } else if let Some((prev, _)) = self.last_release {
            release = release.max(self.after_step(prev));
        }
        release
    }

    /// Sets when the head leaves.
    fn schedule_head(&mut self, capacity: &mut Capacity) {
        let Some(head) = self.items.front() else {
            self.head_release = None;
            return;
        };
        self.head_release = match self.p.vintage {
            Vintage::Ac89024 => (head.release != Instant::MAX).then_some(head.release),
            // 0924c0b `NetQueue::extract`: `time >= max(tRelease, nextTx)`.
            Vintage::V0924c0b => {
                let mut t = self.step_at_or_after(head.arrival.max(self.next_tx));
                if let Some((prev, _)) = self.last_release {
                    t = t.max(self.after_step(prev));
                }
                self.wait_for_rate(t, capacity)
            }
        };
    }

    /// 0924c0b with zero as an outage: the first step at or after `t` with a positive
    /// rate (a few rounds at most: a step lands past the end of a zero row).
    fn wait_for_rate(&self, mut t: Instant, capacity: &mut Capacity) -> Option<Instant> {
        if self.p.zero_unlimited {
            return Some(t);
        }
        loop {
            if capacity.rate_at(t).bps() > 0.0 {
                return Some(t);
            }
            let s = capacity.service_start(t)?;
            t = self.step_at_or_after(s);
        }
    }

    /// The next packet due by `now` (link time), if any.
    pub fn poll_release(&mut self, now: Instant, capacity: &mut Capacity) -> Option<Released<P>> {
        let at = self.head_release?;
        if at.saturating_sub(self.p.lookahead) > now {
            return None;
        }
        let rate = capacity.rate_at(at);
        let size_var = self.callers_size(at);
        let mut item = self.items.pop_front()?;
        self.bytes -= u64::from(item.size);
        let waited = at.saturating_duration_since(item.arrival);
        let mark = match self.p.vintage {
            Vintage::Ac89024 => self.mark_2021(at, waited, rate),
            Vintage::V0924c0b => {
                // `nextTx = time; if (rate > 0) nextTx += size * 8 / rate;`
                self.next_tx = at;
                if rate.bps() > 0.0 && rate.bps().is_finite() {
                    let secs = f64::from(size_var) * 8.0 / rate.bps();
                    let gap = Duration::try_from_secs_f64(secs).unwrap_or(Duration::MAX);
                    self.next_tx = at.saturating_add(gap);
                }
                self.p.l4s && rate.bps() > 0.0 && ramp_2023_marks(waited)
            }
        };
        let marked = mark && item.packet.ecn().is_ect() && item.packet.ecn() != Ecn::Ce;
        if marked {
            item.packet.set_ecn(Ecn::Ce);
        }
        self.last_release = Some((at, item.size));
        self.schedule_head(capacity);
        Some(Released {
            packet: item.packet,
            at: at.saturating_sub(self.p.lookahead),
            time_at_link: waited,
            marked,
        })
    }

    /// 0924c0b: the loop's shared `size` when the rate queue releases at `at`: written
    /// last by the delay instance handing a packet in (at or before `at`: within a step
    /// it runs first) or by the rate instance's previous release. The sender's
    /// `sendPacket` writes it too; that packet is not visible here.
    fn callers_size(&self, at: Instant) -> u32 {
        let arrived = self.items.iter().rev().find(|i| i.arrival <= at);
        match (arrived, self.last_release) {
            (Some(a), Some((r, size))) if r > a.arrival => size,
            (Some(a), _) => a.size,
            (None, Some((_, size))) => size,
            (None, None) => 0,
        }
    }

    /// ac89024 `NetQueue::extract`: the L4S step, or the CoDel-ish classic marker.
    fn mark_2021(&mut self, at: Instant, waited: Duration, rate: Bitrate) -> bool {
        let positive = rate.bps() > 0.0;
        if self.p.l4s {
            return positive && waited > self.l4s_threshold;
        }
        if !positive {
            return false;
        }
        if waited <= CLASSIC_LOW {
            self.last_low = at;
        }
        if at.saturating_duration_since(self.last_low) > CLASSIC_INTERVAL {
            self.last_low = at;
            return true;
        }
        false
    }
}

/// 0924c0b `NetQueue::extract`: `pMark = clamp((qDelay - 0.004) / 0.006, 0, 1)`, then
/// `(rand() % 1000) / 1000 < pMark`, an integer division that is always 0: every
/// packet with `pMark > 0`, i.e. that waited over 4 ms, is marked.
pub fn ramp_2023_marks(waited: Duration) -> bool {
    let p_mark = ((waited.as_secs_f64() - RAMP_LO_S) / (RAMP_HI_S - RAMP_LO_S)).clamp(0.0, 1.0);
    let draw_over_1000 = 0.0; // `(rand() % 1000) / 1000` in integers
    draw_over_1000 < p_mark
}
