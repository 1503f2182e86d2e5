//! Absurd inputs to the network elements: no panic and no endless loop, whatever the
//! rates, time stamps and intervals. Each test names the behaviour it pins down.

mod common;

use common::{TestPacket, link};
use scream::{Bitrate, Duration, Ecn, Instant};
use scream_netmodel::queue::{Codel, DualPi2, DualPi2Params, EcnThreshold, Fifo, L4sRamp};
use scream_netmodel::{
    Capacity, MahimahiTrace, Queue, RateSchedule, RateUnit, RngStream, TableSpec, TraceEnd,
    TraceError, TraceFormat, parse_capacity_trace,
};

const TABLE: TableSpec = TableSpec {
    time_column: 0,
    rate_column: 1,
    unit: RateUnit::Mbps,
    end: TraceEnd::Loop,
    row_ns: None,
};

fn parse(text: &str, format: TraceFormat) -> Result<Capacity, TraceError> {
    parse_capacity_trace(text, format, &TABLE, 1500)
}

fn line_of(e: &TraceError) -> usize {
    match e {
        TraceError::Parse { line, .. } => *line,
        other => panic!("expected a parse error naming a line, got {other}"),
    }
}

#[test]
fn a_table_trace_of_tiny_rates_never_hangs() {
    // The file is refused with its line ...
    let e = parse("0 1e-300\n", TraceFormat::Table).unwrap_err();
    assert_eq!(line_of(&e), 1, "{e}");
    assert!(e.to_string().contains("check the unit"), "{e}");
    // ... and the schedule built directly treats such rates as an outage that never
    // ends, instead of walking one period after another for ever.
    let rows = [(0, Bitrate::from_bps(1e-294))];
    let mut c = Capacity::Schedule(RateSchedule::new(&rows, Some(1_000_000_000)).unwrap());
    assert_eq!(c.service_start(Instant::ZERO), None);
    assert_eq!(c.finish_time(Instant::ZERO, 1500), None);
    assert_eq!(c.rate_at(Instant::from_millis(10)), Bitrate::ZERO);
}

#[test]
fn a_positive_rate_on_an_empty_segment_does_not_count_as_capacity() {
    // Two rows at the same instant: the first lasts no time at all.
    let rows = [(0, Bitrate::from_mbps(5.0)), (0, Bitrate::ZERO)];
    let mut c = Capacity::Schedule(RateSchedule::new(&rows, Some(1_000)).unwrap());
    assert_eq!(c.service_start(Instant::ZERO), None);
    assert_eq!(c.finish_time(Instant::ZERO, 1500), None);
}

#[test]
fn a_looping_sliver_of_capacity_is_integrated_without_walking_every_period() {
    // 1 kbit/s for 1 ns of every 2 ns: 10^-6 bits per period, so 12 000 bits need
    // 1.2 x 10^10 periods (24 s). Walking them one by one would not end in any test.
    let rows = [(0, Bitrate::from_kbps(1.0)), (1, Bitrate::ZERO)];
    let mut c = Capacity::Schedule(RateSchedule::new(&rows, Some(2)).unwrap());
    let done = c.finish_time(Instant::ZERO, 1500).unwrap();
    let err = done.as_nanos().abs_diff(24_000_000_000);
    assert!(err <= 4, "{done:?}");
    // The same shortcut for the bytes it could deliver over a long run.
    let bytes = c.deliverable_bytes(Instant::ZERO, Instant::from_millis(1_000_000_000));
    assert!((bytes - 62_500_000.0).abs() < 1e-3, "{bytes}");
    // A packet that would finish beyond the last nanosecond (1.2 x 10^20 ns) never does.
    let rows = [(0, Bitrate::from_bps(1.0)), (1, Bitrate::ZERO)];
    let mut c = Capacity::Schedule(RateSchedule::new(&rows, Some(10_000_000)).unwrap());
    assert_eq!(c.finish_time(Instant::ZERO, 1500), None);
}

#[test]
fn schedules_at_the_end_of_time_answer_at_once() {
    let rows = [(0, Bitrate::from_mbps(1.0)), (5, Bitrate::ZERO)];
    for period in [Some(7), None] {
        let mut c = Capacity::Schedule(RateSchedule::new(&rows, period).unwrap());
        let late = Instant::MAX - Duration::from_nanos(3);
        let _ = c.service_start(late);
        let _ = c.finish_time(late, u32::MAX);
        let _ = c.rate_at(Instant::MAX);
        let _ = c.deliverable_bytes(Instant::ZERO, Instant::MAX);
    }
    // Rows out of order are refused rather than wrapped around.
    let rows = [(5, Bitrate::from_mbps(1.0)), (1, Bitrate::ZERO)];
    assert!(RateSchedule::new(&rows, None).is_none());
}

#[test]
fn mahimahi_stamps_near_u64_max_are_rejected() {
    for stamp in [u64::MAX, u64::MAX / 1_000_000 + 1, 288_230_376_151_711_744] {
        let e = parse(&format!("0\n{stamp}\n"), TraceFormat::Auto).unwrap_err();
        assert_eq!(line_of(&e), 2, "{e}");
        assert!(e.to_string().contains("fit in 64 bits"), "{e}");
        assert!(MahimahiTrace::new(&[0, stamp], 1500).is_none());
    }
}

#[test]
fn a_mahimahi_stamp_whose_nanoseconds_wrapped_to_zero_no_longer_divides_by_zero() {
    // 2^58 ms x 10^6 wraps to exactly 0 ns in 64 bits.
    let e = parse("288230376151711744\n", TraceFormat::Mahimahi).unwrap_err();
    assert_eq!(line_of(&e), 1, "{e}");
    // The latest accepted stamp works, and time far beyond it saturates.
    let last = scream_netmodel::capacity::MAX_MAHIMAHI_MS;
    let mut c = Capacity::Mahimahi(MahimahiTrace::new(&[1, last], 1500).unwrap());
    assert_eq!(
        c.service_start(Instant::ZERO),
        Some(Instant::from_millis(1))
    );
    let _ = c.service_start(Instant::MAX);
    let _ = c.finish_time(Instant::MAX, u32::MAX);
    let _ = c.rate_at(Instant::MAX);
    let _ = c.deliverable_bytes(Instant::ZERO, Instant::MAX);
}

#[test]
fn a_huge_packet_on_tiny_mahimahi_opportunities_is_packed_at_once() {
    // 4 GB in 1-byte opportunities, one per ms: about 50 days of trace, in one step.
    let mut c = Capacity::Mahimahi(MahimahiTrace::new(&[1], 1).unwrap());
    let s = c.service_start(Instant::ZERO).unwrap();
    let done = c.finish_time(s, u32::MAX).unwrap();
    assert_eq!(done, Instant::from_millis(u64::from(u32::MAX)));
}

#[test]
fn absurd_table_times_and_rates_are_rejected_with_their_line() {
    for (text, line) in [
        ("0 5\n1e11 5\n", 2),           // beyond 10^10 s
        ("0 5\n1 1e8\n", 2),            // 100 Tbit/s
        ("# header\n0 5\n1 1e-7\n", 3), // 0.1 bit/s
    ] {
        let e = parse(text, TraceFormat::Table).unwrap_err();
        assert_eq!(line_of(&e), line, "{text:?}: {e}");
    }
    // Outages (0) and the extremes themselves are fine; a looping trace must also
    // span less than 2^64 ns including its last row's spacing.
    assert!(parse("0 0\n1 1e-6\n2 1e7\n5e9 0\n", TraceFormat::Table).is_ok());
    let hold = TableSpec {
        end: TraceEnd::Hold,
        ..TABLE
    };
    assert!(parse_capacity_trace("0 0\n1 1e-6\n1e10 1e7\n", TraceFormat::Table, &hold, 1).is_ok());
    let e = parse("0 0\n1 1e-6\n1e10 1e7\n", TraceFormat::Table).unwrap_err();
    assert_eq!(line_of(&e), 3, "{e}");
}

#[test]
fn a_constant_capacity_below_the_bound_queues_for_ever_without_panicking() {
    // 10^-19 bit/s: the library's transmit time for 1500 bytes overflows a Duration.
    let slow = Bitrate::from_bps(1e-19);
    let mut c = Capacity::Constant(slow);
    assert_eq!(c.service_start(Instant::ZERO), None);
    assert_eq!(c.finish_time(Instant::ZERO, 1500), None);
    // Just above the bound the packet finishes, hours later.
    let mut c = Capacity::Constant(Bitrate::from_bps(1.0));
    assert_eq!(
        c.finish_time(Instant::ZERO, 1500),
        Some(Instant::from_millis(12_000_000))
    );
    // Through a whole link with every marker that computes a transmission time.
    let queues: Vec<Queue<TestPacket>> = vec![
        Queue::TailDrop(Fifo::new()),
        Queue::EcnThreshold(EcnThreshold::new(Duration::from_millis(5))),
        Queue::L4sRamp(L4sRamp::new(Duration::ZERO, Duration::from_millis(5))),
    ];
    for q in queues {
        let mut l = link(slow, q, Duration::from_millis(300), 0);
        for i in 0..10 {
            l.handle_input(
                Instant::from_millis(i),
                TestPacket::new(i as u32, 1500, Ecn::Ect1),
            );
        }
        l.handle_timeout(Instant::from_millis(1_000));
        assert!(l.poll_output().is_none());
    }
}

#[test]
fn aqm_parameters_at_the_limits_of_a_duration_do_not_panic() {
    let huge = Duration::MAX;
    let mut rng = RngStream::new(1, "t");
    let mut dropped = Vec::new();
    let mut codel: Queue<TestPacket> = Queue::Codel(Codel::new(Duration::ZERO, huge));
    let mut pi2: Queue<TestPacket> = Queue::DualPi2(DualPi2::new(DualPi2Params {
        target: huge,
        min_th: huge,
        range: huge,
        tupdate: huge,
        ..DualPi2Params::default()
    }));
    let mut ramp: Queue<TestPacket> = Queue::L4sRamp(L4sRamp::new(huge, huge));
    for q in [&mut codel, &mut pi2, &mut ramp] {
        for i in 0..50u64 {
            let now = Instant::from_millis(i * 200);
            q.enqueue(now, TestPacket::new(i as u32, 1500, Ecn::NotEct), 0)
                .unwrap();
            q.enqueue(now, TestPacket::new(i as u32, 1500, Ecn::Ect1), 0)
                .unwrap();
            let _ = q.dequeue(now, Bitrate::from_mbps(1.0), &mut rng, &mut dropped);
        }
    }
}

#[test]
fn dualpi2_with_a_nanosecond_update_catches_up_a_long_gap_in_bounded_work() {
    let mut q: Queue<TestPacket> = Queue::DualPi2(DualPi2::new(DualPi2Params {
        tupdate: Duration::from_nanos(1),
        ..DualPi2Params::default()
    }));
    let mut rng = RngStream::new(1, "t");
    let mut dropped = Vec::new();
    q.enqueue(Instant::ZERO, TestPacket::new(0, 1500, Ecn::NotEct), 0)
        .unwrap();
    let _ = q.dequeue(
        Instant::ZERO,
        Bitrate::from_mbps(1.0),
        &mut rng,
        &mut dropped,
    );
    // 10^6 s of idle time at one update per nanosecond: 10^15 updates to skip.
    let late = Instant::from_millis(1_000_000_000);
    q.enqueue(late, TestPacket::new(1, 1500, Ecn::NotEct), 0)
        .unwrap();
    assert!(
        q.dequeue(late, Bitrate::from_mbps(1.0), &mut rng, &mut dropped)
            .is_some()
    );
    // At the end of time the next update saturates; the loop must still end.
    q.enqueue(Instant::MAX, TestPacket::new(2, 1500, Ecn::NotEct), 0)
        .unwrap();
    let _ = q.dequeue(
        Instant::MAX,
        Bitrate::from_mbps(1.0),
        &mut rng,
        &mut dropped,
    );
}

/// Random trace texts, including absurd numbers, never panic and every capacity they
/// give answers its questions (a hang would stop the test).
#[test]
fn random_trace_texts_parse_or_fail_cleanly() {
    let mut rng = RngStream::new(7, "trace-texts");
    let numbers = [
        "0",
        "1",
        "-1",
        "1e-300",
        "1e300",
        "nan",
        "inf",
        "5",
        "0.001",
        "1e10",
        "1e13",
        "18446744073709551615",
        "288230376151711744",
        "10000000000000",
        "x",
    ];
    let pick = |rng: &mut RngStream| numbers[(rng.uniform() * numbers.len() as f64) as usize];
    for _ in 0..300 {
        let lines = 1 + (rng.uniform() * 5.0) as usize;
        let two_columns = rng.uniform() < 0.5;
        let mut text = String::new();
        for _ in 0..lines {
            if two_columns {
                let (a, b) = (pick(&mut rng), pick(&mut rng));
                text.push_str(&format!("{a}\t{b}\n"));
            } else {
                text.push_str(pick(&mut rng));
                text.push('\n');
            }
        }
        for format in [TraceFormat::Auto, TraceFormat::Table, TraceFormat::Mahimahi] {
            for end in [TraceEnd::Loop, TraceEnd::Hold] {
                let spec = TableSpec { end, ..TABLE };
                let Ok(mut c) = parse_capacity_trace(&text, format, &spec, 1) else {
                    continue;
                };
                for t in [
                    Instant::ZERO,
                    Instant::from_millis(1_000_000_000),
                    Instant::MAX,
                ] {
                    if let Some(s) = c.service_start(t) {
                        let _ = c.finish_time(s, 65_535);
                    }
                    let _ = c.rate_at(t);
                    let _ = c.nominal_rate(t);
                }
                let _ = c.deliverable_bytes(Instant::ZERO, Instant::MAX);
            }
        }
    }
}
