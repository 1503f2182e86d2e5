use super::*;
use crate::capacity::RateSchedule;
use crate::effects::{Jitter, LossModel};
use crate::queue::Fifo;

#[derive(Debug, Clone, PartialEq)]
struct P {
    id: u32,
    size: u32,
    at_link: Duration,
}

impl NetPacket for P {
    fn size_bytes(&self) -> u32 {
        self.size
    }
    fn ecn(&self) -> Ecn {
        Ecn::NotEct
    }
    fn set_ecn(&mut self, _: Ecn) {}
    fn on_link_exit(&mut self, time_at_link: Duration) {
        self.at_link = time_at_link;
    }
}

fn p(id: u32) -> P {
    P {
        id,
        size: 1000,
        at_link: Duration::ZERO,
    }
}

fn ms(v: u64) -> Instant {
    Instant::from_millis(v)
}

fn fifo_link(capacity: Capacity, delay_ms: u64) -> DirectedLink<P> {
    DirectedLink::new(
        capacity,
        Queue::TailDrop(Fifo::new()),
        QueueLimit::UNLIMITED,
        PathEffects::delay_only(Duration::from_millis(delay_ms)),
        1,
        "t",
    )
}

#[test]
fn an_unlimited_link_adds_only_its_delay() {
    let mut l = fifo_link(Capacity::Unlimited, 7);
    for i in 0..3 {
        l.handle_input(ms(5), p(i));
    }
    let out: Vec<(Instant, u32)> = core::iter::from_fn(|| l.poll_output())
        .map(|(t, p)| (t, p.id))
        .collect();
    assert_eq!(out, [(ms(12), 0), (ms(12), 1), (ms(12), 2)]);
    assert_eq!(l.poll_timeout(), None);
    assert_eq!(l.stats().packets_out, 3);
}

#[test]
fn packets_leave_back_to_back_at_the_capacity() {
    // 8 Mbit/s: 1000 bytes take 1 ms.
    let mut l = fifo_link(Capacity::Constant(Bitrate::from_mbps(8.0)), 0);
    l.handle_input(ms(0), p(0));
    l.handle_input(ms(0), p(1));
    assert_eq!(l.poll_timeout(), Some(ms(1)));
    l.handle_timeout(ms(1));
    assert_eq!(
        l.poll_output().map(|(t, p)| (t, p.at_link)),
        Some((ms(1), Duration::from_millis(1)))
    );
    assert_eq!(l.poll_timeout(), Some(ms(2)));
    l.handle_timeout(ms(2));
    assert_eq!(
        l.poll_output().map(|(t, p)| (t, p.at_link)),
        Some((ms(2), Duration::from_millis(2)))
    );
    assert_eq!(l.poll_timeout(), None);
}

#[test]
fn a_late_caller_gets_the_same_departures_as_a_punctual_one() {
    let capacity = || Capacity::Constant(Bitrate::from_mbps(8.0));
    let mut punctual = fifo_link(capacity(), 3);
    let mut late = fifo_link(capacity(), 3);
    for i in 0..10 {
        punctual.handle_input(ms(0), p(i));
        late.handle_input(ms(0), p(i));
    }
    let mut on_time = Vec::new();
    while let Some(t) = punctual.poll_timeout() {
        punctual.handle_timeout(t);
        on_time.extend(core::iter::from_fn(|| punctual.poll_output()));
    }
    // One wake-up 20 ms after everything was due releases all of it, correctly timed.
    late.handle_timeout(ms(20));
    let caught_up: Vec<_> = core::iter::from_fn(|| late.poll_output()).collect();
    assert_eq!(caught_up, on_time);
    assert_eq!(on_time.last().map(|(t, _)| *t), Some(ms(13)));
}

#[test]
fn a_late_input_is_not_served_before_it_arrived() {
    let mut l = fifo_link(Capacity::Constant(Bitrate::from_mbps(8.0)), 0);
    l.handle_input(ms(0), p(0));
    // The first packet was done at 1 ms; the caller only returns at 5 ms with another.
    l.handle_input(ms(5), p(1));
    l.handle_timeout(ms(10));
    let out: Vec<Instant> = core::iter::from_fn(|| l.poll_output())
        .map(|(t, _)| t)
        .collect();
    assert_eq!(out, [ms(1), ms(6)]);
}

#[test]
fn zero_capacity_holds_the_queue_until_the_rate_returns() {
    let rows = [(0, Bitrate::ZERO), (10_000_000, Bitrate::from_mbps(8.0))];
    let mut l = fifo_link(
        Capacity::Schedule(RateSchedule::new(&rows, None).unwrap()),
        0,
    );
    l.handle_input(ms(2), p(0));
    assert_eq!(l.poll_timeout(), Some(ms(10)));
    l.handle_timeout(ms(10));
    assert_eq!(l.poll_timeout(), Some(ms(11)));
    l.handle_timeout(ms(11));
    let (at, pkt) = l.poll_output().unwrap();
    assert_eq!((at, pkt.at_link), (ms(11), Duration::from_millis(9)));
}

#[test]
fn path_loss_is_reported_as_a_drop_with_its_cause() {
    let mut l = DirectedLink::new(
        Capacity::Unlimited,
        Queue::TailDrop(Fifo::new()),
        QueueLimit::UNLIMITED,
        PathEffects::new(
            Duration::ZERO,
            Jitter::default(),
            LossModel::bernoulli(1.0),
            1,
            "t",
        ),
        1,
        "t",
    );
    l.handle_input(ms(1), p(4));
    assert!(l.poll_output().is_none());
    let d = l.poll_drop().unwrap();
    assert_eq!(
        (d.packet.id, d.cause, d.at),
        (4, DropCause::PathLoss, ms(1))
    );
    assert_eq!(l.stats().lost_on_path, 1);
}
