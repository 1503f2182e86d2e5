//! A SCReAM media receiver on a UDP socket: RTP from any number of senders, each
//! answered with its own RFC 8888 feedback.
//!
//! Source addresses are not trusted. A source is served (gets a library receiver and
//! feedback) only once it has sent [`PROBATION_PACKETS`] RTP packets in sequence; it
//! takes a free slot, or the slot of a peer silent for [`EVICTABLE_AFTER`], never that
//! of a peer heard more recently, so spoofed newcomers cannot push a live call out.
//! And no source is ever sent more feedback bytes than it sent RTP bytes, so that
//! forged source addresses cannot turn the receiver into an amplifier (QUIC allows an
//! unvalidated address three times what it sent, RFC 9000 §8.1; a receiver that can
//! never validate an address allows once); a report that would exceed that is
//! withheld, and the next one, whose window overlaps it, carries its news. Media
//! packets are far larger than reports, so a genuine sender never notices.

use std::io;
use std::net::SocketAddr;

use crate::clock::Clock;
use crate::event_loop::{self, Endpoint, RunEnd, Served};
use crate::poller::Poller;
use crate::probation::Probation;
pub use crate::probation::{EVICTABLE_AFTER, PROBATION_PACKETS, PROBATION_SLOTS};
use crate::socket::{EcnSocket, SendErrors};
use crate::stop::Stop;
use scream::receiver::{ReceivedPacket, Receiver, ReceiverConfig, ReceiverConfigError};
use scream::wire::ccfb::{CountConvention, encode_feedback_with};

use crate::auth::{FeedbackKey, Sealer};
use scream::wire::rtp::{self, PacketKind};
use scream::{Duration, Ecn, Instant};

/// Datagrams read per wake before the loop serves its timers again.
const RECV_BUDGET: usize = 256;
/// Senders served at once. Each costs a library receiver (bounded by its own
/// `max_ssrcs`).
pub const MAX_PEERS: usize = 16;
/// A sender silent this long is forgotten; if it comes back it starts afresh, as a
/// restarted sender would.
const PEER_IDLE: Duration = Duration::from_secs(10);
/// SSRCs per peer whose losses are counted.
const MAX_TRACKED_SSRCS: usize = 8;
/// Peers that left (went silent or were evicted) whose counters the summary keeps: a
/// service outlives its senders, and its summary must still say what they sent. The
/// oldest are forgotten beyond this, so a stream of short-lived sources costs bounded
/// memory.
pub const MAX_DEPARTED: usize = 64;

/// One sender as the receiver sees it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PeerCounters {
    /// RTP packets received (those heard while it was on probation included).
    pub packets: u64,
    /// Their UDP payload bytes: the most feedback bytes it can be sent.
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
    /// Their bytes; never more than `bytes`.
    pub feedback_bytes: u64,
    /// Feedback datagrams not sent because they would have taken `feedback_bytes`
    /// past `bytes`.
    pub feedback_withheld: u64,
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
    /// RTP packets of sources on probation that no peer received: dropped when their
    /// source broke its sequence, held more than the probation keeps, or was forgotten
    /// before it proved itself.
    pub unproven: u64,
    /// Sources on probation forgotten to make room for another.
    pub probation_evicted: u64,
    /// Sources that proved themselves but found every slot taken by a peer heard
    /// within [`EVICTABLE_AFTER`] (counted once per source; it stays on probation and
    /// takes the first slot that frees up).
    pub peers_refused: u64,
    /// Peers silent for at least [`EVICTABLE_AFTER`] forgotten to make room for a
    /// proven newcomer.
    pub peers_evicted: u64,
    /// Peers forgotten after 10 s of silence.
    pub peers_expired: u64,
    /// Feedback datagrams withheld from all peers (see
    /// [`PeerCounters::feedback_withheld`]).
    pub feedback_withheld: u64,
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
    /// Hands a packet that arrived at `at` to the library receiver and counts its
    /// sequence number and ECN (the caller counts packets and bytes).
    fn on_packet(&mut self, at: Instant, packet: ReceivedPacket) {
        self.last_seen = self.last_seen.max(at);
        let (ssrc, seq) = (packet.ssrc, packet.seq);
        if let Some(t) = self.seqs.iter_mut().find(|t| t.ssrc == ssrc) {
            t.on_seq(seq);
        } else if self.seqs.len() < MAX_TRACKED_SSRCS {
            self.seqs.push(SeqTrack::new(ssrc, seq));
        }
        let c = &mut self.counters;
        c.lost = self.seqs.iter().map(SeqTrack::lost).sum();
        c.ce += u64::from(packet.ecn == Ecn::Ce);
        c.ecn_capable += u64::from(packet.ecn != Ecn::NotEct);
        self.receiver.on_packet(at, packet);
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
    /// A key shared with the senders: every feedback datagram is sealed with it
    /// ([`crate::auth`]), which only a sender with the same key reads.
    pub feedback_key: Option<FeedbackKey>,
}

/// A real-time SCReAM receiver.
#[derive(Debug)]
pub struct MediaReceiver {
    clock: Clock,
    socket: EcnSocket,
    poller: Poller,
    cfg: MediaReceiverConfig,
    peers: Vec<Peer>,
    /// The last [`MAX_DEPARTED`] peers that left, oldest first.
    departed: std::collections::VecDeque<PeerView>,
    /// Sources not served yet, with the arrival and header of their latest packets.
    probation: Probation<(Instant, ReceivedPacket)>,
    counters: RecvCounters,
    feedback: Vec<u8>,
    sealer: Option<Sealer>,
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
        let sealer = cfg.feedback_key.clone().map(Sealer::starting_now);
        Ok(Self {
            clock,
            socket,
            poller,
            cfg,
            sealer,
            peers: Vec::new(),
            departed: std::collections::VecDeque::new(),
            probation: Probation::default(),
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
        let probation = self.probation.counters();
        RecvCounters {
            unproven: probation.dropped,
            probation_evicted: probation.evicted,
            send_errors: self.socket.send_errors(),
            ..self.counters
        }
    }

    /// Sources on probation now (at most [`PROBATION_SLOTS`]).
    pub fn on_probation(&self) -> usize {
        self.probation.len()
    }

    /// The senders served now.
    pub fn peers(&self) -> impl Iterator<Item = PeerView> + '_ {
        self.peers.iter().map(|p| self.view(p))
    }

    /// The senders that were served and left (silent for 10 s, or evicted), oldest
    /// first: the last [`MAX_DEPARTED`] of them.
    pub fn departed_peers(&self) -> impl Iterator<Item = PeerView> + '_ {
        self.departed.iter().copied()
    }

    fn view(&self, p: &Peer) -> PeerView {
        PeerView {
            addr: p.addr,
            feedback_to: self.cfg.feedback_to.unwrap_or(p.addr),
            ssrc: p.ssrc,
            counters: p.counters,
        }
    }

    /// Moves peer `i` to the departed list.
    fn depart(&mut self, i: usize) {
        let peer = self.peers.remove(i);
        if self.departed.len() == MAX_DEPARTED {
            self.departed.pop_front();
        }
        self.departed.push_back(self.view(&peer));
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
            let packet = ReceivedPacket {
                ssrc: r.ssrc,
                seq: r.sequence_number,
                size_bytes: u32::try_from(len).unwrap_or(u32::MAX),
                ecn,
                marker: r.marker,
            };
            let i = match self.peers.iter().position(|p| p.addr == from) {
                Some(i) => {
                    let p = &mut self.peers[i];
                    p.counters.packets += 1;
                    p.counters.bytes += len as u64;
                    p.on_packet(now, packet);
                    i
                }
                None => {
                    let key = (r.ssrc, r.sequence_number);
                    if !self.probation.hear(now, from, key, len, (now, packet)) {
                        continue;
                    }
                    match self.admit(now, from) {
                        Some(i) => i,
                        None => continue,
                    }
                }
            };
            self.send_feedback(now, i);
        }
        Ok(drained)
    }

    /// Serves `addr`, which has just proved itself, in a free slot or the slot of the
    /// longest-silent peer if that one is silent for [`EVICTABLE_AFTER`]; hands it
    /// the packets its probation held. `None` (and `addr` stays on probation) if
    /// every slot is held by a peer heard more recently.
    fn admit(&mut self, now: Instant, addr: SocketAddr) -> Option<usize> {
        if self.peers.len() >= MAX_PEERS {
            let i = (0..self.peers.len()).min_by_key(|&i| self.peers[i].last_seen)?;
            if now.saturating_duration_since(self.peers[i].last_seen) < EVICTABLE_AFTER {
                self.counters.peers_refused += u64::from(self.probation.refuse(addr));
                return None;
            }
            // `remove` keeps the table oldest first, so that of peers equally long
            // silent the oldest goes, as in the link emulator.
            self.depart(i);
            self.counters.peers_evicted += 1;
        }
        // Validated in `new`, so this does not fail.
        let receiver = Receiver::new(self.cfg.receiver.clone()).ok()?;
        let admitted = self.probation.admit(addr)?;
        let mut peer = Peer {
            addr,
            receiver,
            last_seen: now,
            ssrc: admitted.ssrc,
            seqs: Vec::new(),
            counters: PeerCounters {
                packets: admitted.packets,
                bytes: admitted.bytes,
                ..PeerCounters::default()
            },
        };
        // At their own arrival times, so that the first report times them right.
        for (at, packet) in admitted.held {
            peer.on_packet(at, packet);
        }
        self.peers.push(peer);
        Some(self.peers.len() - 1)
    }

    fn expire(&mut self, now: Instant) {
        self.probation.expire(now);
        while let Some(i) = self
            .peers
            .iter()
            .position(|p| now.saturating_duration_since(p.last_seen) >= PEER_IDLE)
        {
            self.depart(i);
            self.counters.peers_expired += 1;
        }
    }

    fn send_feedback(&mut self, now: Instant, i: usize) {
        let Some(p) = self.peers.get_mut(i) else {
            return;
        };
        let to = self.cfg.feedback_to.unwrap_or(p.addr);
        while let Some(fb) = p.receiver.poll_feedback(now) {
            encode_feedback_with(&fb, self.cfg.rtcp_ssrc, self.cfg.count, &mut self.feedback);
            if let Some(s) = self.sealer.as_mut() {
                s.seal(&mut self.feedback);
            }
            let len = self.feedback.len() as u64;
            // Never more out than in, to any source (see the module's documentation).
            if p.counters.feedback_bytes + len > p.counters.bytes {
                p.counters.feedback_withheld += 1;
                self.counters.feedback_withheld += 1;
                continue;
            }
            if self.socket.send(to, Ecn::NotEct, &self.feedback) {
                p.counters.feedback += 1;
                p.counters.feedback_bytes += len;
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
