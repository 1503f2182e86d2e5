//! Delay samples the sender cannot trust: one arrival time offset at its maximum, a
//! receiver clock that steps forward, a sender `now` that jumps once. None of them may
//! read as seconds of queue delay for long; a real queue or a longer path still must.

mod feedback_loop;

use feedback_loop::{Outcome, Setup, report, run};
use scream::wire::ccfb::{ATO_MAX, MetricBlock};
use scream::{Duration, Instant};

const EVENT: Instant = Instant::from_millis(10_000);
const END: Instant = Instant::from_millis(30_000);

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Mean target in the 5 s before the event and in `[from, to)`, and the largest queue
/// delay estimate in `[from, to)`.
fn figures(out: &Outcome, from: Instant, to: Instant) -> (f64, f64, Duration) {
    let before = out.mean_target(EVENT - Duration::from_secs(5), EVENT);
    (
        before,
        out.mean_target(from, to),
        out.max_queue_delay(from, to),
    )
}

#[test]
fn one_implausible_delay_sample_does_not_collapse_the_rate() {
    let mut failed = vec![];
    let mut cases: Vec<(&str, Setup, Duration)> = vec![];

    // One report whose first received packet claims the largest arrival time offset
    // (about 8 s before the report) although it was sent some 50 ms earlier.
    let mut s = Setup {
        duration: END - Instant::ZERO,
        ..Setup::default()
    };
    let mut done = false;
    s.tamper = Box::new(move |now, mut r| {
        if !done && now >= EVENT {
            if let Some(m) = r.blocks[0].reports.iter_mut().rev().find(|m| m.received) {
                *m = MetricBlock::received(m.ecn, ATO_MAX);
                done = true;
            }
        }
        vec![r]
    });
    cases.push(("one arrival offset 0x1FFE", s, Duration::ZERO));

    // The receiver's clock steps 2 s forward.
    let s = Setup {
        duration: END - Instant::ZERO,
        rx_step: Some((EVENT, 2_000_000_000)),
        ..Setup::default()
    };
    cases.push(("receiver clock +2 s", s, Duration::ZERO));

    // One feedback is handed to the sender with a `now` 5 s ahead. The sender holds its
    // clock at that instant until real time catches up (its own clamping); judged from
    // 2 s after that.
    let s = Setup {
        duration: END - Instant::ZERO,
        sender_jump: Some((EVENT, Duration::from_secs(5))),
        ..Setup::default()
    };
    cases.push(("sender now +5 s once", s, Duration::from_secs(7)));

    for (name, setup, settle) in cases {
        let out = run(setup);
        let from = EVENT + Duration::from_millis(500) + settle;
        let to = from + Duration::from_secs(10);
        let (before, after, qd) = figures(&out, from, to);
        report(
            name,
            format_args!(
                "mean target 5 s before {:.2} Mbit/s, {:.1}..{:.1} s after {:.2} Mbit/s, largest queue delay estimate there {:.1} ms, {} per-packet reports ignored",
                before / 1e6,
                (from - EVENT).as_secs_f64(),
                (to - EVENT).as_secs_f64(),
                after / 1e6,
                ms(qd),
                out.last.feedback_ignored,
            ),
        );
        if after < 0.8 * before {
            failed.push(format!("{name}: target {before} -> {after}"));
        }
        if qd > Duration::from_millis(200) {
            failed.push(format!("{name}: queue delay estimate {qd:?}"));
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

#[test]
fn a_sustained_delay_increase_is_still_reacted_to() {
    // A real queue: the link drops from 10 to 4 Mbit/s with a deep buffer.
    let out = run(Setup {
        duration: END - Instant::ZERO,
        capacity: vec![(Instant::ZERO, 10e6), (EVENT, 4e6)],
        buffer: Duration::from_secs(2),
        ..Setup::default()
    });
    let (before, after, qd) = figures(&out, EVENT, EVENT + Duration::from_secs(2));
    let settled = out.mean_target(EVENT + Duration::from_secs(5), END);
    report(
        "capacity 10 -> 4 Mbit/s",
        format_args!(
            "mean target before {:.2}, first 2 s after {:.2}, from 5 s after {:.2} Mbit/s; largest queue delay estimate in the first 2 s {:.1} ms",
            before / 1e6,
            after / 1e6,
            settled / 1e6,
            ms(qd)
        ),
    );
    assert!(qd >= Duration::from_millis(60), "queue not seen: {qd:?}");
    assert!(settled <= 4.4e6, "target {settled} above the 4 Mbit/s link");

    // A longer path: 150 ms more one-way delay from the event on, for good. Delay-based
    // control reads it as queue delay until the base delay is refreshed, as the draft's
    // LEDBAT-style estimator does; what matters here is that it is not thrown away.
    let out = run(Setup {
        duration: END - Instant::ZERO,
        path_delay: vec![
            (Instant::ZERO, Duration::from_millis(25)),
            (EVENT, Duration::from_millis(175)),
        ],
        ..Setup::default()
    });
    let (before, after, qd) = figures(&out, EVENT, EVENT + Duration::from_secs(3));
    report(
        "path +150 ms",
        format_args!(
            "mean target before {:.2}, first 3 s after {:.2} Mbit/s; largest queue delay estimate there {:.1} ms",
            before / 1e6,
            after / 1e6,
            ms(qd)
        ),
    );
    assert!(
        qd >= Duration::from_millis(120),
        "longer path not seen: {qd:?}"
    );
    assert!(after < 0.8 * before, "no reaction: {before} -> {after}");
}
