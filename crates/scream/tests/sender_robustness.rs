//! A careless caller: absurd or jumping `now` values, extreme priorities and bitrates.
//! None of them may panic or leave the sender unable to send.

use scream::sender::{
    MediaFrame, Sender, SenderConfig, StreamConfig, StreamId, TIME_JITTER_TOLERANCE, Transmit,
};
use scream::{
    Bitrate, Duration, Ecn, Feedback, Instant, PacketReport, PacketStatus, RemoteInstant,
};

/// Receiver clock epoch, far from ours.
const RX_OFFSET: u64 = 3_000_000_000_000;
/// Where the caller's clock starts: far enough from zero to step back an hour.
const START: Instant = Instant::from_millis(10_000_000);

fn stream(ssrc: u32, priority: f64) -> StreamConfig {
    StreamConfig {
        ssrc,
        min_bitrate: Bitrate::from_kbps(100.0),
        start_bitrate: Bitrate::from_mbps(1.0),
        max_bitrate: Bitrate::from_mbps(20.0),
        priority,
    }
}

/// A sender with one stream sending 1 Mbit/s of frames every 20 ms, each packet
/// acknowledged 20 ms after it left (10 ms one-way delay on the receiver's clock).
struct Loop {
    sender: Sender,
    stream: StreamId,
    /// True time, on which frames and feedback are scheduled.
    t: Instant,
    /// (true send time, ssrc, seq) of packets not yet acknowledged.
    unacked: Vec<(Instant, u32, u16)>,
    next_frame: Instant,
    sent: u64,
}

impl Loop {
    fn new(config: SenderConfig) -> Self {
        let mut sender = Sender::new(config).expect("valid");
        let stream = sender.add_stream(stream(7, 1.0)).expect("valid");
        Self {
            sender,
            stream,
            t: START,
            unacked: vec![],
            next_frame: START,
            sent: 0,
        }
    }

    /// Runs for `span` in 1 ms steps; `caller` maps true time to the `now` the caller
    /// passes. Returns the packets sent meanwhile.
    fn run(&mut self, span: Duration, caller: impl Fn(Instant) -> Instant) -> u64 {
        let end = self.t + span;
        let before = self.sent;
        while self.t < end {
            let now = caller(self.t);
            if self.t >= self.next_frame {
                let frame = MediaFrame::new(2500);
                self.sender.on_media_frame(now, self.stream, frame);
                self.next_frame += Duration::from_millis(20);
            }
            let due: Vec<_> = self
                .unacked
                .iter()
                .copied()
                .filter(|(s, _, _)| *s + Duration::from_millis(20) <= self.t)
                .collect();
            if !due.is_empty() {
                self.unacked
                    .retain(|(s, _, _)| *s + Duration::from_millis(20) > self.t);
                let fb = feedback(self.t, &due);
                self.sender.on_feedback(now, &fb);
            }
            if self.sender.poll_timeout().is_some_and(|x| x <= now) {
                self.sender.handle_timeout(now);
            }
            while let Transmit::Now(p) = self.sender.poll_transmit(now) {
                self.unacked.push((self.t, p.ssrc, p.seq));
                self.sent += 1;
            }
            while self.sender.poll_event().is_some() {}
            self.t += Duration::from_millis(1);
        }
        self.sent - before
    }

    fn queue_bytes(&self) -> u64 {
        self.sender.stats().streams[0].rtp_queue_bytes
    }
}

fn feedback(t: Instant, packets: &[(Instant, u32, u16)]) -> Feedback {
    let remote = |i: Instant| RemoteInstant::from_nanos(i.as_nanos() + RX_OFFSET);
    Feedback {
        report_time: remote(t),
        reports: packets
            .iter()
            .map(|&(sent, ssrc, seq)| PacketReport {
                ssrc,
                seq,
                status: PacketStatus::Received {
                    arrival: Some(remote(sent + Duration::from_millis(10))),
                    ecn: Ecn::NotEct,
                },
            })
            .collect(),
    }
}

/// 1 Mbit/s in 1012-byte packets (1000 payload + 12 header) is ~125 packets/s.
const PACKETS_PER_SECOND: u64 = 125;

/// Every generation's default configuration, with its name.
fn generations() -> impl Iterator<Item = (&'static str, SenderConfig)> {
    scream::sender::GENERATION_NAMES.iter().map(|name| {
        let config = SenderConfig::for_generation(name).expect("a known generation");
        (*name, config)
    })
}

#[test]
fn a_far_future_now_does_not_wedge_the_sender() {
    for (name, config) in generations() {
        let mut l = Loop::new(config);
        assert!(l.run(Duration::from_secs(2), |t| t) > PACKETS_PER_SECOND);
        let now = l.t + Duration::from_secs(24 * 3600);
        l.sender.handle_timeout(now);
        // Normal time resumes at once.
        let first = l.run(Duration::from_secs(1), |t| t);
        let later = l.run(Duration::from_secs(10), |t| t);
        assert!(
            first > 0,
            "{name}: nothing sent in the second after the jump"
        );
        assert!(
            later >= 9 * PACKETS_PER_SECOND,
            "{name}: only {later} packets in 10 s after the jump"
        );
        assert!(
            l.queue_bytes() < 50_000,
            "{name}: RTP queue {} B",
            l.queue_bytes()
        );
    }
}

#[test]
fn time_going_back_an_hour_does_not_stall_the_sender() {
    for (name, config) in generations() {
        let mut l = Loop::new(config);
        l.run(Duration::from_secs(2), |t| t);
        let back = Duration::from_secs(3600);
        let first = l.run(Duration::from_secs(1), |t| t - back);
        let later = l.run(Duration::from_secs(10), |t| t - back);
        assert!(
            first > 0,
            "{name}: nothing sent in the second after the step"
        );
        assert!(
            later >= 9 * PACKETS_PER_SECOND,
            "{name}: only {later} packets in 10 s after the step"
        );
        assert!(
            l.queue_bytes() < 50_000,
            "{name}: RTP queue {} B",
            l.queue_bytes()
        );
        // The instants the sender asks for are on the caller's (new) clock.
        let now = l.t - back;
        l.sender
            .on_media_frame(now, l.stream, MediaFrame::new(20_000));
        let mut at = None;
        while at.is_none() {
            match l.sender.poll_transmit(now) {
                Transmit::Now(_) => {}
                Transmit::At(t) => at = Some(t),
                Transmit::Idle => panic!("{name}: a 20 kB frame fits neither pacing nor window?"),
            }
        }
        let at = at.expect("set above");
        assert!(
            at > now && at < now + Duration::from_millis(100),
            "{name}: pacing asks for {at:?} at {now:?}"
        );
        let timeout = l.sender.poll_timeout().expect("packets in flight");
        assert!(
            timeout < now + Duration::from_secs(2),
            "{name}: timer at {timeout:?} at {now:?}"
        );
    }
}

#[test]
fn a_single_far_past_or_jittery_now_costs_nothing() {
    for (name, config) in generations() {
        let mut l = Loop::new(config);
        l.run(Duration::from_secs(2), |t| t);
        let before = l.sender.stats();
        // One stray zero, then normal time; then a caller whose time stamps jitter
        // back by up to the tolerance.
        l.sender.handle_timeout(Instant::ZERO);
        let sent = l.run(Duration::from_secs(2), |t| {
            if t.as_nanos() % 3_000_000 == 0 {
                t - TIME_JITTER_TOLERANCE
            } else {
                t
            }
        });
        let after = l.sender.stats();
        assert!(
            sent >= 2 * PACKETS_PER_SECOND - 5,
            "{name}: {sent} packets in 2 s"
        );
        assert_eq!(after.packets_lost, before.packets_lost, "{name}");
        assert_eq!(after.streams[0].queue_discards, 0, "{name}");
    }
}

#[test]
fn huge_priorities_split_like_their_ratio() {
    let mut sender = Sender::new(SenderConfig::default()).expect("valid");
    let hi = sender.add_stream(stream(1, 2e305)).expect("valid");
    let lo = sender.add_stream(stream(2, 1e305)).expect("valid");
    let now = Instant::from_millis(10);
    let frame = MediaFrame::new(1000);
    sender.on_media_frame(now, hi, frame);
    sender.on_media_frame(now, lo, frame);
    let mut sent = vec![];
    let mut t = now;
    while sent.len() < 2 {
        match sender.poll_transmit(t) {
            Transmit::Now(p) => sent.push((t, p.ssrc, p.seq)),
            Transmit::At(x) => t = x,
            Transmit::Idle => panic!("two small packets fit the window"),
        }
    }
    let later = now + Duration::from_millis(30);
    sender.on_feedback(later, &feedback(later, &sent));
    let (h, l) = (
        sender.target_bitrate(hi).bps(),
        sender.target_bitrate(lo).bps(),
    );
    assert!(h.is_finite() && l.is_finite());
    assert!(
        h < 20e6,
        "the high-priority target sits at its maximum: {h}"
    );
    assert!((h / l - 2.0).abs() < 1e-6, "{h} vs {l}");
    // The scheduler serves them 2:1 as well.
    let big = MediaFrame::new(30_000);
    sender.on_media_frame(later, hi, big);
    sender.on_media_frame(later, lo, big);
    let mut t = later;
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
fn priorities_must_be_finite_positive_and_within_a_million_to_one() {
    let mut sender = Sender::new(SenderConfig::default()).expect("valid");
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let e = sender.add_stream(stream(1, bad)).unwrap_err();
        assert_eq!(e.field, "priority", "{bad}");
    }
    sender.add_stream(stream(1, 1e-300)).expect("any scale");
    sender
        .add_stream(stream(2, 1e-294))
        .expect("a million times more");
    let e = sender.add_stream(stream(3, 1e-293)).unwrap_err();
    assert_eq!(e.field, "priority");
    assert!(e.reason.contains("10^6"), "{}", e.reason);
    let e = sender.add_stream(stream(3, 1e-301)).unwrap_err();
    assert_eq!(e.field, "priority");
}

#[test]
fn stream_bitrates_are_checked_against_their_ranges() {
    let with = |min: f64, start: f64, max: f64| StreamConfig {
        ssrc: 1,
        min_bitrate: Bitrate::from_bps(min),
        start_bitrate: Bitrate::from_bps(start),
        max_bitrate: Bitrate::from_bps(max),
        priority: 1.0,
    };
    let cases = [
        (with(1e5, 1e6, f64::MAX), "max_bitrate"),
        (with(1e5, 1e6, f64::INFINITY), "max_bitrate"),
        (with(1e5, 1e6, 2e11), "max_bitrate"),
        (with(1e5, 1e6, f64::NAN), "max_bitrate"),
        (with(f64::NAN, 1e6, 2e6), "min_bitrate"),
        (with(-1.0, 1e6, 2e6), "min_bitrate"),
        (with(0.0, 1e6, 2e6), "min_bitrate"),
        (with(1e5, f64::NAN, 2e6), "start_bitrate"),
        (with(1e5, -5.0, 2e6), "start_bitrate"),
        (with(3e6, 1e6, 2e6), "min_bitrate"),
    ];
    for (cfg, field) in cases {
        let mut sender = Sender::new(SenderConfig::default()).expect("valid");
        let e = sender.add_stream(cfg.clone()).unwrap_err();
        assert_eq!(e.field, field, "{cfg:?}: {e}");
        assert!(
            e.reason.contains("100 Gbit/s") || field == "min_bitrate",
            "{e}"
        );
    }
    let mut sender = Sender::new(SenderConfig::default()).expect("valid");
    sender
        .add_stream(with(1.0, 1e11, 1e11))
        .expect("1 bit/s to 100 Gbit/s is in range");
}

#[test]
fn every_parameter_rejects_absurd_values() {
    for generation in scream::sender::GENERATION_NAMES {
        let base = SenderConfig::for_generation(generation).expect("a known generation");
        for name in base.param_names() {
            for value in [f64::NAN, f64::INFINITY, 1e300, -1e300, -1.0] {
                let mut c = base.clone();
                let e = c.set_param(name, value).unwrap_err();
                assert_eq!(e.field, name, "{generation}");
                assert_eq!(c, base);
            }
        }
    }
}

#[test]
fn absurd_frame_sizes_and_bitrates_neither_panic_nor_stall() {
    for (name, config) in generations() {
        let mut sender = Sender::new(config).expect("valid");
        let id = sender
            .add_stream(StreamConfig {
                ssrc: 1,
                min_bitrate: Bitrate::from_bps(1.0),
                start_bitrate: Bitrate::from_bps(1.0),
                max_bitrate: Bitrate::from_bps(1e11),
                priority: 1.0,
            })
            .expect("valid");
        let mut now = START;
        for size in [0, 1, u32::MAX, u32::MAX, 7] {
            sender.on_media_frame(now, id, MediaFrame::new(size));
            let mut sent = 0;
            while let Transmit::Now(_) = sender.poll_transmit(now) {
                sent += 1;
            }
            assert!(sent <= 100, "{name}: {sent} packets at once");
            now += Duration::from_millis(300);
        }
        let s = sender.stats();
        assert!(s.pacing_rate.bps().is_finite(), "{name}");
        assert!(
            s.streams[0].rtp_queue_delay <= Duration::from_secs(2),
            "{name}: {:?}",
            s.streams[0].rtp_queue_delay
        );
    }
}
