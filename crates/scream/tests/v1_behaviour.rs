//! Behaviour of the `scream-v1` generation (RFC 8298 as the Ericsson code ran it):
//! back-offs on hand-built feedback, and fast increase, rate control and validation in
//! a small closed loop (one FIFO bottleneck, feedback every millisecond).

use scream::sender::{
    CongestionEventKind, EcnMode, GenerationStats, MediaFrame, Sender, SenderConfig, SentPacket,
    StreamConfig, StreamId, Transmit, V1Stats,
};
use scream::{
    Bitrate, Duration, Ecn, Feedback, Instant, PacketReport, PacketStatus, RemoteInstant,
};

/// Receiver clock epoch, far from ours.
const RX_OFFSET: u64 = 5_000_000_000_000;

fn v1_config(ecn: EcnMode, params: &[(&str, f64)]) -> SenderConfig {
    let mut c = SenderConfig::for_generation("scream-v1").expect("scream-v1 exists");
    c.ecn = ecn;
    c.set_param("reorder_time", 0.01).expect("valid");
    for (name, v) in params {
        c.set_param(name, *v).expect("valid parameter");
    }
    c
}

fn stream(min: f64, start: f64, max: f64) -> StreamConfig {
    StreamConfig {
        ssrc: 1,
        min_bitrate: Bitrate::from_mbps(min),
        start_bitrate: Bitrate::from_mbps(start),
        max_bitrate: Bitrate::from_mbps(max),
        priority: 1.0,
    }
}

fn v1_stats(s: &Sender) -> V1Stats {
    match s.stats().generation {
        GenerationStats::V1(v) => v,
        other => panic!("not a V1 sender: {other:?}"),
    }
}

/// A sender driven by hand-built feedback.
struct Hand {
    sender: Sender,
    id: StreamId,
    now: Instant,
    sent: Vec<(SentPacket, Instant)>,
}

impl Hand {
    fn new(ecn: EcnMode, params: &[(&str, f64)]) -> Self {
        let mut sender = Sender::new(v1_config(ecn, params)).expect("valid");
        sender.enable_cc_events(64);
        let id = sender.add_stream(stream(0.1, 1.0, 20.0)).expect("valid");
        Self {
            sender,
            id,
            now: Instant::from_millis(1000),
            sent: vec![],
        }
    }

    fn send_frame(&mut self, bytes: u32) -> Vec<SentPacket> {
        self.sender
            .on_media_frame(self.now, self.id, MediaFrame::new(bytes));
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

    fn ack(&mut self, packets: &[SentPacket], ce: impl Fn(usize) -> bool) {
        let reports = packets
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let sent = self
                    .sent
                    .iter()
                    .find(|(q, _)| q.seq == p.seq)
                    .expect("sent")
                    .1;
                PacketReport {
                    ssrc: p.ssrc,
                    seq: p.seq,
                    status: PacketStatus::Received {
                        arrival: Some(RemoteInstant::from_nanos(
                            (sent + Duration::from_millis(5)).as_nanos() + RX_OFFSET,
                        )),
                        ecn: if ce(i) { Ecn::Ce } else { p.ecn },
                    },
                }
            })
            .collect();
        let fb = Feedback {
            report_time: RemoteInstant::from_nanos(self.now.as_nanos() + RX_OFFSET),
            reports,
        };
        self.sender.on_feedback(self.now, &fb);
    }

    fn advance(&mut self, ms: u64) {
        self.now += Duration::from_millis(ms);
    }

    /// Sends a frame and acknowledges it 10 ms later, `n` times.
    fn clean_rounds(&mut self, n: usize, bytes: u32) {
        for _ in 0..n {
            let p = self.send_frame(bytes);
            self.advance(10);
            self.ack(&p, |_| false);
        }
    }

    /// The back-offs recorded since the last call: (window before, after).
    fn back_offs(&mut self) -> Vec<(u64, u64)> {
        let mut out = vec![];
        while let Some(e) = self.sender.poll_cc_event() {
            if let CongestionEventKind::BackOff {
                window_before,
                window_after,
                ..
            } = e.kind
            {
                out.push((window_before, window_after));
            }
        }
        out
    }
}

#[test]
fn loss_scales_cwnd_by_beta_once_per_rtt() {
    let mut h = Hand::new(EcnMode::None, &[("initial_cwnd_bytes", 40_000.0)]);
    h.clean_rounds(20, 3000);
    h.back_offs();
    // L1 is lost: a packet sent 15 ms later is acknowledged without it.
    let _l1 = h.send_frame(500);
    h.advance(15);
    let a = h.send_frame(500);
    let _l2 = h.send_frame(500);
    h.advance(15);
    let b = h.send_frame(500);
    h.advance(5);
    h.ack(&a, |_| false);
    let offs = h.back_offs();
    assert_eq!(offs.len(), 1, "{offs:?}");
    let (before, after) = offs[0];
    assert_eq!(after, (0.8 * before as f64) as u64);
    // The second loss is detected within an sRTT of the first: no second back-off.
    h.advance(1);
    h.ack(&b, |_| false);
    assert_eq!(h.sender.stats().packets_lost, 2);
    assert!(h.back_offs().is_empty());
    assert!(!v1_stats(&h.sender).in_fast_start);
}

#[test]
fn classic_ce_scales_cwnd_by_beta_ecn() {
    let mut h = Hand::new(EcnMode::Classic, &[("initial_cwnd_bytes", 40_000.0)]);
    h.clean_rounds(20, 3000);
    h.back_offs();
    let p = h.send_frame(3000);
    h.advance(10);
    h.ack(&p, |i| i == 0);
    let offs = h.back_offs();
    assert_eq!(offs.len(), 1);
    let (before, after) = offs[0];
    assert_eq!(after, (0.9 * before as f64) as u64);
    // More CE within min(30 ms, sRTT): no second back-off.
    let p = h.send_frame(3000);
    h.advance(2);
    h.ack(&p, |_| true);
    assert!(h.back_offs().is_empty());
}

#[test]
fn l4s_backoff_is_proportional_to_the_ce_fraction() {
    let mut cuts = vec![];
    for marked in [1usize, 3] {
        let mut h = Hand::new(EcnMode::L4s, &[("initial_cwnd_bytes", 40_000.0)]);
        // Feedback 40 ms apart: each updates l4s_alpha over its own packets only.
        for _ in 0..10 {
            let p = h.send_frame(3000);
            h.advance(40);
            h.ack(&p, |_| false);
        }
        h.back_offs();
        let alpha_before = h.sender.stats().l4s_alpha;
        let p = h.send_frame(3000);
        assert_eq!(p.len(), 3);
        h.advance(40);
        h.ack(&p, |i| i < marked);
        let alpha = h.sender.stats().l4s_alpha;
        let f = marked as f64 / 3.0;
        assert!((alpha - (f / 8.0 + 7.0 / 8.0 * alpha_before)).abs() < 1e-9);
        let (before, after) = h.back_offs()[0];
        let mss = v1_stats(&h.sender).mss_bytes;
        let expected = ((1.0 - alpha / (2.0 * 1.25)) * before as f64) as u64 + mss;
        assert_eq!(after, expected);
        cuts.push(before - after);
    }
    assert!(cuts[1] > cuts[0], "more CE, larger cut: {cuts:?}");
}

#[test]
fn l4s_alpha_never_exceeds_l4s_alpha_max() {
    // Every packet CE-marked, feedback 40 ms apart: l4s_alpha climbs towards 1 unless
    // capped (ac89024 caps it at 0.25).
    let alpha_after = |params: &[(&str, f64)]| {
        let mut h = Hand::new(EcnMode::L4s, params);
        for _ in 0..40 {
            let p = h.send_frame(3000);
            h.advance(40);
            h.ack(&p, |_| true);
        }
        h.sender.stats().l4s_alpha
    };
    let free = alpha_after(&[("initial_cwnd_bytes", 40_000.0)]);
    let capped = alpha_after(&[("initial_cwnd_bytes", 40_000.0), ("l4s_alpha_max", 0.25)]);
    assert!(free > 0.9, "uncapped, all marked: {free}");
    assert!((capped - 0.25).abs() < 1e-9, "capped: {capped}");
}

#[test]
fn cwnd_is_validated_against_bytes_in_flight() {
    let mut h = Hand::new(EcnMode::Classic, &[("initial_cwnd_bytes", 200_000.0)]);
    h.clean_rounds(150, 6000);
    // No congestion yet: the window is not validated, however little is used.
    assert_eq!(h.sender.stats().window_bytes, 200_000);
    let p = h.send_frame(6000);
    h.advance(10);
    h.ack(&p, |_| true);
    let v = v1_stats(&h.sender);
    assert!(v.cwnd_validated);
    let w = h.sender.stats().window_bytes;
    assert_eq!(w, v.max_bytes_in_flight);
    // 1.25 × the largest flight seen before a packet left (five of the frame's six
    // packets).
    assert_eq!(w, (1.25 * 5.0 * 1012.0) as u64);
}

/// A closed loop: frames of target / fps, a FIFO bottleneck at `capacity(t)` with
/// `owd` of propagation and optional extra standing delay, and CE marks above a
/// sojourn threshold; feedback for every packet every millisecond.
struct Loop {
    sender: Sender,
    id: StreamId,
    now: Instant,
    next_frame: Instant,
    free_at: Instant,
    /// (packet, arrival at the receiver, CE)
    in_net: Vec<(SentPacket, Instant, bool)>,
    ce_above: Option<Duration>,
    capacity: Box<dyn Fn(f64) -> f64>,
    extra_delay: Box<dyn Fn(f64) -> Duration>,
}

/// One sample of the loop every 10 ms.
#[derive(Clone, Debug)]
struct Sample {
    t: f64,
    target: f64,
    v1: V1Stats,
    queue_delay: Duration,
}

impl Loop {
    fn new(cfg: SenderConfig, s: StreamConfig, capacity: impl Fn(f64) -> f64 + 'static) -> Self {
        let mut sender = Sender::new(cfg).expect("valid");
        let id = sender.add_stream(s).expect("valid");
        Self {
            sender,
            id,
            now: Instant::ZERO,
            next_frame: Instant::ZERO,
            free_at: Instant::ZERO,
            in_net: vec![],
            ce_above: None,
            capacity: Box::new(capacity),
            extra_delay: Box::new(|_| Duration::ZERO),
        }
    }

    fn secs(&self) -> f64 {
        self.now.as_nanos() as f64 / 1e9
    }

    /// Runs until `until` seconds, sampling every 10 ms.
    fn run(&mut self, until: f64) -> Vec<Sample> {
        let step = Duration::from_micros(250);
        let mut samples = vec![];
        let mut next_sample = 0.0;
        while self.secs() < until {
            if self.now >= self.next_frame {
                let target = self.sender.target_bitrate(self.id).bps();
                let bytes = (target / 8.0 / 50.0) as u32;
                self.sender
                    .on_media_frame(self.now, self.id, MediaFrame::new(bytes));
                self.next_frame += Duration::from_millis(20);
            }
            if self.sender.poll_timeout().is_some_and(|t| t <= self.now) {
                self.sender.handle_timeout(self.now);
            }
            while let Transmit::Now(p) = self.sender.poll_transmit(self.now) {
                let rate = (self.capacity)(self.secs());
                let start = self.free_at.max(self.now);
                let wait = start - self.now;
                self.free_at =
                    start + Duration::from_secs_f64(f64::from(p.size_bytes) * 8.0 / rate);
                let ce = self.ce_above.is_some_and(|th| wait > th);
                let arrival =
                    self.free_at + Duration::from_millis(10) + (self.extra_delay)(self.secs());
                self.in_net.push((p, arrival, ce));
            }
            let now = self.now;
            let (arrived, rest): (Vec<_>, Vec<_>) =
                self.in_net.drain(..).partition(|(_, a, _)| *a <= now);
            self.in_net = rest;
            if !arrived.is_empty() {
                let reports = arrived
                    .iter()
                    .map(|(p, a, ce)| PacketReport {
                        ssrc: p.ssrc,
                        seq: p.seq,
                        status: PacketStatus::Received {
                            arrival: Some(RemoteInstant::from_nanos(a.as_nanos() + RX_OFFSET)),
                            ecn: if *ce { Ecn::Ce } else { p.ecn },
                        },
                    })
                    .collect();
                let fb = Feedback {
                    report_time: RemoteInstant::from_nanos(now.as_nanos() + RX_OFFSET),
                    reports,
                };
                self.sender.on_feedback(now, &fb);
            }
            if self.secs() >= next_sample {
                let st = self.sender.stats();
                samples.push(Sample {
                    t: self.secs(),
                    target: st.streams[0].target_bitrate.bps(),
                    v1: v1_stats(&self.sender),
                    queue_delay: st.queue_delay,
                });
                next_sample += 0.01;
            }
            self.now += step;
        }
        samples
    }
}

fn mean(v: impl Iterator<Item = f64>) -> f64 {
    let (s, n) = v.fold((0.0, 0.0), |(s, n), x| (s + x, n + 1.0));
    s / n
}

#[test]
fn fast_increase_stops_when_the_delay_trend_rises() {
    let cfg = v1_config(
        EcnMode::None,
        &[("ramp_up_speed", 2e6), ("ramp_up_scale", 1.0)],
    );
    let mut l = Loop::new(cfg, stream(0.5, 1.0, 20.0), |_| 4e6);
    let samples = l.run(8.0);
    assert!(
        samples
            .iter()
            .filter(|s| s.t < 2.0)
            .all(|s| s.v1.in_fast_start)
    );
    let exit = samples
        .windows(2)
        .find(|w| w[0].v1.in_fast_start && !w[1].v1.in_fast_start)
        .expect("fast increase ends");
    assert!(exit[1].v1.qdelay_trend >= 0.2, "{:?}", exit[1]);
    assert!(exit[1].t >= 2.0, "the trend is held at 0 for 2 s");
}

#[test]
fn fast_increase_resumes_after_the_trend_stays_low() {
    // The capacity drops long enough to end the fast increase, then returns.
    let cfg = v1_config(
        EcnMode::None,
        &[("ramp_up_speed", 2e6), ("ramp_up_scale", 1.0)],
    );
    let mut l = Loop::new(cfg, stream(0.5, 1.0, 20.0), |t| {
        if (3.0..6.0).contains(&t) { 2e6 } else { 30e6 }
    });
    let samples = l.run(10.0);
    let exit = samples
        .iter()
        .position(|s| s.t > 3.0 && !s.v1.in_fast_start)
        .expect("fast increase ends after the drop");
    let resume = samples[exit..]
        .iter()
        .position(|s| s.v1.in_fast_start)
        .map(|i| i + exit)
        .expect("fast increase resumes");
    // The trend stayed below its threshold for the 0.25 s before the resume.
    let quiet: Vec<_> = samples[..resume]
        .iter()
        .filter(|s| s.t > samples[resume].t - 0.25)
        .collect();
    assert!(quiet.iter().all(|s| s.v1.qdelay_trend <= 0.2), "{quiet:?}");
}

#[test]
fn ramp_up_speed_limits_the_rate_increase_per_interval() {
    let mut reached = vec![];
    for speed in [0.5e6, 2e6] {
        let cfg = v1_config(
            EcnMode::None,
            &[
                ("ramp_up_speed", speed),
                ("ramp_up_scale", 1.0),
                ("adaptive_target_rate_scale", 0.0),
            ],
        );
        let mut l = Loop::new(cfg, stream(0.5, 1.0, 20.0), |_| 50e6);
        let samples = l.run(3.0);
        for w in samples.windows(2) {
            let step = w[1].target - w[0].target;
            // Samples are 10 ms apart, adjustments 20 ms: at most one per sample.
            assert!(step <= speed * 0.02 + 1.0, "step {step} at {}", w[1].t);
        }
        reached.push(samples.last().expect("samples").target);
    }
    assert!(reached[1] > reached[0] + 1e6, "{reached:?}");
}

#[test]
fn the_rate_falls_when_the_rtp_queue_exceeds_rtp_qdelay_th() {
    // Feedback stops for 300 ms: the window fills and the RTP queue grows. Only the
    // RTP queue delay threshold differs.
    let run = |th: f64| {
        let mut h = Hand::new(
            EcnMode::None,
            &[
                ("rtp_qdelay_th", th),
                ("ramp_up_speed", 2e6),
                ("ramp_up_scale", 1.0),
            ],
        );
        let frame = |h: &Hand| (h.sender.target_bitrate(h.id).bps() / 8.0 / 50.0) as u32;
        for _ in 0..50 {
            let p = h.send_frame(frame(&h));
            h.advance(10);
            h.ack(&p, |_| false);
            h.advance(10);
        }
        let before = h.sender.target_bitrate(h.id).bps();
        let mut queue_delay = Duration::ZERO;
        for _ in 0..15 {
            h.send_frame(frame(&h));
            h.advance(20);
            queue_delay = queue_delay.max(h.sender.stats().streams[0].rtp_queue_delay);
        }
        (before, h.sender.target_bitrate(h.id).bps(), queue_delay)
    };
    let (before, after, queue_delay) = run(0.05);
    assert!(queue_delay > Duration::from_millis(50), "{queue_delay:?}");
    assert!(after < before, "{after} vs {before}");
    let (before, after, _) = run(5.0);
    assert!(
        after > before,
        "below the threshold the fast increase goes on: {after} vs {before}"
    );
}

#[test]
fn pre_congestion_guard_lowers_the_rate_before_the_target_is_reached() {
    let run = |guard: f64| {
        let cfg = v1_config(
            EcnMode::None,
            &[
                ("pre_congestion_guard", guard),
                ("ramp_up_speed", 2e6),
                ("ramp_up_scale", 1.0),
            ],
        );
        let mut l = Loop::new(cfg, stream(0.5, 1.0, 20.0), |_| 4e6);
        let s = l.run(12.0);
        let late: Vec<_> = s.into_iter().filter(|s| s.t > 6.0).collect();
        let rate = mean(late.iter().map(|s| s.target));
        let qd = mean(late.iter().map(|s| s.queue_delay.as_secs_f64()));
        (rate, qd)
    };
    let (rate0, qd0) = run(0.0);
    let (rate1, qd1) = run(1.0);
    assert!(rate1 < rate0, "{rate1} vs {rate0}");
    assert!(qd1 < qd0, "{qd1} vs {qd0}");
    // Both hold the queue below the target (0.1 s): the guard acts before it.
    assert!(qd0 < 0.1 && qd1 < 0.1, "{qd0} {qd1}");
}

#[test]
fn the_delay_target_rises_under_competing_traffic() {
    // A loss-based competitor keeps a steady 150 ms queue from 0.3 s on. Once the
    // 10 s delay history is all standing queue, its variance is low and the target
    // moves to the standing queue delay. (A window floor keeps feedback frequent, so
    // that the history fills within the test.)
    let run = |on: f64| {
        let cfg = v1_config(
            EcnMode::None,
            &[
                ("competing_flows_compensation", on),
                ("min_cwnd_bytes", 30_000.0),
            ],
        );
        let mut l = Loop::new(cfg, stream(1.5, 2.0, 2.0), |_| 20e6);
        l.extra_delay = Box::new(|t| {
            if t > 0.3 {
                Duration::from_millis(150)
            } else {
                Duration::ZERO
            }
        });
        l.run(14.0).last().expect("samples").v1.qdelay_target
    };
    assert_eq!(run(0.0), Duration::from_millis(100));
    let raised = run(1.0);
    assert!(raised >= Duration::from_millis(140), "{raised:?}");
    assert!(raised <= Duration::from_millis(300), "{raised:?}");
}

#[test]
fn l4s_marks_hold_the_queue_near_the_marking_threshold() {
    let cfg = v1_config(
        EcnMode::L4s,
        &[("ramp_up_speed", 2e6), ("ramp_up_scale", 1.0)],
    );
    let mut l = Loop::new(cfg, stream(0.5, 1.0, 20.0), |_| 6e6);
    l.ce_above = Some(Duration::from_millis(4));
    let s = l.run(10.0);
    let late: Vec<_> = s.iter().filter(|s| s.t > 5.0).collect();
    let rate = mean(late.iter().map(|s| s.target));
    let qd = mean(late.iter().map(|s| s.queue_delay.as_secs_f64()));
    assert!((3e6..6.5e6).contains(&rate), "rate {rate}");
    assert!(qd < 0.02, "queue delay {qd}");
}

#[test]
fn the_study_parameter_names_exist_with_their_units() {
    let c = SenderConfig::for_generation("scream-v1").expect("scream-v1 exists");
    let params = c.params();
    for (name, unit) in [
        ("qdelay_target_lo", "s"),
        ("qdelay_trend_th", "1"),
        ("rate_adjust_interval", "s"),
        ("ramp_up_speed", "bit/s"),
        ("pre_congestion_guard", "1"),
        ("tx_queue_size_factor", "1"),
        ("rtp_qdelay_th", "s"),
        ("target_rate_scale_rtp_qdelay", "1"),
        ("adaptive_target_rate_scale", "0/1"),
        ("competing_flows_compensation", "0/1"),
    ] {
        let p = params
            .iter()
            .find(|p| p.name == name)
            .unwrap_or_else(|| panic!("{name} missing"));
        assert_eq!(p.unit, unit, "{name}");
    }
    assert!(c.v1().is_some() && c.v2().is_none());
}
