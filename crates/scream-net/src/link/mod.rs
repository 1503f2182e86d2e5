//! A real-time bottleneck: packets one way through a forward [`DirectedLink`] of the
//! network-model crate, the other way through a reverse one, the same state machines
//! the simulator uses, driven by the real clock.
//!
//! Two ways in and out ([`Transport`]):
//! - [`udp::UdpRelay`]: a UDP relay between clients and one server, for RTP media (a
//!   new client proves itself with RTP in sequence; after that any datagram passes)
//!   on loopback or a LAN, no privileges needed;
//! - [`tun::TunPort`] (Linux): whole IP packets through a TUN device that a router
//!   namespace sends through, so that any traffic, TCP included, crosses the same
//!   bottleneck and CE marks land in the IP header.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io;

use crate::clock::Clock;
use crate::event_loop::{self, Endpoint, RunEnd, Served};
use crate::histogram::DelayHistogram;
use crate::poller::Poller;
use crate::stop::Stop;
use scream::{Duration, Ecn, Instant};
use scream_netmodel::{DirectedLink, LinkStats, NetPacket};

#[cfg(target_os = "linux")]
pub mod tun;
pub mod udp;

pub use udp::{EVICTABLE_AFTER, MAX_CLIENTS, PROBATION_PACKETS, PROBATION_SLOTS};

/// Packets read per source and wake before the loop serves its timers again.
const RECV_BUDGET: usize = 256;
/// Bytes the emulator holds past its queues (propagation delay of the path effects).
/// The queues bound themselves by their limits; this bounds a fast link with a long
/// delay, where a hostile sender could otherwise make it hold gigabytes.
pub const MAX_IN_FLIGHT_BYTES: usize = 64 << 20;

/// A packet inside the emulator: a UDP payload (relay) or an IP packet (TUN).
#[derive(Debug)]
pub struct LinkDatagram {
    payload: Vec<u8>,
    ecn: Ecn,
    wire_bytes: u32,
    /// The id of the relay's client it comes from or goes to (unused by the TUN port).
    /// An id, not a place in the client table: a datagram may wait in a queue while its
    /// client is evicted, and must then reach nobody rather than another client.
    client: u64,
    sojourn: Duration,
}

impl LinkDatagram {
    fn new(payload: Vec<u8>, ecn: Ecn, wire_bytes: u32, client: u64) -> Self {
        Self {
            payload,
            ecn,
            wire_bytes,
            client,
            sojourn: Duration::ZERO,
        }
    }
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
    /// How much later than the model said each datagram left for the far end: the
    /// emulator's own timer and scheduling lateness, a delay the model did not add.
    /// Milliseconds of it mean the machine, not the emulated link, shaped the run.
    pub late: DelayHistogram,
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
            late: DelayHistogram::default(),
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

    pub(crate) fn input(&mut self, now: Instant, d: LinkDatagram) {
        self.link.handle_input(now, d);
        self.pump(now);
    }

    /// Moves what left the serializer by `now` into flight, and drops what the link
    /// dropped.
    pub(crate) fn pump(&mut self, now: Instant) {
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
    pub(crate) fn pop_due(&mut self, now: Instant) -> Option<LinkDatagram> {
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
        self.late.record(now.saturating_duration_since(at));
        Some(d)
    }

    pub(crate) fn deadline(&self) -> Option<Instant> {
        let head = self.flight.peek().map(|r| r.0.0);
        [self.link.poll_timeout(), head].into_iter().flatten().min()
    }
}

/// What the emulator counted beyond its links.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LinkCounters {
    /// Packets from where none is expected (on a client's socket from an address other
    /// than the server's), or not IP (TUN).
    pub foreign: u64,
    /// Datagrams that are not RTP from sources that are not clients (relay): dropped
    /// without an entry anywhere.
    pub not_rtp: u64,
    /// RTP datagrams of sources on probation (relay) that never crossed the link:
    /// dropped when their source broke its sequence, held more than the probation
    /// keeps, or was forgotten before it proved itself.
    pub unproven: u64,
    /// Sources on probation forgotten to make room for another (relay).
    pub probation_evicted: u64,
    /// Sources that proved themselves but found every client slot taken by a client
    /// heard within [`EVICTABLE_AFTER`] (counted once per source; it stays on
    /// probation and takes the first slot that frees up).
    pub clients_refused: u64,
    /// Clients silent for at least [`EVICTABLE_AFTER`] forgotten to make room for a
    /// proven newcomer.
    pub clients_evicted: u64,
    /// Clients forgotten after a silence.
    pub clients_expired: u64,
    /// Packets that could not be sent on (socket buffer full, refused, TUN full).
    pub send_failed: u64,
    /// Datagrams dropped on leaving the links because their client had been evicted
    /// or had expired meanwhile.
    pub orphaned: u64,
}

/// Where the emulator's packets come from and go to.
#[derive(Debug)]
pub enum Transport {
    /// A UDP relay between clients and one server.
    Udp(udp::UdpRelay),
    /// A TUN device (Linux).
    #[cfg(target_os = "linux")]
    Tun(tun::TunPort),
}

/// A real-time link emulator.
#[derive(Debug)]
pub struct LinkEmulator {
    clock: Clock,
    poller: Poller,
    transport: Transport,
    /// Client to server (relay), or towards the forward network (TUN).
    pub forward: Direction,
    /// The other way.
    pub reverse: Direction,
    counters: LinkCounters,
}

impl LinkEmulator {
    /// An emulator on `transport`, sending one way through `forward` and the other
    /// through `reverse`.
    pub fn new(
        mut transport: Transport,
        (forward, reverse): (DirectedLink<LinkDatagram>, DirectedLink<LinkDatagram>),
        clock: Clock,
    ) -> io::Result<Self> {
        let mut poller = Poller::new()?;
        match &mut transport {
            Transport::Udp(u) => u.register(&mut poller)?,
            #[cfg(target_os = "linux")]
            Transport::Tun(t) => t.register(&mut poller)?,
        }
        Ok(Self {
            clock,
            poller,
            transport,
            forward: Direction::new(forward),
            reverse: Direction::new(reverse),
            counters: LinkCounters::default(),
        })
    }

    /// What was counted beyond the links.
    pub fn counters(&self) -> LinkCounters {
        let mut c = self.counters;
        if let Transport::Udp(u) = &self.transport {
            u.add_counters(&mut c);
        }
        c
    }

    /// The transport.
    pub fn transport(&self) -> &Transport {
        &self.transport
    }

    /// The relay's listening address (an error for a TUN port, which has none).
    pub fn local_addr(&self) -> io::Result<std::net::SocketAddr> {
        match &self.transport {
            Transport::Udp(u) => u.local_addr(),
            #[cfg(target_os = "linux")]
            Transport::Tun(t) => Err(io::Error::other(format!(
                "the link runs on TUN device {}, not a socket",
                t.name()
            ))),
        }
    }

    /// Clients served now (relay; 0 for TUN).
    pub fn clients(&self) -> usize {
        match &self.transport {
            Transport::Udp(u) => u.clients(),
            #[cfg(target_os = "linux")]
            Transport::Tun(_) => 0,
        }
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
    /// `observe` every `interval` and once at the end; returns why it ended. Each
    /// observation starts the directions' `sojourn_interval` afresh.
    pub fn run(
        &mut self,
        until: impl Into<Option<Instant>>,
        interval: Duration,
        mut observe: impl FnMut(Instant, &mut Self),
    ) -> io::Result<RunEnd> {
        event_loop::run(self, until.into(), interval, |now, l| {
            observe(now, l);
            l.forward.sojourn_interval.clear();
            l.reverse.sojourn_interval.clear();
        })
    }

    fn read(&mut self, now: Instant) -> io::Result<bool> {
        let dirs = [&mut self.forward, &mut self.reverse];
        match &mut self.transport {
            Transport::Udp(u) => u.read(now, &mut self.poller, dirs, &mut self.counters),
            #[cfg(target_os = "linux")]
            Transport::Tun(t) => t.read(now, dirs, &mut self.counters),
        }
    }

    fn deliver(&mut self, now: Instant) {
        for forward in [true, false] {
            let dir = if forward {
                &mut self.forward
            } else {
                &mut self.reverse
            };
            while let Some(d) = dir.pop_due(now) {
                let sent = match &mut self.transport {
                    Transport::Udp(u) => u.send(forward, &d, &mut self.counters),
                    #[cfg(target_os = "linux")]
                    Transport::Tun(t) => t.send(d),
                };
                if !sent {
                    self.counters.send_failed += 1;
                }
            }
        }
    }
}

impl Endpoint for LinkEmulator {
    fn loop_clock(&self) -> Clock {
        self.clock
    }
    fn poller_mut(&mut self) -> &mut Poller {
        &mut self.poller
    }
    fn serve(&mut self, now: Instant) -> io::Result<Served> {
        let drained = self.read(now)?;
        self.forward.pump(now);
        self.reverse.pump(now);
        self.deliver(now);
        if let Transport::Udp(u) = &mut self.transport {
            u.expire(now, &mut self.poller, &mut self.counters);
        }
        let deadline = [self.forward.deadline(), self.reverse.deadline()]
            .into_iter()
            .flatten()
            .min();
        Ok(Served { drained, deadline })
    }
}
