//! Lost feedback is not lost media. The receiver repeats the last 64 sequence numbers
//! in every report, so most lost reports are repaired by the next one; packets no report
//! ever covered have an unknown fate and must not be taken for losses.

mod feedback_loop;

use feedback_loop::{Rng, Setup, report, run};
use scream::Instant;

const FROM: Instant = Instant::from_millis(5_000);
const END: Instant = Instant::from_millis(30_000);

/// Goodput over 5..30 s on a 10 Mbit/s link, and the packets that loss detection and
/// the in-flight timeout declared lost although the link delivered them, with each
/// report lost with probability `p`.
fn with_feedback_loss(p: f64, seed: u64) -> (f64, u64, u64) {
    let mut rng = Rng::new(seed);
    let out = run(Setup {
        duration: END - Instant::ZERO,
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

#[test]
fn half_the_feedback_lost_keeps_most_of_the_throughput() {
    let (clean, clean_lost, _) = with_feedback_loss(0.0, 1);
    let mut failed = vec![];
    for seed in [1, 2, 3] {
        let (lossy, lost, timed_out) = with_feedback_loss(0.5, seed);
        let ratio = lossy / clean;
        report(
            "50 % of the feedback lost",
            format_args!(
                "seed {seed}: goodput {:.2} Mbit/s vs {:.2} without feedback loss ({:.0} %), {lost} delivered packets declared lost by loss detection (without feedback loss {clean_lost}), {timed_out} by the in-flight timeout",
                lossy / 1e6,
                clean / 1e6,
                ratio * 100.0
            ),
        );
        if ratio < 0.85 {
            failed.push(format!(
                "seed {seed}: {:.0} % of the goodput",
                ratio * 100.0
            ));
        }
        // The in-flight timeout is another matter: when the window is full and the last
        // reports before the receiver falls silent are all lost, nothing tells the
        // sender for a second.
        if lost > 0 {
            failed.push(format!(
                "seed {seed}: {lost} delivered packets declared lost"
            ));
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}
