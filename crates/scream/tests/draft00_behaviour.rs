//! Behaviour of the `scream-draft00` generation (draft-johansson-rmcat-scream-cc-00),
//! driven over a path whose queue delay, losses and CE marks each test sets by hand.

use scream::sender::{
    BackOffCause, CongestionEventKind, EcnMode, Event, GenerationStats, MediaFrame, Sender,
    SenderConfig, StreamConfig, StreamId, Transmit,
};
use scream::{
    Bitrate, Duration, Ecn, Feedback, Instant, PacketReport, PacketStatus, RemoteInstant,
};

/// Receiver clock epoch, far from ours.
const RX_OFFSET: u64 = 7_000_000_000_000;
/// One-way delay of the empty path, each way.
const BASE_OWD: Duration = Duration::from_millis(10);
/// Time between two frames (50 fps).
const FRAME_PERIOD: Duration = Duration::from_millis(20);

const fn ms(v: u64) -> Duration {
    Duration::from_millis(v)
}

fn config() -> SenderConfig {
    SenderConfig::for_generation("scream-draft00").expect("a known generation")
}

/// `config()` with draft-00 parameter `name` set to `value`.
fn with(name: &str, value: f64) -> SenderConfig {
    let mut c = config();
    c.set_param(name, value)
        .expect("a valid draft-00 parameter");
    c
}

/// A packet on its way: when the receiver got it, when its report reaches the sender,
/// and whether it was lost or CE-marked.
#[derive(Clone, Copy)]
struct OnPath {
    ssrc: u32,
    seq: u16,
    arrival: Instant,
    report_due: Instant,
    lost: bool,
    ce: bool,
}

/// One video stream of fixed-size frames over a path of `BASE_OWD` each way, plus the
/// queue delay `queue(t)` for a packet sent at `t`. The receiver reports every packet
/// `BASE_OWD` after it arrived; `drop(t)` and `mark(t)` lose or CE-mark the packets
/// sent at `t`; with `feedback` off no report comes back.
struct Harness {
    sender: Sender,
    stream: StreamId,
    now: Instant,
    next_frame: Instant,
    frame_bytes: u32,
    key_frames: bool,
    queue: Box<dyn Fn(Instant) -> Duration>,
    drop: Box<dyn Fn(Instant) -> bool>,
    mark: Box<dyn Fn(Instant) -> bool>,
    feedback: bool,
    on_path: Vec<OnPath>,
    events: Vec<Event>,
    /// (RTP-queue age just before the frame came, whether it was skipped, key frame)
    frames: Vec<(Duration, bool, bool)>,
}

impl Harness {
    fn new(config: SenderConfig, frame_bytes: u32) -> Self {
        let mut sender = Sender::new(config).expect("valid config");
        let stream = sender
            .add_stream(StreamConfig {
                ssrc: 9,
                min_bitrate: Bitrate::from_kbps(100.0),
                start_bitrate: Bitrate::from_mbps(1.0),
                max_bitrate: Bitrate::from_mbps(50.0),
                priority: 1.0,
            })
            .expect("valid stream");
        sender.enable_cc_events(1 << 12);
        let start = Instant::from_millis(1000);
        Self {
            sender,
            stream,
            now: start,
            next_frame: start,
            frame_bytes,
            key_frames: false,
            queue: Box::new(|_| Duration::ZERO),
            drop: Box::new(|_| false),
            mark: Box::new(|_| false),
            feedback: true,
            on_path: vec![],
            events: vec![],
            frames: vec![],
        }
    }

    /// Runs for `span` in 1 ms steps.
    fn run(&mut self, span: Duration) {
        let end = self.now + span;
        while self.now < end {
            self.step();
            self.now += ms(1);
        }
    }

    fn step(&mut self) {
        let now = self.now;
        if now >= self.next_frame {
            let age = self.stream_stats().rtp_queue_delay;
            let before = self.sender.frames_skipped(self.stream);
            let frame = MediaFrame::new(self.frame_bytes).with_key_frame(self.key_frames);
            self.sender.on_media_frame(now, self.stream, frame);
            let skipped = self.sender.frames_skipped(self.stream) > before;
            self.frames.push((age, skipped, self.key_frames));
            self.next_frame += FRAME_PERIOD;
        }
        let (due, later): (Vec<OnPath>, Vec<OnPath>) =
            self.on_path.iter().partition(|p| p.report_due <= now);
        self.on_path = later;
        if self.feedback && !due.is_empty() {
            let fb = report(now - BASE_OWD, &due);
            self.sender.on_feedback(now, &fb);
        }
        if self.sender.poll_timeout().is_some_and(|t| t <= now) {
            self.sender.handle_timeout(now);
        }
        while let Transmit::Now(p) = self.sender.poll_transmit(now) {
            let arrival = now + BASE_OWD + (self.queue)(now);
            self.on_path.push(OnPath {
                ssrc: p.ssrc,
                seq: p.seq,
                arrival,
                report_due: arrival + BASE_OWD,
                lost: (self.drop)(now),
                ce: (self.mark)(now),
            });
        }
        while let Some(e) = self.sender.poll_event() {
            self.events.push(e);
        }
    }

    fn stream_stats(&self) -> scream::sender::StreamStats {
        self.sender.stats().streams[0].clone()
    }

    fn window(&self) -> u64 {
        self.sender.stats().window_bytes
    }

    fn scale_factor(&self) -> f64 {
        match self.sender.stats().generation {
            GenerationStats::Draft00(d) => d.scale_factors[0],
            other => panic!("not a draft-00 sender: {other:?}"),
        }
    }

    /// Back-offs recorded since the last call, with their cause and windows.
    fn back_offs(&mut self) -> Vec<(BackOffCause, u64, u64)> {
        let mut out = vec![];
        while let Some(e) = self.sender.poll_cc_event() {
            if let CongestionEventKind::BackOff {
                cause,
                window_before,
                window_after,
            } = e.kind
            {
                out.push((cause, window_before, window_after));
            }
        }
        out
    }
}

fn remote(t: Instant) -> RemoteInstant {
    RemoteInstant::from_nanos(t.as_nanos() + RX_OFFSET)
}

fn report(report_time: Instant, packets: &[OnPath]) -> Feedback {
    Feedback {
        report_time: remote(report_time),
        reports: packets
            .iter()
            .map(|p| PacketReport {
                ssrc: p.ssrc,
                seq: p.seq,
                status: if p.lost {
                    PacketStatus::NotReceived
                } else {
                    PacketStatus::Received {
                        arrival: Some(remote(p.arrival)),
                        ecn: if p.ce { Ecn::Ce } else { Ecn::Ect0 },
                    }
                },
            })
            .collect(),
    }
}

/// Window change over `span`, from half a second at an empty queue with frames too
/// small to fill the pipe (the window stays where it starts), then at the queue delay
/// `queue(t)` with frames (400 Mbit/s) far larger than the window lets through.
fn change(config: SenderConfig, queue: fn(Duration) -> Duration, span: Duration) -> f64 {
    let mut h = Harness::new(config, 200);
    h.run(ms(500));
    let t0 = h.now;
    h.queue = Box::new(move |t| queue(t - t0));
    h.frame_bytes = 1_000_000;
    // Reports of packets sent before the change still arrive for one RTT.
    h.run(ms(100));
    let before = h.window() as f64;
    h.run(span);
    h.window() as f64 - before
}

fn empty(_: Duration) -> Duration {
    Duration::ZERO
}

fn half_target(_: Duration) -> Duration {
    ms(40)
}

fn at_target(_: Duration) -> Duration {
    ms(80)
}

fn twice_target(_: Duration) -> Duration {
    ms(160)
}

#[test]
fn an_unfilled_pipe_does_not_grow_the_window() {
    // 200-byte frames every 20 ms never put half the window in flight (§9.1.4: grow
    // only while bytes_in_flight · cwndHeadroom > cwnd, the headroom 2 here).
    let mut h = Harness::new(config(), 200);
    h.run(ms(2000));
    assert_eq!(h.window(), 10_000);
    assert!(h.sender.stats().srtt < ms(30));
}

#[test]
fn the_window_grows_by_gain_up_while_owd_is_below_target() {
    let one = change(config(), empty, ms(200));
    let two = change(with("gain_up", 2.0), empty, ms(200));
    assert!(one > 0.0, "{one}");
    // With the queue empty (off_target = 1) each window's worth of acknowledged bytes
    // adds gain_up packets: over a fixed time, twice the gain grows about twice as
    // much (a little more: the larger window brings more acknowledgements).
    assert!(
        two / one > 1.7 && two / one < 2.6,
        "gain 1: {one} B, gain 2: {two} B"
    );
    // Half way to the target each window of acknowledgements adds half as much, and
    // the longer RTT brings fewer of them.
    let half = change(config(), half_target, ms(200));
    assert!(half > 0.0 && half < 0.7 * one, "{half} vs {one}");
}

/// `config()` with a window of 40 kB to start from, room for a decrease.
fn large() -> SenderConfig {
    with("initial_cwnd_bytes", 40_000.0)
}

#[test]
fn the_window_shrinks_by_gain_down_above_target() {
    let one = change(large(), twice_target, ms(300));
    let mut c = large();
    c.set_param("gain_down", 2.0).expect("valid");
    let two = change(c, twice_target, ms(300));
    assert!(one < 0.0, "{one}");
    assert!(
        (two / one - 2.0).abs() < 0.4,
        "gain 1: {one} B, gain 2: {two} B"
    );
    // Nothing changes at the target itself.
    let at = change(large(), at_target, ms(300));
    assert!(at.abs() < 1.0, "{at}");
}

/// Window change over 400 ms after two seconds at a 160 ms queue (the sRTT, which
/// follows the RTT slowly, has then passed 130 ms); from then on the queue delay
/// falls by `fall_per_s` milliseconds per second.
fn decrease_after_a_long_queue(fall_per_s: u64) -> f64 {
    let mut h = Harness::new(with("initial_cwnd_bytes", 60_000.0), 1_000_000);
    h.run(ms(500));
    let t0 = h.now + ms(2000);
    h.queue = Box::new(move |t| {
        let falling = t.saturating_duration_since(t0) * fall_per_s as u32 / 1000;
        ms(160).saturating_sub(falling)
    });
    h.run(ms(2000));
    assert!(
        h.sender.stats().srtt > ms(130),
        "{:?}",
        h.sender.stats().srtt
    );
    // Reports of packets sent before t0 arrive for one more RTT.
    h.run(ms(200));
    let before = h.window() as f64;
    h.run(ms(400));
    h.window() as f64 - before
}

#[test]
fn a_delay_that_does_not_fall_shrinks_the_window_faster_on_a_long_rtt() {
    // With an RTT above 100 ms, §9.1.4's RTT factor min(2, rtt / 0.1 s) speeds the
    // decrease up while the delay holds or rises; while it falls, the plain gain
    // applies. At a falling queue the distance to the target is a little smaller
    // too (offTarget about -0.95 instead of -1).
    let holding = decrease_after_a_long_queue(0);
    let falling = decrease_after_a_long_queue(20);
    assert!(holding < 0.0 && falling < 0.0, "{holding}, {falling}");
    let ratio = holding / falling;
    assert!(
        ratio > 1.5 && ratio < 2.4,
        "holding {holding} B, falling {falling} B"
    );
}

#[test]
fn the_off_target_is_reported_relative_to_the_owd_target() {
    let mut h = Harness::new(config(), 5000);
    // The base delay is learnt at an empty queue first.
    h.run(ms(500));
    h.queue = Box::new(|_| ms(120));
    h.run(ms(1000));
    let GenerationStats::Draft00(d) = h.sender.stats().generation else {
        panic!("not a draft-00 sender");
    };
    assert_eq!(d.owd_target, ms(80));
    assert!((d.off_target + 0.5).abs() < 0.05, "{}", d.off_target);
}

#[test]
fn loss_scales_the_window_by_beta_once_per_rtt() {
    let mut h = Harness::new(config(), 20_000);
    h.run(ms(1500));
    h.back_offs();
    // Every packet sent in a 10 ms burst is lost: one loss event.
    let t0 = h.now;
    h.drop = Box::new(move |t| t >= t0 && t < t0 + ms(10));
    h.run(ms(300));
    let events = h.back_offs();
    assert_eq!(events.len(), 1, "{events:?}");
    let (cause, before, after) = events[0];
    assert_eq!(cause, BackOffCause::Loss);
    let ratio = after as f64 / before as f64;
    assert!((ratio - 0.8).abs() < 0.01, "{before} -> {after}");
    // Losses every 5 ms for 200 ms: at most one back-off per sRTT (at least the 20 ms
    // base RTT), but one in each.
    let t1 = h.now;
    h.drop = Box::new(move |t| t >= t1 && t < t1 + ms(200) && (t - t1).as_millis() % 5 == 0);
    h.run(ms(400));
    let srtt = h.sender.stats().srtt;
    let events = h.back_offs();
    let most = (200.0 / (srtt.as_secs_f64() * 1e3)).ceil() as usize + 1;
    assert!(
        events.len() >= 2 && events.len() <= most,
        "{} back-offs at sRTT {srtt:?}",
        events.len()
    );
    assert!(events.iter().all(|(c, _, _)| *c == BackOffCause::Loss));
}

#[test]
fn ce_marks_count_as_loss_once_per_rtt() {
    let mut c = with("beta_loss", 0.5);
    c.ecn = EcnMode::Classic;
    let mut h = Harness::new(c, 20_000);
    h.run(ms(1500));
    h.back_offs();
    let t0 = h.now;
    h.mark = Box::new(move |t| t >= t0 && t < t0 + ms(10));
    h.run(ms(300));
    let events = h.back_offs();
    assert_eq!(events.len(), 1, "{events:?}");
    let (cause, before, after) = events[0];
    assert_eq!(cause, BackOffCause::Ce);
    assert!((after as f64 / before as f64 - 0.5).abs() < 0.01);
}

#[test]
fn bytes_in_flight_stay_below_the_window() {
    for cwnd in [5000.0, 10_000.0, 24_000.0] {
        let mut h = Harness::new(with("initial_cwnd_bytes", cwnd), 3000);
        // No feedback: the window stays at its initial size and fills up.
        h.feedback = false;
        let mut most = 0;
        for _ in 0..400 {
            h.run(ms(1));
            most = most.max(h.sender.bytes_in_flight());
        }
        assert_eq!(h.window(), cwnd as u64);
        // §9.1.2: a packet leaves only while bytes_in_flight + size < cwnd.
        assert!(most < h.window(), "{cwnd}: {most} in flight");
        assert!(
            most + 1300 >= h.window(),
            "{cwnd}: the window was not used: {most}"
        );
    }
}

#[test]
fn frames_are_skipped_while_the_rtp_queue_is_older_than_the_threshold() {
    let mut h = Harness::new(config(), 4000);
    // Without feedback the window fills and the RTP queue ages until it is discarded.
    h.feedback = false;
    h.run(ms(1500));
    let skipped: Vec<_> = h.frames.iter().filter(|f| f.1).collect();
    assert!(skipped.len() > 10, "{} skipped", skipped.len());
    for (i, (age, skip, _)) in h.frames.iter().enumerate() {
        assert_eq!(
            *skip,
            *age > ms(100),
            "frame {i} at an RTP-queue age of {age:?}"
        );
    }
    let counted = h.sender.stats().streams[0].frames_skipped;
    assert_eq!(counted, skipped.len() as u64);
    let GenerationStats::Draft00(d) = h.sender.stats().generation else {
        panic!("not a draft-00 sender");
    };
    assert_eq!(d.frames_skipped, counted);
    assert!(
        h.events
            .iter()
            .any(|e| matches!(e, Event::FrameSkipped { .. }))
    );
    // Once the stall guard gave up the flight and the queue drained, frames were
    // queued again.
    let first = h.frames.iter().position(|f| f.1).expect("a skipped frame");
    assert!(h.frames[first..].iter().any(|f| !f.1));
}

#[test]
fn a_higher_threshold_skips_later() {
    let mut h = Harness::new(with("frame_skip_delay", 0.3), 4000);
    h.feedback = false;
    h.run(ms(1200));
    assert!(h.frames.iter().any(|f| f.1));
    for (age, skip, _) in &h.frames {
        assert_eq!(*skip, *age > ms(300), "{age:?}");
    }
}

#[test]
fn key_frames_are_never_skipped() {
    let mut h = Harness::new(config(), 4000);
    h.feedback = false;
    h.key_frames = true;
    h.run(ms(800));
    assert!(
        h.frames.iter().any(|f| f.0 > ms(100)),
        "the queue never aged"
    );
    assert!(h.frames.iter().all(|f| !f.1));
    assert_eq!(h.sender.frames_skipped(h.stream), 0);
}

#[test]
fn scream_v2_never_skips_a_frame() {
    let mut h = Harness::new(SenderConfig::default(), 4000);
    h.feedback = false;
    h.run(ms(800));
    assert!(
        h.frames.iter().any(|f| f.0 > ms(100)),
        "the queue never aged"
    );
    assert!(h.frames.iter().all(|f| !f.1));
}

/// The stream's target over its `max_bitrate` (50 Mbit/s in the harness).
fn target_share(h: &Harness) -> f64 {
    h.sender.target_bitrate(h.stream).bps() / 50e6
}

#[test]
fn the_target_ramps_up_from_the_lowest_scale_factor_over_the_ramp_up_time() {
    // Small frames at an empty queue: the RTP queue never ages.
    let mut h = Harness::new(config(), 500);
    h.run(ms(200));
    assert!(h.scale_factor() < 0.15, "{}", h.scale_factor());
    // §9.1.6: frame_period · scale_factor_max / ramp_up_time per frame, so about a
    // quarter per second with the 4 s ramp-up (the first steps are smaller: limited
    // to a fifth of the factor).
    h.run(ms(2000));
    let scale = h.scale_factor();
    assert!(scale > 0.5 && scale < 0.65, "{scale}");
    assert!((target_share(&h) - scale).abs() < 1e-6);
    h.run(ms(3000));
    assert_eq!(h.scale_factor(), 1.0);
    assert!((target_share(&h) - 1.0).abs() < 1e-6);
}

#[test]
fn the_scale_factor_falls_when_the_averaged_rtp_queue_age_exceeds_half_a_frame() {
    let mut h = Harness::new(config(), 500);
    h.run(ms(5000));
    assert_eq!(h.scale_factor(), 1.0);
    // Frames of 40 kB every 20 ms (16 Mbit/s) at a queue delay at the target: the
    // window does not grow, the frames do not fit, and the RTP queue ages.
    h.queue = Box::new(|_| ms(80));
    h.frame_bytes = 40_000;
    h.run(ms(1000));
    let scale = h.scale_factor();
    assert!(scale < 0.5, "scale {scale}");
    assert!((target_share(&h) - scale).abs() < 1e-6);
    let aged = h.frames.iter().rev().take(50).any(|f| f.0 > ms(10));
    assert!(aged, "the RTP queue never aged");
    // Tiny frames: the queue drains and the factor climbs again, slowed down by the
    // one-way delay at the target (5 times: a fifth of the empty-queue ramp).
    h.frame_bytes = 200;
    h.run(ms(500));
    let low = h.scale_factor();
    h.run(ms(2000));
    let climbed = h.scale_factor() - low;
    assert!(climbed > 0.0 && climbed < 0.15, "{low} + {climbed}");
}
