//! A test packet and a driver that feeds a link synthetic traffic.
#![allow(dead_code, reason = "each test file uses a subset")]

use scream::{Bitrate, Duration, Ecn, Instant};
use scream_netmodel::{
    Capacity, DirectedLink, DropCause, NetPacket, PathEffects, Queue, QueueLimit,
};

/// A packet that remembers its time at the link.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TestPacket {
    pub(crate) id: u32,
    pub(crate) size: u32,
    pub(crate) ecn: Ecn,
    pub(crate) time_at_link: Duration,
}

impl TestPacket {
    pub(crate) fn new(id: u32, size: u32, ecn: Ecn) -> Self {
        Self {
            id,
            size,
            ecn,
            time_at_link: Duration::ZERO,
        }
    }
}

impl NetPacket for TestPacket {
    fn size_bytes(&self) -> u32 {
        self.size
    }
    fn ecn(&self) -> Ecn {
        self.ecn
    }
    fn set_ecn(&mut self, ecn: Ecn) {
        self.ecn = ecn;
    }
    fn on_link_exit(&mut self, time_at_link: Duration) {
        self.time_at_link += time_at_link;
    }
}

/// A link with `queue` and constant `rate`, no propagation delay.
pub(crate) fn link(
    rate: Bitrate,
    queue: Queue<TestPacket>,
    limit_time: Duration,
    limit_bytes: u64,
) -> DirectedLink<TestPacket> {
    DirectedLink::new(
        Capacity::Constant(rate),
        queue,
        QueueLimit {
            time: limit_time,
            bytes: limit_bytes,
        },
        PathEffects::delay_only(Duration::ZERO),
        1,
        "l",
    )
}

/// What happened at a link fed by [`run_periodic`].
#[derive(Debug, Default)]
pub(crate) struct Trace {
    /// Packets that left, with the instant their last bit left.
    pub(crate) departed: Vec<(Instant, TestPacket)>,
    /// Packets dropped, with the instant and cause.
    pub(crate) dropped: Vec<(Instant, TestPacket, DropCause)>,
    /// Queue bytes right after every arrival.
    pub(crate) backlog_after_arrival: Vec<u64>,
}

impl Trace {
    fn drain(&mut self, link: &mut DirectedLink<TestPacket>) {
        while let Some((at, p)) = link.poll_output() {
            self.departed.push((at, p));
        }
        while let Some(d) = link.poll_drop() {
            self.dropped.push((d.at, d.packet, d.cause));
        }
    }
}

/// Feeds `link` one packet of `size` bytes with `ecn` every `gap` until `until`, and
/// wakes it exactly at its timeouts.
pub(crate) fn run_periodic(
    link: &mut DirectedLink<TestPacket>,
    gap: Duration,
    size: u32,
    ecn: Ecn,
    until: Instant,
) -> Trace {
    let mut trace = Trace::default();
    let mut next_arrival = Instant::ZERO;
    let mut id = 0;
    loop {
        let arrival = (next_arrival < until).then_some(next_arrival);
        let wake = link.poll_timeout();
        let Some(now) = [arrival, wake].into_iter().flatten().min() else {
            break;
        };
        if wake == Some(now) {
            link.handle_timeout(now);
        } else {
            link.handle_input(now, TestPacket::new(id, size, ecn));
            trace.backlog_after_arrival.push(link.queue_bytes());
            id += 1;
            next_arrival = now + gap;
        }
        trace.drain(link);
    }
    trace
}
