//! `tail-loss-probe` and a sudden capacity drop: RACK's reordering timer (RFC 8985
//! §6.3) gives up the packets a tail-drop queue dropped just before the last one it let
//! through, so the sender resumes within about an RTT instead of waiting for the stall
//! guard with the link idle.

mod feedback_loop;

use feedback_loop::{Outcome, Setup, report, run};
use scream::sender::SenderConfig;
use scream::{Duration, Instant};

const DROP_AT: Instant = Instant::from_millis(10_000);
const END: Instant = Instant::from_millis(14_000);
/// The bottleneck's tail drop.
const BUFFER: Duration = Duration::from_millis(100);

/// A run on a link that falls from `before` to `after` bit/s at `DROP_AT` while the
/// flow sends at up to its 20 Mbit/s maximum.
fn drop_run(config: SenderConfig, before: f64, after: f64) -> Outcome {
    run(Setup {
        duration: END - Instant::ZERO,
        capacity: vec![(Instant::ZERO, before), (DROP_AT, after)],
        buffer: BUFFER,
        config,
        ..Setup::default()
    })
}

fn with_rack() -> SenderConfig {
    let mut cfg = SenderConfig::default();
    cfg.improvements.tail_loss_probe = true;
    cfg
}

/// The longest time without an arrival at the receiver after the drop.
fn silence_after_drop(out: &Outcome) -> Duration {
    let mut times: Vec<Instant> = out
        .arrivals
        .iter()
        .map(|(t, _)| *t)
        .filter(|t| *t >= DROP_AT)
        .collect();
    times.push(END);
    times
        .windows(2)
        .map(|w| w[1].saturating_duration_since(w[0]))
        .max()
        .unwrap_or(Duration::ZERO)
}

#[test]
fn the_reordering_timer_shortens_the_silence_after_a_sudden_drop() {
    // 60 -> 0.5 Mbit/s behind a 100 ms tail drop: a factor of 120, beyond the
    // evaluation's `sudden-drop` class.
    let faithful = silence_after_drop(&drop_run(SenderConfig::default(), 60e6, 0.5e6));
    let probed = silence_after_drop(&drop_run(with_rack(), 60e6, 0.5e6));
    report(
        "silence after a drop to 0.5 Mbit/s",
        format_args!("faithful {faithful:?}, tail-loss-probe {probed:?}"),
    );
    // Faithfully the stall guard ends it, half a second after the last transmission.
    assert!(faithful >= Duration::from_millis(300), "{faithful:?}");
    // The timer fires an RTT (50 ms of path, up to 100 ms of queue) and the 30 ms
    // reordering window after the last overtaken packet left; the bound.
    assert!(probed <= Duration::from_millis(200), "{probed:?}");
}
