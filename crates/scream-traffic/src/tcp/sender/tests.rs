use super::*;
use crate::tcp::law::LawKind;

const MSS: u32 = 1000;

fn sender(law: LawKind, ecn: EcnUse) -> TcpSender {
    let mut s = TcpSender::new(SenderConfig {
        law,
        ecn,
        mss: MSS,
        header_bytes: 52,
        min_rto: Duration::from_millis(200),
        traffic: Traffic::Bulk,
        active: (Instant::ZERO, Instant::MAX),
        stream: 0,
    });
    s.handle_timeout(Instant::ZERO);
    s
}

fn ms(v: u64) -> Instant {
    Instant::from_millis(v)
}

/// Everything the sender releases at `now`.
fn drain(s: &mut TcpSender, now: Instant) -> Vec<TcpData> {
    std::iter::from_fn(|| s.poll_transmit(now).map(|(d, _)| d)).collect()
}

fn ack(n: u64, echo: Instant) -> TcpAck {
    TcpAck {
        ack: n,
        ts_ecr: echo,
        ece: false,
        ce_bytes: 0,
    }
}

/// A sender past slow start with `segments` in flight: ssthresh lowered by an ECN-free
/// loss episode is avoided by setting the window directly.
fn in_congestion_avoidance(law: LawKind, ecn: EcnUse, segments: u64) -> TcpSender {
    let mut s = sender(law, ecn);
    s.w.cwnd = (segments * u64::from(MSS)) as f64;
    s.w.ssthresh = s.w.cwnd;
    assert_eq!(drain(&mut s, ms(0)).len() as u64, segments);
    s
}

#[test]
fn initial_window_is_ten_segments() {
    assert_eq!(initial_window(1448), 14_480);
    assert_eq!(initial_window(536), 5_360);
    assert_eq!(initial_window(4_000), 14_600);
    let mut s = sender(LawKind::NewReno, EcnUse::None);
    assert_eq!(drain(&mut s, ms(0)).len(), 10);
}

#[test]
fn slow_start_grows_by_the_acked_bytes() {
    let mut s = sender(LawKind::NewReno, EcnUse::None);
    drain(&mut s, ms(0));
    for k in 1..=10 {
        s.handle_ack(ms(50), &ack(k * 1000, ms(0)));
    }
    assert_eq!(s.cwnd(), 20_000.0);
    assert_eq!(drain(&mut s, ms(50)).len(), 20);
}

#[test]
fn three_duplicate_acks_halve_the_flight_and_retransmit_the_hole() {
    let mut s = in_congestion_avoidance(LawKind::NewReno, EcnUse::None, 20);
    // Segment 0 lost: the next ones each bring a duplicate ACK of 0.
    for _ in 0..2 {
        s.handle_ack(ms(50), &ack(0, ms(0)));
        assert!(drain(&mut s, ms(50)).is_empty());
    }
    s.handle_ack(ms(50), &ack(0, ms(0)));
    // ssthresh = max(FlightSize / 2, 2 SMSS) = 10 segments; cwnd = ssthresh + 3.
    assert_eq!(s.ssthresh(), 10_000.0);
    assert_eq!(s.cwnd(), 13_000.0);
    let out = drain(&mut s, ms(50));
    assert_eq!(out[0].seq, 0, "fast retransmit of the hole");
    assert_eq!(s.retransmissions, 1);
    // Inflation: each further duplicate ACK lets one new segment out once the
    // inflated window exceeds the flight (20 segments outstanding).
    let mut released = 0;
    for _ in 0..17 {
        s.handle_ack(ms(51), &ack(0, ms(0)));
        released += drain(&mut s, ms(51)).len();
    }
    assert_eq!(s.cwnd(), 30_000.0);
    assert_eq!(released, 10);
    // The full ACK ends recovery with the window at ssthresh.
    // The ACK reaching `recover` ends recovery: min(ssthresh, FlightSize + SMSS).
    s.handle_ack(ms(100), &ack(20_000, ms(50)));
    assert!(!s.in_recovery);
    assert_eq!(s.cwnd(), 10_000.0);
}

#[test]
fn a_loss_floor_is_two_segments() {
    let mut s = in_congestion_avoidance(LawKind::NewReno, EcnUse::None, 3);
    for _ in 0..3 {
        s.handle_ack(ms(50), &ack(0, ms(0)));
    }
    assert_eq!(s.ssthresh(), 2_000.0);
}

#[test]
fn a_partial_ack_retransmits_the_next_hole_and_stays_in_recovery() {
    let mut s = in_congestion_avoidance(LawKind::NewReno, EcnUse::None, 20);
    for _ in 0..3 {
        s.handle_ack(ms(50), &ack(0, ms(0)));
    }
    assert_eq!(drain(&mut s, ms(50))[0].seq, 0);
    // Segments 0..5 arrive (5 lost too): a partial ACK of 5000.
    s.handle_ack(ms(100), &ack(5_000, ms(50)));
    let out = drain(&mut s, ms(100));
    assert_eq!(out[0].seq, 5_000, "the next hole");
    assert!(s.in_recovery);
    // Deflated by the 5000 bytes acked, plus one segment back.
    assert_eq!(s.cwnd(), 13_000.0 - 5_000.0 + 1_000.0);
}

#[test]
fn the_rto_doubles_with_each_back_off_and_the_window_collapses_to_one_segment() {
    let mut s = sender(LawKind::NewReno, EcnUse::None);
    drain(&mut s, ms(0));
    s.handle_ack(ms(100), &ack(1_000, ms(0)));
    let rto = s.rto.rto();
    assert_eq!(rto, Duration::from_millis(300), "100 ms + 4 x 50 ms");
    drain(&mut s, ms(100));
    let first = s.poll_timeout().expect("timer armed");
    assert_eq!(first, ms(100) + rto);
    s.handle_timeout(first);
    assert_eq!(s.timeouts, 1);
    assert_eq!(s.cwnd(), 1_000.0);
    let ssthresh = s.ssthresh();
    let out = drain(&mut s, first);
    assert_eq!(out.len(), 1);
    assert_eq!(
        out[0].seq, 1_000,
        "go back to the first unacknowledged byte"
    );
    let second = s.poll_timeout().unwrap();
    assert_eq!(second - first, rto * 2);
    s.handle_timeout(second);
    let third = s.poll_timeout().unwrap();
    assert_eq!(third - second, rto * 4);
    assert_eq!(s.ssthresh(), ssthresh, "a repeated timeout keeps ssthresh");
}

#[test]
fn classic_ecn_reduces_once_per_window_and_sets_cwr_once() {
    let mut s = in_congestion_avoidance(LawKind::NewReno, EcnUse::Classic, 20);
    let mut echo = ack(1_000, ms(0));
    echo.ece = true;
    s.handle_ack(ms(50), &echo);
    assert_eq!(s.cwnd(), 9_500.0, "half the 19 segments in flight");
    let out = drain(&mut s, ms(50));
    // The receiver keeps echoing ECE until it sees CWR: no further reduction.
    for k in 2..=20 {
        echo.ack = k * 1_000;
        s.handle_ack(ms(50), &echo);
    }
    assert!(s.cwnd() >= 9_500.0, "{}", s.cwnd());
    let sent: Vec<TcpData> = out.into_iter().chain(drain(&mut s, ms(50))).collect();
    assert_eq!(sent.iter().filter(|d| d.cwr).count(), 1);
    assert!(sent[0].cwr, "the first new segment carries CWR");
    // A mark in the next window is a new signal.
    echo.ack = 21_000;
    s.handle_ack(ms(100), &echo);
    assert!(s.cwnd() < 6_000.0, "{}", s.cwnd());
}

#[test]
fn cubic_reduces_by_beta_on_ecn_and_on_loss() {
    let mut s = in_congestion_avoidance(LawKind::Cubic, EcnUse::Classic, 20);
    let mut echo = ack(1_000, ms(0));
    echo.ece = true;
    s.handle_ack(ms(50), &echo);
    assert!((s.cwnd() - 0.7 * 19_000.0).abs() < 1e-6, "{}", s.cwnd());
    let mut s = in_congestion_avoidance(LawKind::Cubic, EcnUse::None, 20);
    for _ in 0..3 {
        s.handle_ack(ms(50), &ack(0, ms(0)));
    }
    assert!((s.ssthresh() - 14_000.0).abs() < 1e-6, "{}", s.ssthresh());
}

#[test]
fn prague_reduces_by_alpha_over_two_once_per_window() {
    let mut s = in_congestion_avoidance(LawKind::Prague, EcnUse::L4s, 20);
    let mut echo = ack(1_000, ms(0));
    echo.ce_bytes = 1_000;
    s.handle_ack(ms(50), &echo);
    // α starts at 1 and has had one update with M = 1: still 1, so the window halves.
    assert_eq!(s.cwnd(), 10_000.0);
    for k in 2..=20u32 {
        echo.ack = u64::from(k) * 1_000;
        echo.ce_bytes = k * 1_000;
        s.handle_ack(ms(50), &echo);
    }
    assert!(
        s.cwnd() >= 10_000.0,
        "one reduction per window: {}",
        s.cwnd()
    );
    let out = drain(&mut s, ms(50));
    assert!(
        out.iter().all(|d| !d.cwr),
        "L4S uses the accurate count, not CWR"
    );
    let Law::Prague(p) = s.law() else {
        unreachable!()
    };
    assert!((p.alpha() - 1.0).abs() < 1e-12);
}

#[test]
fn prague_paces_at_a_multiple_of_cwnd_over_srtt() {
    let mut s = in_congestion_avoidance(LawKind::Prague, EcnUse::L4s, 20);
    s.handle_ack(ms(100), &ack(1_000, ms(0)));
    let first = drain(&mut s, ms(100));
    assert_eq!(first.len(), 1, "paced: one segment, then wait");
    let next = s.poll_timeout().unwrap();
    // 1.2 x cwnd / sRTT in congestion avoidance: 1052 wire bytes at 1.2 x 20 kB / 0.1 s.
    let gap = (next - ms(100)).as_secs_f64();
    let expected = 1052.0 / (1.2 * s.cwnd() / 0.1);
    assert!((gap - expected).abs() < 1e-6, "{gap} vs {expected}");
}

#[test]
fn newreno_sends_not_ect_and_l4s_ect1() {
    let mut s = sender(LawKind::NewReno, EcnUse::None);
    assert_eq!(s.poll_transmit(ms(0)).unwrap().1, Ecn::NotEct);
    let mut s = sender(LawKind::Cubic, EcnUse::Classic);
    assert_eq!(s.poll_transmit(ms(0)).unwrap().1, Ecn::Ect0);
    let mut s = sender(LawKind::Prague, EcnUse::L4s);
    assert_eq!(s.poll_transmit(ms(0)).unwrap().1, Ecn::Ect1);
}
