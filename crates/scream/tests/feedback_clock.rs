//! Report times the sender cannot trust: a forged or corrupted report from far in the
//! future, and a receiver whose clock steps. Each may cost a few reports, never the
//! feedback of the rest of the session (shared/DESIGN.md §2: inconsistent feedback
//! "cannot blind the sender for long").

mod feedback_loop;

use feedback_loop::{Outcome, Setup, report, run};
use scream::wire::ccfb::Q16_TICKS_PER_SECOND;
use scream::{Duration, Instant};

const EVENT: Instant = Instant::from_millis(10_000);
const DROP: Instant = Instant::from_millis(20_000);
const END: Instant = Instant::from_millis(40_000);
const LOW_RATE: f64 = 3e6;

/// 10 Mbit/s until 20 s, then 3 Mbit/s, for 40 s: whether the sender still follows
/// the link after the event at 10 s shows whether it still hears its feedback.
fn setup() -> Setup {
    Setup {
        duration: END - Instant::ZERO,
        capacity: vec![(Instant::ZERO, 10e6), (DROP, LOW_RATE)],
        ..Setup::default()
    }
}

/// Checks that the sender heard its feedback again soon after the event, kept the
/// rate on the 10 Mbit/s link and then followed the link down; returns what failed.
fn check(name: &str, out: &Outcome, forged: usize) -> Vec<String> {
    let ignored = out.wholly_ignored_since(EVENT);
    let last = ignored.last().map_or(EVENT, |d| d.at);
    let before = out.mean_target(EVENT - Duration::from_secs(5), EVENT);
    let after = out.mean_target(EVENT + Duration::from_secs(1), DROP);
    let settled = DROP + Duration::from_secs(5);
    let goodput = out.goodput(settled, END);
    let target = out.mean_target(settled, END);
    report(
        name,
        format_args!(
            "{} reports ignored whole after the event (last {:.3} s after it), {} per-packet reports ignored in all; mean target 5 s before {:.2}, in the 9 s after {:.2} Mbit/s; on the 3 Mbit/s link goodput {:.2} and mean target {:.2} Mbit/s; {} packets declared lost that the link delivered",
            ignored.len(),
            (last - EVENT).as_secs_f64(),
            out.last.feedback_ignored,
            before / 1e6,
            after / 1e6,
            goodput / 1e6,
            target / 1e6,
            out.falsely_lost(),
        ),
    );
    let mut failed = vec![];
    if ignored.len() > forged + 3 {
        failed.push(format!("{name}: {} reports ignored whole", ignored.len()));
    }
    if last - EVENT > Duration::from_secs(1) {
        failed.push(format!("{name}: feedback ignored until {last:?}"));
    }
    if after < 0.8 * before {
        failed.push(format!("{name}: target fell from {before} to {after}"));
    }
    if target > 1.2 * LOW_RATE {
        failed.push(format!("{name}: target {target} on the 3 Mbit/s link"));
    }
    if goodput < 0.8 * LOW_RATE {
        failed.push(format!("{name}: goodput {goodput}"));
    }
    if out.falsely_lost() > 50 {
        failed.push(format!(
            "{name}: {} delivered packets declared lost",
            out.falsely_lost()
        ));
    }
    failed
}

#[test]
fn a_report_far_in_the_future_costs_at_most_a_few_reports() {
    let mut failed = vec![];
    for (name, ahead_secs) in [
        ("0.5 s ahead", 0.5),
        ("5.5 s ahead", 5.5),
        ("1 h ahead", 3600.0),
        ("9 h ahead", 9.0 * 3600.0),
    ] {
        let mut s = setup();
        let mut done = false;
        let ticks = (ahead_secs * Q16_TICKS_PER_SECOND as f64) as u32;
        s.tamper = Box::new(move |now, r| {
            if done || now < EVENT {
                return vec![r];
            }
            done = true;
            let mut forged = r.clone();
            forged.report_timestamp = forged.report_timestamp.wrapping_add(ticks);
            vec![forged, r]
        });
        failed.extend(check(name, &run(s), 1));
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

#[test]
fn a_replayed_old_report_costs_nothing_but_itself() {
    let mut s = setup();
    let mut kept = None;
    s.tamper = Box::new(move |now, r| {
        if now < Instant::from_millis(5_000) {
            kept = Some(r.clone());
            return vec![r];
        }
        match (now >= EVENT, kept.take()) {
            (true, Some(old)) => vec![old, r],
            (_, k) => {
                kept = k;
                vec![r]
            }
        }
    });
    let failed = check("replay of a 5 s old report", &run(s), 1);
    assert!(failed.is_empty(), "{failed:#?}");
}

#[test]
fn a_receiver_clock_step_costs_at_most_a_second_of_feedback() {
    let mut failed = vec![];
    const HOUR: i64 = 3_600_000_000_000;
    for (name, step) in [
        ("receiver clock +1 h", HOUR),
        ("receiver clock -1 h", -HOUR),
    ] {
        let s = Setup {
            rx_step: Some((EVENT, step)),
            ..setup()
        };
        failed.extend(check(name, &run(s), 0));
    }
    assert!(failed.is_empty(), "{failed:#?}");
}
