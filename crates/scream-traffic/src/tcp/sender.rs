//! The TCP sender chassis: sequence space, slow start, NewReno loss recovery
//! (RFC 5681, RFC 6582), the retransmission timer (RFC 6298), the ECN reaction at most
//! once per window (RFC 3168 §6.1.2), optional pacing, and the application's traffic.
//! The congestion-avoidance law is a [`Law`].

use scream::{Duration, Ecn, Instant};

use super::law::{Law, LawKind, Window};
use super::receiver::RECEIVE_WINDOW_BYTES;
use super::rto::RtoEstimator;
use super::segment::{TcpAck, TcpData};
use super::traffic::Traffic;

/// RFC 5681 §3.2: the duplicate ACKs that signal a loss.
const DUPACK_THRESHOLD: u32 = 3;
/// RFC 3465 §2.2: slow start grows by at most L = 2 SMSS per ACK.
const SLOW_START_L_SEGMENTS: f64 = 2.0;
/// Application data of a bulk transfer: more than any run can send.
const UNLIMITED: u64 = u64::MAX / 2;

/// RFC 6928 §2: the initial window, min(10 MSS, max(2 MSS, 14600 bytes)).
pub(crate) fn initial_window(mss: u32) -> u64 {
    let mss = u64::from(mss);
    (10 * mss).min((2 * mss).max(14_600))
}

/// How a sender uses ECN.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EcnUse {
    /// Not-ECT; loss is the only signal.
    None,
    /// ECT(0), ECE/CWR (RFC 3168).
    Classic,
    /// ECT(1), the accurate CE count (RFC 9331).
    L4s,
}

/// What a sender needs to know at construction.
#[derive(Debug, Clone)]
pub struct SenderConfig {
    /// Congestion law.
    pub law: LawKind,
    /// Which ECN the connection negotiated (none, classic or accurate for L4S).
    pub ecn: EcnUse,
    /// Payload bytes per full segment.
    pub mss: u32,
    /// Bytes each segment adds on the wire (IP and TCP headers with options).
    pub header_bytes: u32,
    /// Floor of the retransmission timeout (RFC 6298 says 1 s; Linux uses 200 ms).
    pub min_rto: Duration,
    /// What the application writes.
    pub traffic: Traffic,
    /// The application writes from `start` and nothing new from `stop` on.
    pub active: (Instant, Instant),
    /// Global index of the flow's stream, written into every segment.
    pub stream: u32,
}

/// A TCP sender.
#[derive(Debug, Clone)]
pub struct TcpSender {
    law: Law,
    w: Window,
    rto: RtoEstimator,
    cfg: SenderConfig,
    snd_una: u64,
    snd_nxt: u64,
    snd_max: u64,
    /// Bytes the application has written so far.
    app_end: u64,
    started: bool,
    next_object: Option<Instant>,
    dupacks: u32,
    in_recovery: bool,
    /// RFC 6582 `recover`: the highest byte sent when loss recovery (or a timeout)
    /// began.
    recover: Option<u64>,
    partial_acked: bool,
    /// A segment to send again at once (fast retransmit, partial ACK).
    retransmit: Option<u64>,
    /// No ECN reaction until the cumulative ACK passes this.
    cwr_end: Option<u64>,
    send_cwr: bool,
    last_ce_bytes: u32,
    rto_deadline: Option<Instant>,
    next_send: Option<Instant>,
    last_send: Option<Instant>,
    /// Retransmission timeouts so far.
    pub timeouts: u64,
    /// Segments sent again (fast retransmit, partial ACKs, after a timeout).
    pub retransmissions: u64,
}

impl TcpSender {
    /// A sender with the initial window, nothing sent yet.
    pub fn new(cfg: SenderConfig) -> Self {
        let mss = f64::from(cfg.mss);
        Self {
            law: Law::new(cfg.law),
            w: Window {
                cwnd: initial_window(cfg.mss) as f64,
                // RFC 5681 §3.1: ssthresh starts arbitrarily high.
                ssthresh: f64::INFINITY,
                mss,
            },
            rto: RtoEstimator::new(cfg.min_rto),
            cfg,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            app_end: 0,
            started: false,
            next_object: None,
            dupacks: 0,
            in_recovery: false,
            recover: None,
            partial_acked: false,
            retransmit: None,
            cwr_end: None,
            send_cwr: false,
            last_ce_bytes: 0,
            rto_deadline: None,
            next_send: None,
            last_send: None,
            timeouts: 0,
            retransmissions: 0,
        }
    }

    fn mss(&self) -> f64 {
        self.w.mss
    }

    fn flight(&self) -> u64 {
        self.snd_max - self.snd_una
    }

    /// Congestion window, bytes.
    pub fn cwnd(&self) -> f64 {
        self.w.cwnd
    }

    /// Slow-start threshold, bytes.
    #[cfg(test)]
    pub(crate) fn ssthresh(&self) -> f64 {
        self.w.ssthresh
    }

    /// Bytes sent and not yet acknowledged.
    pub fn bytes_in_flight(&self) -> u64 {
        self.flight()
    }

    /// Smoothed RTT, once measured.
    pub fn srtt(&self) -> Option<Duration> {
        self.rto.srtt()
    }

    /// The law's state, for tests of the chassis.
    #[cfg(test)]
    pub(crate) fn law(&self) -> &Law {
        &self.law
    }

    fn new_object(&mut self) {
        if let Traffic::OnOff(t) = &mut self.cfg.traffic {
            self.app_end += t.object_bytes();
        }
    }

    /// Timers: the flow's start, the next on-off object, the retransmission timeout.
    pub fn handle_timeout(&mut self, now: Instant) {
        let (start, stop) = self.cfg.active;
        if !self.started && now >= start {
            self.started = true;
            match &mut self.cfg.traffic {
                Traffic::Bulk => self.app_end = UNLIMITED,
                Traffic::OnOff(t) if t.starts_idle() => self.next_object = Some(now + t.idle()),
                Traffic::OnOff(_) => self.new_object(),
            }
        }
        if self.next_object.is_some_and(|t| t <= now) {
            self.next_object = None;
            if now < stop {
                self.new_object();
            }
        }
        if self.rto_deadline.is_some_and(|t| t <= now) {
            self.on_timeout(now);
        }
    }

    /// RFC 6298 §5.4–§5.7 with RFC 5681 §3.1: back off, collapse the window to one
    /// segment, and send again from the first unacknowledged byte (without SACK the
    /// sender cannot tell what else arrived).
    fn on_timeout(&mut self, now: Instant) {
        if self.snd_una == self.snd_max {
            self.rto_deadline = None;
            return;
        }
        self.timeouts += 1;
        // RFC 5681 §3.1: ssthresh falls on the first timeout of a segment only; a
        // timeout of a retransmission keeps it.
        if !self.rto.backed_off() {
            self.w.ssthresh = self.law.on_loss(&self.w, self.flight());
        }
        self.w.cwnd = self.mss();
        self.rto.back_off();
        self.recover = Some(self.snd_max);
        self.in_recovery = false;
        self.dupacks = 0;
        self.retransmit = None;
        self.snd_nxt = self.snd_una;
        self.next_send = None;
        self.rto_deadline = Some(now + self.rto.rto());
    }

    /// An ACK arrived at `now`.
    pub fn handle_ack(&mut self, now: Instant, ack: &TcpAck) {
        let ack_no = ack.ack.min(self.snd_max);
        let ce_bytes = if self.cfg.ecn == EcnUse::L4s {
            let delta = ack.ce_bytes.wrapping_sub(self.last_ce_bytes);
            // A counter that went back belongs to an ACK overtaken by a newer one.
            if delta < 1 << 31 {
                self.last_ce_bytes = ack.ce_bytes;
                u64::from(delta)
            } else {
                0
            }
        } else {
            0
        };
        if ack_no > self.snd_una {
            self.on_new_ack(now, ack, ack_no, ce_bytes);
        } else if ack_no == self.snd_una && self.snd_max > self.snd_una {
            self.on_duplicate_ack();
        }
        let signal = match self.cfg.ecn {
            EcnUse::None => false,
            EcnUse::Classic => ack.ece,
            EcnUse::L4s => ce_bytes > 0,
        };
        if signal && !self.in_recovery && self.cwr_end.is_none_or(|e| self.snd_una > e) {
            let flight = self.flight();
            self.law.on_ecn(&mut self.w, flight);
            self.cwr_end = Some(self.snd_max);
            self.send_cwr = self.cfg.ecn == EcnUse::Classic;
        }
    }

    fn on_new_ack(&mut self, now: Instant, ack: &TcpAck, ack_no: u64, ce_bytes: u64) {
        let acked = ack_no - self.snd_una;
        self.snd_una = ack_no;
        self.snd_nxt = self.snd_nxt.max(ack_no);
        self.dupacks = 0;
        // RFC 7323 §4.1: the echoed timestamp gives an RTT sample for every ACK of new
        // data, retransmissions included.
        if let Some(rtt) = now.checked_duration_since(ack.ts_ecr) {
            self.rto.on_sample(rtt);
        }
        self.law
            .on_ack_ecn(acked, ce_bytes, self.snd_una, self.snd_max);
        let mut restart_timer = true;
        if self.in_recovery {
            let recover = self.recover.unwrap_or(self.snd_max);
            if self.snd_una >= recover {
                // RFC 6582 §3.2 step 3, full ACK: deflate to
                // min(ssthresh, max(FlightSize, SMSS) + SMSS).
                let flight = (self.flight() as f64).max(self.mss());
                self.w.cwnd = self.w.ssthresh.min(flight + self.mss());
                self.in_recovery = false;
            } else {
                // RFC 6582 §3.2 step 3, partial ACK: send the next hole again, deflate
                // by the bytes acked and add back one segment.
                self.retransmit = Some(self.snd_una);
                self.w.cwnd -= acked as f64;
                if acked as f64 >= self.mss() {
                    self.w.cwnd += self.mss();
                }
                self.w.cwnd = self.w.cwnd.max(self.mss());
                // The "impatient" variant (RFC 6582 §4): only the first partial ACK
                // restarts the timer.
                restart_timer = !self.partial_acked;
                self.partial_acked = true;
            }
        } else if self.w.in_slow_start() {
            self.w.cwnd += (acked as f64).min(SLOW_START_L_SEGMENTS * self.mss());
        } else {
            let srtt = self.rto.srtt().unwrap_or(Duration::ZERO);
            self.law.grow(&mut self.w, acked, now, srtt);
        }
        self.w.cwnd = self.w.cwnd.min(RECEIVE_WINDOW_BYTES as f64);
        // RFC 6298 §5.2 and §5.3.
        if self.snd_una == self.snd_max {
            self.rto_deadline = None;
        } else if restart_timer {
            self.rto_deadline = Some(now + self.rto.rto());
        }
        if self.snd_una >= self.app_end
            && self.next_object.is_none()
            && let Traffic::OnOff(t) = &mut self.cfg.traffic
        {
            self.next_object = Some(now + t.idle());
        }
    }

    fn on_duplicate_ack(&mut self) {
        self.dupacks += 1;
        if self.in_recovery {
            // RFC 5681 §3.2 step 4: each further duplicate inflates the window.
            self.w.cwnd += self.mss();
            return;
        }
        // RFC 6582 §3.2 step 1: no new recovery for losses of a window that a timeout
        // or an earlier recovery already handles.
        let fresh = self.recover.is_none_or(|r| self.snd_una > r);
        if self.dupacks == DUPACK_THRESHOLD && fresh {
            // RFC 5681 §3.2 steps 2 and 3.
            self.w.ssthresh = self.law.on_loss(&self.w, self.flight());
            self.w.cwnd = self.w.ssthresh + f64::from(DUPACK_THRESHOLD) * self.mss();
            self.recover = Some(self.snd_max);
            self.in_recovery = true;
            self.partial_acked = false;
            self.retransmit = Some(self.snd_una);
            // The window is reduced once: ECN marks of the same window are covered.
            self.cwr_end = Some(self.snd_max);
        }
    }

    /// The next segment to send now, with its ECN codepoint.
    pub fn poll_transmit(&mut self, now: Instant) -> Option<(TcpData, Ecn)> {
        if !self.started {
            return None;
        }
        if self.next_send.is_some_and(|t| t > now) {
            return None;
        }
        self.next_send = None;
        if let Some(seq) = self.retransmit.take() {
            let len = (self.snd_max - seq).min(u64::from(self.cfg.mss));
            if len > 0 {
                self.retransmissions += 1;
                return Some(self.emit(now, seq, len as u32));
            }
        }
        let stop = self.cfg.active.1;
        let end = if now < stop {
            self.app_end
        } else {
            // Nothing new after the stop; what was sent is still delivered.
            self.app_end.min(self.snd_max)
        };
        let available = end.saturating_sub(self.snd_nxt);
        if available == 0 {
            return None;
        }
        // RFC 5681 §4.1: after an idle period longer than the RTO, restart from at most
        // the initial window.
        if self.snd_una == self.snd_max
            && self
                .last_send
                .is_some_and(|t| now.saturating_duration_since(t) > self.rto.rto())
        {
            self.w.cwnd = self.w.cwnd.min(initial_window(self.cfg.mss) as f64);
        }
        let len = available.min(u64::from(self.cfg.mss));
        let window = (self.w.cwnd as u64).min(RECEIVE_WINDOW_BYTES);
        if self.snd_nxt - self.snd_una + len > window {
            return None;
        }
        if self.snd_nxt < self.snd_max {
            self.retransmissions += 1;
        }
        Some(self.emit(now, self.snd_nxt, len as u32))
    }

    fn emit(&mut self, now: Instant, seq: u64, len: u32) -> (TcpData, Ecn) {
        let end = seq + u64::from(len);
        let fresh = seq >= self.snd_max;
        let cwr = fresh && std::mem::take(&mut self.send_cwr);
        if seq == self.snd_nxt {
            self.snd_nxt = end;
        }
        self.snd_max = self.snd_max.max(end);
        // RFC 6298 §5.1: the timer runs whenever data is outstanding.
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(now + self.rto.rto());
        }
        self.last_send = Some(now);
        if let (Some(ratio), Some(srtt)) = (
            self.law.pacing_ratio(self.w.in_slow_start()),
            self.rto.srtt(),
        ) {
            let rate = ratio * self.w.cwnd / srtt.as_secs_f64().max(1e-6);
            let wire = f64::from(len + self.cfg.header_bytes);
            let gap = (wire / rate * 1e9).min(1e12) as u64;
            self.next_send = Some(now + Duration::from_nanos(gap));
        }
        let ecn = match self.cfg.ecn {
            EcnUse::None => Ecn::NotEct,
            // RFC 3168 §6.1.5: retransmissions are not ECN-capable.
            EcnUse::Classic if fresh => Ecn::Ect0,
            EcnUse::Classic => Ecn::NotEct,
            EcnUse::L4s => Ecn::Ect1,
        };
        let seg = TcpData {
            stream: self.cfg.stream,
            seq,
            len,
            ts_val: now,
            cwr,
        };
        (seg, ecn)
    }

    /// The next instant something is due: the start, an object, the RTO, the pacer.
    pub fn poll_timeout(&self) -> Option<Instant> {
        let start = (!self.started).then_some(self.cfg.active.0);
        [start, self.next_object, self.rto_deadline, self.next_send]
            .into_iter()
            .flatten()
            .min()
    }
}

#[cfg(test)]
mod tests;
