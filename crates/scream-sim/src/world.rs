//! The network built from a scenario and the event loop that runs it.
//!
//! Data flow of a media packet: source frame -> sender (`on_media_frame`, then
//! `poll_transmit`) -> each link of the flow's path (queue, serializer, propagation,
//! jitter, loss) -> receiver -> feedback -> return paths in reverse order -> sender.

use crate::compat::{self, FeedbackMsg};
use crate::engine::EventQueue;
use crate::error::SimError;
use crate::flow::{Controller, Flow, packet_from_sent};
use crate::link::{Capacity, Link, LinkAction, RateSchedule, TableSpec, load_capacity_trace};
use crate::metrics::Sample;
use crate::packet::Packet;
use crate::path::{ForwardPath, ReturnPath};
use crate::queue::{Codel, DualPi2, DualPi2Params, EcnThreshold, Fifo, L4sRamp, Queue};
use crate::scenario::{LinkConfig, QueueConfig, QueueKind, Scenario};
use crate::source::frame_trace::resolve_path;
use scream::receiver::ReceivedPacket;
use scream::sender::{Event, Transmit};
use scream::{Bitrate, Duration, Instant};

/// Simulation events.
#[derive(Debug)]
enum Ev {
    /// The source of a flow produces its next frame.
    Frame(u32),
    /// A sender asked to be woken (pacing or timer).
    SenderWake(u32),
    /// A receiver's report may be due.
    ReceiverWake(u32),
    /// A link whose capacity was zero may transmit again.
    LinkStart(u32),
    /// A link finished serialising its packet.
    TxDone(u32),
    /// A packet reaches the input of a link (not the first of its path).
    Arrive(u32, Packet),
    /// A packet reaches its receiver.
    Deliver(Packet),
    /// Feedback reaches a sender.
    Feedback(u32, FeedbackMsg),
    /// Time to record a sample row for every flow.
    Sample,
}

fn ms(v: f64) -> Duration {
    Duration::from_secs_f64((v * 1e-3).max(0.0))
}

fn secs(v: f64) -> Instant {
    Instant::from_nanos((v.max(0.0) * 1e9).round() as u64)
}

fn build_queue(q: &QueueConfig) -> Queue {
    match q.kind {
        QueueKind::TailDrop => Queue::TailDrop(Fifo::new()),
        QueueKind::Codel => {
            Queue::Codel(Codel::new(ms(q.codel_target_ms), ms(q.codel_interval_ms)))
        }
        QueueKind::EcnThreshold => Queue::EcnThreshold(EcnThreshold::new(ms(q.ecn_threshold_ms))),
        QueueKind::L4sRamp => Queue::L4sRamp(L4sRamp::new(ms(q.ramp_min_ms), ms(q.ramp_max_ms))),
        QueueKind::DualPi2 => Queue::DualPi2(DualPi2::new(DualPi2Params {
            target: ms(q.dualpi2_target_ms),
            step: ms(q.dualpi2_step_ms),
            coupling: q.dualpi2_coupling,
            tupdate: ms(q.dualpi2_tupdate_ms),
            alpha: q.dualpi2_alpha,
            beta: q.dualpi2_beta,
        })),
    }
}

fn build_capacity(s: &Scenario, key: &str, l: &LinkConfig) -> Result<Capacity, SimError> {
    if let Some(trace) = &l.trace {
        let path = resolve_path(trace, s.base_dir.as_deref());
        let spec = TableSpec {
            time_column: l.trace_time_column,
            rate_column: l.trace_rate_column,
            unit: l.trace_rate_unit,
            end: l.trace_end,
        };
        return load_capacity_trace(&path, l.trace_format, &spec, l.mahimahi_packet_bytes).map_err(
            |e| SimError::LinkTrace {
                key: format!("{key}.trace"),
                source: e,
            },
        );
    }
    if l.capacity_steps.is_empty() {
        return Ok(Capacity::Constant(Bitrate::from_mbps(l.capacity_mbps)));
    }
    let mut rows = vec![(0u64, Bitrate::from_mbps(l.capacity_mbps))];
    rows.extend(
        l.capacity_steps
            .iter()
            .map(|[from, mbps]| (secs(*from).as_nanos(), Bitrate::from_mbps(*mbps))),
    );
    RateSchedule::new(&rows, None)
        .map(Capacity::Schedule)
        .ok_or_else(|| SimError::Param {
            key: format!("{key}.capacity_steps"),
            reason: "no usable step".into(),
        })
}

fn build_link(s: &Scenario, i: usize, l: &LinkConfig, seed: u64) -> Result<Link, SimError> {
    let key = s.link_key(i);
    let id = format!("link/{}", l.name);
    let forward = ForwardPath::new(
        ms(l.one_way_delay_ms),
        (ms(l.jitter_ms), ms(l.effective_jitter_max_ms())),
        l.jitter_keep_order,
        l.loss,
        seed,
        &id,
    );
    let ret_cap =
        (l.return_capacity_mbps > 0.0).then(|| Bitrate::from_mbps(l.return_capacity_mbps));
    let ret = ReturnPath::new(ms(l.effective_return_delay_ms()), ret_cap);
    Ok(Link::new(
        l.name.clone(),
        build_capacity(s, &key, l)?,
        build_queue(&l.queue),
        ms(l.queue.limit_ms),
        l.queue.limit_bytes,
        forward,
        ret,
        seed,
        &id,
    ))
}

/// A network ready to run.
#[derive(Debug)]
pub struct World {
    events: EventQueue<Ev>,
    /// The links, in scenario order.
    pub links: Vec<Link>,
    /// The flows, in scenario order.
    pub flows: Vec<Flow>,
    /// End of the run.
    pub end: Instant,
    sample_interval: Duration,
    feedback_as_bytes: bool,
    window: Option<(Instant, Instant)>,
    outbox: Vec<Packet>,
    dropped: Vec<Packet>,
    /// Rows recorded so far.
    pub samples: Vec<Sample>,
}

impl World {
    /// Builds the network of a scenario (validated here) with master seed `seed`.
    pub fn new(s: &Scenario, seed: u64) -> Result<Self, SimError> {
        s.validate()?;
        let links = s
            .link_configs()
            .iter()
            .enumerate()
            .map(|(i, l)| build_link(s, i, l, seed))
            .collect::<Result<Vec<_>, _>>()?;
        let names: Vec<String> = links.iter().map(|l| l.name.clone()).collect();
        let flows = (0..s.flows.len())
            .map(|i| Flow::build(s, i, &names))
            .collect::<Result<Vec<_>, _>>()?;
        let mut events = EventQueue::new();
        for (i, f) in flows.iter().enumerate() {
            events.schedule(f.start, Ev::Frame(i as u32));
        }
        let sample_interval = ms(s.sample_interval_ms).max(Duration::from_micros(1));
        events.schedule(Instant::ZERO + sample_interval, Ev::Sample);
        Ok(Self {
            events,
            links,
            flows,
            end: secs(s.duration_s),
            sample_interval,
            feedback_as_bytes: s.feedback_as_bytes,
            window: s.report_window_s.map(|[a, b]| (secs(a), secs(b))),
            outbox: Vec::with_capacity(256),
            dropped: Vec::with_capacity(64),
            samples: Vec::new(),
        })
    }

    /// Runs until the end, reporting the fraction of simulated time done at most
    /// about 100 times.
    pub fn run(&mut self, mut progress: Option<&mut dyn FnMut(f64)>) {
        let step = (self.end.as_nanos() / 100).max(1);
        let mut next_report = step;
        while let Some(at) = self.events.peek_time() {
            if at > self.end {
                break;
            }
            let Some((now, ev)) = self.events.pop() else {
                break;
            };
            self.handle(now, ev);
            if now.as_nanos() >= next_report {
                if let Some(p) = progress.as_deref_mut() {
                    p(now.as_nanos() as f64 / self.end.as_nanos().max(1) as f64);
                }
                next_report = (now.as_nanos() / step + 1) * step;
            }
        }
        if let Some(p) = progress {
            p(1.0);
        }
    }

    fn in_window(&self, now: Instant) -> bool {
        self.window.is_some_and(|(a, b)| now >= a && now < b)
    }

    fn handle(&mut self, now: Instant, ev: Ev) {
        match ev {
            Ev::Frame(f) => self.on_frame(f as usize, now),
            Ev::SenderWake(f) => self.on_sender_wake(f as usize, now),
            Ev::ReceiverWake(f) => self.on_receiver_wake(f as usize, now),
            Ev::LinkStart(l) => self.kick_link(l as usize, now),
            Ev::TxDone(l) => self.on_tx_done(l as usize, now),
            Ev::Arrive(l, pkt) => self.link_input(l as usize, now, pkt),
            Ev::Deliver(pkt) => self.on_deliver(now, pkt),
            Ev::Feedback(f, msg) => self.on_feedback(f as usize, now, msg),
            Ev::Sample => self.on_sample(now),
        }
    }

    fn on_frame(&mut self, f: usize, now: Instant) {
        let flow = &mut self.flows[f];
        if now >= flow.stop {
            return;
        }
        let frame = flow.source.next_frame();
        flow.metrics.on_frame(frame.size_bytes);
        flow.frames += 1;
        let next = flow.frame_time(flow.frames);
        if next < flow.stop {
            self.events.schedule(next, Ev::Frame(f as u32));
        }
        match &mut flow.controller {
            Controller::Scream(ep) => {
                ep.sender.on_media_frame(now, ep.stream, frame);
                self.drive_sender(f, now);
            }
            Controller::FixedRate(fr) => {
                fr.packetize(now, f as u32, flow.ssrc, frame, &mut self.outbox);
                self.flush_outbox(now);
            }
        }
    }

    /// Drains the sender's transmissions and events, then schedules its next wake-up.
    fn drive_sender(&mut self, f: usize, now: Instant) {
        let flow = &mut self.flows[f];
        let Controller::Scream(ep) = &mut flow.controller else {
            return;
        };
        let mut at = None;
        loop {
            match ep.sender.poll_transmit(now) {
                Transmit::Now(sp) => self.outbox.push(packet_from_sent(f as u32, &sp, now)),
                Transmit::At(t) => {
                    at = Some(t);
                    break;
                }
                Transmit::Idle => break,
            }
        }
        while let Some(ev) = ep.sender.poll_event() {
            match ev {
                Event::TargetBitrate { bitrate, .. } => flow.source.set_target(bitrate),
                Event::KeyFrameRequest { .. } => flow.source.request_key_frame(),
            }
        }
        let wake = match (at, ep.sender.poll_timeout()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if let Some(w) = wake {
            if ep.sender_wake.is_none_or(|s| w < s) {
                ep.sender_wake = Some(w);
                self.events.schedule(w, Ev::SenderWake(f as u32));
            }
        }
        self.flush_outbox(now);
    }

    fn on_sender_wake(&mut self, f: usize, now: Instant) {
        let Controller::Scream(ep) = &mut self.flows[f].controller else {
            return;
        };
        if ep.sender_wake != Some(now) {
            return;
        }
        ep.sender_wake = None;
        if ep.sender.poll_timeout().is_some_and(|t| t <= now) {
            ep.sender.handle_timeout(now);
        }
        self.drive_sender(f, now);
    }

    /// Puts the packets the flows released onto the first link of their paths.
    fn flush_outbox(&mut self, now: Instant) {
        let mut out = core::mem::take(&mut self.outbox);
        for pkt in out.drain(..) {
            let flow = &mut self.flows[pkt.flow as usize];
            flow.metrics.on_sent(&pkt);
            let Some(&first) = flow.path.first() else {
                continue;
            };
            self.link_input(first as usize, now, pkt);
        }
        self.outbox = out;
    }

    fn count_drops(&mut self) {
        for p in self.dropped.drain(..) {
            self.flows[p.flow as usize].metrics.packets_dropped += 1;
        }
    }

    fn link_input(&mut self, l: usize, now: Instant, pkt: Packet) {
        if !self.links[l].arrive(now, pkt, &mut self.dropped) {
            self.count_drops();
        }
        self.kick_link(l, now);
    }

    fn kick_link(&mut self, l: usize, now: Instant) {
        let (action, started) = self.links[l].try_start(now, &mut self.dropped);
        self.count_drops();
        if let Some(s) = started {
            let in_window = self.in_window(now);
            let flow = &mut self.flows[s.packet.flow as usize];
            if flow.is_last_hop(s.packet.hop) {
                flow.metrics.on_queue_exit(&s.packet, in_window);
            }
        }
        match action {
            LinkAction::Nothing => {}
            LinkAction::TxDone(t) => self.events.schedule(t, Ev::TxDone(l as u32)),
            LinkAction::WakeAt(t) => self.events.schedule(t, Ev::LinkStart(l as u32)),
        }
    }

    fn on_tx_done(&mut self, l: usize, now: Instant) {
        if let Some((mut pkt, arrival)) = self.links[l].complete(now) {
            let in_window = self.in_window(now);
            let flow = &mut self.flows[pkt.flow as usize];
            let last = flow.is_last_hop(pkt.hop);
            if last {
                flow.metrics.on_delivered_by_path(&pkt, in_window);
            }
            match arrival {
                None => flow.metrics.packets_lost += 1,
                Some(t) if last => self.events.schedule(t, Ev::Deliver(pkt)),
                Some(t) => {
                    pkt.hop += 1;
                    let next = flow.path[usize::from(pkt.hop)];
                    self.events.schedule(t, Ev::Arrive(next, pkt));
                }
            }
        }
        self.kick_link(l, now);
    }

    fn on_deliver(&mut self, now: Instant, pkt: Packet) {
        let f = pkt.flow as usize;
        let flow = &mut self.flows[f];
        flow.metrics.on_received(now, &pkt);
        if let Controller::Scream(ep) = &mut flow.controller {
            ep.receiver.on_packet(
                now,
                ReceivedPacket {
                    ssrc: pkt.ssrc,
                    seq: pkt.seq,
                    size_bytes: pkt.size_bytes,
                    ecn: pkt.ecn,
                    marker: pkt.marker,
                },
            );
            self.drain_receiver(f, now);
        }
    }

    fn on_receiver_wake(&mut self, f: usize, now: Instant) {
        let Controller::Scream(ep) = &mut self.flows[f].controller else {
            return;
        };
        if ep.receiver_wake != Some(now) {
            return;
        }
        ep.receiver_wake = None;
        self.drain_receiver(f, now);
    }

    /// Sends every due report back over the return paths and schedules the receiver's
    /// next wake-up.
    fn drain_receiver(&mut self, f: usize, now: Instant) {
        let flow = &mut self.flows[f];
        let Controller::Scream(ep) = &mut flow.controller else {
            return;
        };
        while let Some(fb) = ep.receiver.poll_feedback(now) {
            let rtcp_ssrc = flow.ssrc ^ crate::flow::RTCP_SSRC_FLIP;
            let (msg, len) = compat::encode(fb, self.feedback_as_bytes, rtcp_ssrc);
            let mut t = now;
            for &l in flow.path.iter().rev() {
                t = self.links[l as usize].ret.transit(t, len);
            }
            self.events.schedule(t, Ev::Feedback(f as u32, msg));
        }
        if let Some(w) = ep.receiver.poll_timeout() {
            if ep.receiver_wake.is_none_or(|s| w < s) {
                ep.receiver_wake = Some(w);
                self.events.schedule(w, Ev::ReceiverWake(f as u32));
            }
        }
    }

    fn on_feedback(&mut self, f: usize, now: Instant, msg: FeedbackMsg) {
        let Controller::Scream(ep) = &mut self.flows[f].controller else {
            return;
        };
        if let Some(fb) = compat::decode(msg, &mut ep.unwrapper) {
            ep.sender.on_feedback(now, &fb);
        }
        self.drive_sender(f, now);
    }

    fn on_sample(&mut self, now: Instant) {
        let period = self.sample_interval.as_secs_f64();
        for (i, flow) in self.flows.iter_mut().enumerate() {
            let (tx, rx, max_q, frame) = flow.metrics.take_period();
            let capacity = flow.path.first().map_or(0.0, |&l| {
                self.links[l as usize].capacity.rate_at(now).mbps()
            });
            let rx_rate = Bitrate::from_bps(rx as f64 * 8.0 / period);
            // Outside its active time a flow has no target: plots and the CSV show zero
            // rather than the start bitrate of a flow that has not started.
            let active = now > flow.start && now <= flow.stop;
            let mut row = Sample {
                t_s: now.as_secs_f64(),
                flow: i,
                target_mbps: if active {
                    flow.source.target().mbps()
                } else {
                    0.0
                },
                tx_mbps: tx as f64 * 8.0 / period * 1e-6,
                acked_mbps: 0.0,
                ref_window_bytes: 0.0,
                bytes_in_flight: 0.0,
                srtt_ms: 0.0,
                est_queue_delay_ms: 0.0,
                sojourn_ms: max_q.as_secs_f64() * 1e3,
                rtp_queue_delay_ms: 0.0,
                frame_size_bytes: frame,
                ce_count: flow.metrics.packets_ce,
                loss_count: flow.metrics.loss_count(),
                capacity_mbps: capacity,
            };
            match &flow.controller {
                _ if !active => {}
                Controller::Scream(ep) => {
                    let v = compat::sender_view(&ep.sender.stats());
                    row.target_mbps = v.target_bitrate.mbps();
                    row.acked_mbps = v.rate_acked.mbps();
                    row.ref_window_bytes = v.ref_window_bytes as f64;
                    row.bytes_in_flight = v.bytes_in_flight as f64;
                    row.srtt_ms = v.srtt.as_secs_f64() * 1e3;
                    row.est_queue_delay_ms = v.queue_delay.as_secs_f64() * 1e3;
                    row.rtp_queue_delay_ms = v.rtp_queue_delay.as_secs_f64() * 1e3;
                }
                // Without feedback, the rate that reached the receiver in the period.
                _ => row.acked_mbps = rx_rate.mbps(),
            }
            self.samples.push(row);
        }
        let next = now + self.sample_interval;
        if next <= self.end {
            self.events.schedule(next, Ev::Sample);
        }
    }
}
