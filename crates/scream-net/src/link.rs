//! A real-time bottleneck for UDP: datagrams from clients to a server and back, each
//! direction through a [`DirectedLink`] of the network-model crate, the same state
//! machine the simulator uses, driven by the real clock.
//!
//! The emulator listens on one address. A datagram from any address but the server's
//! is a client's: it goes through the forward link and leaves for the server from a
//! socket of that client's own, so that the server's answers (feedback) come back on
//! that socket, pass the reverse link and leave from the listening socket to the
//! client, as through a NAT. The server sees one source address per client.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io;
use std::net::SocketAddr;

use crate::clock::Clock;
use crate::histogram::DelayHistogram;
use crate::poller::Poller;
use crate::socket::EcnSocket;
use scream::{Duration, Ecn, Instant};
use scream_netmodel::{DirectedLink, LinkStats, NetPacket};

/// Datagrams read per socket and wake before the loop serves its timers again.
const RECV_BUDGET: usize = 256;
/// Clients served at once; a flood of source addresses evicts the longest-silent one.
pub const MAX_CLIENTS: usize = 16;
/// A client silent this long is forgotten (and its socket closed).
const CLIENT_IDLE: Duration = Duration::from_secs(30);
/// Bytes the emulator holds past its queues (propagation delay of the path effects).
/// The queues bound themselves by their limits; this bounds a fast link with a long
/// delay, where a hostile sender could otherwise make it hold gigabytes.
pub const MAX_IN_FLIGHT_BYTES: usize = 64 << 20;

/// A datagram inside the emulator.
#[derive(Debug)]
pub struct LinkDatagram {
    payload: Vec<u8>,
    ecn: Ecn,
    wire_bytes: u32,
    /// The `Client::id` of the client it comes from or goes to. An id, not a place
    /// in the client table: a datagram may wait in a queue while its client is evicted
    /// and the table reordered, and must then reach nobody rather than another client.
    client: u64,
    sojourn: Duration,
}

impl NetPacket for LinkDatagram {
    fn size_bytes(&self) -> u32 {
        self.wire_bytes
    }
    fn ecn(&self) -> Ecn {
        self.ecn
    }
    fn set_ecn(&mut self, ecn: Ecn) {
        self.ecn = ecn;
    }
    fn on_link_exit(&mut self, time_at_link: Duration) {
        self.sojourn = time_at_link;
    }
}

/// Bytes of IP and UDP header a datagram of `addr`'s family carries on the wire:
/// the link serializes whole IP packets, as a real bottleneck does.
fn header_bytes(addr: SocketAddr) -> u32 {
    if addr.is_ipv4() { 20 + 8 } else { 40 + 8 }
}

/// One direction of the emulator.
#[derive(Debug)]
pub struct Direction {
    link: DirectedLink<LinkDatagram>,
    /// Datagrams past the serializer, by arrival time at the far end.
    flight: BinaryHeap<Reverse<(Instant, u64, usize)>>,
    slots: Vec<Option<LinkDatagram>>,
    free: Vec<usize>,
    flight_bytes: usize,
    order: u64,
    /// Time at the link (queueing plus transmission) of every datagram delivered.
    pub sojourn: DelayHistogram,
    /// The same since the last [`LinkEmulator::run`] observation.
    pub sojourn_interval: DelayHistogram,
    /// Datagrams delivered.
    pub delivered: u64,
    /// Their bytes on the wire.
    pub delivered_bytes: u64,
    /// Datagrams delivered CE-marked.
    pub delivered_ce: u64,
    /// Datagrams dropped because [`MAX_IN_FLIGHT_BYTES`] was reached.
    pub dropped_overflow: u64,
}

impl Direction {
    fn new(link: DirectedLink<LinkDatagram>) -> Self {
        Self {
            link,
            flight: BinaryHeap::new(),
            slots: Vec::new(),
            free: Vec::new(),
            flight_bytes: 0,
            order: 0,
            sojourn: DelayHistogram::default(),
            sojourn_interval: DelayHistogram::default(),
            delivered: 0,
            delivered_bytes: 0,
            delivered_ce: 0,
            dropped_overflow: 0,
        }
    }

    /// The link's counters.
    pub fn stats(&self) -> &LinkStats {
        self.link.stats()
    }

    /// Bytes in its queue now.
    pub fn queue_bytes(&self) -> u64 {
        self.link.queue_bytes()
    }

    /// The link's capacity at `now`.
    pub fn rate_at(&mut self, now: Instant) -> scream::Bitrate {
        self.link.rate_at(now)
    }

    fn input(&mut self, now: Instant, d: LinkDatagram) {
        self.link.handle_input(now, d);
        self.pump(now);
    }

    /// Moves what left the serializer by `now` into flight, and drops what the link
    /// dropped.
    fn pump(&mut self, now: Instant) {
        if self.link.poll_timeout().is_some_and(|t| t <= now) {
            self.link.handle_timeout(now);
        }
        while let Some((arrival, d)) = self.link.poll_output() {
            if self.flight_bytes + d.payload.len() > MAX_IN_FLIGHT_BYTES {
                self.dropped_overflow += 1;
                continue;
            }
            self.flight_bytes += d.payload.len();
            let slot = match self.free.pop() {
                Some(i) => {
                    self.slots[i] = Some(d);
                    i
                }
                None => {
                    self.slots.push(Some(d));
                    self.slots.len() - 1
                }
            };
            self.order += 1;
            self.flight.push(Reverse((arrival, self.order, slot)));
        }
        while self.link.poll_drop().is_some() {}
    }

    /// The next datagram due at the far end by `now`.
    fn pop_due(&mut self, now: Instant) -> Option<LinkDatagram> {
        let &Reverse((at, _, slot)) = self.flight.peek()?;
        if at > now {
            return None;
        }
        self.flight.pop();
        self.free.push(slot);
        let d = self.slots.get_mut(slot)?.take()?;
        self.flight_bytes -= d.payload.len();
        self.delivered += 1;
        self.delivered_bytes += u64::from(d.wire_bytes);
        self.delivered_ce += u64::from(d.ecn == Ecn::Ce);
        self.sojourn.record(d.sojourn);
        self.sojourn_interval.record(d.sojourn);
        Some(d)
    }

    fn deadline(&self) -> Option<Instant> {
        let head = self.flight.peek().map(|r| r.0.0);
        [self.link.poll_timeout(), head].into_iter().flatten().min()
    }
}

#[derive(Debug)]
struct Client {
    /// Unique for the emulator's lifetime.
    id: u64,
    addr: SocketAddr,
    socket: EcnSocket,
    last_seen: Instant,
}

/// What the emulator counted beyond its links.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LinkCounters {
    /// Datagrams on a client's socket from an address other than the server.
    pub foreign: u64,
    /// Clients forgotten to make room for a new one.
    pub clients_evicted: u64,
    /// Clients forgotten after a silence.
    pub clients_expired: u64,
    /// Datagrams that could not be sent on (socket buffer full or refused).
    pub send_failed: u64,
    /// Datagrams dropped on leaving the links because their client had been evicted
    /// or had expired meanwhile.
    pub orphaned: u64,
}

/// A real-time link emulator between clients and one server.
#[derive(Debug)]
pub struct LinkEmulator {
    clock: Clock,
    poller: Poller,
    listen: EcnSocket,
    server: SocketAddr,
    /// Oldest first, so that of clients equally long silent the oldest is evicted.
    clients: Vec<Client>,
    next_client_id: u64,
    /// Client to server.
    pub forward: Direction,
    /// Server to client.
    pub reverse: Direction,
    counters: LinkCounters,
}

impl LinkEmulator {
    /// Listens on `listen` and forwards to `server` through `forward`, answers
    /// through `reverse`.
    pub fn new(
        listen: SocketAddr,
        server: SocketAddr,
        (forward, reverse): (DirectedLink<LinkDatagram>, DirectedLink<LinkDatagram>),
        clock: Clock,
    ) -> io::Result<Self> {
        let mut listen = EcnSocket::bind(listen)?;
        let mut poller = Poller::new()?;
        poller.register(&mut listen)?;
        Ok(Self {
            clock,
            poller,
            listen,
            server,
            clients: Vec::new(),
            next_client_id: 0,
            forward: Direction::new(forward),
            reverse: Direction::new(reverse),
            counters: LinkCounters::default(),
        })
    }

    /// The listening address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listen.local_addr()
    }

    /// What was counted beyond the links.
    pub fn counters(&self) -> LinkCounters {
        self.counters
    }

    /// Clients served now.
    pub fn clients(&self) -> usize {
        self.clients.len()
    }

    /// The endpoint's clock.
    pub fn clock(&self) -> Clock {
        self.clock
    }

    /// Runs until `until`, calling `observe` every `interval` (and once at the end);
    /// each observation starts the directions' `sojourn_interval` afresh.
    pub fn run(
        &mut self,
        until: Instant,
        interval: Duration,
        mut observe: impl FnMut(Instant, &mut Self),
    ) -> io::Result<()> {
        let interval = interval.max(Duration::from_millis(1));
        let mut next_sample = self.clock.now() + interval;
        loop {
            let now = self.clock.now();
            let drained = self.read(now)?;
            self.forward.pump(now);
            self.reverse.pump(now);
            self.deliver(now);
            self.expire(now);
            let last = now >= until;
            if now >= next_sample || last {
                observe(now, self);
                self.forward.sojourn_interval.clear();
                self.reverse.sojourn_interval.clear();
                next_sample = next_sample.max(now - interval) + interval;
            }
            if last {
                return Ok(());
            }
            let deadline = [
                self.forward.deadline(),
                self.reverse.deadline(),
                Some(next_sample),
                Some(until),
            ]
            .into_iter()
            .flatten()
            .min();
            if drained {
                self.poller.wait(&self.clock, deadline)?;
            }
        }
    }

    fn read(&mut self, now: Instant) -> io::Result<bool> {
        let mut arrived: Vec<(SocketAddr, Ecn, Vec<u8>)> = Vec::new();
        let mut drained = self.listen.recv_each(RECV_BUDGET, |d| {
            arrived.push((d.from, d.ecn, d.payload.to_vec()));
        })?;
        for (from, ecn, payload) in arrived {
            if from == self.server {
                // The server answered to the listening address itself (a peer that
                // sends feedback to a configured address): it is for the client
                // heard from last.
                if let Some(c) = self.clients.iter().max_by_key(|c| c.last_seen) {
                    self.reverse.input(now, datagram(payload, ecn, c.id, from));
                }
                continue;
            }
            let Some(c) = self.client_index(now, from)? else {
                continue;
            };
            let id = self.clients[c].id;
            self.forward.input(now, datagram(payload, ecn, id, from));
        }
        for c in 0..self.clients.len() {
            let (server, id) = (self.server, self.clients[c].id);
            let mut back: Vec<(Ecn, Vec<u8>)> = Vec::new();
            let mut foreign = 0;
            drained &= self.clients[c].socket.recv_each(RECV_BUDGET, |d| {
                if d.from == server {
                    back.push((d.ecn, d.payload.to_vec()));
                } else {
                    foreign += 1;
                }
            })?;
            self.counters.foreign += foreign;
            for (ecn, payload) in back {
                self.reverse.input(now, datagram(payload, ecn, id, server));
            }
        }
        Ok(drained)
    }

    fn client_index(&mut self, now: Instant, addr: SocketAddr) -> io::Result<Option<usize>> {
        if let Some(i) = self.clients.iter().position(|c| c.addr == addr) {
            self.clients[i].last_seen = now;
            return Ok(Some(i));
        }
        if self.clients.len() >= MAX_CLIENTS {
            if let Some(i) = (0..self.clients.len()).min_by_key(|&i| self.clients[i].last_seen) {
                self.remove_client(i);
                self.counters.clients_evicted += 1;
            }
        }
        let bind: SocketAddr = if self.server.is_ipv4() {
            (std::net::Ipv4Addr::UNSPECIFIED, 0).into()
        } else {
            (std::net::Ipv6Addr::UNSPECIFIED, 0).into()
        };
        let mut socket = EcnSocket::bind(bind)?;
        self.poller.register(&mut socket)?;
        self.next_client_id += 1;
        self.clients.push(Client {
            id: self.next_client_id,
            addr,
            socket,
            last_seen: now,
        });
        Ok(Some(self.clients.len() - 1))
    }

    /// Removes client `i`; its datagrams still in the links are dropped as they leave.
    fn remove_client(&mut self, i: usize) {
        let mut gone = self.clients.remove(i);
        let _ = self.poller.deregister(&mut gone.socket);
    }

    fn expire(&mut self, now: Instant) {
        let mut i = 0;
        while i < self.clients.len() {
            if now.saturating_duration_since(self.clients[i].last_seen) >= CLIENT_IDLE {
                self.remove_client(i);
                self.counters.clients_expired += 1;
            } else {
                i += 1;
            }
        }
    }

    fn deliver(&mut self, now: Instant) {
        while let Some(d) = self.forward.pop_due(now) {
            let Some(c) = self.clients.iter_mut().find(|c| c.id == d.client) else {
                self.counters.orphaned += 1;
                continue;
            };
            if !c.socket.send(self.server, d.ecn, &d.payload) {
                self.counters.send_failed += 1;
            }
        }
        while let Some(d) = self.reverse.pop_due(now) {
            let Some(c) = self.clients.iter().find(|c| c.id == d.client) else {
                self.counters.orphaned += 1;
                continue;
            };
            let to = c.addr;
            if !self.listen.send(to, d.ecn, &d.payload) {
                self.counters.send_failed += 1;
            }
        }
    }
}

fn datagram(payload: Vec<u8>, ecn: Ecn, client: u64, peer: SocketAddr) -> LinkDatagram {
    let wire_bytes = u32::try_from(payload.len())
        .unwrap_or(u32::MAX)
        .saturating_add(header_bytes(peer));
    LinkDatagram {
        payload,
        ecn,
        wire_bytes,
        client,
        sojourn: Duration::ZERO,
    }
}
