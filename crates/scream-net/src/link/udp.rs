//! The emulator as a UDP relay. It listens on one address; a datagram from any address
//! but the server's is a client's: it crosses the forward link and leaves for the
//! server from a socket of that client's own, so that the server's answers (feedback)
//! come back on that socket, cross the reverse link and leave from the listening
//! socket to the client, as through a NAT. The server sees one source address per
//! client.
//!
//! Source addresses are not trusted, and a client costs a socket. A new source becomes
//! a client only once it has sent [`PROBATION_PACKETS`] RTP packets in sequence (the
//! emulator carries media); until then its packets wait in a small probation table and
//! cross the link, in order, when it is admitted. Anything else from a source that is
//! not a client is dropped without an entry. A proven source takes a free slot, or the
//! slot of a client silent for [`EVICTABLE_AFTER`], never that of a client heard more
//! recently. Once a client, a source may send anything: the relay does not look into
//! its datagrams.

use std::io;
use std::net::SocketAddr;

use super::{Direction, LinkCounters, LinkDatagram, RECV_BUDGET};
use crate::poller::Poller;
use crate::probation::Probation;
pub use crate::probation::{EVICTABLE_AFTER, PROBATION_PACKETS, PROBATION_SLOTS};
use crate::socket::EcnSocket;
use scream::wire::rtp::{self, PacketKind};
use scream::{Duration, Ecn, Instant};

/// Clients served at once.
pub const MAX_CLIENTS: usize = 16;
/// A client silent this long is forgotten (and its socket closed).
const CLIENT_IDLE: Duration = Duration::from_secs(30);

/// Bytes of IP and UDP header a datagram of `addr`'s family carries on the wire:
/// the link serializes whole IP packets, as a real bottleneck does.
fn header_bytes(addr: SocketAddr) -> u32 {
    if addr.is_ipv4() { 20 + 8 } else { 40 + 8 }
}

fn datagram(payload: Vec<u8>, ecn: Ecn, client: u64, peer: SocketAddr) -> LinkDatagram {
    let wire = u32::try_from(payload.len())
        .unwrap_or(u32::MAX)
        .saturating_add(header_bytes(peer));
    LinkDatagram::new(payload, ecn, wire, client)
}

#[derive(Debug)]
struct Client {
    /// Never reused, so that packets inside the links still find their client (or
    /// none) after others came and went.
    id: u64,
    addr: SocketAddr,
    socket: EcnSocket,
    last_seen: Instant,
}

/// A UDP relay between clients and one server.
#[derive(Debug)]
pub struct UdpRelay {
    listen: EcnSocket,
    server: SocketAddr,
    /// Oldest first, so that of clients equally long silent the oldest is evicted.
    clients: Vec<Client>,
    /// Sources not served yet, with their latest datagrams.
    probation: Probation<Held>,
    next_id: u64,
}

/// A datagram held while its source is on probation.
type Held = (Ecn, Vec<u8>);

/// SSRC and sequence number of a valid RTP packet.
fn rtp_key(payload: &[u8]) -> Option<(u32, u16)> {
    if rtp::classify(payload) != PacketKind::Rtp {
        return None;
    }
    let p = rtp::Packet::new_checked(payload).ok()?;
    Some((p.ssrc(), p.sequence_number()))
}

impl UdpRelay {
    /// Listens on `listen`; forwards to `server`.
    pub fn bind(listen: SocketAddr, server: SocketAddr) -> io::Result<Self> {
        Ok(Self {
            listen: EcnSocket::bind(listen)?,
            server,
            clients: Vec::new(),
            probation: Probation::default(),
            next_id: 0,
        })
    }

    /// The listening address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listen.local_addr()
    }

    /// Clients served now.
    pub fn clients(&self) -> usize {
        self.clients.len()
    }

    /// Sources on probation now (at most [`PROBATION_SLOTS`]).
    pub fn on_probation(&self) -> usize {
        self.probation.len()
    }

    /// Adds what the probation counted to `counters`.
    pub(super) fn add_counters(&self, counters: &mut LinkCounters) {
        let p = self.probation.counters();
        counters.unproven = p.dropped;
        counters.probation_evicted = p.evicted;
    }

    pub(super) fn register(&mut self, poller: &mut Poller) -> io::Result<()> {
        poller.register(&mut self.listen)
    }

    pub(super) fn read(
        &mut self,
        now: Instant,
        poller: &mut Poller,
        [forward, reverse]: [&mut Direction; 2],
        counters: &mut LinkCounters,
    ) -> io::Result<bool> {
        let mut arrived: Vec<(SocketAddr, Ecn, Vec<u8>)> = Vec::new();
        let mut drained = self.listen.recv_each(RECV_BUDGET, |d| {
            arrived.push((d.from, d.ecn, d.payload.to_vec()));
        })?;
        for (from, ecn, payload) in arrived {
            if from == self.server {
                // The server answered to the listening address itself (a peer that
                // sends feedback to a configured address): it is for the client
                // heard from last.
                let last = self
                    .clients
                    .iter()
                    .max_by_key(|c| c.last_seen)
                    .map(|c| c.id);
                if let Some(id) = last {
                    reverse.input(now, datagram(payload, ecn, id, from));
                }
                continue;
            }
            if let Some(c) = self.clients.iter_mut().find(|c| c.addr == from) {
                c.last_seen = now;
                forward.input(now, datagram(payload, ecn, c.id, from));
                continue;
            }
            let Some(key) = rtp_key(&payload) else {
                counters.not_rtp += 1;
                continue;
            };
            let len = payload.len();
            if !self.probation.hear(now, from, key, len, (ecn, payload)) {
                continue;
            }
            if let Some((id, held)) = self.admit(now, from, poller, counters)? {
                for (ecn, payload) in held {
                    forward.input(now, datagram(payload, ecn, id, from));
                }
            }
        }
        for c in &mut self.clients {
            let server = self.server;
            let mut back: Vec<(Ecn, Vec<u8>)> = Vec::new();
            let mut foreign = 0;
            drained &= c.socket.recv_each(RECV_BUDGET, |d| {
                if d.from == server {
                    back.push((d.ecn, d.payload.to_vec()));
                } else {
                    foreign += 1;
                }
            })?;
            counters.foreign += foreign;
            for (ecn, payload) in back {
                reverse.input(now, datagram(payload, ecn, c.id, server));
            }
        }
        Ok(drained)
    }

    /// Makes `addr`, which has just proved itself, a client, in a free slot or the
    /// slot of the longest-silent client if that one is silent for
    /// [`EVICTABLE_AFTER`]; returns its id and the datagrams its probation held.
    /// `None` (and `addr` stays on probation) if every slot is held by a client heard
    /// more recently.
    fn admit(
        &mut self,
        now: Instant,
        addr: SocketAddr,
        poller: &mut Poller,
        counters: &mut LinkCounters,
    ) -> io::Result<Option<(u64, Vec<Held>)>> {
        if self.clients.len() >= MAX_CLIENTS {
            let oldest = (0..self.clients.len()).min_by_key(|&i| self.clients[i].last_seen);
            let Some(i) = oldest else {
                return Ok(None);
            };
            if now.saturating_duration_since(self.clients[i].last_seen) < EVICTABLE_AFTER {
                counters.clients_refused += u64::from(self.probation.refuse(addr));
                return Ok(None);
            }
            let mut gone = self.clients.remove(i);
            let _ = poller.deregister(&mut gone.socket);
            counters.clients_evicted += 1;
        }
        let bind: SocketAddr = if self.server.is_ipv4() {
            (std::net::Ipv4Addr::UNSPECIFIED, 0).into()
        } else {
            (std::net::Ipv6Addr::UNSPECIFIED, 0).into()
        };
        let Some(admitted) = self.probation.admit(addr) else {
            return Ok(None);
        };
        let mut socket = EcnSocket::bind(bind)?;
        poller.register(&mut socket)?;
        self.next_id += 1;
        self.clients.push(Client {
            id: self.next_id,
            addr,
            socket,
            last_seen: now,
        });
        Ok(Some((self.next_id, admitted.held)))
    }

    pub(super) fn expire(
        &mut self,
        now: Instant,
        poller: &mut Poller,
        counters: &mut LinkCounters,
    ) {
        self.probation.expire(now);
        let mut i = 0;
        while i < self.clients.len() {
            if now.saturating_duration_since(self.clients[i].last_seen) >= CLIENT_IDLE {
                let mut gone = self.clients.remove(i);
                let _ = poller.deregister(&mut gone.socket);
                counters.clients_expired += 1;
            } else {
                i += 1;
            }
        }
    }

    /// Sends a packet that crossed the forward (to the server) or reverse link.
    pub(super) fn send(
        &mut self,
        forward: bool,
        d: &LinkDatagram,
        counters: &mut LinkCounters,
    ) -> bool {
        let Some(c) = self.clients.iter_mut().find(|c| c.id == d.client) else {
            // Its client was forgotten while it crossed the link.
            counters.orphaned += 1;
            return true;
        };
        if forward {
            c.socket.send(self.server, d.ecn, &d.payload)
        } else {
            let to = c.addr;
            self.listen.send(to, d.ecn, &d.payload)
        }
    }
}
