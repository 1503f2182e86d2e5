//! A SCReAM media receiver on a UDP socket: RTP from any number of senders, each
//! answered with its own RFC 8888 feedback.

use std::io;
use std::net::SocketAddr;

use crate::clock::Clock;
use crate::event_loop::{self, Endpoint, RunEnd, Served};
use crate::poller::Poller;
use crate::socket::{EcnSocket, SendErrors};
use crate::stop::Stop;
use scream::receiver::{ReceivedPacket, Receiver, ReceiverConfig, ReceiverConfigError};
use scream::wire::ccfb::{CountConvention, encode_feedback_with};
use scream::wire::rtp::{self, PacketKind};
use scream::{Duration, Ecn, Instant};

/// Datagrams read per wake before the loop serves its timers again.
const RECV_BUDGET: usize = 256;
/// Senders served at once. Each costs a library receiver (bounded by its own
/// `max_ssrcs`); a flood of spoofed source addresses evicts the longest-silent one
/// instead of growing the table.
pub const MAX_PEERS: usize = 16;
/// A sender silent this long is forgotten; if it comes back it starts afresh, as a
/// restarted sender would.
const PEER_IDLE: Duration = Duration::from_secs(10);
/// SSRCs per peer whose losses are counted.
const MAX_TRACKED_SSRCS: usize = 8;

/// One sender as the receiver sees it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PeerCounters {
    /// RTP packets received.
    pub packets: u64,
    /// Their UDP payload bytes.
    pub bytes: u64,
    /// Packets that arrived CE-marked.
    pub ce: u64,
    /// Packets that arrived with ECT(0) or ECT(1) (CE included).
    pub ecn_capable: u64,
    /// Packets missing from the sequence-number ranges seen (RFC 3550 §6.4.1 "cumulative
    /// number of packets lost": expected minus received, never below zero).
    pub lost: u64,
    /// Feedback datagrams sent to it.
    pub feedback: u64,
    /// Their bytes.
    pub feedback_bytes: u64,
}

/// A sender the receiver is serving, for observers.
#[derive(Debug, Clone, Copy)]
pub struct PeerView {
    /// Where its RTP comes from.
    pub addr: SocketAddr,
    /// Where its feedback goes.
    pub feedback_to: SocketAddr,
    /// First SSRC seen from it.
    pub ssrc: u32,
    /// What was counted for it.
    pub counters: PeerCounters,
}

/// What the receiver counted beyond its peers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RecvCounters {
    /// Datagrams read.
    pub datagrams: u64,
    /// Datagrams that are neither valid RTP nor RTCP.
    pub malformed: u64,
    /// RTCP datagrams (not ours to read) ignored.
    pub rtcp: u64,
    /// Peers forgotten to make room for a new one.
    pub peers_evicted: u64,
    /// Peers forgotten after 10 s of silence.
    pub peers_expired: u64,
    /// Sends that failed.
    pub send_errors: SendErrors,
}

/// Extended highest sequence number and packet count of one SSRC (RFC 3550 A.1, less
/// the probation).
#[derive(Debug, Clone, Copy)]
struct SeqTrack {
    ssrc: u32,
    base: u64,
    highest: u64,
    received: u64,
}

impl SeqTrack {
    fn new(ssrc: u32, seq: u16) -> Self {
        // Start one cycle up so that a reordered packet just before the first one
        // still extends to a value above zero.
        let ext = (1u64 << 16) + u64::from(seq);
        Self {
            ssrc,
            base: ext,
            highest: ext,
            received: 1,
        }
    }

    fn on_seq(&mut self, seq: u16) {
        let last = self.highest as u16;
        let delta = seq.wrapping_sub(last) as i16;
        let ext = self.highest.saturating_add_signed(i64::from(delta));
        self.highest = self.highest.max(ext);
        self.base = self.base.min(ext);
        self.received += 1;
    }

    fn lost(&self) -> u64 {
        (self.highest - self.base + 1).saturating_sub(self.received)
    }
}

#[derive(Debug)]
struct Peer {
    addr: SocketAddr,
    receiver: Receiver,
    last_seen: Instant,
    ssrc: u32,
    seqs: Vec<SeqTrack>,
    counters: PeerCounters,
}

impl Peer {
    fn on_rtp(&mut self, ssrc: u32, seq: u16) {
        if let Some(t) = self.seqs.iter_mut().find(|t| t.ssrc == ssrc) {
            t.on_seq(seq);
        } else if self.seqs.len() < MAX_TRACKED_SSRCS {
            self.seqs.push(SeqTrack::new(ssrc, seq));
        }
        self.counters.lost = self.seqs.iter().map(SeqTrack::lost).sum();
    }
}

/// How to run a [`MediaReceiver`].
#[derive(Debug, Clone)]
pub struct MediaReceiverConfig {
    /// Address to listen on.
    pub listen: SocketAddr,
    /// Where every peer's feedback goes; `None`: back to the address its RTP came from.
    pub feedback_to: Option<SocketAddr>,
    /// RTCP SSRC of the feedback (RFC 8888 §3.1 "SSRC of packet sender").
    pub rtcp_ssrc: u32,
    /// The library receiver's settings, one per peer.
    pub receiver: ReceiverConfig,
    /// How `num_reports` is written: RFC 8888 (erratum 8166), or count − 1 for a sender
    /// that reads it so (the Ericsson reference).
    pub count: CountConvention,
}

/// A real-time SCReAM receiver.
#[derive(Debug)]
pub struct MediaReceiver {
    clock: Clock,
    socket: EcnSocket,
    poller: Poller,
    cfg: MediaReceiverConfig,
    peers: Vec<Peer>,
    counters: RecvCounters,
    feedback: Vec<u8>,
}

impl MediaReceiver {
    /// Binds the socket; fails on an invalid receiver configuration.
    pub fn new(cfg: MediaReceiverConfig, clock: Clock) -> io::Result<Self> {
        cfg.receiver
            .validate()
            .map_err(|e: ReceiverConfigError| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        let mut socket = EcnSocket::bind(cfg.listen)?;
        let mut poller = Poller::new()?;
        poller.register(&mut socket)?;
        Ok(Self {
            clock,
            socket,
            poller,
            cfg,
            peers: Vec::new(),
            counters: RecvCounters::default(),
            feedback: Vec::with_capacity(1500),
        })
    }

    /// The local address of the socket.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.socket.local_addr()
    }

    /// What the loop counted beyond the peers.
    pub fn counters(&self) -> RecvCounters {
        RecvCounters {
            send_errors: self.socket.send_errors(),
            ..self.counters
        }
    }

    /// The senders served now.
    pub fn peers(&self) -> impl Iterator<Item = PeerView> + '_ {
        self.peers.iter().map(|p| PeerView {
            addr: p.addr,
            feedback_to: self.cfg.feedback_to.unwrap_or(p.addr),
            ssrc: p.ssrc,
            counters: p.counters,
        })
    }

    /// The endpoint's clock.
    pub fn clock(&self) -> Clock {
        self.clock
    }

    /// Ends every run, after one last observation, once `stop` is requested.
    pub fn stop_on(&mut self, stop: Stop) -> io::Result<()> {
        self.poller.set_stop(stop)
    }

    /// Runs until `until` (`None`: until stopped, see [`Self::stop_on`]), calling
    /// `observe` every `interval` and once at the end; returns why it ended.
    pub fn run(
        &mut self,
        until: impl Into<Option<Instant>>,
        interval: Duration,
        mut observe: impl FnMut(Instant, &Self),
    ) -> io::Result<RunEnd> {
        event_loop::run(self, until.into(), interval, |now, r| observe(now, r))
    }

    fn read(&mut self, now: Instant) -> io::Result<bool> {
        let mut got: Vec<(SocketAddr, Ecn, rtp::Repr, usize)> = Vec::new();
        let counters = &mut self.counters;
        let drained = self.socket.recv_each(RECV_BUDGET, |d| {
            counters.datagrams += 1;
            match rtp::classify(d.payload) {
                PacketKind::Rtp => match rtp::Repr::parse_bytes(d.payload) {
                    Ok(r) => got.push((d.from, d.ecn, r, d.payload.len())),
                    Err(_) => counters.malformed += 1,
                },
                PacketKind::Rtcp => counters.rtcp += 1,
                PacketKind::Other => counters.malformed += 1,
            }
        })?;
        for (from, ecn, r, len) in got {
            let Some(i) = self.peer_index(now, from, r.ssrc) else {
                continue;
            };
            let p = &mut self.peers[i];
            p.last_seen = now;
            p.on_rtp(r.ssrc, r.sequence_number);
            let c = &mut p.counters;
            c.packets += 1;
            c.bytes += len as u64;
            c.ce += u64::from(ecn == Ecn::Ce);
            c.ecn_capable += u64::from(ecn != Ecn::NotEct);
            p.receiver.on_packet(
                now,
                ReceivedPacket {
                    ssrc: r.ssrc,
                    seq: r.sequence_number,
                    size_bytes: u32::try_from(len).unwrap_or(u32::MAX),
                    ecn,
                    marker: r.marker,
                },
            );
            self.send_feedback(now, i);
        }
        Ok(drained)
    }

    /// The index of the peer at `addr`, added (evicting the longest-silent peer if
    /// the table is full) if new.
    fn peer_index(&mut self, now: Instant, addr: SocketAddr, ssrc: u32) -> Option<usize> {
        if let Some(i) = self.peers.iter().position(|p| p.addr == addr) {
            return Some(i);
        }
        // Validated in `new`, so this does not fail.
        let receiver = Receiver::new(self.cfg.receiver.clone()).ok()?;
        if self.peers.len() >= MAX_PEERS {
            if let Some(i) = (0..self.peers.len()).min_by_key(|&i| self.peers[i].last_seen) {
                // `remove` keeps the table oldest first, so that of peers equally
                // long silent the oldest goes, as in the link emulator.
                self.peers.remove(i);
                self.counters.peers_evicted += 1;
            }
        }
        self.peers.push(Peer {
            addr,
            receiver,
            last_seen: now,
            ssrc,
            seqs: Vec::new(),
            counters: PeerCounters::default(),
        });
        Some(self.peers.len() - 1)
    }

    fn expire(&mut self, now: Instant) {
        let before = self.peers.len();
        self.peers
            .retain(|p| now.saturating_duration_since(p.last_seen) < PEER_IDLE);
        self.counters.peers_expired += (before - self.peers.len()) as u64;
    }

    fn send_feedback(&mut self, now: Instant, i: usize) {
        let Some(p) = self.peers.get_mut(i) else {
            return;
        };
        let to = self.cfg.feedback_to.unwrap_or(p.addr);
        while let Some(fb) = p.receiver.poll_feedback(now) {
            encode_feedback_with(&fb, self.cfg.rtcp_ssrc, self.cfg.count, &mut self.feedback);
            if self.socket.send(to, Ecn::NotEct, &self.feedback) {
                p.counters.feedback += 1;
                p.counters.feedback_bytes += self.feedback.len() as u64;
            }
        }
    }
}

impl Endpoint for MediaReceiver {
    fn loop_clock(&self) -> Clock {
        self.clock
    }
    fn poller_mut(&mut self) -> &mut Poller {
        &mut self.poller
    }
    fn serve(&mut self, now: Instant) -> io::Result<Served> {
        let drained = self.read(now)?;
        self.expire(now);
        for i in 0..self.peers.len() {
            self.send_feedback(now, i);
        }
        let deadline = self
            .peers
            .iter()
            .filter_map(|p| p.receiver.poll_timeout())
            .min();
        Ok(Served { drained, deadline })
    }
}
