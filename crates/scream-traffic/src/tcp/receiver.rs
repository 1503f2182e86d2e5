//! The TCP receiver: cumulative acknowledgements, a bounded out-of-order buffer,
//! delayed ACKs (RFC 5681 §4.2), timestamp echo (RFC 7323 §4.3) and the ECN echo:
//! a latched ECE (RFC 3168 §6.1.3) and a count of CE-marked bytes (AccECN-like).

use scream::{Duration, Instant};

use super::segment::{TcpAck, TcpData};

/// Linux's delayed-ACK timeout (`TCP_DELACK_MIN`, 40 ms); RFC 5681 §4.2 allows up to
/// 500 ms.
pub(crate) const DELAYED_ACK_TIMEOUT: Duration = Duration::from_millis(40);
/// RFC 5681 §4.2: an ACK for at least every second full-sized segment.
const SEGMENTS_PER_DELAYED_ACK: u32 = 2;
/// Out-of-order ranges kept at most: a peer that sends many scattered segments gets
/// the lowest ones buffered, the rest dropped (its retransmissions recover them).
pub(crate) const MAX_OUT_OF_ORDER_RANGES: usize = 64;
/// Receive window, bytes: 64 MiB, which window scaling (RFC 7323 §2) can advertise and
/// which no path of the simulator's scenarios fills (it is 10 Gbit/s at 50 ms RTT).
/// Data beyond it is not buffered.
pub(crate) const RECEIVE_WINDOW_BYTES: u64 = 1 << 26;

/// A TCP receiver.
#[derive(Debug, Clone)]
pub struct TcpReceiver {
    mss: u32,
    delayed_ack: bool,
    rcv_nxt: u64,
    /// Disjoint, sorted byte ranges `[start, end)` received above `rcv_nxt`.
    out_of_order: Vec<(u64, u64)>,
    /// TS.Recent of RFC 7323 §4.3.
    ts_recent: Instant,
    last_ack_sent: u64,
    /// Full-sized segments received since the last ACK.
    unacked_segments: u32,
    ack_now: bool,
    ack_due: Option<Instant>,
    ece: bool,
    ce_bytes: u32,
}

impl TcpReceiver {
    /// A receiver of segments of up to `mss` payload bytes, acknowledging every
    /// second segment (with the delayed-ACK timer) when `delayed_ack`, else each one.
    pub fn new(mss: u32, delayed_ack: bool) -> Self {
        Self {
            mss,
            delayed_ack,
            rcv_nxt: 0,
            out_of_order: Vec::new(),
            ts_recent: Instant::ZERO,
            last_ack_sent: 0,
            unacked_segments: 0,
            ack_now: false,
            ack_due: None,
            ece: false,
            ce_bytes: 0,
        }
    }

    /// A data segment arrived at `now`, CE-marked if `ce`.
    pub fn on_data(&mut self, now: Instant, seg: &TcpData, ce: bool) {
        // RFC 3168 §6.1.3: CWR ends the ECE latch, a CE mark (even on this very
        // segment) starts it again.
        if seg.cwr {
            self.ece = false;
        }
        if ce {
            self.ece = true;
            self.ce_bytes = self.ce_bytes.wrapping_add(seg.len);
        }
        if seg.seq <= self.last_ack_sent && seg.ts_val >= self.ts_recent {
            self.ts_recent = seg.ts_val;
        }
        let end = seg.end();
        if end <= self.rcv_nxt {
            // RFC 5681 §4.2: duplicate data is acknowledged at once.
            self.ack_now = true;
        } else if seg.seq <= self.rcv_nxt {
            let filled_gap = !self.out_of_order.is_empty();
            self.rcv_nxt = end;
            while let Some(&(s, e)) = self.out_of_order.first() {
                if s > self.rcv_nxt {
                    break;
                }
                self.rcv_nxt = self.rcv_nxt.max(e);
                self.out_of_order.remove(0);
            }
            if seg.len >= self.mss {
                self.unacked_segments += 1;
            }
            // RFC 5681 §4.2: a segment that fills a gap is acknowledged at once.
            if filled_gap || !self.delayed_ack || self.unacked_segments >= SEGMENTS_PER_DELAYED_ACK
            {
                self.ack_now = true;
            } else if self.ack_due.is_none() {
                self.ack_due = Some(now + DELAYED_ACK_TIMEOUT);
            }
        } else {
            // Out of order: buffered if there is room, and a duplicate ACK at once.
            self.buffer(seg.seq, end);
            self.ack_now = true;
        }
    }

    fn buffer(&mut self, start: u64, end: u64) {
        let end = end.min(self.rcv_nxt + RECEIVE_WINDOW_BYTES);
        if end <= start {
            return;
        }
        let (mut s, mut e) = (start, end);
        // Merge every range that overlaps or touches [s, e).
        let mut i = 0;
        while i < self.out_of_order.len() {
            let (rs, re) = self.out_of_order[i];
            if re < s || rs > e {
                i += 1;
                continue;
            }
            s = s.min(rs);
            e = e.max(re);
            self.out_of_order.remove(i);
        }
        let at = self.out_of_order.partition_point(|r| r.0 < s);
        self.out_of_order.insert(at, (s, e));
        self.out_of_order.truncate(MAX_OUT_OF_ORDER_RANGES);
    }

    /// The ACK to send now, if one is due.
    pub fn poll_ack(&mut self, now: Instant) -> Option<TcpAck> {
        if !(self.ack_now || self.ack_due.is_some_and(|t| t <= now)) {
            return None;
        }
        self.ack_now = false;
        self.ack_due = None;
        self.unacked_segments = 0;
        self.last_ack_sent = self.rcv_nxt;
        Some(TcpAck {
            ack: self.rcv_nxt,
            ts_ecr: self.ts_recent,
            ece: self.ece,
            ce_bytes: self.ce_bytes,
        })
    }

    /// When the delayed-ACK timer expires.
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.ack_due
    }

    #[cfg(test)]
    pub(crate) fn out_of_order_ranges(&self) -> usize {
        self.out_of_order.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;

    fn seg(seq: u64, at: Instant) -> TcpData {
        TcpData {
            stream: 0,
            seq,
            len: MSS,
            ts_val: at,
            cwr: false,
        }
    }

    #[test]
    fn delayed_acks_cover_every_second_segment_or_wait_40_ms() {
        let mut r = TcpReceiver::new(MSS, true);
        let t0 = Instant::from_millis(10);
        r.on_data(t0, &seg(0, t0), false);
        assert_eq!(r.poll_ack(t0), None, "the first segment waits");
        assert_eq!(r.poll_timeout(), Some(t0 + DELAYED_ACK_TIMEOUT));
        r.on_data(t0, &seg(1000, t0), false);
        let ack = r.poll_ack(t0).expect("the second segment is acknowledged");
        assert_eq!(ack.ack, 2000);
        // A lone segment is acknowledged when the timer expires, not before.
        let t1 = Instant::from_millis(20);
        r.on_data(t1, &seg(2000, t1), false);
        assert_eq!(r.poll_ack(t1 + Duration::from_millis(39)), None);
        let ack = r.poll_ack(t1 + DELAYED_ACK_TIMEOUT).expect("timer");
        assert_eq!((ack.ack, ack.ts_ecr), (3000, t1));
        assert_eq!(r.poll_timeout(), None);
    }

    #[test]
    fn without_delayed_acks_every_segment_is_acknowledged() {
        let mut r = TcpReceiver::new(MSS, false);
        let t = Instant::from_millis(1);
        r.on_data(t, &seg(0, t), false);
        assert_eq!(r.poll_ack(t).map(|a| a.ack), Some(1000));
    }

    #[test]
    fn out_of_order_data_gets_an_immediate_duplicate_ack_and_the_gap_fill_a_full_one() {
        let mut r = TcpReceiver::new(MSS, true);
        let t = Instant::from_millis(1);
        r.on_data(t, &seg(0, t), false);
        r.on_data(t, &seg(1000, t), false);
        assert_eq!(r.poll_ack(t).map(|a| a.ack), Some(2000));
        // 2000 lost; 3000 and 4000 arrive: one duplicate ACK each, at once.
        for s in [3000, 4000] {
            r.on_data(t, &seg(s, t), false);
            assert_eq!(r.poll_ack(t).map(|a| a.ack), Some(2000));
        }
        r.on_data(t, &seg(2000, Instant::from_millis(2)), false);
        let ack = r.poll_ack(t).expect("the gap fill is acknowledged at once");
        assert_eq!(ack.ack, 5000);
        // The retransmission's timestamp is echoed (it advanced the left edge).
        assert_eq!(ack.ts_ecr, Instant::from_millis(2));
    }

    #[test]
    fn the_out_of_order_buffer_is_bounded() {
        let mut r = TcpReceiver::new(MSS, false);
        let t = Instant::from_millis(1);
        for k in 0..1000u64 {
            r.on_data(t, &seg(2000 * (k + 1), t), false);
        }
        assert_eq!(r.out_of_order_ranges(), MAX_OUT_OF_ORDER_RANGES);
        r.on_data(t, &seg(u64::MAX / 2, t), false);
        assert_eq!(r.out_of_order_ranges(), MAX_OUT_OF_ORDER_RANGES);
    }

    #[test]
    fn ece_is_latched_until_cwr_and_ce_bytes_are_counted() {
        let mut r = TcpReceiver::new(MSS, false);
        let t = Instant::from_millis(1);
        r.on_data(t, &seg(0, t), true);
        let a = r.poll_ack(t).unwrap();
        assert!(a.ece);
        assert_eq!(a.ce_bytes, 1000);
        r.on_data(t, &seg(1000, t), false);
        assert!(r.poll_ack(t).unwrap().ece, "latched");
        let mut cwr = seg(2000, t);
        cwr.cwr = true;
        r.on_data(t, &cwr, false);
        let a = r.poll_ack(t).unwrap();
        assert!(!a.ece);
        assert_eq!(a.ce_bytes, 1000);
    }
}
