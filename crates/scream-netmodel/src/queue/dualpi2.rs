//! DualPI2, the reference DualQ Coupled AQM of RFC 9332 (Appendix A.1).
//!
//! ECT(1) and CE packets go to the L queue, all others to the C queue. A PI controller
//! driven by the C queue's sojourn time produces a base probability p'; the C queue
//! drops (or marks ECT(0)) with p_C = p'^2, the L queue marks with the larger of its own
//! native ramp (RFC 9332 §A.1: nothing below `min_th`, rising linearly to certainty over
//! `range`, and nothing while at most `th_len` packets stay queued behind the one
//! leaving) and the coupled p_CL = k * p'. Between the two
//! queues a time-shifted FIFO scheduler serves the head packet with the earliest
//! timestamp, L timestamps being advanced by `tshift`.

use super::fifo::{Fifo, Queued};
use crate::keys::Range;
use crate::packet::NetPacket;
use crate::rng::RngStream;
use scream::{Duration, Ecn, Instant};

/// RFC 9332 §A.1: PI2 target queuing delay of the C queue.
pub const DUALPI2_TARGET: Duration = Duration::from_millis(15);
/// RFC 9332 §A.1 (`minTh`): sojourn from which the L queue's native ramp marks.
pub const DUALPI2_MIN_TH: Duration = Duration::from_micros(800);
/// RFC 9332 §A.1 (`range`): width of the native ramp, from no marking at `minTh` to
/// marking every packet at `minTh + range` (1.2 ms). A range of zero is a step at
/// `minTh`, as Linux's qdisc implements it (a 1 ms `step_thresh`).
pub const DUALPI2_RANGE: Duration = Duration::from_micros(400);
/// RFC 9332 §A.1 (`Th_len`, "1 pkt"): the native ramp does not mark while no more
/// than this many packets remain in the L queue. At a few Mbit/s one 1200-byte packet
/// takes several ms to serialise, more than the whole ramp, so without this floor any
/// packet that waits behind a single other would be marked (RFC 9332 lines 5a-5d:
/// "Suppress marking 1 pkt queue").
pub const DUALPI2_TH_LEN: u32 = 1;
/// RFC 9332 §2.4 / §A.1: coupling factor k.
pub const DUALPI2_COUPLING: f64 = 2.0;
/// RFC 9332 §A.1: PI update interval.
pub const DUALPI2_TUPDATE: Duration = Duration::from_millis(16);
/// RFC 9332 §A.1: integral gain, Hz.
pub const DUALPI2_ALPHA: f64 = 0.16;
/// RFC 9332 §A.1: proportional gain, Hz.
pub const DUALPI2_BETA: f64 = 3.2;
/// Time shift of the scheduler, in multiples of the PI2 target: L packets compete as if
/// they had arrived 2 x target (30 ms) earlier, so the C queue is served once its head
/// has waited that much longer than the L head. RFC 9332 §4.2.2 leaves the value open;
/// this is a choice of this simulator.
pub const DUALPI2_TSHIFT_FACTOR: u32 = 2;

/// DualPI2 update interval, ms. Its PI controller runs once per interval of simulated
/// time, also while the queue is idle: 0.1 ms (Linux defaults to 16 ms) keeps that to
/// 10^4 updates per simulated second.
pub const DUALPI2_TUPDATE_MS: Range = Range::closed(0.1, 60_000.0, "ms");
/// DualPI2 `Th_len` in packets (RFC 9332: 1); whole packets, 0 marks from an empty
/// queue on.
pub const DUALPI2_TH_LEN_RANGE: Range = Range::closed(0.0, 1e6, "packets");
/// DualPI2 coupling factor k (RFC 9332: 2): above 100 the L queue is marked at any
/// base probability above 1 %, i.e. always.
pub const DUALPI2_COUPLING_RANGE: Range = Range::above(0.0, 100.0, "");
/// DualPI2 gains, Hz (RFC 9332: 0.16 and 3.2): 1000 Hz already saturates the
/// probability within one update.
pub const DUALPI2_GAIN_HZ: Range = Range::closed(0.0, 1000.0, "Hz");

crate::declare_keys! {
    /// DualPI2's keys as a scenario's `[link.queue]` writes them (kind `dualpi2`).
    pub struct DualPi2Keys {
        /// DualPI2 classic-queue PI2 target (RFC 9332)
        dualpi2_target_ms: f64 = 15.0, unit "ms", range crate::keys::AQM_TIME_MS;
        /// DualPI2 L4S native ramp start, minTh (RFC 9332)
        dualpi2_min_th_ms: f64 = 0.8, unit "ms", range crate::keys::DELAY_MS;
        /// DualPI2 L4S native ramp width (RFC 9332); 0 makes it a step at minTh
        dualpi2_range_ms: f64 = 0.4, unit "ms", range crate::keys::DELAY_MS;
        /// DualPI2 Th_len: no native L4S marking while at most this many packets stay
        /// in the L queue (RFC 9332); whole packets, a fraction is dropped
        dualpi2_th_len_packets: f64 = 1.0, unit "packets", range DUALPI2_TH_LEN_RANGE;
        /// DualPI2 coupling factor k (RFC 9332)
        dualpi2_coupling: f64 = DUALPI2_COUPLING, unit "", range DUALPI2_COUPLING_RANGE;
        /// DualPI2 PI update interval (RFC 9332); the controller runs this often also
        /// while idle
        dualpi2_tupdate_ms: f64 = 16.0, unit "ms", range DUALPI2_TUPDATE_MS;
        /// DualPI2 integral gain (RFC 9332)
        dualpi2_alpha: f64 = DUALPI2_ALPHA, unit "Hz", range DUALPI2_GAIN_HZ;
        /// DualPI2 proportional gain (RFC 9332)
        dualpi2_beta: f64 = DUALPI2_BETA, unit "Hz", range DUALPI2_GAIN_HZ;
    }
}

impl From<&DualPi2Keys> for DualPi2Params {
    fn from(k: &DualPi2Keys) -> Self {
        use crate::keys::ms;
        Self {
            target: ms(k.dualpi2_target_ms),
            min_th: ms(k.dualpi2_min_th_ms),
            range: ms(k.dualpi2_range_ms),
            th_len: k.dualpi2_th_len_packets as u32,
            coupling: k.dualpi2_coupling,
            tupdate: ms(k.dualpi2_tupdate_ms),
            alpha: k.dualpi2_alpha,
            beta: k.dualpi2_beta,
        }
    }
}

/// Tunables of [`DualPi2`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DualPi2Params {
    /// PI2 target sojourn of the C queue.
    pub target: Duration,
    /// Native L4S ramp start (`minTh`).
    pub min_th: Duration,
    /// Native L4S ramp width (`range`); zero is a step at `min_th`.
    pub range: Duration,
    /// Packets that may stay in the L queue without native marking (`Th_len`).
    pub th_len: u32,
    /// Coupling factor k.
    pub coupling: f64,
    /// PI update interval.
    pub tupdate: Duration,
    /// Integral gain, Hz.
    pub alpha: f64,
    /// Proportional gain, Hz.
    pub beta: f64,
}

impl Default for DualPi2Params {
    fn default() -> Self {
        Self {
            target: DUALPI2_TARGET,
            min_th: DUALPI2_MIN_TH,
            range: DUALPI2_RANGE,
            th_len: DUALPI2_TH_LEN,
            coupling: DUALPI2_COUPLING,
            tupdate: DUALPI2_TUPDATE,
            alpha: DUALPI2_ALPHA,
            beta: DUALPI2_BETA,
        }
    }
}

/// The dual queue.
#[derive(Debug, Clone)]
pub struct DualPi2<P> {
    l: Fifo<P>,
    c: Fifo<P>,
    params: DualPi2Params,
    /// Base probability p' (RFC 9332 §2.4).
    p_base: f64,
    prev_q: Duration,
    next_update: Instant,
}

impl<P: NetPacket> DualPi2<P> {
    /// A DualPI2 queue.
    pub fn new(params: DualPi2Params) -> Self {
        Self {
            l: Fifo::new(),
            c: Fifo::new(),
            params,
            p_base: 0.0,
            prev_q: Duration::ZERO,
            next_update: Instant::ZERO + params.tupdate,
        }
    }

    /// Bytes queued in both queues.
    pub fn bytes(&self) -> u64 {
        self.l.bytes() + self.c.bytes()
    }

    /// Packets queued in both queues.
    pub fn len(&self) -> usize {
        self.l.len() + self.c.len()
    }

    /// Whether both queues are empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The base probability p'.
    pub fn base_probability(&self) -> f64 {
        self.p_base
    }

    /// Runs the PI updates due up to `now`. Called before every queue operation, so the
    /// queue content seen by an update is exactly the content at its own instant.
    ///
    /// The work is bounded whatever `tupdate` and the gap since the last call: once an
    /// update leaves the state unchanged with the C queue empty, every later update
    /// until `now` would too, and they are skipped; and an update time that saturates
    /// at the end of time ends the loop.
    fn catch_up(&mut self, now: Instant) {
        if self.params.tupdate.is_zero() {
            return;
        }
        while self.next_update <= now {
            let t = self.next_update;
            let curq = self.c.head_sojourn(t);
            let err = curq.as_secs_f64() - self.params.target.as_secs_f64();
            let trend = curq.as_secs_f64() - self.prev_q.as_secs_f64();
            let p =
                (self.p_base + self.params.alpha * err + self.params.beta * trend).clamp(0.0, 1.0);
            let fixed = self.c.is_empty() && p == self.p_base && curq == self.prev_q;
            self.p_base = p;
            self.prev_q = curq;
            self.next_update = t + self.params.tupdate;
            if self.next_update <= t {
                // Saturated at Instant::MAX: no later update exists.
                return;
            }
            if fixed && self.next_update <= now {
                let step = self.params.tupdate.as_nanos();
                let left = (now - self.next_update).as_nanos() / step;
                let skip = u64::try_from((left + 1) * step).unwrap_or(u64::MAX);
                self.next_update += Duration::from_nanos(skip);
                return;
            }
        }
    }

    /// Classifies and admits `pkt` against the shared `limit_bytes` (0 = unlimited).
    pub fn push(&mut self, now: Instant, pkt: P, limit_bytes: u64) -> Result<(), P> {
        self.catch_up(now);
        if limit_bytes > 0
            && !self.is_empty()
            && self.bytes() + u64::from(pkt.size_bytes()) > limit_bytes
        {
            return Err(pkt);
        }
        if matches!(pkt.ecn(), Ecn::Ect1 | Ecn::Ce) {
            self.l.push(now, pkt, 0)
        } else {
            self.c.push(now, pkt, 0)
        }
    }

    fn serve_l_first(&self) -> bool {
        let tshift = self.params.target.saturating_mul(DUALPI2_TSHIFT_FACTOR);
        match (self.l.head(), self.c.head()) {
            (Some(l), Some(c)) => l.enqueued_at.saturating_sub(tshift) <= c.enqueued_at,
            (Some(_), None) => true,
            _ => false,
        }
    }

    /// The native L4S AQM's probability for a packet that waited `sojourn` (RFC 9332
    /// §A.1 `laqm`): 0 up to `min_th`, 1 from `min_th + range`, linear between.
    fn native_ramp(&self, sojourn: Duration) -> f64 {
        if sojourn <= self.params.min_th {
            0.0
        } else if sojourn >= self.params.min_th.saturating_add(self.params.range) {
            1.0
        } else {
            (sojourn - self.params.min_th).as_secs_f64() / self.params.range.as_secs_f64()
        }
    }

    /// The next packet to serialise, after marking or dropping.
    pub fn pop(
        &mut self,
        now: Instant,
        rng: &mut RngStream,
        dropped: &mut Vec<P>,
    ) -> Option<Queued<P>> {
        self.catch_up(now);
        loop {
            if self.serve_l_first() {
                let mut pkt = self.l.pop()?;
                let p_cl = (self.params.coupling * self.p_base).min(1.0);
                // RFC 9332 lines 5a-5d: the packet has left, so `l.len()` is what stays.
                let native = if self.l.len() > self.params.th_len as usize {
                    self.native_ramp(now - pkt.enqueued_at)
                } else {
                    0.0
                };
                if rng.chance(native.max(p_cl)) {
                    pkt.packet.set_ecn(Ecn::Ce);
                }
                return Some(pkt);
            }
            let mut pkt = self.c.pop()?;
            // p_C = p'^2: compare p' against the larger of two uniform draws.
            let signal = self.p_base > rng.uniform().max(rng.uniform());
            if !signal {
                return Some(pkt);
            }
            if pkt.packet.ecn().is_ect() {
                pkt.packet.set_ecn(Ecn::Ce);
                return Some(pkt);
            }
            dropped.push(pkt.packet);
        }
    }
}
