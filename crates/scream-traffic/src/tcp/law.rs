//! The congestion-control laws a TCP sender can run, as an enum (no dynamic dispatch
//! per packet). The sender chassis (`sender.rs`) owns slow start, loss recovery and
//! the RTO; a law decides how the window grows in congestion avoidance and how far it
//! falls on a congestion signal.

use scream::{Duration, Instant};

use super::cubic::Cubic;
use super::prague::Prague;

/// Congestion window and slow-start threshold, bytes (floating point: CUBIC grows in
/// fractions of a segment).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Window {
    pub cwnd: f64,
    pub ssthresh: f64,
    /// Sender maximum segment size, bytes.
    pub mss: f64,
}

impl Window {
    /// Whether the sender is in slow start (RFC 5681 §3.1: cwnd < ssthresh).
    pub(crate) fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
}

/// RFC 5681 §3.1 eq. (4): the ssthresh after a loss, max(FlightSize / 2, 2 * SMSS).
pub(crate) fn half_flight(flight: u64, mss: f64) -> f64 {
    (flight as f64 / 2.0).max(2.0 * mss)
}

/// Reno's additive increase with byte counting (RFC 5681 §3.1, the recommended way):
/// one segment per window of bytes acknowledged.
#[derive(Debug, Clone, Default)]
pub(crate) struct Reno {
    acked: f64,
}

impl Reno {
    pub(crate) fn grow(&mut self, w: &mut Window, acked: u64) {
        self.acked += acked as f64;
        if self.acked >= w.cwnd {
            self.acked -= w.cwnd;
            w.cwnd += w.mss;
        }
    }

    fn reset(&mut self) {
        self.acked = 0.0;
    }
}

/// Which law a sender runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LawKind {
    /// NewReno (RFC 5681, RFC 6582).
    NewReno,
    /// CUBIC (RFC 9438).
    Cubic,
    /// Prague-style L4S (RFC 9331, RFC 8257 semantics).
    Prague,
}

/// A congestion-control law and its state.
#[derive(Debug, Clone)]
pub(crate) enum Law {
    NewReno(Reno),
    Cubic(Cubic),
    Prague(Prague),
}

impl Law {
    pub(crate) fn new(kind: LawKind) -> Self {
        match kind {
            LawKind::NewReno => Self::NewReno(Reno::default()),
            LawKind::Cubic => Self::Cubic(Cubic::default()),
            LawKind::Prague => Self::Prague(Prague::default()),
        }
    }

    /// Congestion-avoidance growth for `acked` newly acknowledged bytes.
    pub(crate) fn grow(&mut self, w: &mut Window, acked: u64, now: Instant, srtt: Duration) {
        match self {
            Self::NewReno(r) => r.grow(w, acked),
            Self::Cubic(c) => c.grow(w, acked, now, srtt),
            Self::Prague(p) => p.grow(w, acked),
        }
    }

    /// A loss (three duplicate ACKs or a timeout): the new ssthresh, with the law's
    /// own state updated. `flight` is the FlightSize of RFC 5681.
    pub(crate) fn on_loss(&mut self, w: &Window, flight: u64) -> f64 {
        match self {
            Self::NewReno(r) => {
                r.reset();
                half_flight(flight, w.mss)
            }
            Self::Cubic(c) => c.on_congestion(w, flight),
            Self::Prague(p) => p.on_loss(w, flight),
        }
    }

    /// An ECN congestion signal the sender reacts to (at most once per window): the
    /// window and ssthresh after it.
    pub(crate) fn on_ecn(&mut self, w: &mut Window, flight: u64) {
        match self {
            // RFC 3168 §6.1.2: the same reduction as for a loss, without a retransmission.
            Self::NewReno(_) | Self::Cubic(_) => {
                let ssthresh = self.on_loss(w, flight);
                w.ssthresh = ssthresh;
                w.cwnd = ssthresh;
            }
            Self::Prague(p) => p.on_ce(w),
        }
    }

    /// Bookkeeping of each ACK for a law that follows the marked fraction (Prague's α).
    pub(crate) fn on_ack_ecn(&mut self, acked: u64, ce_bytes: u64, snd_una: u64, snd_max: u64) {
        if let Self::Prague(p) = self {
            p.on_ack(acked, ce_bytes, snd_una, snd_max);
        }
    }

    /// Pacing rate as a multiple of cwnd / sRTT, for a law that paces.
    pub(crate) fn pacing_ratio(&self, slow_start: bool) -> Option<f64> {
        match self {
            Self::Prague(_) => Some(super::prague::pacing_ratio(slow_start)),
            Self::NewReno(_) | Self::Cubic(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: f64 = 1448.0;

    #[test]
    fn newreno_halves_the_flight_on_loss_with_a_floor_of_two_segments() {
        let mut law = Law::new(LawKind::NewReno);
        let w = Window {
            cwnd: 40.0 * MSS,
            ssthresh: f64::INFINITY,
            mss: MSS,
        };
        assert_eq!(law.on_loss(&w, 30 * 1448), 15.0 * MSS);
        assert_eq!(law.on_loss(&w, 1448), 2.0 * MSS);
    }

    #[test]
    fn reno_adds_one_segment_per_window_of_acked_bytes() {
        let mut r = Reno::default();
        let mut w = Window {
            cwnd: 10.0 * MSS,
            ssthresh: 0.0,
            mss: MSS,
        };
        for _ in 0..9 {
            r.grow(&mut w, 1448);
        }
        assert_eq!(w.cwnd, 10.0 * MSS);
        r.grow(&mut w, 1448);
        assert_eq!(w.cwnd, 11.0 * MSS);
    }
}
