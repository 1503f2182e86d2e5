//! Behaviour of the sender driven by hand-built feedback.

use scream::sender::{
    EcnMode, Event, FeedbackUse, MediaFrame, Sender, SenderConfig, SentPacket, StreamConfig,
    StreamId, Transmit,
};
use scream::{
    Bitrate, Duration, Ecn, Feedback, Instant, PacketReport, PacketStatus, RemoteInstant,
};

/// Receiver clock epoch, far from ours.
const RX_OFFSET: u64 = 5_000_000_000_000;

struct Harness {
    sender: Sender,
    stream: StreamId,
    now: Instant,
    /// (packet, send time)
    sent: Vec<(SentPacket, Instant)>,
}

fn stream_config(ssrc: u32, min: f64, start: f64, max: f64, priority: f64) -> StreamConfig {
    StreamConfig {
        ssrc,
        min_bitrate: Bitrate::from_mbps(min),
        start_bitrate: Bitrate::from_mbps(start),
        max_bitrate: Bitrate::from_mbps(max),
        priority,
    }
}

impl Harness {
    fn new(config: SenderConfig) -> Self {
        let mut sender = Sender::new(config).expect("valid config");
        let stream = sender
            .add_stream(stream_config(1, 0.1, 1.0, 20.0, 1.0))
            .expect("valid stream");
        Self {
            sender,
            stream,
            now: Instant::from_millis(1000),
            sent: vec![],
        }
    }

    fn advance(&mut self, d: Duration) {
        self.now += d;
    }

    /// Queues a frame and sends what the sender releases, following pacing.
    fn send_frame(&mut self, bytes: u32) -> Vec<SentPacket> {
        self.sender
            .on_media_frame(self.now, self.stream, MediaFrame::new(bytes));
        self.drain()
    }

    fn drain(&mut self) -> Vec<SentPacket> {
        let mut out = vec![];
        loop {
            match self.sender.poll_transmit(self.now) {
                Transmit::Now(p) => {
                    self.sent.push((p, self.now));
                    out.push(p);
                }
                Transmit::At(t) => self.now = t,
                Transmit::Idle => return out,
            }
        }
    }

    fn send_time(&self, p: &SentPacket) -> Instant {
        self.sent
            .iter()
            .find(|(q, _)| q.ssrc == p.ssrc && q.seq == p.seq)
            .map(|(_, t)| *t)
            .expect("sent by this harness")
    }

    /// Acknowledges `packets` (each with CE if `ce(i)`), arriving `owd` after sending;
    /// the feedback reaches the sender at `now`.
    fn ack(&mut self, packets: &[SentPacket], owd: Duration, ce: impl Fn(usize) -> bool) {
        let reports = packets
            .iter()
            .enumerate()
            .map(|(i, p)| PacketReport {
                ssrc: p.ssrc,
                seq: p.seq,
                status: PacketStatus::Received {
                    arrival: Some(RemoteInstant::from_nanos(
                        (self.send_time(p) + owd).as_nanos() + RX_OFFSET,
                    )),
                    ecn: if ce(i) { Ecn::Ce } else { p.ecn },
                },
            })
            .collect();
        let fb = Feedback {
            report_time: RemoteInstant::from_nanos(self.now.as_nanos() + RX_OFFSET),
            reports,
        };
        self.sender.on_feedback(self.now, &fb);
    }

    fn window(&self) -> u64 {
        self.sender.stats().window_bytes
    }
}

fn config(ecn: EcnMode) -> SenderConfig {
    SenderConfig {
        ecn,
        ..SenderConfig::default()
    }
}

/// Sends a frame and acknowledges it 10 ms later; returns the window after.
fn clean_round(h: &mut Harness) -> u64 {
    let p = h.send_frame(3000);
    h.advance(Duration::from_millis(10));
    h.ack(&p, Duration::from_millis(5), |_| false);
    h.window()
}

#[test]
fn packets_carry_the_ecn_codepoint_of_the_mode() {
    for (mode, ecn) in [
        (EcnMode::None, Ecn::NotEct),
        (EcnMode::Classic, Ecn::Ect0),
        (EcnMode::L4s, Ecn::Ect1),
    ] {
        let mut h = Harness::new(config(mode));
        let p = h.send_frame(2500);
        assert_eq!(p.len(), 3);
        assert!(p.iter().all(|p| p.ecn == ecn));
        assert_eq!(p.iter().map(|p| p.size_bytes).sum::<u32>(), 2500 + 3 * 12);
        assert_eq!(
            p.iter().map(|p| p.marker).collect::<Vec<_>>(),
            [false, false, true]
        );
        assert!(
            p.iter()
                .all(|p| p.frame_index == 0 && p.frame_enqueued_at == Instant::from_millis(1000))
        );
    }
}

#[test]
fn sequence_numbers_start_where_asked_and_wrap() {
    let mut sender = Sender::new(SenderConfig::default()).expect("valid");
    let s = sender
        .add_stream_with_initial_seq(stream_config(9, 0.1, 1.0, 5.0, 1.0), 65534)
        .expect("valid");
    sender.on_media_frame(Instant::ZERO, s, MediaFrame::new(4000).with_key_frame(true));
    let mut seqs = vec![];
    let mut now = Instant::ZERO;
    loop {
        match sender.poll_transmit(now) {
            Transmit::Now(p) => seqs.push(p.seq),
            Transmit::At(t) => now = t,
            Transmit::Idle => break,
        }
    }
    assert_eq!(seqs, [65534, 65535, 0, 1]);
}

#[test]
fn classic_ecn_backs_off_by_beta_at_most_once_per_congestion_interval() {
    let mut h = Harness::new(config(EcnMode::Classic));
    for _ in 0..5 {
        clean_round(&mut h);
    }
    let p = h.send_frame(3000);
    h.advance(Duration::from_millis(10));
    let before = h.window();
    h.ack(&p[..1], Duration::from_millis(5), |_| true);
    let after = h.window();
    let ratio = after as f64 / before as f64;
    assert!((0.8..0.81).contains(&ratio), "back-off ratio {ratio}");

    // More CE 2 ms later: inside the congestion interval, no further back-off.
    h.advance(Duration::from_millis(2));
    h.ack(&p[1..2], Duration::from_millis(5), |_| true);
    assert!(h.window() >= after, "second back-off inside the interval");

    // After the interval (min(VIRTUAL_RTT, srtt) ≤ 25 ms) CE counts again.
    h.advance(Duration::from_millis(30));
    let before = h.window();
    h.ack(&p[2..], Duration::from_millis(5), |_| true);
    let ratio = h.window() as f64 / before as f64;
    assert!(
        (0.8..0.81).contains(&ratio),
        "second back-off ratio {ratio}"
    );
}

#[test]
fn loss_backs_off_by_beta_at_most_once_per_congestion_interval() {
    let mut h = Harness::new(config(EcnMode::None));
    for _ in 0..5 {
        clean_round(&mut h);
    }
    // L1 and L2 are lost; A reveals L1, B reveals L2 (each sent > 30 ms after).
    let _l1 = h.send_frame(500);
    h.advance(Duration::from_millis(40));
    let a = h.send_frame(500);
    h.advance(Duration::from_millis(1));
    let _l2 = h.send_frame(500);
    h.advance(Duration::from_millis(39));
    let b = h.send_frame(500);
    h.advance(Duration::from_millis(5));

    let before = h.window();
    h.ack(&a, Duration::from_millis(5), |_| false);
    let after = h.window();
    let ratio = after as f64 / before as f64;
    assert!((0.7..0.71).contains(&ratio), "loss back-off ratio {ratio}");
    assert_eq!(h.sender.stats().packets_lost, 1);

    // The second loss is detected 1 ms later, inside the congestion interval.
    h.advance(Duration::from_millis(1));
    h.ack(&b, Duration::from_millis(5), |_| false);
    assert_eq!(h.sender.stats().packets_lost, 2);
    assert!(
        h.window() >= after,
        "no second back-off inside the interval"
    );
    assert_eq!(h.sender.stats().bytes_in_flight, 0);

    // A loss after the interval backs off again.
    let _l3 = h.send_frame(500);
    h.advance(Duration::from_millis(40));
    let c = h.send_frame(500);
    h.advance(Duration::from_millis(5));
    let before = h.window();
    h.ack(&c, Duration::from_millis(5), |_| false);
    let ratio = h.window() as f64 / before as f64;
    assert_eq!(h.sender.stats().packets_lost, 3);
    // β, plus the increase that the same feedback's acknowledged bytes earn.
    assert!(
        (0.7..0.72).contains(&ratio),
        "second loss back-off ratio {ratio}"
    );
}

#[test]
fn reordering_inside_the_window_is_not_loss() {
    let mut h = Harness::new(config(EcnMode::None));
    let p = h.send_frame(4_000); // 4 packets, paced over about 16 ms
    assert_eq!(p.len(), 4);
    assert!(h.send_time(&p[3]) - h.send_time(&p[0]) < Duration::from_millis(30));
    h.advance(Duration::from_millis(20));
    h.ack(&p[1..], Duration::from_millis(5), |_| false);
    assert_eq!(h.sender.stats().packets_lost, 0);
    assert_eq!(h.sender.stats().bytes_in_flight, u64::from(p[0].size_bytes));
    h.advance(Duration::from_millis(5));
    h.ack(&p[..1], Duration::from_millis(15), |_| false);
    let s = h.sender.stats();
    assert_eq!(
        (s.packets_lost, s.packets_acked, s.bytes_in_flight),
        (0, 4, 0)
    );
}

#[test]
fn duplicated_reports_do_not_double_count() {
    let mut h = Harness::new(config(EcnMode::L4s));
    let p = h.send_frame(5000);
    h.advance(Duration::from_millis(20));
    h.ack(&p, Duration::from_millis(5), |i| i == 0);
    let once = h.sender.stats();
    h.ack(&p, Duration::from_millis(5), |i| i == 0);
    h.ack(&p[2..], Duration::from_millis(5), |_| true);
    let thrice = h.sender.stats();
    assert_eq!(thrice.packets_acked, 5);
    assert_eq!(thrice.packets_ce, 1);
    assert_eq!(thrice.bytes_in_flight, 0);
    assert_eq!(
        thrice.feedback_ignored, 0,
        "repeats are normal, not inconsistent"
    );
    assert_eq!(once.packets_acked, thrice.packets_acked);
}

#[test]
fn inconsistent_feedback_is_counted_and_not_applied() {
    let mut h = Harness::new(config(EcnMode::Classic));
    let p = h.send_frame(3000);
    h.advance(Duration::from_millis(20));
    let in_flight = h.sender.bytes_in_flight();
    let report_time = RemoteInstant::from_nanos(h.now.as_nanos() + RX_OFFSET);
    let rx = |seq: u16, ssrc: u32, arrival: u64| PacketReport {
        ssrc,
        seq,
        status: PacketStatus::Received {
            arrival: Some(RemoteInstant::from_nanos(arrival)),
            ecn: Ecn::Ce,
        },
    };
    let ok_arrival = report_time.as_nanos() - 1_000_000;
    let fb = Feedback {
        report_time,
        reports: vec![
            rx(p[0].seq, 999, ok_arrival),               // unknown SSRC
            rx(p[0].seq, 1, report_time.as_nanos() + 5), // arrived after the report
        ],
    };
    assert_eq!(h.sender.on_feedback(h.now, &fb), FeedbackUse::Taken);
    let s = h.sender.stats();
    assert_eq!(s.feedback_ignored, 2);
    assert_eq!((s.packets_acked, s.packets_ce), (0, 0));
    assert_eq!(s.bytes_in_flight, in_flight);

    // Claiming the arrival of a packet never sent disproves a report, even one that
    // also names a packet in flight: nothing of it is applied.
    for never in [p[0].seq.wrapping_add(20_000), p[0].seq.wrapping_add(3)] {
        let forged = Feedback {
            report_time,
            reports: vec![rx(p[0].seq, 1, ok_arrival), rx(never, 1, ok_arrival)],
        };
        assert_eq!(h.sender.on_feedback(h.now, &forged), FeedbackUse::Unproven);
    }
    let s = h.sender.stats();
    assert_eq!((s.feedback_ignored, s.feedback_unproven), (2, 2));
    assert_eq!((s.packets_acked, s.packets_ce), (0, 0));
    assert_eq!(s.bytes_in_flight, in_flight);

    // A valid report, then one whose report time goes backwards.
    h.ack(&p[..1], Duration::from_millis(5), |_| false);
    let acked = h.sender.stats().packets_acked;
    let back = Feedback {
        report_time: RemoteInstant::from_nanos(report_time.as_nanos() - 1_000_000_000),
        reports: vec![rx(p[1].seq, 1, report_time.as_nanos() - 2_000_000_000)],
    };
    assert_eq!(h.sender.on_feedback(h.now, &back), FeedbackUse::Stale);
    let s = h.sender.stats();
    assert_eq!(s.feedback_ignored, 3);
    assert_eq!(s.packets_acked, acked);

    // Empty and absurd values do not panic.
    h.sender.on_feedback(h.now, &Feedback::default());
    let absurd = Feedback {
        report_time: RemoteInstant::MAX,
        reports: vec![rx(p[1].seq, 1, 0), rx(p[2].seq, 1, u64::MAX)],
    };
    h.sender.on_feedback(h.now, &absurd);
}

#[test]
fn rtp_queue_older_than_threshold_is_discarded_with_key_frame_request() {
    let mut cfg = SenderConfig::default();
    cfg.set_param("max_rtp_queue_delay", 0.1).expect("in range");
    let mut h = Harness::new(cfg);
    h.sender
        .on_media_frame(h.now, h.stream, MediaFrame::new(8000).with_key_frame(true));
    while h.sender.poll_event().is_some() {}
    let st = &h.sender.stats().streams[0];
    assert_eq!(
        (st.rtp_queue_packets, st.rtp_queue_bytes),
        (8, 8000 + 8 * 12)
    );
    let deadline = h.sender.poll_timeout().expect("a discard deadline");
    assert!(
        deadline > h.now + Duration::from_millis(100)
            && deadline <= h.now + Duration::from_millis(101)
    );

    h.advance(Duration::from_millis(50));
    h.sender.handle_timeout(h.now);
    assert_eq!(
        h.sender.stats().streams[0].rtp_queue_delay,
        Duration::from_millis(50)
    );
    assert_eq!(h.sender.poll_event(), None);

    h.advance(Duration::from_millis(60));
    h.sender.handle_timeout(h.now);
    let st = &h.sender.stats().streams[0];
    assert_eq!(
        (st.rtp_queue_packets, st.rtp_queue_bytes, st.queue_discards),
        (0, 0, 1)
    );
    assert_eq!(
        h.sender.poll_event(),
        Some(Event::KeyFrameRequest { stream: h.stream })
    );
    assert_eq!(h.sender.poll_transmit(h.now), Transmit::Idle);
}

#[test]
fn send_window_blocks_but_lets_one_packet_out_when_nothing_is_in_flight() {
    let mut cfg = SenderConfig::default();
    cfg.set_param("initial_ref_wnd_bytes", 3000.0)
        .expect("in range");
    let mut h = Harness::new(cfg);
    let p = h.send_frame(60_000);
    let stats = h.sender.stats();
    // Limit: 3000 * headroom (≤ 3) + one MSS.
    assert!(
        stats.bytes_in_flight <= 3000 * 3 + 1012 + 1012,
        "{}",
        stats.bytes_in_flight
    );
    assert!(p.len() < 60, "window must block");
    assert!(stats.streams[0].rtp_queue_packets > 0);

    // A window smaller than one packet still lets a packet go when nothing is in flight.
    let mut cfg = SenderConfig::default();
    cfg.set_param("mss_bytes", 60_000.0).expect("in range");
    cfg.set_param("initial_ref_wnd_bytes", 100.0)
        .expect("in range");
    cfg.set_param("min_ref_wnd_bytes", 100.0).expect("in range");
    let mut h = Harness::new(cfg);
    let p = h.send_frame(50_000);
    assert_eq!(p.len(), 1);
}

#[test]
fn per_stream_targets_stay_within_limits() {
    let mut sender = Sender::new(SenderConfig::default()).expect("valid");
    let a = sender
        .add_stream(stream_config(1, 0.5, 0.6, 0.8, 1.0))
        .expect("valid");
    let b = sender
        .add_stream(stream_config(2, 0.2, 0.3, 30.0, 1.0))
        .expect("valid");
    let mut now = Instant::from_millis(10);
    let mut sent: Vec<(SentPacket, Instant)> = vec![];
    for round in 0..300u64 {
        for s in [a, b] {
            let bytes = (sender.target_bitrate(s).bps() / 8.0 / 50.0) as u32;
            sender.on_media_frame(now, s, MediaFrame::new(bytes));
        }
        loop {
            match sender.poll_transmit(now) {
                Transmit::Now(p) => sent.push((p, now)),
                Transmit::At(t) if t < now + Duration::from_millis(20) => now = t,
                _ => break,
            }
        }
        now += Duration::from_millis(20);
        // Every fifth round is a congested one: heavy delay; otherwise clean.
        let owd = if round % 5 == 4 {
            Duration::from_millis(200)
        } else {
            Duration::from_millis(10)
        };
        let reports = sent
            .drain(..)
            .map(|(p, t)| PacketReport {
                ssrc: p.ssrc,
                seq: p.seq,
                status: PacketStatus::Received {
                    arrival: Some(RemoteInstant::from_nanos((t + owd).as_nanos())),
                    ecn: Ecn::NotEct,
                },
            })
            .collect();
        now += Duration::from_millis(200);
        sender.on_feedback(
            now,
            &Feedback {
                report_time: RemoteInstant::from_nanos(now.as_nanos()),
                reports,
            },
        );
        for (s, min, max) in [(a, 0.5e6, 0.8e6), (b, 0.2e6, 30e6)] {
            let t = sender.target_bitrate(s).bps();
            assert!(
                (min..=max).contains(&t),
                "round {round}: target {t} outside [{min}, {max}]"
            );
        }
        while let Some(ev) = sender.poll_event() {
            if let Event::TargetBitrate { bitrate, .. } = ev {
                assert!((0.2e6..=30e6).contains(&bitrate.bps()));
            }
        }
    }
}

#[test]
fn priorities_two_to_one_split_the_target_two_to_one() {
    let mut sender = Sender::new(SenderConfig::default()).expect("valid");
    let hi = sender
        .add_stream(stream_config(1, 0.01, 0.5, 100.0, 2.0))
        .expect("valid");
    let lo = sender
        .add_stream(stream_config(2, 0.01, 0.5, 100.0, 1.0))
        .expect("valid");
    let now = Instant::from_millis(10);
    sender.on_media_frame(now, hi, MediaFrame::new(1000));
    let Transmit::Now(p) = sender.poll_transmit(now) else {
        panic!("one packet must go")
    };
    let later = now + Duration::from_millis(30);
    let fb = Feedback {
        report_time: RemoteInstant::from_nanos(later.as_nanos()),
        reports: vec![PacketReport {
            ssrc: p.ssrc,
            seq: p.seq,
            status: PacketStatus::Received {
                arrival: Some(RemoteInstant::from_nanos(now.as_nanos() + 10_000_000)),
                ecn: Ecn::NotEct,
            },
        }],
    };
    sender.on_feedback(later, &fb);
    let (h, l) = (
        sender.target_bitrate(hi).bps(),
        sender.target_bitrate(lo).bps(),
    );
    assert!((h / l - 2.0).abs() < 1e-6, "{h} vs {l}");

    // When the high-priority stream is capped, the other gets the surplus.
    let mut sender = Sender::new(SenderConfig::default()).expect("valid");
    let hi = sender
        .add_stream(stream_config(1, 0.01, 0.5, 0.1, 2.0))
        .expect("valid");
    let lo = sender
        .add_stream(stream_config(2, 0.01, 0.5, 100.0, 1.0))
        .expect("valid");
    sender.on_media_frame(now, hi, MediaFrame::new(1000));
    let Transmit::Now(_) = sender.poll_transmit(now) else {
        panic!("one packet must go")
    };
    sender.on_feedback(later, &fb);
    let total = sender.stats().target_bitrate.bps();
    assert!((sender.target_bitrate(hi).bps() - 0.1e6).abs() < 1.0);
    assert!((sender.target_bitrate(lo).bps() - (total - 0.1e6)).abs() < 1.0);
}

#[test]
fn scheduler_serves_streams_in_proportion_to_priority() {
    let mut sender = Sender::new(SenderConfig::default()).expect("valid");
    let hi = sender
        .add_stream(stream_config(1, 0.1, 1.0, 10.0, 2.0))
        .expect("valid");
    let lo = sender
        .add_stream(stream_config(2, 0.1, 1.0, 10.0, 1.0))
        .expect("valid");
    let now = Instant::ZERO;
    sender.on_media_frame(now, hi, MediaFrame::new(30_000));
    sender.on_media_frame(now, lo, MediaFrame::new(30_000));
    let mut t = now;
    let mut count = [0u32; 2];
    while count[0] + count[1] < 9 {
        match sender.poll_transmit(t) {
            Transmit::Now(p) => count[p.stream.index()] += 1,
            Transmit::At(x) => t = x,
            Transmit::Idle => break,
        }
    }
    assert_eq!(count, [6, 3]);
}

#[test]
fn l4s_alpha_follows_the_ce_fraction_and_more_marking_means_a_smaller_window() {
    let run = |every: usize| {
        let mut h = Harness::new(config(EcnMode::L4s));
        for _ in 0..200 {
            let p = h.send_frame(10_000);
            h.advance(Duration::from_millis(12));
            h.ack(&p, Duration::from_millis(5), |i| i % every == 0);
        }
        let s = h.sender.stats();
        (s.l4s_alpha, s.window_bytes)
    };
    let (alpha_half, wnd_half) = run(2);
    let (alpha_tenth, wnd_tenth) = run(10);
    assert!((alpha_half - 0.5).abs() < 0.05, "alpha {alpha_half}");
    assert!((alpha_tenth - 0.1).abs() < 0.03, "alpha {alpha_tenth}");
    assert!(wnd_half < wnd_tenth, "{wnd_half} vs {wnd_tenth}");
}

#[test]
fn add_stream_rejects_bad_limits_naming_the_field() {
    let mut sender = Sender::new(SenderConfig::default()).expect("valid");
    let e = sender
        .add_stream(stream_config(1, 0.1, 1.0, 1.0, 0.0))
        .unwrap_err();
    assert_eq!(e.field, "priority");
    let e = sender
        .add_stream(stream_config(1, 2.0, 1.0, 1.0, 1.0))
        .unwrap_err();
    assert_eq!(e.field, "min_bitrate");
    sender
        .add_stream(stream_config(1, 0.1, 1.0, 1.0, 1.0))
        .expect("valid");
    let e = sender
        .add_stream(stream_config(1, 0.1, 1.0, 1.0, 1.0))
        .unwrap_err();
    assert_eq!(e.field, "ssrc");
}

#[test]
fn the_pacing_rate_follows_feedback_not_frames() {
    let mut h = Harness::new(config(EcnMode::None));
    for _ in 0..5 {
        clean_round(&mut h);
    }
    let before = h.sender.stats().pacing_rate;
    // A frame ten times the usual size: the reference recomputes its pacing interval
    // only in its feedback handler, so the rate holds until feedback arrives.
    h.sender.on_media_frame(
        h.now,
        h.stream,
        MediaFrame::new(50_000).with_key_frame(true),
    );
    assert_eq!(h.sender.stats().pacing_rate, before);
    let sent = h.drain();
    h.advance(Duration::from_millis(5));
    h.ack(&sent[..1], Duration::from_millis(5), |_| false);
    let after = h.sender.stats().pacing_rate;
    assert!(
        after.bps() > before.bps() * 1.2,
        "the backlog raises the pacing rate at the next feedback: {before} -> {after}"
    );
}

/// Pacing rate and target after frames whose packets are acknowledged five at a time,
/// 20 ms apart (the path delivers about 2 Mbit/s), one packet of each frame CE-marked
/// (`ce_marks`) or none, with `l4s-pacing` on or off.
fn paced_after_slow_delivery(l4s_pacing: bool, ce_marks: bool) -> (Bitrate, Bitrate) {
    let mut cfg = config(EcnMode::L4s);
    cfg.improvements.l4s_pacing = l4s_pacing;
    let mut h = Harness::new(cfg);
    for _ in 0..20 {
        let sent = h.send_frame(20_000);
        for (k, chunk) in sent.chunks(5).enumerate() {
            h.advance(Duration::from_millis(20));
            h.ack(chunk, Duration::from_millis(5), |i| {
                ce_marks && k == 0 && i == 0
            });
        }
    }
    let stats = h.sender.stats();
    (stats.pacing_rate, h.sender.target_bitrate(h.stream))
}

#[test]
fn l4s_pacing_paces_no_faster_than_the_path_delivers() {
    let (faithful, _) = paced_after_slow_delivery(false, true);
    let (capped, target) = paced_after_slow_delivery(true, true);
    // 5 packets of 1012 bytes per 20 ms.
    let delivered = Bitrate::from_bps(5.0 * 1012.0 * 8.0 / 0.020);
    let cap = delivered.bps().max(1.1 * target.bps());
    assert!(faithful.bps() > cap * 1.2, "faithful {faithful}, cap {cap}");
    assert!(capped.bps() <= cap * 1.0001, "capped {capped}, cap {cap}");
}

#[test]
fn l4s_pacing_leaves_pacing_alone_while_nothing_is_marked() {
    let (faithful, _) = paced_after_slow_delivery(false, false);
    let (improved, _) = paced_after_slow_delivery(true, false);
    assert_eq!(faithful, improved);
}

/// A sender goes a second without feedback (frames every 50 ms, all lost), then
/// sends P, and 40 ms later Q, after its flight was given up; only Q is reported, so
/// P (sent into the outage) is lost. Returns the window just before and just after
/// that feedback, and the packets the sender counted lost from it.
fn feedback_after_an_outage(outage_recovery: bool) -> (u64, u64, u64) {
    let mut cfg = config(EcnMode::None);
    cfg.improvements.outage_recovery = outage_recovery;
    let mut h = Harness::new(cfg);
    for _ in 0..5 {
        clean_round(&mut h);
    }
    for _ in 0..20 {
        h.advance(Duration::from_millis(50));
        h.send_frame(3000);
    }
    // Long enough for any stall timeout: the next poll gives the flight up.
    h.advance(Duration::from_secs(1));
    h.drain();
    let p = h.send_frame(500);
    assert_eq!(p.len(), 1, "P leaves");
    h.advance(Duration::from_millis(40));
    let mut q = h.send_frame(500);
    if q.is_empty() {
        // `outage-recovery` bounds what leaves unanswered: Q waits for the next probe.
        let probe_at = h.sender.poll_timeout().expect("a probe is due");
        h.now = h.now.max(probe_at);
        q = h.drain();
    }
    assert_eq!(q.len(), 1, "Q leaves");
    h.advance(Duration::from_millis(10));
    let before = h.window();
    let lost_before = h.sender.stats().packets_lost;
    h.ack(&q, Duration::from_millis(5), |_| false);
    (
        before,
        h.window(),
        h.sender.stats().packets_lost - lost_before,
    )
}

#[test]
fn losses_of_the_outage_itself_do_not_end_the_regrowth() {
    let (before, after, lost) = feedback_after_an_outage(false);
    assert!(lost > 0, "the report reveals losses");
    assert!(
        after < before,
        "faithful: a loss back-off ({before} -> {after})"
    );
    let (before, after, lost) = feedback_after_an_outage(true);
    assert!(lost > 0, "the losses are still counted");
    assert!(
        after > before,
        "outage-recovery: regrowth ({before} -> {after})"
    );
}

/// A large flight whose tail a sudden capacity drop dropped: the head is acknowledged,
/// the tail never arrives, and media keeps coming. Returns how long after the last
/// acknowledgement the next packet left, and the packets declared lost once that
/// packet's report (the first after it) arrives.
fn after_a_dropped_tail(outage_recovery: bool) -> (Duration, u64) {
    let mut cfg = config(EcnMode::None);
    cfg.improvements.outage_recovery = outage_recovery;
    let mut h = Harness::new(cfg);
    for _ in 0..20 {
        clean_round(&mut h);
    }
    // Frames until the window closes, then the head of that flight is acknowledged.
    let mut flight = Vec::new();
    for _ in 0..20 {
        flight.extend(h.send_frame(6000));
        h.advance(Duration::from_millis(1));
    }
    let queued = |h: &Harness| h.sender.stats().streams[0].rtp_queue_bytes;
    assert!(queued(&h) > 0, "the window holds media back");
    h.advance(Duration::from_millis(10));
    h.ack(&flight[..4], Duration::from_millis(5), |_| false);
    // What the acknowledgement let out joins the dropped tail.
    h.drain();
    assert!(queued(&h) > 0, "the window still holds media back");
    let acked_at = h.now;
    let lost_before = h.sender.stats().packets_lost;
    // Media keeps coming; the first packet to leave past the closed window.
    let next = loop {
        h.advance(Duration::from_millis(20));
        let mut sent = h.send_frame(3000);
        if sent.is_empty() {
            if let Some(t) = h.sender.poll_timeout().filter(|t| *t <= h.now) {
                h.sender.handle_timeout(t);
                sent = h.drain();
            }
        }
        if let Some(p) = sent.first() {
            break *p;
        }
        assert!(h.now < acked_at + Duration::from_secs(2), "nothing left");
    };
    let waited = h.now.saturating_duration_since(acked_at);
    h.advance(Duration::from_millis(10));
    h.ack(&[next], Duration::from_millis(5), |_| false);
    (waited, h.sender.stats().packets_lost - lost_before)
}

#[test]
fn outage_recovery_resolves_a_dropped_tail_with_a_probe_not_the_stall() {
    let (faithful_wait, _) = after_a_dropped_tail(false);
    let (probe_wait, lost) = after_a_dropped_tail(true);
    // Faithfully the link idles until the stall guard gives the flight up (0.5 s after
    // the last transmission); the probe leaves after a probe timeout.
    assert!(
        faithful_wait >= Duration::from_millis(400),
        "faithful {faithful_wait:?}"
    );
    assert!(
        probe_wait <= Duration::from_millis(200),
        "probe {probe_wait:?}"
    );
    // The probe's report tells which packets of the tail never arrived.
    assert!(
        lost > 0,
        "the tail is declared lost from the probe's report"
    );
}
