//! One direction of a link as a sans-I/O state machine: queue and AQM, a serializer at
//! the capacity of the moment, then the path effects.
//!
//! Call order, in the style of the `scream` sender:
//!
//! ```text
//! inputs : handle_input(now, packet)   a packet reaches the link's input
//!          handle_timeout(now)         at (or after) poll_timeout()
//! outputs: poll_output()  -> Option<(arrival at the far end, packet)>
//!          poll_drop()    -> Option<Dropped>   (queue full, AQM, lost on the path)
//!          poll_timeout() -> Option<Instant>   (serialisation done, or capacity back)
//! getters: stats(), queue_bytes(), queue_packets(), rate_at(now)
//! ```
//!
//! After every input, drain `poll_output` and `poll_drop`, then ask `poll_timeout`. A
//! caller that wakes late (a real-time loop) gets every packet whose serialisation
//! ended by `now`, each with the timing it would have had on time: the serializer
//! catches up from one completion to the next, so lateness never changes the result.

use std::collections::VecDeque;

use crate::capacity::Capacity;
use crate::effects::PathEffects;
use crate::packet::NetPacket;
use crate::queue::netqueue::NetQueue;
use crate::queue::{Fifo, Queue, QueueLimit};
use crate::rng::RngStream;
use scream::{Bitrate, Duration, Ecn, Instant};

/// Why a link did not deliver a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DropCause {
    /// The queue was at its limit when the packet arrived (tail drop).
    QueueFull,
    /// The AQM dropped it at dequeue (a Not-ECT packet where it would have marked).
    Aqm,
    /// Lost on the path after the serializer (random or scheduled loss).
    PathLoss,
}

/// A packet the link did not deliver.
#[derive(Debug, Clone, PartialEq)]
pub struct Dropped<P> {
    /// The packet.
    pub packet: P,
    /// Why.
    pub cause: DropCause,
    /// When.
    pub at: Instant,
}

/// Cumulative counters of one directed link. Callers that want per-interval figures
/// difference two snapshots.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LinkStats {
    /// Packets that reached the input.
    pub packets_in: u64,
    /// Bytes that reached the input.
    pub bytes_in: u64,
    /// Packets that left the serializer (including those then lost on the path).
    pub packets_out: u64,
    /// Bytes that left the serializer.
    pub bytes_out: u64,
    /// Packets refused at the input because the queue was full.
    pub dropped_queue_full: u64,
    /// Packets the AQM dropped.
    pub dropped_aqm: u64,
    /// Packets lost on the path after the serializer.
    pub lost_on_path: u64,
    /// Packets the AQM marked CE (they arrived without CE).
    pub ce_marked: u64,
    /// Longest time a packet spent at the link (queueing plus its own transmission)
    /// since the last [`DirectedLink::take_sojourn_peak`].
    pub sojourn_peak: Duration,
}

struct InService<P> {
    packet: P,
    /// When its last bit leaves; `None` if the capacity never allows it to.
    done: Option<Instant>,
    time_at_link: Duration,
}

impl<P> core::fmt::Debug for InService<P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("InService")
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

/// One direction of a link.
#[derive(Debug)]
pub struct DirectedLink<P> {
    capacity: Capacity,
    queue: Queue<P>,
    limit: QueueLimit,
    effects: PathEffects,
    aqm_rng: RngStream,
    in_service: Option<InService<P>>,
    /// The queue is waiting for the capacity to become positive at this instant.
    stalled_until: Option<Instant>,
    output: VecDeque<(Instant, P)>,
    drops: VecDeque<Dropped<P>>,
    aqm_scratch: Vec<P>,
    /// The reference test application's queue, in place of `queue` and the serializer.
    netqueue: Option<NetQueue<P>>,
    stats: LinkStats,
}

impl<P: NetPacket> DirectedLink<P> {
    /// A link direction; the AQM draws from the random stream `<id>/aqm` under `seed`.
    pub fn new(
        capacity: Capacity,
        queue: Queue<P>,
        limit: QueueLimit,
        effects: PathEffects,
        seed: u64,
        id: &str,
    ) -> Self {
        Self {
            capacity,
            queue,
            limit,
            effects,
            aqm_rng: RngStream::new(seed, &format!("{id}/aqm")),
            in_service: None,
            stalled_until: None,
            output: VecDeque::new(),
            drops: VecDeque::new(),
            aqm_scratch: Vec::new(),
            netqueue: None,
            stats: LinkStats::default(),
        }
    }

    /// A link direction whose queue and serializer are the reference test
    /// application's NetQueue ([`crate::queue::netqueue`]): it reads `capacity` as its
    /// rate and hands packets to `effects`, which add the delay its lookahead assumed.
    pub fn with_netqueue(
        capacity: Capacity,
        netqueue: NetQueue<P>,
        limit: QueueLimit,
        effects: PathEffects,
        seed: u64,
        id: &str,
    ) -> Self {
        Self {
            netqueue: Some(netqueue),
            ..Self::new(
                capacity,
                Queue::TailDrop(Fifo::new()),
                limit,
                effects,
                seed,
                id,
            )
        }
    }

    /// A packet reaches the link's input at `now`.
    pub fn handle_input(&mut self, now: Instant, packet: P) {
        // A late caller first catches up, so the new packet cannot be served before it
        // arrived.
        self.advance(now);
        let size = u64::from(packet.size_bytes());
        self.stats.packets_in += 1;
        self.stats.bytes_in += size;
        let limit = self.limit.bytes_at(&mut self.capacity, now);
        let admitted = match &mut self.netqueue {
            Some(nq) => nq.enqueue(now, packet, &mut self.capacity, limit),
            None => self.queue.enqueue(now, packet, limit),
        };
        if let Err(packet) = admitted {
            self.stats.dropped_queue_full += 1;
            self.drops.push_back(Dropped {
                packet,
                cause: DropCause::QueueFull,
                at: now,
            });
        }
        self.advance(now);
    }

    /// Time passes to `now` (at or after [`Self::poll_timeout`]; earlier is harmless).
    pub fn handle_timeout(&mut self, now: Instant) {
        self.advance(now);
    }

    /// The next packet that left the link, with its arrival time at the far end.
    /// Arrival times of successive outputs may decrease when jitter reorders packets.
    pub fn poll_output(&mut self) -> Option<(Instant, P)> {
        self.output.pop_front()
    }

    /// The next packet the link dropped or lost.
    pub fn poll_drop(&mut self) -> Option<Dropped<P>> {
        self.drops.pop_front()
    }

    /// When the link next needs [`Self::handle_timeout`]: the end of the current
    /// serialisation, or the instant the capacity becomes positive again.
    pub fn poll_timeout(&self) -> Option<Instant> {
        if let Some(nq) = &self.netqueue {
            return nq.poll_timeout();
        }
        match &self.in_service {
            Some(s) => s.done,
            None => self.stalled_until,
        }
    }

    /// The counters so far.
    pub fn stats(&self) -> &LinkStats {
        &self.stats
    }

    /// The longest time at the link since the previous call; starts a new interval.
    pub fn take_sojourn_peak(&mut self) -> Duration {
        core::mem::take(&mut self.stats.sojourn_peak)
    }

    /// Bytes waiting in the queue (not counting the packet being serialised).
    pub fn queue_bytes(&self) -> u64 {
        self.netqueue
            .as_ref()
            .map_or_else(|| self.queue.bytes(), NetQueue::bytes)
    }

    /// Packets waiting in the queue.
    pub fn queue_packets(&self) -> usize {
        self.netqueue
            .as_ref()
            .map_or_else(|| self.queue.len(), NetQueue::len)
    }

    /// The capacity at `now` (a mahimahi trace: its mean rate over the last 100 ms;
    /// unlimited: infinite).
    pub fn rate_at(&mut self, now: Instant) -> Bitrate {
        self.capacity.rate_at(now)
    }

    /// The capacity model, e.g. to integrate what it could deliver over a run.
    pub fn capacity_mut(&mut self) -> &mut Capacity {
        &mut self.capacity
    }

    /// Completes every serialisation due by `now` and starts the next ones. `t` is the
    /// serializer's own clock: after a late call it steps from one completion to the
    /// next, never beyond `now`.
    fn advance(&mut self, now: Instant) {
        if self.netqueue.is_some() {
            self.advance_netqueue(now);
            return;
        }
        let mut t = match self.stalled_until {
            Some(w) if w <= now => w,
            _ => now,
        };
        loop {
            if let Some(s) = &self.in_service {
                match s.done {
                    Some(done) if done <= now => {
                        t = done;
                        self.complete(done);
                    }
                    _ => return,
                }
            }
            if self.queue.is_empty() {
                self.stalled_until = None;
                return;
            }
            match self.capacity.service_start(t) {
                // The capacity never returns: packets stay queued for good.
                None => {
                    self.stalled_until = None;
                    return;
                }
                Some(start) if start > now => {
                    self.stalled_until = Some(start);
                    return;
                }
                Some(start) => {
                    self.stalled_until = None;
                    self.start_service(start);
                }
            }
        }
    }

    fn start_service(&mut self, start: Instant) {
        let rate = match self.queue.rate_window() {
            Some(window) => self.mean_rate(start, window),
            None => self.capacity.nominal_rate(start),
        };
        let taken = self
            .queue
            .dequeue(start, rate, &mut self.aqm_rng, &mut self.aqm_scratch);
        for packet in self.aqm_scratch.drain(..) {
            self.stats.dropped_aqm += 1;
            self.drops.push_back(Dropped {
                packet,
                cause: DropCause::Aqm,
                at: start,
            });
        }
        let Some(q) = taken else {
            return;
        };
        if q.packet.ecn() == Ecn::Ce && q.ecn_on_arrival != Ecn::Ce {
            self.stats.ce_marked += 1;
        }
        let done = self.capacity.finish_time(start, q.packet.size_bytes());
        // Reported delay: enqueue until the last bit leaves, the time the packet spent
        // at this link (as the Ericsson reference simulator reports it).
        let time_at_link = done.map_or(Duration::ZERO, |d| d - q.enqueued_at);
        self.in_service = Some(InService {
            packet: q.packet,
            done,
            time_at_link,
        });
    }

    /// The capacity averaged over the `window` before `at` (shorter at the start of a
    /// run; the rate of the moment at its very first instant).
    fn mean_rate(&mut self, at: Instant, window: Duration) -> Bitrate {
        let from = at.saturating_sub(window);
        let span = at - from;
        if span.is_zero() {
            return self.capacity.nominal_rate(at);
        }
        let bytes = self.capacity.deliverable_bytes(from, at);
        Bitrate::from_bps(bytes * 8.0 / span.as_secs_f64())
    }

    /// Hands every NetQueue release due by `now` to the path effects.
    fn advance_netqueue(&mut self, now: Instant) {
        while let Some(r) = self
            .netqueue
            .as_mut()
            .and_then(|nq| nq.poll_release(now, &mut self.capacity))
        {
            if r.marked {
                self.stats.ce_marked += 1;
            }
            self.leave(r.at, r.packet, r.time_at_link);
        }
    }

    fn complete(&mut self, done: Instant) {
        let Some(InService {
            packet,
            time_at_link,
            ..
        }) = self.in_service.take()
        else {
            return;
        };
        self.leave(done, packet, time_at_link);
    }

    /// A packet leaves the queue at `done` for the path effects.
    fn leave(&mut self, done: Instant, mut packet: P, time_at_link: Duration) {
        self.stats.packets_out += 1;
        self.stats.bytes_out += u64::from(packet.size_bytes());
        self.stats.sojourn_peak = self.stats.sojourn_peak.max(time_at_link);
        packet.on_link_exit(time_at_link);
        match self.effects.transit(done) {
            Some(arrival) => self.output.push_back((arrival, packet)),
            None => {
                self.stats.lost_on_path += 1;
                self.drops.push_back(Dropped {
                    packet,
                    cause: DropCause::PathLoss,
                    at: done,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests;
