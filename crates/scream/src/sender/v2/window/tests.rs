use super::*;
use crate::sender::config::SenderConfig;
use crate::units::Bitrate;

fn measurements(now: Instant) -> Measurements {
    Measurements {
        now,
        srtt: Duration::from_millis(20),
        qdelay_avg: Duration::ZERO,
        queue_delay: Duration::ZERO,
        rtt_falling: false,
        rate_acked: Bitrate::ZERO,
        bytes_in_flight: 0,
        steadiness: 1.0,
        total_target: Bitrate::from_mbps(5.0),
        total_max: Bitrate::from_mbps(50.0),
        mss_bytes: 1012,
        newest_acked_sent_at: None,
    }
}

/// Back-off of one CE feedback with `l4s_alpha` held at `alpha` (the feedback's own
/// CE fraction equals alpha, so the EWMA does not move it).
fn l4s_backoff(alpha: f64) -> f64 {
    let cfg = V2Settings::of(&SenderConfig {
        ecn: EcnMode::L4s,
        ..SenderConfig::default()
    });
    let mut w = RefWindow::new(&cfg);
    let t0 = Instant::from_millis(1000);
    w.last_congestion = Some(t0);
    w.ref_wnd = 100_000.0;
    w.l4s_alpha = alpha;
    let now = t0 + Duration::from_millis(30);
    let ack = AckSummary {
        bytes_acked: 100,
        bytes_acked_ce: 100,
        packets_acked: 100,
        packets_ce: (alpha * 100.0).round() as u64,
        packets_lost: 0,
    };
    w.on_feedback(&cfg, &ack, &measurements(now));
    1.0 - w.ref_wnd / 100_000.0
}

#[test]
fn l4s_backoff_is_half_the_averaged_ce_fraction() {
    for alpha in [0.05, 0.2, 0.4, 0.8] {
        let b = l4s_backoff(alpha);
        assert!((b - alpha / 2.0).abs() < 1e-6, "alpha {alpha}: backoff {b}");
    }
}

#[test]
fn no_ce_no_backoff_and_min_window_holds() {
    let cfg = V2Settings::of(&SenderConfig::default());
    let mut w = RefWindow::new(&cfg);
    let ack = AckSummary {
        packets_lost: 1,
        ..AckSummary::default()
    };
    for i in 0..200 {
        w.on_feedback(&cfg, &ack, &measurements(Instant::from_millis(100 * i)));
    }
    assert_eq!(w.ref_wnd_bytes(), u64::from(cfg.min_ref_wnd_bytes));
}

#[test]
fn l4s_alpha_rises_faster_than_it_decays() {
    let cfg = V2Settings::of(&SenderConfig {
        ecn: EcnMode::L4s,
        ..SenderConfig::default()
    });
    let mut w = RefWindow::new(&cfg);
    let marked = AckSummary {
        packets_acked: 10,
        packets_ce: 10,
        ..AckSummary::default()
    };
    w.update_l4s_alpha(
        &cfg,
        &marked,
        Instant::from_millis(100),
        Duration::from_millis(20),
    );
    let risen = w.l4s_alpha;
    assert!((risen - cfg.l4s_avg_g).abs() < 1e-12, "{risen}");
    let clean = AckSummary {
        packets_acked: 10,
        ..AckSummary::default()
    };
    w.update_l4s_alpha(
        &cfg,
        &clean,
        Instant::from_millis(200),
        Duration::from_millis(20),
    );
    let decayed = risen - w.l4s_alpha;
    assert!(
        (decayed - risen * cfg.l4s_avg_g_down).abs() < 1e-12,
        "{decayed}"
    );
    assert!(decayed < risen * cfg.l4s_avg_g);
}

#[test]
fn l4s_backoff_is_quartered_when_the_target_lags_the_acked_rate() {
    let cfg = V2Settings::of(&SenderConfig {
        ecn: EcnMode::L4s,
        ..SenderConfig::default()
    });
    let backoff = |rate_acked: Bitrate| {
        let mut w = RefWindow::new(&cfg);
        let t0 = Instant::from_millis(1000);
        w.last_congestion = Some(t0);
        w.ref_wnd = 100_000.0;
        w.l4s_alpha = 0.4;
        let ack = AckSummary {
            bytes_acked: 100,
            bytes_acked_ce: 40,
            packets_acked: 100,
            packets_ce: 40,
            packets_lost: 0,
        };
        let m = Measurements {
            rate_acked,
            ..measurements(t0 + Duration::from_millis(30))
        };
        w.on_feedback(&cfg, &ack, &m);
        1.0 - w.ref_wnd / 100_000.0
    };
    let full = backoff(Bitrate::from_mbps(5.0));
    let lagging = backoff(Bitrate::from_mbps(10.0));
    assert!((full - 0.2).abs() < 1e-6, "{full}");
    assert!((lagging - 0.05).abs() < 1e-6, "{lagging}");
}

#[test]
fn growth_at_small_rtts_scales_with_the_rtt_not_its_square() {
    let cfg = V2Settings::of(&SenderConfig::default());
    let growth = |srtt_ms: u64| {
        let mut w = RefWindow::new(&cfg);
        w.max_bif = 1_000_000;
        let before = w.ref_wnd;
        let ack = AckSummary {
            bytes_acked: 10_000,
            packets_acked: 10,
            ..AckSummary::default()
        };
        let m = Measurements {
            srtt: Duration::from_millis(srtt_ms),
            ..measurements(Instant::from_millis(1000))
        };
        w.on_feedback(&cfg, &ack, &m);
        w.ref_wnd - before
    };
    let ratio = growth(5) / growth(25);
    // Reference `ScreamV2Tx::updateCwnd`: min(1, s_rtt / 25 ms) = 0.2 at 5 ms (the
    // draft's square would give 0.04).
    assert!((ratio - 0.2).abs() < 1e-9, "{ratio}");
    assert!((growth(50) / growth(25) - 1.0).abs() < 1e-9);
}

/// Window change of one feedback at queue delay average `qavg_ms` and queue-delay
/// steadiness `steadiness`, with `delay-convergence` on or off.
fn delay_step(converge: bool, qavg_ms: u64, steadiness: f64) -> f64 {
    let mut cfg = V2Settings::of(&SenderConfig::default());
    cfg.improvements.delay_convergence = converge;
    let mut w = RefWindow::new(&cfg);
    let t0 = Instant::from_millis(1000);
    w.last_congestion = Some(t0);
    w.ref_wnd = 100_000.0;
    w.ref_wnd_i = 50_000.0;
    w.max_bif = 1_000_000;
    let ack = AckSummary {
        bytes_acked: 10_000,
        packets_acked: 10,
        ..AckSummary::default()
    };
    let m = Measurements {
        qdelay_avg: Duration::from_millis(qavg_ms),
        steadiness,
        ..measurements(t0 + Duration::from_millis(30))
    };
    w.on_feedback(&cfg, &ack, &m);
    w.ref_wnd - 100_000.0
}

#[test]
fn delay_convergence_backs_off_from_a_quarter_of_the_target() {
    // 20 ms: above a quarter of the 60 ms target, below half of it.
    assert!(
        delay_step(false, 20, 1.0) > 0.0,
        "faithful: no back-off yet"
    );
    assert!(delay_step(true, 20, 1.0) < 0.0, "improved: a back-off");
    // Below a quarter neither backs off.
    assert!(delay_step(true, 10, 1.0) > 0.0);
}

#[test]
fn delay_convergence_backs_off_once_per_round_trip_of_data() {
    // A report whose newest packet left before the last back-off tells nothing of
    // whether that back-off was enough: behind a trickling link, each report carries a
    // packet sent seconds earlier.
    let step = |converge: bool, sent_ms: u64| {
        let mut cfg = V2Settings::of(&SenderConfig::default());
        cfg.improvements.delay_convergence = converge;
        let mut w = RefWindow::new(&cfg);
        let t0 = Instant::from_millis(1000);
        w.last_congestion = Some(t0);
        w.ref_wnd = 100_000.0;
        let ack = AckSummary {
            bytes_acked: 1_000,
            packets_acked: 1,
            ..AckSummary::default()
        };
        let m = Measurements {
            qdelay_avg: Duration::from_millis(300),
            newest_acked_sent_at: Some(Instant::from_millis(sent_ms)),
            ..measurements(t0 + Duration::from_millis(400))
        };
        w.on_feedback(&cfg, &ack, &m);
        w.ref_wnd - 100_000.0
    };
    assert!(step(false, 900) < 0.0, "faithful backs off again");
    assert!(step(true, 900) >= 0.0, "sent before the last back-off");
    assert!(
        step(true, 1100) < 0.0,
        "sent after it: a new congestion event"
    );
}

#[test]
fn delay_convergence_keeps_growing_while_the_queue_delay_varies() {
    let steady = delay_step(false, 0, 1.0);
    let faithful = delay_step(false, 0, 0.0);
    let improved = delay_step(true, 0, 0.0);
    assert!((faithful / steady - STEADINESS_MIN).abs() < 1e-9);
    assert!((improved / steady - 1.0).abs() < 1e-9);
}

#[test]
fn delay_convergence_leaves_ecn_flows_alone() {
    let mut cfg = V2Settings::of(&SenderConfig {
        ecn: EcnMode::Classic,
        ..SenderConfig::default()
    });
    cfg.improvements.delay_convergence = true;
    let mut w = RefWindow::new(&cfg);
    let t0 = Instant::from_millis(1000);
    w.last_congestion = Some(t0);
    w.ref_wnd = 100_000.0;
    let m = Measurements {
        qdelay_avg: Duration::from_millis(20),
        ..measurements(t0 + Duration::from_millis(30))
    };
    w.on_feedback(&cfg, &AckSummary::default(), &m);
    assert_eq!(w.ref_wnd, 100_000.0);
}

/// A window that peaked at 200 kB and is at 20 kB after an outage, one feedback
/// acknowledging 10 kB 100 ms after the last congestion event: returns the growth,
/// with `outage-recovery` on or off, after a stall or not.
fn regrowth(improved: bool, stalled: bool) -> f64 {
    let mut cfg = V2Settings::of(&SenderConfig::default());
    cfg.improvements.outage_recovery = improved;
    let mut w = RefWindow::new(&cfg);
    let t0 = Instant::from_millis(1000);
    w.ref_wnd = 200_000.0;
    w.max_bif = 1_000_000;
    let quiet = AckSummary::default();
    w.on_feedback(&cfg, &quiet, &measurements(t0));
    w.last_congestion = Some(t0);
    w.ref_wnd = 20_000.0;
    if stalled {
        w.on_stall(1);
    }
    let ack = AckSummary {
        bytes_acked: 10_000,
        packets_acked: 10,
        ..AckSummary::default()
    };
    w.on_feedback(&cfg, &ack, &measurements(t0 + Duration::from_millis(100)));
    w.ref_wnd - 20_000.0
}

#[test]
fn after_an_outage_the_window_regrows_by_what_is_acknowledged() {
    let improved = regrowth(true, true);
    assert!((improved - 10_000.0).abs() < 1e-6, "{improved}");
    // Faithfully it grows by a few hundred bytes (restrained after congestion).
    let faithful = regrowth(false, true);
    assert!(faithful < 1_000.0, "{faithful}");
    // Without a stall, a window cut by congestion signals regrows as usual.
    assert!((regrowth(true, false) - faithful).abs() < 1e-6);
}

#[test]
fn a_congestion_event_ends_the_regrowth() {
    let mut cfg = V2Settings::of(&SenderConfig::default());
    cfg.improvements.outage_recovery = true;
    let mut w = RefWindow::new(&cfg);
    let t0 = Instant::from_millis(1000);
    w.ref_wnd = 200_000.0;
    w.on_feedback(&cfg, &AckSummary::default(), &measurements(t0));
    w.ref_wnd = 20_000.0;
    w.last_congestion = Some(t0);
    w.on_stall(1);
    let lost = AckSummary {
        packets_lost: 1,
        ..AckSummary::default()
    };
    w.on_feedback(&cfg, &lost, &measurements(t0 + Duration::from_millis(100)));
    assert!(!w.regrow_armed);
}
