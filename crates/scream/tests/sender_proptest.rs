//! Random operation sequences against a model of which packets are resolved.
//!
//! Operations (`sender_proptest/ops.rs`): time steps (small, long, and steps of the
//! caller's clock backwards and far forward), inputs at stray instants (a little or far
//! back, far ahead, zero, the end of time), frames of any size, coarse polling,
//! timeouts, and feedback with loss, CE, missing arrival times, reordering, duplicates,
//! reports on old packets and forged reports (unknown SSRCs, sequence numbers never
//! sent, implausible arrival times). The setup varies too: ECN mode, MSS, pacing
//! catch-up, in-flight timeout, RTP queue limit, priorities of any scale, extreme
//! bitrate limits, the caller's epoch.
//!
//! After every step (`sender_proptest/model.rs`): nothing panics; bytes in flight equal
//! the model's unresolved bytes (acknowledged, declared lost by the reordering window,
//! or timed out); the window is at least its minimum; targets are finite and within the
//! streams' limits; the pacing rate is finite and positive; the RTP queue is no older
//! than its discard rule allows. At the end, sane time and feedback resume and the
//! sender must send again within a bounded time.
//!
//! Reports whose times lie off the receiver's clock (replayed, reordered, forged; up to
//! two days either way) are generated too: the model judges them as the sender's report
//! clock documents it, and a report it expects refused whole must show as such in the
//! sender's counters.
//!
//! Not generated: arrival times after the report time (the model turns them into
//! "not received"), and more than 65 535 packets in flight.
//!
//! The operations and the model are shared with the `sender_ops` fuzz target
//! (`fuzz/fuzz_targets/sender_ops.rs`), which includes both files.

#[path = "sender_proptest/model.rs"]
mod model;
#[path = "sender_proptest/ops.rs"]
mod ops;

use model::run;
use ops::{FeedbackOp, Op, Setup, When, decode};
use proptest::prelude::*;
use scream::sender::EcnMode;

fn when() -> impl Strategy<Value = When> {
    prop_oneof![
        12 => Just(When::Now),
        2 => (0u16..40).prop_map(When::Back),
        1 => (0u16..u16::MAX).prop_map(When::Back),
        1 => (0u32..48 * 3600).prop_map(When::Ahead),
        1 => Just(When::Zero),
        1 => Just(When::Max),
    ]
}

fn feedback() -> impl Strategy<Value = FeedbackOp> {
    (
        (0u8..8, 1u8..64, any::<u64>(), any::<u64>(), any::<u64>()),
        (0u32..200_000, any::<u16>(), any::<bool>(), 0u8..4, 0u8..3),
        (
            proptest::option::weighted(0.2, any::<u16>()),
            proptest::option::weighted(0.1, any::<u64>()),
            when(),
            prop_oneof![
                12 => Just(0i32),
                2 => -5000i32..5000,
                1 => -48 * 3600 * 1000i32..48 * 3600 * 1000,
            ],
        ),
    )
        .prop_map(
            |(
                (skip_newest, len, lost, ce, no_arrival),
                (owd_us, jitter_us, reverse, duplicates, unknown_ssrc),
                (forged_seq, forged_arrival, at, report_shift_ms),
            )| FeedbackOp {
                skip_newest,
                len,
                // Mostly received: sparse loss and missing arrival times.
                lost: lost & ce.rotate_left(17),
                ce,
                no_arrival: no_arrival & lost & ce,
                owd_us,
                jitter_us,
                reverse,
                duplicates,
                unknown_ssrc,
                forged_seq,
                forged_arrival,
                at,
                report_shift_ms,
            },
        )
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0u32..60_000).prop_map(Op::Wait),
        1 => (0u16..3000).prop_map(Op::WaitLong),
        1 => (-48 * 3600i32..48 * 3600).prop_map(Op::ClockStep),
        5 => (0u8..2, 0u32..30_000, when())
            .prop_map(|(stream, bytes, at)| Op::Frame { stream, bytes, at }),
        1 => (0u8..2, any::<u32>(), when())
            .prop_map(|(stream, bytes, at)| Op::Frame { stream, bytes, at }),
        6 => when().prop_map(Op::Transmit),
        1 => when().prop_map(Op::Timeout),
        5 => feedback().prop_map(Op::Feedback),
    ]
}

fn setup() -> impl Strategy<Value = Setup> {
    (
        prop_oneof![
            Just(EcnMode::None),
            Just(EcnMode::Classic),
            Just(EcnMode::L4s)
        ],
        prop_oneof![4 => Just(1000u32), 1 => Just(100), 1 => Just(65_000)],
        prop_oneof![Just(10u8), Just(0), Just(100)],
        prop_oneof![3 => Just(1000u32), 1 => Just(10), 1 => Just(3_600_000)],
        prop_oneof![3 => Just(1000u32), 1 => Just(10), 1 => Just(60_000)],
        prop_oneof![Just(1.0), Just(1e-300), Just(1e300)],
        prop_oneof![Just(0.5), Just(1e6), Just(1e-6)],
        any::<bool>(),
        prop_oneof![Just(1_000_000u64), Just(1_000_000_000_000_000_000)],
        prop_oneof![2 => Just(0u8), 1 => Just(1), 1 => Just(2)],
    )
        .prop_map(
            |(
                ecn,
                mss_bytes,
                catch_up_ms,
                in_flight_timeout_ms,
                max_queue_ms,
                priority,
                priority_ratio,
                extreme,
                start_ns,
                generation,
            )| Setup {
                generation,
                ecn,
                mss_bytes,
                catch_up_ms,
                in_flight_timeout_ms,
                max_queue_ms,
                priority,
                priority_ratio,
                limits: if extreme {
                    [(1.0, 1.0, 1e11), (1.0, 1e11, 1e11)]
                } else {
                    Setup::default().limits
                },
                start_ns,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn invariants_hold_for_any_operation_sequence_l4s(
        ops in proptest::collection::vec(op(), 1..150)
    ) {
        run(&Setup::default(), &ops).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn invariants_hold_for_any_operation_sequence_delay_only(
        ops in proptest::collection::vec(op(), 1..150)
    ) {
        let setup = Setup { ecn: EcnMode::None, ..Setup::default() };
        run(&setup, &ops).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn invariants_hold_for_any_setup_and_operation_sequence(
        setup in setup(),
        ops in proptest::collection::vec(op(), 1..150)
    ) {
        run(&setup, &ops).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn invariants_hold_for_any_bytes_as_the_fuzz_target_reads_them(
        data in proptest::collection::vec(any::<u8>(), 0..1500)
    ) {
        let (setup, ops) = decode(&data);
        run(&setup, &ops).map_err(TestCaseError::fail)?;
    }
}

#[test]
fn a_far_future_input_then_normal_time() {
    let ops = [
        Op::Frame {
            stream: 0,
            bytes: 5000,
            at: When::Now,
        },
        Op::Transmit(When::Now),
        Op::Timeout(When::Ahead(24 * 3600)),
        Op::Wait(1000),
        Op::Frame {
            stream: 0,
            bytes: 5000,
            at: When::Now,
        },
        Op::Transmit(When::Now),
        Op::Transmit(When::Max),
        Op::Transmit(When::Zero),
        Op::ClockStep(-3600),
        Op::Transmit(When::Now),
    ];
    run(&Setup::default(), &ops).expect("invariants hold");
}

/// A sequence number 5,000 behind the streams' first one (65,500): sent, if ever, long
/// before anything the sender tracks, and not ahead of what it sent.
const FAR_BEHIND: u16 = 60_500;

/// A report the sender takes may still have per-packet reports it ignores (here an
/// arrival time it finds implausible, and a sequence number far behind anything in
/// flight): the packets it names are acknowledged all the same.
#[test]
fn a_taken_report_acknowledges_even_when_its_arrival_times_are_ignored() {
    let frame = Op::Frame {
        stream: 0,
        bytes: 1000,
        at: When::Now,
    };
    let fb = |forged_seq, forged_arrival, at| {
        Op::Feedback(FeedbackOp {
            skip_newest: 0,
            len: 1,
            lost: 0,
            ce: 0,
            no_arrival: 0,
            owd_us: 0,
            jitter_us: 0,
            reverse: false,
            duplicates: 0,
            unknown_ssrc: 0,
            forged_seq,
            forged_arrival,
            at,
            report_shift_ms: 0,
        })
    };
    let ops = [
        frame.clone(),
        Op::Transmit(When::Now),
        Op::Wait(20_000),
        fb(Some(FAR_BEHIND), Some(0), When::Now),
        frame,
        Op::Transmit(When::Now),
        Op::Wait(30_000),
        // A stray `now` behind: the sender's time stays at the send, so the packet's
        // 30 ms between arrival and report exceed its age.
        fb(None, None, When::Back(11)),
    ];
    run(&Setup::default(), &ops).expect("invariants hold");
}

/// After the caller's clock steps back, sane reports run ahead of the sender's time
/// until it follows the caller again: the sender refuses them whole until a few agree.
#[test]
fn reports_refused_after_a_step_back_are_not_acknowledgements() {
    let ops = [
        Op::Frame {
            stream: 0,
            bytes: 1000,
            at: When::Now,
        },
        Op::Transmit(When::Now),
        Op::Wait(20_000),
        Op::Feedback(FeedbackOp {
            skip_newest: 0,
            len: 1,
            lost: 0,
            ce: 0,
            no_arrival: 0,
            owd_us: 0,
            jitter_us: 0,
            reverse: false,
            duplicates: 0,
            unknown_ssrc: 0,
            forged_seq: None,
            forged_arrival: None,
            at: When::Now,
            report_shift_ms: 0,
        }),
        Op::Frame {
            stream: 0,
            bytes: 1000,
            at: When::Now,
        },
        Op::Transmit(When::Now),
        // The sender's time stays at the send over the step and the next input; the
        // receiver's advances by 3 s meanwhile, more than the report clock's slack.
        Op::ClockStep(-100),
        Op::WaitLong(3000),
        Op::Transmit(When::Now),
    ];
    let setup = Setup {
        start_ns: 1_000_000_000_000_000_000,
        ..Setup::default()
    };
    run(&setup, &ops).expect("invariants hold");
}
