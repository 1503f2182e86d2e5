use super::*;
use crate::rate_control::Arrival;
use scream::{Ecn, RemoteInstant};

const RTT: Duration = Duration::from_millis(50);

fn nada() -> Nada {
    Nada::new(
        NadaConfig::default(),
        [0.1, 1.0, 20.0].map(Bitrate::from_mbps),
        50.0,
    )
}

/// One report every 20 ms of ten 1000-byte packets (4 Mbit/s), 2 ms apart, each
/// `queue_ms(report)` late; `fate(report, packet)` may lose or mark one.
fn drive(
    n: &mut Nada,
    reports: std::ops::Range<u64>,
    queue_ms: impl Fn(u64) -> f64,
    fate: impl Fn(u64, u64) -> Option<Arrival>,
) {
    for f in reports {
        let results: Vec<PacketResult> = (0..10u64)
            .map(|p| {
                let sent_us = f * 20_000 + p * 2000;
                let at = RemoteInstant::from_micros(sent_us + 25_000 + (queue_ms(f) * 1e3) as u64);
                PacketResult {
                    sent: Instant::from_micros(sent_us),
                    arrival: fate(f, p).unwrap_or(Arrival::At(at, Ecn::Ect0)),
                    size_bytes: 1000,
                    probe: None,
                }
            })
            .collect();
        let s = SenderState {
            srtt: RTT,
            queued_bytes: 0,
        };
        n.on_feedback(Instant::from_micros(f * 20_000 + 70_000), &results, s);
    }
}

fn clean(_: u64, _: u64) -> Option<Arrival> {
    None
}

/// An empty queue for the first report (the base delay), then 5 ms.
fn five(f: u64) -> f64 {
    if f == 0 { 0.0 } else { 5.0 }
}

#[test]
fn ramps_up_on_an_empty_queue_and_switches_to_gradual_when_it_builds() {
    let mut n = nada();
    drive(&mut n, 0..50, |_| 0.0, clean);
    assert_eq!(n.mode(), Mode::RampUp);
    // γ = min(0.5, 50 / (50 + 100 + 120)) over the 4 Mbit/s received.
    let gamma: f64 = 50.0 / 270.0;
    let r = n.reference_rate().bps();
    assert!((r - (1.0 + gamma) * 4e6).abs() / 4e6 < 0.03, "{r}");
    drive(&mut n, 50..60, |f| (f - 49) as f64 * 2.0, clean);
    assert_eq!(n.mode(), Mode::Gradual);
}

#[test]
fn a_queue_above_the_equilibrium_lowers_the_reference_rate_and_a_short_one_raises_it() {
    let mut n = nada();
    drive(&mut n, 0..50, |_| 0.0, clean);
    // Equilibrium at r_ref = 4.7 Mbit/s: x = XREF RMAX / r_ref = 10 x 20 / 4.7 ≈ 43 ms.
    drive(&mut n, 50..60, |_| 100.0, clean);
    let high = n.reference_rate();
    drive(&mut n, 60..200, |_| 100.0, clean);
    assert!(
        n.reference_rate() < high,
        "{:?} vs {high:?}",
        n.reference_rate()
    );
    let low = n.reference_rate();
    drive(&mut n, 200..400, |_| 15.0, clean);
    assert_eq!(n.mode(), Mode::Gradual, "15 ms is above QEPS");
    assert!(
        n.reference_rate() > low,
        "{:?} vs {low:?}",
        n.reference_rate()
    );
}

#[test]
fn loss_and_ecn_marks_add_their_penalties_to_the_congestion_signal() {
    let mut quiet = nada();
    drive(&mut quiet, 0..200, five, clean);
    let base = quiet.congestion_ms();
    assert!((base - 5.0).abs() < 0.5, "{base}");

    // One packet in ten lost: p_loss approaches 0.1, DLOSS (0.1/0.01)^2 = 1000 ms,
    // clipped to X_MAX. 200 reports are 4 s, 40 smoothing steps of DELTA.
    let mut lossy = nada();
    drive(&mut lossy, 0..200, five, |_, p| {
        (p == 3).then_some(Arrival::Lost)
    });
    let (p_loss, _) = lossy.ratios();
    assert!((p_loss - 0.1).abs() < 0.01, "{p_loss}");
    let expected = (5.0 + 10.0 * (p_loss / 0.01).powi(2)).min(signal::X_MAX_MS);
    assert!((lossy.congestion_ms() - expected).abs() < 1.0);

    // One in ten CE-marked: DMARK (0.1/0.01)^2 = 200 ms.
    let mut marked = nada();
    let ce = |f: u64, p: u64| {
        let at = RemoteInstant::from_micros(f * 20_000 + p * 2000 + 30_000);
        (p == 3).then_some(Arrival::At(at, Ecn::Ce))
    };
    drive(&mut marked, 0..200, five, ce);
    let (_, p_mark) = marked.ratios();
    assert!((p_mark - 0.1).abs() < 0.01, "{p_mark}");
    let expected = 5.0 + 2.0 * (p_mark / 0.01).powi(2);
    assert!((marked.congestion_ms() - expected).abs() < 1.0);
    assert!(marked.reference_rate() < quiet.reference_rate());
    assert!(lossy.reference_rate() < marked.reference_rate());
}

#[test]
fn a_recent_loss_warps_a_long_queue_down() {
    let cfg = NadaConfig::default();
    let mut n = nada();
    drive(&mut n, 0..1, |_| 0.0, clean);
    drive(
        &mut n,
        1..20,
        |_| 150.0,
        |f, p| (f == 19 && p == 9).then_some(Arrival::Lost),
    );
    let warped = n.signal.warped_delay_ms(&cfg);
    assert!((n.queue_delay().as_secs_f64() * 1e3 - 150.0).abs() < 0.1);
    // QTH exp(-LAMBDA (d - QTH) / QTH) with d = 150 ms.
    let expected = 50.0 * (-0.5f64 * (150.0 - 50.0) / 50.0).exp();
    assert!((warped - expected).abs() < 0.5, "{warped} vs {expected}");
    // Without the loss, the queue counts in full.
    let mut n = nada();
    drive(&mut n, 0..1, |_| 0.0, clean);
    drive(&mut n, 1..20, |_| 150.0, clean);
    assert!((n.signal.warped_delay_ms(&cfg) - 150.0).abs() < 0.1);
}

#[test]
fn a_backlog_lowers_the_encoder_rate_and_raises_the_sending_rate() {
    let mut n = nada();
    n.on_queue(0);
    assert_eq!(n.encoder_rate(), n.sending_rate());
    // 2500 bytes at 50 fps: 8 x 2500 x 50 = 1 Mbit/s of backlog.
    n.on_queue(2500);
    let r = n.reference_rate().bps();
    assert!((n.encoder_rate().bps() - (r - 0.1e6)).abs() < 1.0);
    assert!((n.sending_rate().bps() - (r + 0.1e6)).abs() < 1.0);
}

#[test]
fn a_burst_of_losses_is_one_loss_event_and_keeps_the_warping() {
    let cfg = NadaConfig::default();
    let mut n = nada();
    drive(&mut n, 0..1, |_| 0.0, clean);
    // Every 10th report loses a burst of 5 consecutive packets (a tail-drop overflow):
    // one loss event per 100 packets, so the warping holds for 7 x 95 packets after it.
    drive(
        &mut n,
        1..41,
        |_| 250.0,
        |f, p| (f % 10 == 0 && p < 5).then_some(Arrival::Lost),
    );
    // 10 reports (100 packets) after the last burst, with the queue still at 250 ms.
    drive(&mut n, 41..51, |_| 250.0, clean);
    let warped = n.signal.warped_delay_ms(&cfg);
    assert!(warped < cfg.qth_ms, "{warped}");
}

#[test]
fn the_rate_is_calculated_once_per_feedback_interval() {
    let mut n = nada();
    drive(&mut n, 0..50, |_| 0.0, clean);
    let before = n.reference_rate();
    // One report 20 ms after the previous (reports come every 20 ms here): inside
    // DELTA of the last calculation, so it feeds the statistics and changes no rate.
    let mut steps = 0;
    let mut last = before;
    for f in 50..60 {
        drive(&mut n, f..f + 1, |_| 100.0, clean);
        if n.reference_rate() != last {
            steps += 1;
            last = n.reference_rate();
        }
    }
    // 10 reports of 20 ms = 200 ms: two calculations at DELTA = 100 ms, not ten.
    assert!(steps <= 2, "{steps} rate changes in 200 ms");
    assert!(n.reference_rate() < before);
}

#[test]
fn the_congestion_signal_is_bounded_by_x_max() {
    // Half the packets lost: DLOSS (p/PLRREF)^2 heads for 25 s unclipped.
    let mut n = nada();
    drive(&mut n, 0..200, five, |_, p| {
        (p % 2 == 0).then_some(Arrival::Lost)
    });
    let (p_loss, _) = n.ratios();
    assert!(p_loss > 0.4, "{p_loss}");
    assert!((n.congestion_ms() - signal::X_MAX_MS).abs() < 1e-9);
}

#[test]
fn the_gradual_update_after_a_loss_burst_moves_the_rate_by_a_bounded_step() {
    // A heavy burst, then no more loss: the smoothed loss ratio decays over seconds.
    // With x_curr within [0, X_MAX] one DELTA step changes r_ref by at most
    // KAPPA (DELTA/TAU) X_MAX/TAU + KAPPA ETA X_MAX/TAU = 0.5 x 0.2 + 1 = 110 % up,
    // and the integral term is the only one left while x_curr sits at X_MAX.
    let mut n = nada();
    drive(&mut n, 0..100, five, clean);
    drive(&mut n, 100..130, five, |_, p| {
        (p < 4).then_some(Arrival::Lost)
    });
    let mut prev = n.reference_rate().bps();
    let mut worst_up: f64 = 0.0;
    for f in 130..330 {
        drive(&mut n, f..f + 1, five, clean);
        let r = n.reference_rate().bps();
        // Accelerated ramp-up (once the window holds no loss) follows the receive rate
        // up by design; the bound is the gradual update's.
        if n.mode() == Mode::Gradual {
            worst_up = worst_up.max(r / prev);
        }
        prev = r;
    }
    let cfg = NadaConfig::default();
    let bound = 1.0
        + cfg.kappa * (cfg.delta_ms / cfg.tau_ms) * signal::X_MAX_MS / cfg.tau_ms
        + cfg.kappa * cfg.eta * signal::X_MAX_MS / cfg.tau_ms;
    assert!(worst_up <= bound + 1e-9, "{worst_up} > {bound}");
    // While the decaying loss penalty still reads above X_MAX, no step rises at all:
    // with x_diff = 0 and x_offset > 0 the update only lowers r_ref.
    let mut m = nada();
    drive(&mut m, 0..100, five, clean);
    drive(&mut m, 100..130, five, |_, p| {
        (p < 4).then_some(Arrival::Lost)
    });
    let r0 = m.reference_rate();
    drive(&mut m, 130..135, five, clean);
    assert!(m.congestion_ms() >= signal::X_MAX_MS - 1e-9);
    assert!(
        m.reference_rate() <= r0,
        "{:?} > {r0:?}",
        m.reference_rate()
    );
}
