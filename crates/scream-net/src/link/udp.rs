//! The emulator as a UDP relay. It listens on one address; a datagram from any address
//! but the server's is a client's: it crosses the forward link and leaves for the
//! server from a socket of that client's own, so that the server's answers (feedback)
//! come back on that socket, cross the reverse link and leave from the listening
//! socket to the client, as through a NAT. The server sees one source address per
//! client.

use std::io;
use std::net::SocketAddr;

use super::{Direction, LinkCounters, LinkDatagram, RECV_BUDGET};
use crate::poller::Poller;
use crate::socket::EcnSocket;
use scream::{Duration, Ecn, Instant};

/// Clients served at once; a flood of source addresses evicts the longest-silent one.
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
    next_id: u64,
}

impl UdpRelay {
    /// Listens on `listen`; forwards to `server`.
    pub fn bind(listen: SocketAddr, server: SocketAddr) -> io::Result<Self> {
        Ok(Self {
            listen: EcnSocket::bind(listen)?,
            server,
            clients: Vec::new(),
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
            let id = self.client_id(now, from, poller, counters)?;
            forward.input(now, datagram(payload, ecn, id, from));
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

    fn client_id(
        &mut self,
        now: Instant,
        addr: SocketAddr,
        poller: &mut Poller,
        counters: &mut LinkCounters,
    ) -> io::Result<u64> {
        if let Some(c) = self.clients.iter_mut().find(|c| c.addr == addr) {
            c.last_seen = now;
            return Ok(c.id);
        }
        if self.clients.len() >= MAX_CLIENTS {
            let oldest = (0..self.clients.len()).min_by_key(|&i| self.clients[i].last_seen);
            if let Some(i) = oldest {
                let mut gone = self.clients.remove(i);
                let _ = poller.deregister(&mut gone.socket);
                counters.clients_evicted += 1;
            }
        }
        let bind: SocketAddr = if self.server.is_ipv4() {
            (std::net::Ipv4Addr::UNSPECIFIED, 0).into()
        } else {
            (std::net::Ipv6Addr::UNSPECIFIED, 0).into()
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
        Ok(self.next_id)
    }

    pub(super) fn expire(
        &mut self,
        now: Instant,
        poller: &mut Poller,
        counters: &mut LinkCounters,
    ) {
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
