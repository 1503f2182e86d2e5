use super::aimd::RemoteRate;
use super::detector::Usage;
use super::probe::*;
use crate::rate_control::{Arrival, PacketResult};
use scream::{Bitrate, Duration, Ecn, Instant, RemoteInstant};

const MAX: f64 = 20.0;

fn mbps(v: f64) -> Bitrate {
    Bitrate::from_mbps(v)
}

#[test]
fn the_first_probes_are_three_and_six_times_the_start_then_twice_a_good_result() {
    let mut p = ProbeController::new(mbps(MAX));
    let t0 = Instant::from_millis(100);
    let first = p.poll(t0, mbps(1.0), false).expect("first probe");
    let second = p.poll(t0, mbps(1.0), false).expect("second probe");
    assert_eq!([first.rate, second.rate], [mbps(3.0), mbps(6.0)]);
    assert_ne!(first.id, second.id);
    // 15 ms at 6 Mbit/s is 11 250 bytes; at least five packets.
    assert_eq!(second.min_bytes, 11_250);
    assert_eq!(second.min_packets, 5);
    assert_eq!(p.poll(t0, mbps(1.0), false), None);
    // 5 Mbit/s measured is above 0.7 x 6: probe again at twice it.
    p.on_estimate(t0 + Duration::from_millis(200), mbps(5.0));
    let further = p.poll(t0 + Duration::from_millis(200), mbps(5.0), false);
    assert_eq!(further.map(|c| c.rate), Some(mbps(10.0)));
    // 6 Mbit/s is below 0.7 x 10: no further probe, and after a second, done.
    p.on_estimate(t0 + Duration::from_millis(400), mbps(6.0));
    assert_eq!(
        p.poll(t0 + Duration::from_millis(400), mbps(6.0), false),
        None
    );
    assert_eq!(p.poll(t0 + Duration::from_secs(2), mbps(6.0), false), None);
    p.on_estimate(t0 + Duration::from_secs(2), mbps(9.0));
    assert_eq!(p.poll(t0 + Duration::from_secs(2), mbps(9.0), false), None);
}

#[test]
fn an_application_limited_sender_probes_every_five_seconds_at_twice_the_estimate() {
    let mut p = ProbeController::new(mbps(MAX));
    let t0 = Instant::from_millis(0);
    while p.poll(t0, mbps(1.0), false).is_some() {}
    // Exponential probing ends a second after the last probe.
    let done = t0 + Duration::from_millis(1100);
    assert_eq!(p.poll(done, mbps(2.0), false), None);
    // Limited from `done` on: nothing for 5 s (counted from the later of the ALR start
    // and the last probe), then a probe at 2x.
    let mut asked = Vec::new();
    for ms in (1100..12_000).step_by(100) {
        let now = Instant::from_millis(ms);
        if let Some(c) = p.poll(now, mbps(2.0), true) {
            asked.push((ms, c.rate));
        }
    }
    assert_eq!(asked, [(6100, mbps(4.0)), (11_100, mbps(4.0))]);
    // Not limited: no probe.
    assert_eq!(p.poll(Instant::from_millis(20_000), mbps(2.0), false), None);
}

fn result(sent_us: u64, arrival_us: u64, probe: u32) -> PacketResult {
    PacketResult {
        sent: Instant::from_micros(sent_us),
        arrival: Arrival::At(RemoteInstant::from_micros(arrival_us), Ecn::NotEct),
        size_bytes: 1000,
        probe: Some(probe),
    }
}

/// Feeds a cluster of `n` 1000-byte packets sent every `send_gap_us` and arriving every
/// `recv_gap_us`; returns the last result.
fn measure(n: u64, send_gap_us: u64, recv_gap_us: u64) -> Option<Bitrate> {
    let mut e = ProbeEstimator::default();
    let c = ProbeCluster {
        id: 7,
        rate: Bitrate::from_bps(8000.0 * 1e6 / send_gap_us as f64),
        min_packets: 5,
        min_bytes: 10_000,
    };
    e.on_cluster(&c);
    let now = Instant::from_millis(500);
    (0..n)
        .map(|i| {
            e.on_packet(
                now,
                7,
                &result(i * send_gap_us, 30_000 + i * recv_gap_us, 7),
            )
        })
        .last()
        .flatten()
}

#[test]
fn a_probe_that_saturates_the_link_gives_ninety_five_percent_of_the_receive_rate() {
    // Sent at 8 Mbit/s (1 ms per 1000 bytes), drained at 4 Mbit/s (2 ms).
    let r = measure(12, 1000, 2000).expect("a result");
    assert!((r.mbps() - 0.95 * 4.0).abs() < 1e-9, "{r:?}");
    // Received as sent: the send rate.
    let r = measure(12, 1000, 1000).expect("a result");
    assert!((r.mbps() - 8.0).abs() < 1e-9, "{r:?}");
    // Received faster than 2x the send rate: an artefact, no result.
    assert_eq!(measure(12, 1000, 400), None);
    // Fewer than 80 % of the cluster's 10 000 bytes: no result yet.
    assert_eq!(measure(7, 1000, 1000), None);
}

#[test]
fn a_result_of_an_unknown_cluster_is_ignored() {
    let mut e = ProbeEstimator::default();
    let now = Instant::from_millis(10);
    for i in 0..20 {
        assert_eq!(e.on_packet(now, 3, &result(i * 1000, i * 1000, 3)), None);
    }
}

/// The libwebrtc additive increase is a rate per second: the same second split into 50
/// or 10 updates adds the same; the draft's, counted per update, adds more the more
/// often it runs.
#[test]
fn the_libwebrtc_additive_increase_is_per_second_the_drafts_per_update() {
    let rtt = Duration::from_millis(50);
    let recv = mbps(0.5);
    let grow = |per_second: bool, updates: u64| {
        let mut r = RemoteRate::new(mbps(0.5), 0.85, 1.08, per_second);
        let t0 = Instant::from_millis(1000);
        r.update(t0, Usage::Over, Some(recv), rtt);
        r.update(t0, Usage::Normal, Some(recv), rtt);
        let start = r.estimate().bps();
        let step = 1000 / updates;
        for i in 1..=updates {
            r.update(
                t0 + Duration::from_millis(i * step),
                Usage::Normal,
                Some(recv),
                rtt,
            );
        }
        r.estimate().bps() - start
    };
    let (fine, coarse) = (grow(true, 50), grow(true, 10));
    // From 425 kbit/s: frames of a/30 bits in two packets (up to 576 kbit/s), one
    // packet per response time of 50 + 100 ms, so da/dt = a / (30 x 2 x 0.15 s) = a / 9
    // per second: a(1 s) = 425 kbit/s x e^(1/9).
    let expected = 425_000.0 * ((1.0f64 / 9.0).exp() - 1.0);
    assert!(
        (fine - expected).abs() / expected < 0.01,
        "{fine} vs {expected}"
    );
    assert!(
        (fine - coarse).abs() / expected < 0.01,
        "{fine} vs {coarse}"
    );
    let (draft_fine, draft_coarse) = (grow(false, 50), grow(false, 10));
    assert!(
        draft_fine > 1.2 * draft_coarse,
        "{draft_fine} vs {draft_coarse}"
    );
}
