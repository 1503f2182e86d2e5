//! Queue disciplines behind a directed link under synthetic traffic.

mod common;

use common::{TestPacket, Trace, link, run_periodic};
use scream::{Bitrate, Duration, Ecn, Instant};
use scream_netmodel::queue::{Codel, DualPi2, DualPi2Params, Fifo, L4sCellular, L4sRamp};
use scream_netmodel::{DirectedLink, DropCause, Queue, RngStream};

const MS: Duration = Duration::from_millis(1);

#[test]
fn tail_drop_byte_limit_is_never_exceeded() {
    // 8 Mbit/s drains 1000 B per ms; 1000 B arrive every 0.5 ms.
    let mut l = link(
        Bitrate::from_mbps(8.0),
        Queue::TailDrop(Fifo::new()),
        Duration::ZERO,
        20_000,
    );
    let t = run_periodic(
        &mut l,
        MS / 2,
        1000,
        Ecn::NotEct,
        Instant::from_millis(2000),
    );
    assert!(t.backlog_after_arrival.iter().all(|b| *b <= 20_000));
    assert!(
        t.backlog_after_arrival.iter().any(|b| *b >= 19_000),
        "queue never filled"
    );
    assert!(t.dropped.len() > 1500, "{} drops", t.dropped.len());
    assert!(t.dropped.iter().all(|d| d.2 == DropCause::QueueFull));
    assert_eq!(l.stats().dropped_queue_full, t.dropped.len() as u64);
}

#[test]
fn tail_drop_time_limit_is_converted_at_the_current_capacity() {
    // 50 ms at 8 Mbit/s = 50 000 bytes; the time at the link therefore stays <= ~51 ms.
    let mut l = link(
        Bitrate::from_mbps(8.0),
        Queue::TailDrop(Fifo::new()),
        MS * 50,
        0,
    );
    let t = run_periodic(
        &mut l,
        MS / 2,
        1000,
        Ecn::NotEct,
        Instant::from_millis(2000),
    );
    assert!(t.backlog_after_arrival.iter().all(|b| *b <= 50_000));
    let max = t
        .departed
        .iter()
        .map(|(_, p)| p.time_at_link)
        .max()
        .unwrap();
    assert!(max <= MS * 52 && max >= MS * 49, "{max:?}");
    assert_eq!(l.stats().sojourn_peak, max);
}

/// CoDel with the RFC 8289 defaults at 8 Mbit/s under a 25 % overload of 1000-byte
/// packets (the sojourn grows by 0.25 ms per ms) of codepoint `ecn`, for `ms`.
fn overloaded_codel(ecn: Ecn, ms: u64) -> (Trace, DirectedLink<TestPacket>) {
    let q = Queue::Codel(Codel::new(MS * 5, MS * 100));
    let mut l = link(Bitrate::from_mbps(8.0), q, Duration::ZERO, 0);
    let t = run_periodic(&mut l, MS * 4 / 5, 1000, ecn, Instant::from_millis(ms));
    (t, l)
}

#[test]
fn codel_drops_only_after_sojourn_stayed_above_target_for_an_interval() {
    let (t, _) = overloaded_codel(Ecn::NotEct, 3000);
    // A 1000-byte packet takes 1 ms at 8 Mbit/s: its sojourn is its time at the link
    // less that, and it was dequeued 1 ms before it left.
    let above = t
        .departed
        .iter()
        .find(|(_, p)| p.time_at_link >= MS * 6)
        .map(|(at, _)| *at - MS)
        .expect("sojourn never reached the target");
    let (first_drop, _, cause) = &t.dropped[0];
    assert_eq!(*cause, DropCause::Aqm);
    assert!(
        *first_drop >= above + MS * 100,
        "dropped at {first_drop:?}, above since {above:?}"
    );
    assert!(
        *first_drop <= above + MS * 105,
        "dropped late: {first_drop:?} vs {above:?}"
    );
    // In the drop state, drops follow the control law interval / sqrt(count):
    // gaps of 100 ms, then 100 / sqrt(2) ms, then 100 / sqrt(3) ms (to packet granularity).
    let gaps: Vec<f64> = t
        .dropped
        .windows(2)
        .take(3)
        .map(|w| (w[1].0 - w[0].0).as_secs_f64() * 1e3)
        .collect();
    for (gap, expected) in gaps
        .iter()
        .zip([100.0, 100.0 / 2f64.sqrt(), 100.0 / 3f64.sqrt()])
    {
        assert!((gap - expected).abs() < 1.0, "gaps {gaps:?}");
    }
}

#[test]
fn codel_marks_ect_packets_instead_of_dropping() {
    let (t, l) = overloaded_codel(Ecn::Ect0, 1000);
    assert!(t.dropped.is_empty());
    let marked = t.departed.iter().filter(|(_, p)| p.ecn == Ecn::Ce).count();
    assert!(marked > 0);
    assert_eq!(l.stats().ce_marked, marked as u64);
}

#[test]
fn l4s_ramp_marking_fraction_follows_the_ramp() {
    // The ramp judges the time at the link: queueing plus the packet's own transmission
    // (1000 bytes at 8 Mbit/s = 1 ms), as the Ericsson reference's bottleneck does.
    let rate = Bitrate::from_mbps(8.0);
    let mut q = L4sRamp::new(MS * 8, MS * 12);
    let mut rng = RngStream::new(5, "ramp-test");
    for (at_link_us, expected) in [
        (7_000u64, 0.0),
        (9_000, 0.25),
        (10_000, 0.5),
        (11_000, 0.75),
        (12_500, 1.0),
    ] {
        let n = 4000;
        let mut marked = 0;
        for i in 0..n {
            q.push(Instant::ZERO, TestPacket::new(i, 1000, Ecn::Ect1), 0)
                .unwrap();
            let dequeued_at = Instant::from_micros(at_link_us - 1_000);
            let p = q.pop(dequeued_at, rate, &mut rng).unwrap();
            marked += usize::from(p.packet.ecn == Ecn::Ce);
        }
        let frac = marked as f64 / f64::from(n);
        assert!(
            (frac - expected).abs() < 0.03,
            "time at link {at_link_us} us: {frac} vs {expected}"
        );
    }
    // Classic-ECN and Not-ECT packets are never marked by the ramp.
    q.push(Instant::ZERO, TestPacket::new(0, 1000, Ecn::Ect0), 0)
        .unwrap();
    let p = q.pop(Instant::from_millis(50), rate, &mut rng).unwrap();
    assert_eq!(p.packet.ecn, Ecn::Ect0);
}

/// CE fraction of the first of `queued` ECT(1) packets put in an otherwise idle DualPI2
/// at 0 and taken out after `sojourn_us` (the PI2 probability stays 0: no C traffic).
fn dualpi2_native_fraction(queued: u32, sojourn_us: u64) -> f64 {
    let mut rng = RngStream::new(7, "ramp");
    let mut dropped = Vec::new();
    let n = 4000;
    let mut marked = 0;
    for _ in 0..n {
        let mut q: DualPi2<TestPacket> = DualPi2::new(DualPi2Params::default());
        for i in 0..queued {
            q.push(Instant::ZERO, TestPacket::new(i, 1200, Ecn::Ect1), 0)
                .unwrap();
        }
        let at = Instant::ZERO + Duration::from_micros(sojourn_us);
        let p = q.pop(at, &mut rng, &mut dropped).expect("a packet");
        marked += usize::from(p.packet.ecn == Ecn::Ce);
    }
    marked as f64 / f64::from(n)
}

#[test]
fn dualpi2_marks_l4s_on_rfc_9332_s_ramp_and_spares_a_one_packet_queue() {
    // RFC 9332 §A.1: minTh 800 us, range 400 us, Th_len 1 packet.
    assert_eq!(dualpi2_native_fraction(3, 700), 0.0);
    let half = dualpi2_native_fraction(3, 1000);
    assert!((half - 0.5).abs() < 0.04, "{half}");
    assert_eq!(dualpi2_native_fraction(3, 1300), 1.0);
    // One packet left behind the leaving one: no native marking however long it
    // waited (at 1 Mbit/s a 1200-byte packet takes 9.6 ms to serialise).
    assert_eq!(dualpi2_native_fraction(2, 20_000), 0.0);
    assert_eq!(dualpi2_native_fraction(1, 20_000), 0.0);
}

#[test]
fn dualpi2_keeps_l4s_sojourn_near_its_ramp_under_a_scalable_load() {
    // A scalable (DCTCP/Prague-like) rate source with instant feedback: every unmarked
    // packet adds one packet per 20 ms, every CE mark takes half a packet's share
    // (RFC 9331 §4.3 response shape), starting at twice the capacity.
    let capacity = Bitrate::from_mbps(10.0);
    let size = 1250u32;
    let mut l = link(
        capacity,
        Queue::DualPi2(DualPi2::new(DualPi2Params::default())),
        MS * 250,
        0,
    );
    let per_rtt = |r: f64| (r * 0.020 / (f64::from(size) * 8.0)).max(1.0);
    let mut rate = 20e6;
    let mut next_arrival = Instant::ZERO;
    let until = Instant::from_millis(20_000);
    let mut late = Vec::new();
    let mut served_bytes_late = 0u64;
    let mut id = 0;
    loop {
        let now = match l.poll_timeout() {
            Some(t) if t <= next_arrival => t,
            _ => next_arrival,
        };
        if now >= until {
            break;
        }
        if l.poll_timeout() == Some(now) {
            l.handle_timeout(now);
        } else {
            l.handle_input(now, TestPacket::new(id, size, Ecn::Ect1));
            id += 1;
            next_arrival = now + Duration::from_secs_f64(f64::from(size) * 8.0 / rate);
        }
        while let Some((_, p)) = l.poll_output() {
            let n = per_rtt(rate);
            if p.ecn == Ecn::Ce {
                rate -= rate * 0.5 / n;
            } else {
                rate += f64::from(size) * 8.0 / 0.020 / n;
            }
            rate = rate.max(100e3);
            if now > Instant::from_millis(10_000) {
                late.push(p.time_at_link.as_secs_f64() * 1e3);
                served_bytes_late += u64::from(size);
            }
        }
        assert!(l.poll_drop().is_none(), "an L4S packet was dropped");
    }
    let mean = late.iter().sum::<f64>() / late.len() as f64;
    let util = served_bytes_late as f64 * 8.0 / 10.0 / capacity.bps();
    assert!(mean < 2.0, "mean L4S time at the link {mean} ms");
    assert!(util > 0.85, "utilisation {util}");
}

/// A link that delivers 8 Mbit/s for 5 ms, then nothing for 45 ms, over and over: the
/// mean rate is 0.8 Mbit/s = 100 bytes per ms.
fn bursty_link(queue: Queue<TestPacket>) -> DirectedLink<TestPacket> {
    use scream_netmodel::{Capacity, PathEffects, QueueLimit, RateSchedule};
    let rows = [(0, Bitrate::from_mbps(8.0)), (5_000_000, Bitrate::ZERO)];
    let schedule = RateSchedule::new(&rows, Some(50_000_000)).expect("schedule");
    DirectedLink::new(
        Capacity::Schedule(schedule),
        queue,
        QueueLimit::UNLIMITED,
        PathEffects::delay_only(Duration::ZERO),
        3,
        "bursty",
    )
}

/// CE fraction of ECT(1) packets of `size` bytes sent every `every` for 2 s.
fn ce_fraction(mut l: DirectedLink<TestPacket>, every: Duration, size: u32) -> f64 {
    let t = run_periodic(&mut l, every, size, Ecn::Ect1, Instant::from_millis(2000));
    let marked = t.departed.iter().filter(|(_, p)| p.ecn == Ecn::Ce).count();
    marked as f64 / t.departed.len().max(1) as f64
}

#[test]
fn a_lone_packet_waiting_for_the_scheduler_is_marked_by_the_sojourn_ramp_only() {
    // One 40-byte packet every 10 ms (32 kbit/s, 4 % of the mean rate): most wait in
    // a silence with at most four others queued.
    let every = MS * 10;
    let ramp = Queue::L4sRamp(L4sRamp::new(MS * 2, MS * 6));
    let ramp = ce_fraction(bursty_link(ramp), every, 40);
    let cellular = Queue::L4sCellular(L4sCellular::new(MS * 2, MS * 6, MS * 100));
    let cellular = ce_fraction(bursty_link(cellular), every, 40);
    // Queued bytes over the rate offered: at most 5 packets * 40 B / 100 B per ms = 2 ms
    // at the end of a silence, the ramp's lower end.
    assert!(ramp > 0.5, "sojourn ramp marked {ramp}");
    assert_eq!(cellular, 0.0, "cellular marker");
}

#[test]
fn the_cellular_marker_marks_a_queue_that_outgrows_the_offered_rate() {
    // 1000 bytes every ms = 8 Mbit/s on a link offering 0.8: the queue grows without
    // bound, and so does its estimated delay.
    let cellular = L4sCellular::new(MS * 2, MS * 6, MS * 100);
    let frac = ce_fraction(bursty_link(Queue::L4sCellular(cellular)), MS, 1000);
    assert!(frac > 0.95, "{frac}");
}

#[test]
fn the_cellular_estimate_is_queued_bytes_over_the_offered_rate() {
    let rate = Bitrate::from_mbps(8.0);
    // 10 000 bytes at 1000 bytes per ms.
    assert_eq!(L4sCellular::<TestPacket>::estimate(10_000, rate), MS * 10);
    // A link that offered nothing drains nothing: as congested as it gets.
    assert_eq!(
        L4sCellular::<TestPacket>::estimate(1, Bitrate::ZERO),
        Duration::MAX
    );
    // ECT(0) and Not-ECT packets are never marked, whatever the estimate.
    let mut q = L4sCellular::new(MS, MS * 2, MS * 100);
    let mut rng = RngStream::new(1, "cellular-test");
    for ecn in [Ecn::Ect0, Ecn::NotEct] {
        q.push(Instant::ZERO, TestPacket::new(0, 1000, ecn), 0)
            .unwrap();
        assert_eq!(q.pop(Bitrate::ZERO, &mut rng).unwrap().packet.ecn, ecn);
    }
}
