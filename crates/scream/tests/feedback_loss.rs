//! Lost feedback is not lost media. The receiver repeats the last 64 sequence numbers
//! in every report, so most lost reports are repaired by the next one; packets no report
//! ever covered have an unknown fate and must not be taken for losses, and the send
//! window must not wait for the reports that were lost (`sender::late_feedback`).

mod feedback_loop;

use feedback_loop::{Rng, Setup, report, run};
use scream::{Duration, Instant};

const FROM: Instant = Instant::from_millis(5_000);
const END: Instant = Instant::from_millis(30_000);

/// Goodput over 5..30 s on a link of `capacity` bit/s, and the packets that loss
/// detection, and the in-flight timeout or the stall guard, declared lost although the
/// link delivered them, with each report lost with probability `p`.
fn with_feedback_loss(capacity: f64, p: f64, seed: u64) -> (f64, u64, u64) {
    let mut rng = Rng::new(seed);
    let out = run(Setup {
        duration: END - Instant::ZERO,
        capacity: vec![(Instant::ZERO, capacity)],
        lose_report: Box::new(move |_| rng.next_f64() < p),
        ..Setup::default()
    });
    let detected = out.falsely_detected_lost();
    (
        out.goodput(FROM, END),
        detected,
        out.falsely_lost() - detected,
    )
}

/// With half of the reports lost, the goodput stays within 10 % of the loss-free
/// run's (it was 79-81 % at 4 Mbit/s and 95-98 % at 10 Mbit/s before the send window
/// stopped waiting for lost reports), and no delivered packet is counted lost.
#[test]
fn half_the_feedback_lost_keeps_most_of_the_throughput() {
    let mut failed = vec![];
    for capacity in [4e6, 10e6] {
        let (clean, clean_lost, _) = with_feedback_loss(capacity, 0.0, 1);
        for seed in [1, 2, 3] {
            let (lossy, lost, given_up) = with_feedback_loss(capacity, 0.5, seed);
            let ratio = lossy / clean;
            report(
                "50 % of the feedback lost",
                format_args!(
                    "{} Mbit/s, seed {seed}: goodput {:.2} Mbit/s vs {:.2} without feedback loss ({:.0} %), {lost} delivered packets declared lost by loss detection (without feedback loss {clean_lost}), {given_up} by the in-flight timeout or the stall guard",
                    capacity / 1e6,
                    lossy / 1e6,
                    clean / 1e6,
                    ratio * 100.0
                ),
            );
            if ratio < 0.9 {
                failed.push(format!(
                    "{capacity} bit/s, seed {seed}: {:.0} % of the goodput",
                    ratio * 100.0
                ));
            }
            if lost > 0 {
                failed.push(format!(
                    "{capacity} bit/s, seed {seed}: {lost} delivered packets declared lost"
                ));
            }
            // When the window was full and the reports about its last packets were all
            // lost, the receiver had nothing more to report, and the stall guard gave up
            // the whole flight (314-343 packets at 4 Mbit/s before the send window
            // stopped waiting for lost reports).
            if given_up > 0 {
                failed.push(format!(
                    "{capacity} bit/s, seed {seed}: {given_up} delivered packets given up"
                ));
            }
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

/// Packets sent during a 3 s outage of the forward path (from 10 s on), with each
/// report lost with probability `p` before and after it.
fn sent_into_outage(p: f64, seed: u64) -> (u64, f64) {
    let mut rng = Rng::new(seed);
    let (from, to) = (Instant::from_millis(10_000), Instant::from_millis(13_000));
    let out = run(Setup {
        duration: Duration::from_secs(16),
        // 1 kbit/s: everything sent meanwhile waits beyond the buffer and is dropped.
        capacity: vec![(Instant::ZERO, 4e6), (from, 1e3), (to, 4e6)],
        lose_report: Box::new(move |_| rng.next_f64() < p),
        ..Setup::default()
    });
    let sent_at = |t: Instant| {
        out.samples
            .iter()
            .find(|s| s.at >= t)
            .map_or(0, |s| s.stats.packets_sent)
    };
    (
        sent_at(to) - sent_at(from),
        out.goodput(from - Duration::from_secs(5), from),
    )
}

/// The send window stops waiting for lost reports only while feedback still comes:
/// a forward outage after a spell of lost reports costs at most about one window more
/// than the same outage with every report delivered (the stall guard then sends one
/// window every half second into it either way).
#[test]
fn an_outage_after_lost_reports_costs_at_most_one_more_window() {
    let (clean, _) = sent_into_outage(0.0, 1);
    for seed in [1, 2, 3] {
        let (lossy, rate) = sent_into_outage(0.5, seed);
        assert!(rate > 3.5e6, "seed {seed}: {rate} bit/s before the outage");
        report(
            "outage after lost reports",
            format_args!(
                "seed {seed}: {lossy} packets sent into 3 s of outage, {clean} with every report delivered"
            ),
        );
        // One window is about 40 packets at 4 Mbit/s.
        assert!(
            lossy <= clean + 60,
            "seed {seed}: {lossy} vs {clean} packets"
        );
    }
}
