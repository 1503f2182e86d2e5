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
    drive(&mut quiet, 0..100, five, clean);
    let base = quiet.congestion_ms();
    assert!((base - 5.0).abs() < 0.5, "{base}");

    // One packet in ten lost: p_loss approaches 0.1, DLOSS (0.1/0.01)^2 = 1000 ms.
    let mut lossy = nada();
    drive(&mut lossy, 0..100, five, |_, p| {
        (p == 3).then_some(Arrival::Lost)
    });
    let (p_loss, _) = lossy.ratios();
    assert!((p_loss - 0.1).abs() < 0.01, "{p_loss}");
    let expected = 5.0 + 10.0 * (p_loss / 0.01).powi(2);
    assert!((lossy.congestion_ms() - expected).abs() < 1.0);

    // One in ten CE-marked: DMARK (0.1/0.01)^2 = 200 ms.
    let mut marked = nada();
    let ce = |f: u64, p: u64| {
        let at = RemoteInstant::from_micros(f * 20_000 + p * 2000 + 30_000);
        (p == 3).then_some(Arrival::At(at, Ecn::Ce))
    };
    drive(&mut marked, 0..100, five, ce);
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
