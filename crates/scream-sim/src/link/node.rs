//! A link as a simulation node: input queue, serializer at the capacity of the moment,
//! then the forward path effects; plus the return direction.

use super::capacity::Capacity;
use crate::packet::Packet;
use crate::path::{ForwardPath, ReturnPath};
use crate::queue::Queue;
use crate::rng::RngStream;
use scream::{Duration, Instant};

/// What the link needs from the event loop after an input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkAction {
    /// Nothing to schedule (busy, idle, or a wake-up is already pending).
    Nothing,
    /// A packet is being serialised; call [`Link::complete`] at this instant.
    TxDone(Instant),
    /// The capacity is zero until this instant; call [`Link::try_start`] then.
    WakeAt(Instant),
}

/// A packet the serializer took from the queue.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Started {
    /// The packet (its `queue_delay` includes this link's sojourn).
    pub packet: Packet,
    /// Its time at this link: queueing plus its own transmission.
    pub sojourn: Duration,
}

/// One link.
#[derive(Debug)]
pub struct Link {
    /// Name from the scenario.
    pub name: String,
    /// Forward capacity.
    pub capacity: Capacity,
    /// Input queue.
    pub queue: Queue,
    /// Queue limit in time (zero: none).
    pub limit_time: Duration,
    /// Queue limit in bytes (zero: none).
    pub limit_bytes: u64,
    /// Forward effects after the serializer.
    pub forward: ForwardPath,
    /// Return direction.
    pub ret: ReturnPath,
    /// Bytes that completed serialisation.
    pub bytes_serialized: u64,
    in_service: Option<Packet>,
    wake_pending: Option<Instant>,
    aqm_rng: RngStream,
}

impl Link {
    /// A link; the AQM's random stream is `<id>/aqm` under `seed`.
    #[expect(
        clippy::too_many_arguments,
        reason = "a plain constructor of independent parts"
    )]
    pub fn new(
        name: String,
        capacity: Capacity,
        queue: Queue,
        limit_time: Duration,
        limit_bytes: u64,
        forward: ForwardPath,
        ret: ReturnPath,
        seed: u64,
        id: &str,
    ) -> Self {
        Self {
            name,
            capacity,
            queue,
            limit_time,
            limit_bytes,
            forward,
            ret,
            bytes_serialized: 0,
            in_service: None,
            wake_pending: None,
            aqm_rng: RngStream::new(seed, &format!("{id}/aqm")),
        }
    }

    /// The admission limit at `now` in bytes (0 = unlimited). A time limit is turned
    /// into bytes at the current (mahimahi: mean) capacity.
    pub fn limit_at(&mut self, now: Instant) -> u64 {
        let by_time = if self.limit_time.is_zero() {
            u64::MAX
        } else {
            // At zero capacity nothing more may wait (the queue still admits one packet
            // when empty), hence at least 1.
            (self.capacity.nominal_rate(now).bytes_in(self.limit_time) as u64).max(1)
        };
        let by_bytes = if self.limit_bytes == 0 {
            u64::MAX
        } else {
            self.limit_bytes
        };
        match by_time.min(by_bytes) {
            u64::MAX => 0,
            l => l,
        }
    }

    /// A packet arrives at the link's input; `false` if refused (it then goes to
    /// `dropped`).
    pub fn arrive(&mut self, now: Instant, pkt: Packet, dropped: &mut Vec<Packet>) -> bool {
        let limit = self.limit_at(now);
        match self.queue.enqueue(now, pkt, limit) {
            Ok(()) => true,
            Err(p) => {
                dropped.push(p);
                false
            }
        }
    }

    /// Whether the serializer holds a packet.
    pub fn busy(&self) -> bool {
        self.in_service.is_some()
    }

    /// Starts serialising the next packet if the serializer is free and the link can
    /// transmit at `now`. AQM drops go to `dropped`.
    pub fn try_start(
        &mut self,
        now: Instant,
        dropped: &mut Vec<Packet>,
    ) -> (LinkAction, Option<Started>) {
        if self.in_service.is_some() || self.queue.is_empty() {
            return (LinkAction::Nothing, None);
        }
        if self.wake_pending.is_some_and(|w| w > now) {
            return (LinkAction::Nothing, None);
        }
        self.wake_pending = None;
        let Some(start) = self.capacity.service_start(now) else {
            // The link never transmits again; packets stay queued until the end.
            return (LinkAction::Nothing, None);
        };
        if start > now {
            self.wake_pending = Some(start);
            return (LinkAction::WakeAt(start), None);
        }
        let rate = self.capacity.nominal_rate(now);
        let Some(mut pkt) = self.queue.dequeue(now, rate, &mut self.aqm_rng, dropped) else {
            return (LinkAction::Nothing, None);
        };
        let Some(done) = self.capacity.finish_time(now, pkt.size_bytes) else {
            return (LinkAction::Nothing, None);
        };
        // Reported delay: enqueue until the last bit leaves, the time the packet spent
        // at this link (as the Ericsson reference simulator reports it).
        let sojourn = done - pkt.enqueued_at;
        pkt.queue_delay += sojourn;
        self.in_service = Some(pkt);
        (
            LinkAction::TxDone(done),
            Some(Started {
                packet: pkt,
                sojourn,
            }),
        )
    }

    /// The packet in service has been serialised at `now`; it is handed back with its
    /// arrival time at the far end (`None`: lost on the way).
    pub fn complete(&mut self, now: Instant) -> Option<(Packet, Option<Instant>)> {
        let pkt = self.in_service.take()?;
        self.bytes_serialized += u64::from(pkt.size_bytes);
        let arrival = self.forward.transit(now);
        Some((pkt, arrival))
    }
}
