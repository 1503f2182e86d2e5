//! The reference test application's NetQueue behind a directed link: each semantic of
//! both vintages (ac89024 = 2021, 0924c0b = 2023).

mod common;

use common::TestPacket;
use scream::{Bitrate, Duration, Ecn, Instant};
use scream_netmodel::queue::netqueue::{NETQUEUE_ITEMS, ramp_2023_marks};
use scream_netmodel::queue::{NetQueue, NetQueueKeys, NetQueueParams, Vintage};
use scream_netmodel::{Capacity, DirectedLink, DropCause, PathEffects, QueueLimit, RateSchedule};

const MS: Duration = Duration::from_millis(1);

fn params(vintage: Vintage) -> NetQueueParams {
    NetQueueParams {
        vintage,
        l4s: false,
        zero_unlimited: true,
        steps_per_s: 0,
        construction_rate: Bitrate::from_mbps(20.0),
        lookahead: Duration::ZERO,
    }
}

fn schedule(rows: &[(u64, f64)]) -> Capacity {
    let rows: Vec<(u64, Bitrate)> = rows
        .iter()
        .map(|(ms, mbps)| (ms * 1_000_000, Bitrate::from_mbps(*mbps)))
        .collect();
    Capacity::Schedule(RateSchedule::new(&rows, None).expect("rows"))
}

fn link(capacity: Capacity, p: NetQueueParams, delay: Duration) -> DirectedLink<TestPacket> {
    DirectedLink::with_netqueue(
        capacity,
        NetQueue::new(p),
        QueueLimit::UNLIMITED,
        PathEffects::delay_only(delay),
        1,
        "nq",
    )
}

/// Puts `sizes` in at `at`, runs the link to `until`, and returns (arrival at the far
/// end, packet) in order, plus the drops.
fn run(
    l: &mut DirectedLink<TestPacket>,
    at: Instant,
    sizes: &[u32],
    ecn: Ecn,
    until: Instant,
) -> (Vec<(Instant, TestPacket)>, Vec<DropCause>) {
    for (i, s) in sizes.iter().enumerate() {
        l.handle_input(at, TestPacket::new(i as u32, *s, ecn));
    }
    let mut out = Vec::new();
    let mut drops = Vec::new();
    loop {
        while let Some(o) = l.poll_output() {
            out.push(o);
        }
        while let Some(d) = l.poll_drop() {
            drops.push(d.cause);
        }
        match l.poll_timeout() {
            Some(t) if t <= until => l.handle_timeout(t),
            _ => break,
        }
    }
    (out, drops)
}

fn times(out: &[(Instant, TestPacket)]) -> Vec<Instant> {
    out.iter().map(|(t, _)| *t).collect()
}

fn ms(x: u64) -> Instant {
    Instant::from_millis(x)
}

#[test]
fn a_2021_release_is_fixed_at_enqueue_and_ignores_a_later_rate_drop() {
    // 8 Mbit/s for 1 ms, then 1 Mbit/s. Both packets enter at 0: the second's release
    // is 0 + 2000 B (the queue, itself included) x 8 / 8 Mbit/s = 2 ms, although the
    // rate has fallen to 1 Mbit/s by then (a serializer would finish it at 9 ms).
    let mut l = link(
        schedule(&[(0, 8.0), (1, 1.0)]),
        params(Vintage::Ac89024),
        Duration::ZERO,
    );
    let (out, _) = run(&mut l, Instant::ZERO, &[1000, 1000], Ecn::NotEct, ms(100));
    assert_eq!(times(&out), [ms(1), ms(2)]);
    assert_eq!(out[1].1.time_at_link, 2 * MS);
}

#[test]
fn zero_rate_is_no_limit_by_default_and_an_outage_when_asked() {
    for vintage in [Vintage::Ac89024, Vintage::V0924c0b] {
        let cap = || schedule(&[(0, 0.0), (10, 8.0)]);
        let mut unlimited = link(cap(), params(vintage), Duration::ZERO);
        let (out, _) = run(&mut unlimited, Instant::ZERO, &[1000], Ecn::NotEct, ms(100));
        assert_eq!(times(&out), [Instant::ZERO], "{vintage:?}");
        let outage = NetQueueParams {
            zero_unlimited: false,
            ..params(vintage)
        };
        let mut l = link(cap(), outage, Duration::ZERO);
        let (out, _) = run(&mut l, Instant::ZERO, &[1000], Ecn::NotEct, ms(100));
        // 2021 serialises from the rate's return; 2023 releases at the start.
        let expected = match vintage {
            Vintage::Ac89024 => ms(11),
            Vintage::V0924c0b => ms(10),
        };
        assert_eq!(times(&out), [expected], "{vintage:?}");
    }
}

#[test]
fn at_most_one_packet_leaves_per_step() {
    for vintage in [Vintage::Ac89024, Vintage::V0924c0b] {
        let p = NetQueueParams {
            steps_per_s: 10_000,
            ..params(vintage)
        };
        // Rate 0 = no limit: only the 0.1 ms loop step spaces them.
        let mut l = link(schedule(&[(0, 0.0)]), p, Duration::ZERO);
        let (out, _) = run(&mut l, Instant::ZERO, &[1000; 4], Ecn::NotEct, ms(10));
        let us = |x| Instant::from_micros(x);
        assert_eq!(
            times(&out),
            [us(0), us(100), us(200), us(300)],
            "{vintage:?}"
        );
    }
}

#[test]
fn steps_of_1_65536_s_stay_on_the_reference_tick_grid() {
    let p = NetQueueParams {
        steps_per_s: 65_536,
        ..params(Vintage::V0924c0b)
    };
    let mut l = link(Capacity::Unlimited, p, Duration::ZERO);
    let start = Instant::from_nanos(1_000_000_000 * 3 / 65_536 + 1);
    let (out, _) = run(&mut l, start, &[100; 3], Ecn::NotEct, ms(10));
    let tick = |n: u64| Instant::from_nanos(n * 1_000_000_000 / 65_536);
    assert_eq!(times(&out), [tick(4), tick(5), tick(6)]);
}

#[test]
fn a_2023_release_is_spaced_by_the_size_the_loop_wrote_last() {
    // 0924c0b `extract` adds `size * 8 / rate` with the caller's shared `size`. The
    // 2000-byte packet leaves at 0 and holds the next for 2 ms; at 2 ms the size the
    // loop wrote last is the 1000-byte packet handed in at 1 ms, so the one after
    // leaves at 3 ms (the 100-byte packet's own size would give 2.1 ms).
    let mut l = link(
        schedule(&[(0, 8.0)]),
        params(Vintage::V0924c0b),
        Duration::ZERO,
    );
    let mut out = Vec::new();
    for (at, size) in [(0, 2000), (500, 100), (1000, 1000)] {
        let now = Instant::from_micros(at);
        while l.poll_timeout().is_some_and(|t| t <= now) {
            l.handle_timeout(l.poll_timeout().expect("timeout"));
        }
        l.handle_input(now, TestPacket::new(size, size, Ecn::NotEct));
        while let Some(o) = l.poll_output() {
            out.push(o);
        }
    }
    let (rest, _) = run(&mut l, ms(1), &[], Ecn::NotEct, ms(100));
    out.extend(rest);
    assert_eq!(times(&out), [Instant::ZERO, ms(2), ms(3)]);
}

#[test]
fn the_queue_reads_the_rate_one_forward_delay_later_as_the_reference_does() {
    // The reference delays before its rate queue: a packet sent at 0 meets the rate of
    // 20 ms (8 Mbit/s), leaves it at 21 ms and arrives then, not at 20 + 8 ms.
    let p = NetQueueParams {
        lookahead: 20 * MS,
        ..params(Vintage::Ac89024)
    };
    let mut l = link(schedule(&[(0, 1.0), (20, 8.0)]), p, 20 * MS);
    let (out, _) = run(&mut l, Instant::ZERO, &[1000], Ecn::NotEct, ms(100));
    assert_eq!(times(&out), [ms(21)]);
}

/// Packets of 1000 B at 8 Mbit/s entering together: packet k (from 1) is judged on
/// k ms. Returns which of them were marked.
fn marked(p: NetQueueParams, n: usize, ecn: Ecn) -> Vec<bool> {
    let mut l = link(schedule(&[(0, 8.0)]), p, Duration::ZERO);
    let (out, drops) = run(&mut l, Instant::ZERO, &vec![1000; n], ecn, ms(1000));
    assert!(drops.is_empty(), "the NetQueue never drops for its marker");
    out.iter().map(|(_, p)| p.ecn == Ecn::Ce).collect()
}

#[test]
fn the_2021_l4s_step_is_max_5_ms_and_5_packets_at_the_construction_rate() {
    let p = NetQueueParams {
        l4s: true,
        ..params(Vintage::Ac89024)
    };
    // 20 Mbit/s at construction: 48 000 bit take 2.4 ms, so the 5 ms floor applies.
    let m = marked(p, 12, Ecn::Ect1);
    assert_eq!(m.iter().position(|x| *x), Some(5), "{m:?}");
    assert!(m[5..].iter().all(|x| *x));
    // 5 Mbit/s: 9.6 ms.
    let slow = NetQueueParams {
        construction_rate: Bitrate::from_mbps(5.0),
        ..p
    };
    let m = marked(slow, 12, Ecn::Ect1);
    assert_eq!(m.iter().position(|x| *x), Some(9), "{m:?}");
    // Not-ECT packets are neither marked nor dropped.
    assert!(marked(p, 12, Ecn::NotEct).iter().all(|x| !x));
}

#[test]
fn the_2023_ramp_marks_every_packet_that_waited_over_4_ms() {
    // The integer division makes the 4-10 ms ramp a step at 4 ms.
    assert!(!ramp_2023_marks(Duration::from_micros(4_000)));
    assert!(ramp_2023_marks(Duration::from_micros(4_001)));
    assert!(ramp_2023_marks(Duration::from_micros(4_100)));
    let p = NetQueueParams {
        l4s: true,
        ..params(Vintage::V0924c0b)
    };
    // 2023 releases at the start of the spacing: packet k (from 0) waited k ms.
    let m = marked(p, 8, Ecn::Ect1);
    assert_eq!(m, [false, false, false, false, false, true, true, true]);
    // Without L4S 0924c0b marks nothing.
    let classic = NetQueueParams { l4s: false, ..p };
    assert!(marked(classic, 30, Ecn::Ect0).iter().all(|x| !x));
}

#[test]
fn the_2021_classic_marker_marks_once_per_100_ms_of_standing_queue() {
    // 30 packets at once, then one every ms at the 8 Mbit/s the link drains: the
    // queue stands at ~30 ms. After the first five (at most 5 ms) the marker marks a
    // packet once more than 100 ms passed without a low one.
    let mut l = link(
        schedule(&[(0, 8.0)]),
        params(Vintage::Ac89024),
        Duration::ZERO,
    );
    for i in 0..30 {
        l.handle_input(Instant::ZERO, TestPacket::new(i, 1000, Ecn::Ect0));
    }
    let mut marks = Vec::new();
    let mut next = ms(1);
    let until = ms(1000);
    loop {
        let wake = l.poll_timeout();
        let now = match wake {
            Some(w) if w <= next => w,
            _ if next < until => next,
            _ => break,
        };
        if wake == Some(now) {
            l.handle_timeout(now);
        } else {
            l.handle_input(now, TestPacket::new(0, 1000, Ecn::Ect0));
            next = now + MS;
        }
        while let Some((at, p)) = l.poll_output() {
            if p.ecn == Ecn::Ce {
                marks.push(at);
            }
        }
    }
    assert!((8..=9).contains(&marks.len()), "{marks:?}");
    assert!(marks[0] > ms(105), "{marks:?}");
    for w in marks.windows(2) {
        let gap = w[1] - w[0];
        assert!(gap > 100 * MS && gap <= 102 * MS, "{marks:?}");
    }
    assert_eq!(l.stats().ce_marked, marks.len() as u64);
}

#[test]
fn the_ring_of_10000_items_refuses_the_next_packet() {
    // The first packet leaves as it enters (2023 releases at the start).
    let mut l = link(
        Capacity::Constant(Bitrate::from_kbps(1.0)),
        params(Vintage::V0924c0b),
        Duration::ZERO,
    );
    let (_, drops) = run(
        &mut l,
        Instant::ZERO,
        &vec![100; NETQUEUE_ITEMS + 2],
        Ecn::NotEct,
        Instant::ZERO,
    );
    assert_eq!(drops, [DropCause::QueueFull]);
}

#[test]
fn the_keys_name_only_the_two_vintages() {
    let k = NetQueueKeys::default();
    assert_eq!(k.vintage(), Ok(Vintage::Ac89024));
    let bad = NetQueueKeys {
        netqueue_vintage: 2022,
        ..k
    };
    assert_eq!(
        bad.vintage(),
        Err("must be 2021 (ac89024) or 2023 (0924c0b) (is 2022)".to_owned())
    );
    assert!(NetQueueParams::from_keys(&bad, Duration::ZERO, 0).is_none());
    let params = NetQueueParams::from_keys(&k, Duration::ZERO, 65_536).expect("2021");
    assert_eq!(params.steps_per_s, 65_536);
}
