//! The receiver element's socket side: datagrams in (with ECN), RTP out to the pad,
//! RFC 8888 feedback back to the sender.

use std::collections::VecDeque;
use std::io::Read;
use std::net::SocketAddr;
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, Ordering};

use scream::receiver::{ReceivedPacket, Receiver, ReceiverConfig};
use scream::wire::ccfb::{CountConvention, encode_feedback_with};
use scream::wire::rtp::{self, PacketKind};
use scream::{Duration, Ecn, Instant};
use scream_net::poller::Poller;
use scream_net::{Clock, EcnSocket};

/// Datagrams read per pass.
const RECV_BUDGET: usize = 256;
/// Longest wait without news, so that the statistics stay fresh and a stop is seen
/// even if a wake-up were lost.
const MAX_WAIT: Duration = Duration::from_millis(100);

/// The conventions property `num-reports` accepts, as `scream recv --num-reports`.
pub(crate) const COUNT_CONVENTIONS: [CountConvention; 2] =
    [CountConvention::Rfc, CountConvention::MinusOne];

/// The convention named `name` (property `num-reports`): `rfc` writes the number of
/// metric blocks (RFC 8888 with erratum 8166); `minus-one` writes that number minus
/// one, which is what the Ericsson reference's sender reads.
pub(crate) fn count_convention(name: &str) -> Result<CountConvention, String> {
    COUNT_CONVENTIONS
        .into_iter()
        .find(|c| c.name() == name)
        .ok_or_else(|| {
            let allowed: Vec<&str> = COUNT_CONVENTIONS.iter().map(|c| c.name()).collect();
            format!(
                "num-reports = `{name}`: expected one of {} (value unchanged)",
                allowed.join(", ")
            )
        })
}

/// What the receiver counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Counters {
    /// RTP packets received, and their bytes.
    pub(crate) packets: u64,
    pub(crate) bytes: u64,
    /// Of them, ECN-capable (ECT(0), ECT(1) or CE), and CE-marked.
    pub(crate) ecn_capable: u64,
    pub(crate) ce: u64,
    /// RTCP datagrams (not ours to read) and datagrams that are neither.
    pub(crate) rtcp: u64,
    pub(crate) malformed: u64,
    /// Feedback datagrams sent, their bytes, and those withheld (see `send_feedback`).
    pub(crate) feedback: u64,
    pub(crate) feedback_bytes: u64,
    pub(crate) feedback_withheld: u64,
}

impl Counters {
    pub(crate) fn structure(&self, peer: Option<SocketAddr>) -> gst::Structure {
        gst::Structure::builder("scream-recv-stats")
            .field("packets", self.packets)
            .field("bytes", self.bytes)
            .field("ecn-capable", self.ecn_capable)
            .field("ce", self.ce)
            .field("rtcp-ignored", self.rtcp)
            .field("malformed", self.malformed)
            .field("feedback", self.feedback)
            .field("feedback-bytes", self.feedback_bytes)
            .field("feedback-withheld", self.feedback_withheld)
            .field("sender", peer.map(|p| p.to_string()).unwrap_or_default())
            .build()
    }
}

/// Why [`RecvCore::next`] returned without a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Interrupted {
    /// The element is flushing or stopping.
    Flushing,
}

/// The socket, the library receiver and the packets read but not pushed yet.
#[derive(Debug)]
pub(crate) struct RecvCore {
    socket: EcnSocket,
    poller: Poller,
    woken: UnixStream,
    clock: Clock,
    receiver: Receiver,
    rtcp_ssrc: u32,
    /// How the feedback writes `num_reports` (property `num-reports`).
    count: CountConvention,
    /// Where the latest RTP came from: feedback goes there.
    peer: Option<SocketAddr>,
    queue: VecDeque<gst::Buffer>,
    feedback: Vec<u8>,
    /// RTP bytes from the current peer, and feedback bytes sent to it.
    budget: (u64, u64),
    pub(crate) counters: Counters,
}

impl RecvCore {
    /// Binds `listen`; `woken` is the read end of the pair `unlock` writes to.
    pub(crate) fn new(
        listen: SocketAddr,
        config: ReceiverConfig,
        rtcp_ssrc: u32,
        count: CountConvention,
        woken: UnixStream,
    ) -> Result<Self, String> {
        let receiver = Receiver::new(config).map_err(|e| e.to_string())?;
        let mut socket =
            EcnSocket::bind(listen).map_err(|e| format!("port: cannot bind {listen}: {e}"))?;
        let poll_err = |e: std::io::Error| format!("cannot wait on the socket: {e}");
        let mut poller = Poller::new().map_err(poll_err)?;
        poller.register(&mut socket).map_err(poll_err)?;
        woken.set_nonblocking(true).map_err(poll_err)?;
        poller.register_fd(woken.as_raw_fd()).map_err(poll_err)?;
        Ok(Self {
            socket,
            poller,
            woken,
            clock: Clock::start(),
            receiver,
            rtcp_ssrc,
            count,
            peer: None,
            queue: VecDeque::new(),
            feedback: Vec::with_capacity(1500),
            budget: (0, 0),
            counters: Counters::default(),
        })
    }

    /// The next RTP packet, waiting for one (and sending feedback meanwhile) until
    /// `flushing` is set. `on_pass` runs after every pass, with the counters.
    pub(crate) fn next(
        &mut self,
        flushing: &AtomicBool,
        mut on_pass: impl FnMut(&Counters, Option<SocketAddr>),
    ) -> Result<gst::Buffer, Interrupted> {
        loop {
            if flushing.load(Ordering::SeqCst) {
                return Err(Interrupted::Flushing);
            }
            if let Some(b) = self.queue.pop_front() {
                return Ok(b);
            }
            let mut drain = [0u8; 64];
            while matches!((&self.woken).read(&mut drain), Ok(n) if n > 0) {}
            let now = self.clock.now();
            self.read(now);
            self.send_feedback(now);
            on_pass(&self.counters, self.peer);
            if self.queue.is_empty() && !flushing.load(Ordering::SeqCst) {
                let cap = now + MAX_WAIT;
                let deadline = self.receiver.poll_timeout().map_or(cap, |t| t.min(cap));
                if self.poller.wait(&self.clock, Some(deadline)).is_err() {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
            }
        }
    }

    fn read(&mut self, now: Instant) {
        let Self {
            socket,
            receiver,
            queue,
            counters,
            peer,
            budget,
            ..
        } = self;
        let _ = socket.recv_each(RECV_BUDGET, |d| match rtp::classify(d.payload) {
            PacketKind::Rtp => match rtp::Packet::new_checked(d.payload) {
                Ok(p) => {
                    counters.packets += 1;
                    counters.bytes += d.payload.len() as u64;
                    counters.ecn_capable += u64::from(d.ecn != Ecn::NotEct);
                    counters.ce += u64::from(d.ecn == Ecn::Ce);
                    if *peer != Some(d.from) {
                        // A new sender (or the old one from a new port): only what
                        // it sent may be answered.
                        *peer = Some(d.from);
                        *budget = (0, 0);
                    }
                    budget.0 += d.payload.len() as u64;
                    receiver.on_packet(
                        now,
                        ReceivedPacket {
                            ssrc: p.ssrc(),
                            seq: p.sequence_number(),
                            size_bytes: u32::try_from(d.payload.len()).unwrap_or(u32::MAX),
                            ecn: d.ecn,
                            marker: p.marker(),
                        },
                    );
                    queue.push_back(gst::Buffer::from_slice(d.payload.to_vec()));
                }
                Err(_) => counters.malformed += 1,
            },
            PacketKind::Rtcp => counters.rtcp += 1,
            PacketKind::Other => counters.malformed += 1,
        });
    }

    /// Sends the reports that are due to the sender. A source address can be forged,
    /// so no address is sent more feedback bytes than RTP bytes came from it (as
    /// `scream recv` does); a report past that is withheld, and the next one, whose
    /// window overlaps it, carries its news.
    fn send_feedback(&mut self, now: Instant) {
        let Some(to) = self.peer else { return };
        while let Some(fb) = self.receiver.poll_feedback(now) {
            encode_feedback_with(&fb, self.rtcp_ssrc, self.count, &mut self.feedback);
            let c = &mut self.counters;
            let len = self.feedback.len() as u64;
            if self.budget.1 + len > self.budget.0 {
                c.feedback_withheld += 1;
                continue;
            }
            if self.socket.send(to, Ecn::NotEct, &self.feedback) {
                c.feedback += 1;
                c.feedback_bytes += len;
                self.budget.1 += len;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn num_reports_names_are_those_of_scream_recv() {
        assert_eq!(count_convention("rfc"), Ok(CountConvention::Rfc));
        assert_eq!(count_convention("minus-one"), Ok(CountConvention::MinusOne));
        let e = count_convention("minus_one").expect_err("not a name");
        assert_eq!(
            e,
            "num-reports = `minus_one`: expected one of rfc, minus-one (value unchanged)"
        );
    }
}
