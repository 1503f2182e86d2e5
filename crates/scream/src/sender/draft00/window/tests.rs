//! The §9.1.4 window law, one feedback at a time.

use super::*;
use crate::sender::config::SenderConfig;
use crate::units::Bitrate;

fn settings() -> Draft00Config {
    let cfg = SenderConfig::for_generation("scream-draft00").expect("known");
    cfg.draft00().expect("a draft-00 configuration").clone()
}

fn measurements(now_ms: u64, qdelay_ms: u64, bif: u64, srtt_ms: u64) -> Measurements {
    Measurements {
        now: Instant::from_millis(now_ms),
        srtt: Duration::from_millis(srtt_ms),
        qdelay_avg: Duration::ZERO,
        queue_delay: Duration::from_millis(qdelay_ms),
        rtt_falling: false,
        rate_acked: Bitrate::ZERO,
        bytes_in_flight: bif,
        steadiness: 1.0,
        total_target: Bitrate::ZERO,
        total_max: Bitrate::from_mbps(100.0),
        mss_bytes: 1200,
        newest_acked_sent_at: None,
    }
}

fn acked(bytes: u64) -> AckSummary {
    AckSummary {
        bytes_acked: bytes,
        packets_acked: bytes / 1200,
        ..AckSummary::default()
    }
}

/// The change of a 10 kB window by one feedback that acknowledges 1000 bytes at
/// queue delay `qdelay_ms`, the previous feedback having seen `prev_ms`, with `bif`
/// in flight at sRTT `srtt_ms`. §9.1.4 makes it gain · factor · offTarget · 1000 ·
/// 1200 / 10000 = 120 · gain · factor · offTarget bytes.
fn one_step(prev_ms: u64, qdelay_ms: u64, bif: u64, srtt_ms: u64) -> f64 {
    let cfg = settings();
    let mut w = Cwnd::new(&cfg, true);
    w.on_feedback(&cfg, &acked(0), &measurements(999, prev_ms, bif, srtt_ms));
    assert_eq!(w.cwnd, 10_000.0);
    w.on_feedback(
        &cfg,
        &acked(1000),
        &measurements(1000, qdelay_ms, bif, srtt_ms),
    );
    w.cwnd - 10_000.0
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-6
}

#[test]
fn at_an_empty_queue_the_window_grows_when_half_of_it_is_in_flight() {
    // offTarget 1, headroom 2: 6 kB · 2 > 10 kB grows by gain_up packets per window.
    let grown = one_step(0, 0, 6000, 50);
    assert!(close(grown, 120.0), "{grown}");
    // 4 kB · 2 < 10 kB: the pipe is not filled enough.
    assert_eq!(one_step(0, 0, 4000, 50), 0.0);
}

#[test]
fn near_the_target_growth_needs_a_fuller_pipe() {
    // Half way to the target: offTarget 0.5, headroom 1.5. 6 kB · 1.5 < 10 kB.
    assert_eq!(one_step(40, 40, 6000, 50), 0.0);
    // 7 kB · 1.5 > 10 kB: grows, by half as much as at an empty queue.
    let grown = one_step(40, 40, 7000, 50);
    assert!(close(grown, 60.0), "{grown}");
}

#[test]
fn above_the_target_the_window_shrinks_by_gain_down_on_a_short_rtt() {
    let shrunk = one_step(160, 160, 0, 50);
    assert!(close(shrunk, -120.0), "{shrunk}");
}

#[test]
fn a_holding_or_rising_delay_on_a_long_rtt_shrinks_the_window_faster() {
    // The RTT factor min(2, max(0.1, rtt) / 0.1): 2 at 200 ms and above, 1.5 at 150 ms.
    assert!(close(one_step(160, 160, 0, 200), -240.0));
    assert!(close(one_step(120, 160, 0, 150), -180.0));
    assert!(close(one_step(160, 160, 0, 400), -240.0));
}

#[test]
fn a_falling_delay_shrinks_the_window_at_the_plain_gain() {
    let falling = one_step(200, 160, 0, 200);
    assert!(close(falling, -120.0), "{falling}");
}

#[test]
fn off_target_is_clamped_at_minus_three() {
    assert!(close(one_step(320, 320, 0, 50), -360.0));
    assert!(close(one_step(800, 800, 0, 50), -360.0));
}

#[test]
fn loss_backs_off_once_per_rtt_and_the_window_stays_above_three_packets() {
    let cfg = settings();
    let mut w = Cwnd::new(&cfg, true);
    let lost = AckSummary {
        packets_lost: 1,
        ..AckSummary::default()
    };
    let m = |t| measurements(t, 0, 0, 50);
    assert_eq!(
        w.on_feedback(&cfg, &lost, &m(1000)),
        Some((BackOffCause::Loss, 10_000, 8000))
    );
    // §9.1.3: only once more than an RTT has passed.
    assert_eq!(w.on_feedback(&cfg, &lost, &m(1050)), None);
    assert!(w.on_feedback(&cfg, &lost, &m(1051)).is_some());
    for i in 0..100 {
        w.on_feedback(&cfg, &lost, &m(2000 + 60 * i));
    }
    assert_eq!(w.cwnd_bytes(), 3 * MSS_INIT);
    // A larger packet raises the floor.
    w.on_sent(1500);
    w.on_feedback(&cfg, &acked(0), &m(9000));
    assert_eq!(w.cwnd_bytes(), 4500);
}

#[test]
fn the_send_limit_keeps_the_flight_strictly_below_the_window() {
    let w = Cwnd::new(&settings(), true);
    assert_eq!(w.send_limit_bytes(), 9_999);
}

#[test]
fn ce_is_a_loss_only_for_a_sender_that_asked_for_ecn() {
    let cfg = settings();
    let marked = AckSummary {
        packets_ce: 1,
        ..AckSummary::default()
    };
    let mut w = Cwnd::new(&cfg, true);
    let r = w.on_feedback(&cfg, &marked, &measurements(1000, 0, 0, 50));
    assert_eq!(r, Some((BackOffCause::Ce, 10_000, 8000)));
    let mut w = Cwnd::new(&cfg, false);
    assert_eq!(
        w.on_feedback(&cfg, &marked, &measurements(1000, 0, 0, 50)),
        None
    );
}
