//! The stall guard: when everything in flight was dropped where nothing behind it
//! arrives to report it (a capacity collapse at a tail-drop bottleneck), the send window
//! stays closed. The sender then gives the flight up `stall_timeout` after its last
//! transmission, as the reference does (0.5 s), instead of waiting for the in-flight
//! timeout.

use scream::sender::{MediaFrame, Sender, SenderConfig, StreamConfig, Transmit};
use scream::{Bitrate, Duration, Instant};

mod support;

/// Runs a sender whose packets all vanish (no feedback ever) for `span`, with 2 Mbit/s
/// of frames, waking exactly when it asks to. Returns the send times.
fn send_times(cfg: SenderConfig, span: Duration) -> Vec<Instant> {
    run_silent(cfg, span).0
}

/// As [`send_times`], also returning the reference window after each transmission.
fn run_silent(cfg: SenderConfig, span: Duration) -> (Vec<Instant>, Vec<u64>) {
    let (mut sent, mut windows) = (Vec::new(), Vec::new());
    support::run_silent(cfg, span, |now, s, _| {
        sent.push(now);
        windows.push(s.stats().window_bytes);
    });
    (sent, windows)
}

/// The longest time between two transmissions.
fn longest_gap(times: &[Instant]) -> Duration {
    times
        .windows(2)
        .map(|w| w[1].saturating_duration_since(w[0]))
        .max()
        .unwrap_or(Duration::ZERO)
}

#[test]
fn a_closed_window_with_nothing_reported_reopens_after_the_stall_timeout() {
    let cfg = SenderConfig::default();
    let stall = cfg.stall_timeout;
    assert_eq!(stall, Duration::from_millis(500), "the reference's value");
    let times = send_times(cfg, Duration::from_secs(3));
    let gap = longest_gap(&times);
    // The window closes once it is full; the next packet leaves exactly when the stall
    // timeout has passed since the last one (the sender asked to be woken then).
    assert_eq!(gap, stall, "longest pause {gap:?}");
    // And it keeps going in that rhythm: a burst, then a stall, several times.
    let stalls = times
        .windows(2)
        .filter(|w| w[1].saturating_duration_since(w[0]) == stall)
        .count();
    assert!(stalls >= 4, "{stalls} stall resets in 3 s");
}

#[test]
fn without_the_stall_guard_the_in_flight_timeout_is_what_reopens_the_window() {
    let cfg = SenderConfig {
        stall_timeout: Duration::from_secs(3600),
        ..SenderConfig::default()
    };
    let timeout = cfg.in_flight_timeout;
    let gap = longest_gap(&send_times(cfg, Duration::from_secs(3)));
    // The window fills within about 0.1 s of the first packet, whose timeout then
    // reopens it.
    assert!(
        gap > Duration::from_millis(800) && gap <= timeout,
        "longest pause {gap:?} (in-flight timeout {timeout:?})"
    );
}

#[test]
fn slow_pacing_alone_never_counts_as_a_stall() {
    // Large packets at a low pacing rate: media waits and nothing leaves for longer
    // than the stall timeout, yet the window is open, so the flight stays accounted.
    let mut cfg = SenderConfig {
        mss_bytes: 60_000,
        stall_timeout: Duration::from_millis(10),
        in_flight_timeout: Duration::from_secs(3600),
        ..SenderConfig::default()
    };
    let v2 = cfg.v2_mut().unwrap();
    v2.rate_pace_min = Bitrate::from_kbps(1.0);
    v2.initial_ref_wnd_bytes = 1_000_000;
    let mut s = Sender::new(cfg).unwrap();
    let id = s
        .add_stream(StreamConfig {
            ssrc: 1,
            min_bitrate: Bitrate::from_kbps(100.0),
            start_bitrate: Bitrate::from_kbps(100.0),
            max_bitrate: Bitrate::from_kbps(150.0),
            priority: 1.0,
        })
        .unwrap();
    let t0 = Instant::from_millis(1000);
    let frame = MediaFrame::new(180_000);
    s.on_media_frame(t0, id, frame);
    let Transmit::Now(first) = s.poll_transmit(t0) else {
        panic!("the first packet leaves at once");
    };
    let Transmit::At(next) = s.poll_transmit(t0) else {
        panic!("the second one is paced");
    };
    assert!(
        next - t0 > Duration::from_millis(20),
        "paced {:?} apart",
        next - t0
    );
    s.handle_timeout(next);
    assert_eq!(s.bytes_in_flight(), u64::from(first.size_bytes));
    assert!(matches!(s.poll_transmit(next), Transmit::Now(_)));
}

fn outage_recovery() -> SenderConfig {
    let mut cfg = SenderConfig::default();
    cfg.improvements.outage_recovery = true;
    cfg
}

#[test]
fn outage_recovery_probes_a_silent_flight_within_two_rtts() {
    // No RTT sample yet: the smoothed RTT is its initial 50 ms, so the probe timeout
    // (two RTTs) is 100 ms, where the faithful stall guard waits 500 ms.
    let gap = longest_gap(&send_times(outage_recovery(), Duration::from_secs(3)));
    assert_eq!(gap, Duration::from_millis(100), "longest pause {gap:?}");
}

#[test]
fn outage_recovery_sends_one_window_into_a_silent_path_then_one_probe_at_a_time() {
    let (times, _) = run_silent(outage_recovery(), Duration::from_secs(3));
    let faithful = send_times(SenderConfig::default(), Duration::from_secs(3));
    // The first flight leaves at once; nothing answers it.
    let first_gap = times
        .windows(2)
        .position(|t| t[1].saturating_duration_since(t[0]) >= Duration::from_millis(90))
        .expect("a pause");
    let probes = &times[first_gap + 1..];
    assert!(probes.len() >= 20, "probes keep asking: {}", probes.len());
    // After it, the silence bound lets out one packet per probe timeout (at least an
    // RTT plus the receiver's report delay: 90 ms here), where the faithful sender
    // sends a whole window every stall timeout.
    for pair in probes.windows(2) {
        let gap = pair[1].saturating_duration_since(pair[0]);
        assert!(gap >= Duration::from_millis(90), "{gap:?} between probes");
    }
    assert!(
        times.len() * 3 < faithful.len(),
        "{} packets against faithful's {}",
        times.len(),
        faithful.len()
    );
}

#[test]
fn the_faithful_sender_keeps_its_window_through_silent_stalls() {
    let (_, windows) = run_silent(SenderConfig::default(), Duration::from_secs(3));
    assert!(windows.iter().all(|w| *w == windows[0]), "{windows:?}");
}

/// A path that turns, at 2 s, from 10 Mbit/s into a 0.07 Mbit/s trickle behind an
/// unlimited FIFO: nothing is dropped, everything arrives, seconds late. 10 ms each way,
/// a report every 40 ms of what arrived since the last. Counts the sender's stall
/// back-offs and the packets delivered during the trickle.
struct Trickle {
    from: Instant,
    link: support::Serializer,
    arrivals: Vec<(Instant, u16)>,
    next_report: Instant,
    backoffs: usize,
    delivered: usize,
}

impl support::Path for Trickle {
    fn before_poll(&mut self, now: Instant, s: &mut Sender) -> Option<Instant> {
        use scream::sender::{BackOffCause, CongestionEventKind};
        use scream::{Ecn, Feedback, PacketReport, PacketStatus, RemoteInstant};
        const REPORT: Duration = Duration::from_millis(40);
        if now >= self.next_report {
            let (due, later): (Vec<_>, Vec<_>) = self.arrivals.iter().partition(|(t, _)| *t <= now);
            self.arrivals = later;
            self.delivered += due.iter().filter(|(t, _)| *t >= self.from).count();
            if !due.is_empty() {
                let reports = due
                    .iter()
                    .map(|&(t, seq)| PacketReport {
                        ssrc: 1,
                        seq,
                        status: PacketStatus::Received {
                            arrival: Some(RemoteInstant::from_nanos(t.as_nanos())),
                            ecn: Ecn::NotEct,
                        },
                    })
                    .collect();
                let report_time = RemoteInstant::from_nanos(now.as_nanos());
                s.on_feedback(
                    now,
                    &Feedback {
                        report_time,
                        reports,
                    },
                );
            }
            self.next_report += REPORT;
        }
        while let Some(e) = s.poll_cc_event() {
            if let CongestionEventKind::BackOff {
                cause: BackOffCause::Stall,
                ..
            } = e.kind
            {
                self.backoffs += 1;
            }
        }
        Some(self.next_report)
    }

    fn sent(&mut self, now: Instant, _: &Sender, p: &scream::sender::SentPacket) {
        const ONE_WAY: Duration = Duration::from_millis(10);
        let rate = if now < self.from { 10e6 } else { 0.07e6 };
        let out = self.link.send(now, p.size_bytes, rate);
        self.arrivals.push((out + ONE_WAY, p.seq));
    }
}

#[test]
fn a_trickle_that_delivers_what_was_given_up_is_slow_not_silent() {
    // The stall guard gives up packets still queued at the trickle; their reports,
    // seconds later, name packets the sender no longer tracks. The path delivers, so
    // `outage-recovery` must not treat it as dead and halve the window stall after
    // stall: the silence bound keeps it from sending window after window into the
    // queue, which the stall guard would give up again, unanswered.
    let t0 = Instant::from_millis(1000);
    let mut path = Trickle {
        from: t0 + Duration::from_secs(2),
        link: support::Serializer::default(),
        arrivals: Vec::new(),
        next_report: t0,
        backoffs: 0,
        delivered: 0,
    };
    support::run_frames(outage_recovery(), Duration::from_secs(8), &mut path);
    let (backoffs, delivered) = (path.backoffs, path.delivered);
    assert!(delivered >= 20, "the trickle delivered {delivered} packets");
    assert_eq!(backoffs, 0, "stall back-offs on a path that delivers");
}
