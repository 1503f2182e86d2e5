use super::aimd::RemoteRate;
use super::detector::{Detector, DetectorConfig};
use super::loss::LossBased;
use super::*;
use crate::rate_control::Arrival;
use scream::{Ecn, RemoteInstant};

const RTT: Duration = Duration::from_millis(50);

fn state() -> SenderState {
    SenderState {
        srtt: RTT,
        queued_bytes: 0,
    }
}

fn rates(start_mbps: f64) -> [Bitrate; 3] {
    [0.1, start_mbps, 20.0].map(Bitrate::from_mbps)
}

/// Drives `gcc` with frames of four 1000-byte packets every 20 ms (1.6 Mbit/s), one
/// report per frame; each frame's packets arrive `extra_ms(frame)` later than the path's
/// 25 ms. Returns the usages seen after each report.
fn drive(gcc: &mut Gcc, frames: std::ops::Range<u64>, extra_ms: impl Fn(u64) -> f64) -> Vec<Usage> {
    let mut seen = Vec::new();
    for f in frames {
        let results: Vec<PacketResult> = (0..4u64)
            .map(|p| {
                let sent_us = f * 20_000 + p * 500;
                let arrival_us = sent_us as f64 + 25_000.0 + p as f64 * 1600.0 + extra_ms(f) * 1e3;
                PacketResult {
                    sent: Instant::from_micros(sent_us),
                    arrival: Arrival::At(
                        RemoteInstant::from_micros(arrival_us as u64),
                        Ecn::NotEct,
                    ),
                    size_bytes: 1000,
                    probe: None,
                }
            })
            .collect();
        let now = Instant::from_micros(f * 20_000 + 60_000);
        gcc.on_feedback(now, &results, state());
        seen.push(gcc.usage());
    }
    seen
}

fn gcc(estimator: GccEstimator, start_mbps: f64) -> Gcc {
    Gcc::new(
        GccConfig::default(),
        estimator,
        GccVariant::Draft02,
        rates(start_mbps),
    )
}

#[test]
fn over_use_cuts_the_estimate_to_beta_times_the_received_rate() {
    for estimator in [GccEstimator::Kalman, GccEstimator::Trendline] {
        let mut g = gcc(estimator, 1.0);
        drive(&mut g, 0..100, |_| 0.0);
        assert_eq!(
            g.usage(),
            Usage::Normal,
            "{estimator:?}: a flat delay is normal"
        );
        // The queue grows 4 ms per 20 ms frame: a 20 % over-use.
        let seen = drive(&mut g, 100..130, |f| (f - 100) as f64 * 4.0);
        assert!(seen.contains(&Usage::Over), "{estimator:?}: {seen:?}");
        assert_eq!(g.rate_state(), RateState::Decrease, "{estimator:?}");
        let received = g.received_rate().unwrap();
        assert!(
            g.delay_based().bps() <= 0.85 * received.bps() + 1.0,
            "{estimator:?}: {:?} vs {:?}",
            g.delay_based(),
            received
        );
        assert!(g.target() <= g.delay_based());
    }
}

#[test]
fn kalman_and_trendline_both_detect_a_queue_build_up_but_not_a_flat_delay() {
    for estimator in [GccEstimator::Kalman, GccEstimator::Trendline] {
        let mut g = gcc(estimator, 1.0);
        let flat = drive(&mut g, 0..200, |_| 0.0);
        assert!(!flat.contains(&Usage::Over), "{estimator:?}: {flat:?}");
        // A gentler build-up: 1 ms per frame, a 5 % over-use.
        let growing = drive(&mut g, 200..260, |f| (f - 200) as f64);
        assert!(growing.contains(&Usage::Over), "{estimator:?}: {growing:?}");
    }
}

#[test]
fn under_use_holds_the_estimate() {
    for estimator in [GccEstimator::Kalman, GccEstimator::Trendline] {
        let mut g = gcc(estimator, 1.0);
        // A standing queue of 100 ms, built at 2 ms per frame, drains at 5 ms per frame.
        let queue = |f: u64| match f {
            0..50 => 0.0,
            50..100 => (f - 50) as f64 * 2.0,
            100..400 => 100.0,
            _ => 100.0 - ((f - 400) as f64 * 5.0).min(100.0),
        };
        drive(&mut g, 0..400, queue);
        let seen = drive(&mut g, 400..420, queue);
        let Some(first) = seen.iter().position(|u| *u == Usage::Under) else {
            panic!("{estimator:?}: {seen:?}");
        };
        let held = g.delay_based();
        assert_eq!(g.rate_state(), RateState::Hold, "{estimator:?}");
        assert!(
            seen[first..].iter().all(|u| *u == Usage::Under),
            "{estimator:?}: {seen:?}"
        );
        let later = drive(&mut g, 420..421, |_| 0.0);
        assert_eq!(later, [Usage::Under], "{estimator:?}");
        assert_eq!(
            g.delay_based(),
            held,
            "{estimator:?}: the estimate holds while under-used"
        );
    }
}

/// Updates `r` with `usage` every 40 ms for `secs`, the receive rate fixed at `recv`.
fn run_remote(
    r: &mut RemoteRate,
    from: Instant,
    secs: f64,
    usage: Usage,
    recv: Bitrate,
) -> Instant {
    let mut now = from;
    let steps = (secs / 0.04).round() as u32;
    for _ in 0..steps {
        now += Duration::from_millis(40);
        r.update(now, usage, Some(recv), RTT);
    }
    now
}

#[test]
fn increase_is_multiplicative_far_from_convergence_and_additive_near_it() {
    let recv = Bitrate::from_mbps(1.0);
    let mut r = RemoteRate::new(Bitrate::from_mbps(1.0), 0.85, 1.08, false);
    let t0 = Instant::from_millis(1000);
    r.update(t0, Usage::Normal, Some(recv), RTT);
    let t1 = run_remote(&mut r, t0, 1.0, Usage::Normal, recv);
    let grown = r.estimate().bps() / 1e6;
    assert!((grown - 1.08).abs() < 1e-6, "8 % in one second: {grown}");

    // An over-use at 1 Mbit/s records it as the level of convergence...
    r.update(t1 + Duration::from_millis(40), Usage::Over, Some(recv), RTT);
    assert_eq!(r.state(), RateState::Decrease);
    assert!((r.estimate().bps() - 850_000.0).abs() < 1.0);
    assert!(r.near_convergence(recv));
    // ...so that growth near it is additive: half a packet per response time, here
    // (40 / 150) x 0.5 x 9444 bits per update.
    let t2 = run_remote(
        &mut r,
        t1 + Duration::from_millis(40),
        0.08,
        Usage::Normal,
        recv,
    );
    assert_eq!(r.state(), RateState::Increase);
    // (Five updates keep the estimate below 864 kbit/s, where a 30 fps frame still
    // takes three 1200-byte packets.)
    let before = r.estimate().bps();
    run_remote(&mut r, t2, 0.2, Usage::Normal, recv);
    let step = (r.estimate().bps() - before) / 5.0;
    let expected = 0.5 * (40.0 / 150.0) * (before / 30.0 / 3.0);
    assert!(
        (step - expected).abs() / expected < 0.01,
        "{step} vs {expected}"
    );
    let multiplicative = before * (1.08f64.powf(0.2) - 1.0) / 5.0;
    assert!(step < multiplicative / 2.0, "{step} vs {multiplicative}");
}

#[test]
fn increase_is_bounded_by_one_and_a_half_times_the_received_rate() {
    let mut r = RemoteRate::new(Bitrate::from_mbps(1.0), 0.85, 1.08, false);
    run_remote(
        &mut r,
        Instant::ZERO,
        30.0,
        Usage::Normal,
        Bitrate::from_mbps(1.0),
    );
    assert!(
        (r.estimate().mbps() - 1.5).abs() < 1e-9,
        "{:?}",
        r.estimate()
    );
}

fn detector() -> Detector {
    Detector::new(DetectorConfig {
        initial_threshold_ms: 12.5,
        k_u: 0.01,
        k_d: 0.00018,
        overuse_time_ms: 10.0,
    })
}

#[test]
fn threshold_grows_with_k_u_outside_and_shrinks_with_k_d_inside() {
    let mut d = detector();
    d.detect(0.0, 20.0);
    // Two deltas so far: the estimate counts twice. 11.25 x 2 = 22.5 ms, 10 ms above.
    d.detect(11.25, 20.0);
    let up = 12.5 + 20.0 * 0.01 * 10.0;
    assert!((d.threshold_ms() - up).abs() < 1e-9, "{}", d.threshold_ms());
    d.detect(0.0, 20.0);
    let down = up + 20.0 * 0.00018 * (0.0 - up);
    assert!(
        (d.threshold_ms() - down).abs() < 1e-9,
        "{}",
        d.threshold_ms()
    );
    // A spike more than 15 ms above the threshold leaves it alone.
    d.detect(100.0, 20.0);
    assert!((d.threshold_ms() - down).abs() < 1e-9);
}

#[test]
fn threshold_stays_within_six_and_six_hundred_ms() {
    let mut d = detector();
    for _ in 0..100_000 {
        d.detect(0.0, 100.0);
    }
    assert_eq!(d.threshold_ms(), 6.0);
    let mut d = detector();
    let mut m = 0.0;
    for _ in 0..100_000 {
        // Always 10 ms above the threshold (in the scaled units of 60 deltas).
        m = (d.threshold_ms() + 10.0) / 60.0;
        d.detect(m, 100.0);
    }
    assert!(m > 0.0);
    assert_eq!(d.threshold_ms(), 600.0);
}

#[test]
fn loss_based_estimate_follows_the_two_and_ten_percent_thresholds() {
    let max = Bitrate::from_mbps(20.0);
    let in_use = Bitrate::from_mbps(4.0);
    let mut l = LossBased::new(max, 0.02, 0.1);
    let mut now = Instant::from_millis(1000);
    // 1 % loss: grows 5 % (from the maximum it starts at, so it stays there).
    l.on_report(now, 1, 100, in_use, RTT);
    assert_eq!(l.estimate(), max);
    // 5 % loss: holds at the rate in use.
    now += Duration::from_secs(1);
    l.on_report(now, 5, 100, in_use, RTT);
    assert_eq!(l.estimate(), in_use);
    // 1 % again: 5 % more.
    now += Duration::from_secs(1);
    l.on_report(now, 1, 100, in_use, RTT);
    assert!((l.estimate().mbps() - 4.2).abs() < 1e-9);
    // 20 % loss: times (1 - 0.5 x 0.2) of the rate in use.
    now += Duration::from_secs(1);
    l.on_report(now, 20, 100, in_use, RTT);
    assert!(
        (l.estimate().mbps() - 3.6).abs() < 1e-9,
        "{:?}",
        l.estimate()
    );
    // Fewer than 20 packets are not judged yet.
    now += Duration::from_secs(1);
    l.on_report(now, 10, 10, in_use, RTT);
    assert!((l.estimate().mbps() - 3.6).abs() < 1e-9);
}

#[test]
fn target_is_the_smaller_estimate_within_the_flow_range() {
    let mut g = Gcc::new(
        GccConfig::default(),
        GccEstimator::Kalman,
        GccVariant::Draft02,
        [0.5, 1.0, 1.2].map(Bitrate::from_mbps),
    );
    drive(&mut g, 0..500, |_| 0.0);
    assert_eq!(g.target(), Bitrate::from_mbps(1.2), "capped at the maximum");
    // Every packet of a report lost: the loss-based estimate halves towards the minimum.
    for f in 0..200u64 {
        let results: Vec<PacketResult> = (0..25u64)
            .map(|p| PacketResult {
                sent: Instant::from_micros(20_000_000 + f * 20_000 + p * 100),
                arrival: Arrival::Lost,
                size_bytes: 1000,
                probe: None,
            })
            .collect();
        g.on_feedback(
            Instant::from_micros(20_100_000 + f * 20_000),
            &results,
            state(),
        );
    }
    assert!(g.loss_based() < Bitrate::from_mbps(0.5));
    assert_eq!(
        g.target(),
        Bitrate::from_mbps(0.5),
        "floored at the minimum"
    );
    assert!(g.threshold_ms() >= 6.0);
}
