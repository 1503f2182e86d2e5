//! The opt-in congestion-event channel: it reports the back-offs, target changes and
//! RTP-queue discards the sender makes, with their causes, and recording them changes
//! nothing about what the sender does.

use scream::sender::{
    BackOffCause, CongestionEvent, CongestionEventKind, EcnMode, MediaFrame, Sender, SenderConfig,
    StreamConfig, Transmit,
};
use scream::{
    Bitrate, Duration, Ecn, Feedback, Instant, PacketReport, PacketStatus, RemoteInstant,
};

const SSRC: u32 = 7;
const STEP: Duration = Duration::from_millis(20);
const ONE_WAY: Duration = Duration::from_millis(20);

/// What a run did: every packet's send time and every event polled.
#[derive(Debug, Default, PartialEq)]
struct Run {
    sent: Vec<(Instant, u16, u32)>,
    events: Vec<CongestionEvent>,
    dropped: u64,
}

/// Every 20 ms: a 4 kB frame in, everything the pacer releases within the step out,
/// and one report acknowledging every packet that has arrived (one way after it was
/// sent), CE-marked when `ce(step)`.
/// With `record`, congestion events are recorded and drained after every input.
fn run(cfg: SenderConfig, steps: u64, record: bool, ce: impl Fn(u64) -> bool) -> Run {
    let mut s = Sender::new(cfg).unwrap();
    if record {
        s.enable_cc_events(256);
    }
    let id = s
        .add_stream(StreamConfig {
            ssrc: SSRC,
            min_bitrate: Bitrate::from_kbps(100.0),
            start_bitrate: Bitrate::from_mbps(1.0),
            max_bitrate: Bitrate::from_mbps(10.0),
            priority: 1.0,
        })
        .unwrap();
    let mut out = Run::default();
    let mut in_flight: Vec<(u16, Instant)> = Vec::new();
    for step in 1..=steps {
        let now = Instant::ZERO + STEP * step as u32;
        // Packets paced out late in the previous step arrive after this report.
        let (arrived, later): (Vec<_>, Vec<_>) = in_flight
            .iter()
            .partition(|(_, sent)| *sent + ONE_WAY <= now);
        in_flight = later;
        let arrivals: Vec<PacketReport> = arrived
            .into_iter()
            .map(|(seq, sent)| PacketReport {
                ssrc: SSRC,
                seq,
                status: PacketStatus::Received {
                    arrival: Some(RemoteInstant::from_nanos((sent + ONE_WAY).as_nanos())),
                    ecn: if ce(step) { Ecn::Ce } else { Ecn::Ect0 },
                },
            })
            .collect();
        if !arrivals.is_empty() {
            let fb = Feedback {
                report_time: RemoteInstant::from_nanos(now.as_nanos()),
                reports: arrivals,
            };
            s.on_feedback(now, &fb);
        }
        s.on_media_frame(now, id, MediaFrame::new(4000));
        if s.poll_timeout().is_some_and(|t| t <= now) {
            s.handle_timeout(now);
        }
        // Follow the pacer within the step; the feedback waits for the next step.
        let mut t = now;
        loop {
            match s.poll_transmit(t) {
                Transmit::Now(p) => {
                    out.sent.push((t, p.seq, p.size_bytes));
                    in_flight.push((p.seq, t));
                }
                Transmit::At(next) if next < now + STEP => t = next,
                Transmit::At(_) | Transmit::Idle => break,
            }
        }
        while s.poll_event().is_some() {}
        while let Some(e) = s.poll_cc_event() {
            out.events.push(e);
        }
    }
    out.dropped = s.cc_events_dropped();
    out
}

fn classic() -> SenderConfig {
    SenderConfig {
        ecn: EcnMode::Classic,
        ..SenderConfig::default()
    }
}

#[test]
fn ce_marks_show_as_ce_back_offs_with_the_window_before_and_after() {
    let r = run(classic(), 100, true, |step| step >= 50);
    let backoffs: Vec<_> = r
        .events
        .iter()
        .filter_map(|e| match e.kind {
            CongestionEventKind::BackOff {
                cause,
                window_before,
                window_after,
            } => Some((e.at, cause, window_before, window_after)),
            _ => None,
        })
        .collect();
    assert!(!backoffs.is_empty(), "no back-off in {:?}", r.events);
    for &(at, cause, before, after) in &backoffs {
        assert!(
            at >= Instant::from_millis(1000),
            "back-off before the marks at {at:?}: {backoffs:?}"
        );
        assert_eq!(cause, BackOffCause::Ce);
        // beta_ecn = 0.8, unless the minimum window holds it.
        assert!(after <= before, "{before} -> {after}");
        assert!(
            after as f64 >= 0.8 * before as f64 - 1.0,
            "{before} -> {after}"
        );
    }
    assert!(backoffs.iter().any(|&(_, _, before, after)| after < before));
    // The marks lower the target, and the channel says so.
    assert!(r.events.iter().any(|e| matches!(
        e.kind,
        CongestionEventKind::TargetBitrate { previous, target, .. }
            if e.at >= Instant::from_millis(1000) && target < previous
    )));
    assert_eq!(r.dropped, 0);
}

#[test]
fn recording_changes_nothing_the_sender_does() {
    let with = run(classic(), 150, true, |step| step % 7 == 0);
    let without = run(classic(), 150, false, |step| step % 7 == 0);
    assert!(!with.events.is_empty());
    assert!(without.events.is_empty());
    assert_eq!(with.sent, without.sent);
}

#[test]
fn an_undrained_queue_keeps_the_newest_events_and_counts_the_rest() {
    let mut s = Sender::new(classic()).unwrap();
    s.enable_cc_events(2);
    let id = s
        .add_stream(StreamConfig {
            ssrc: SSRC,
            min_bitrate: Bitrate::from_kbps(100.0),
            start_bitrate: Bitrate::from_mbps(1.0),
            max_bitrate: Bitrate::from_mbps(10.0),
            priority: 1.0,
        })
        .unwrap();
    // Frames that are never sent: the RTP queue grows old and is discarded (with a
    // key-frame request) again and again.
    let frame = MediaFrame::new(1000);
    for ms in (0..5000).step_by(20) {
        let now = Instant::from_millis(ms);
        s.on_media_frame(now, id, frame);
        if s.poll_timeout().is_some_and(|t| t <= now) {
            s.handle_timeout(now);
        }
    }
    assert!(s.cc_events_dropped() > 0);
    let kinds: Vec<_> = std::iter::from_fn(|| s.poll_cc_event())
        .map(|e| e.kind)
        .collect();
    assert_eq!(kinds.len(), 2);
    assert!(
        matches!(kinds[0], CongestionEventKind::RtpQueueDiscard { packets, bytes, .. } if packets > 0 && bytes > 0)
    );
    assert!(matches!(
        kinds[1],
        CongestionEventKind::KeyFrameRequest { .. }
    ));
}
