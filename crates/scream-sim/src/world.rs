//! The event pump: packets arrive at directed links and nodes, links and nodes wake at
//! their own timeouts, and samples are taken on a fixed period.
//!
//! The world names no algorithm. It moves packets along routes, lets each directed
//! link and each endpoint (the `endpoint` module) handle them, and records what is
//! true where it happens: a stream's packets when its sender releases them, when they
//! leave the last link of their route, when a link drops them and when they reach the
//! receiver; a flow's feedback likewise.

use std::sync::Arc;

use crate::build::{self, LinkNode, Parts};
use crate::endpoint::Endpoint;
use crate::engine::EventQueue;
use crate::error::SimError;
use crate::flow::{Flow, StreamInfo};
use crate::log::{CC_EVENT_CAPACITY, LogOptions, LogReport, Logs, Names};
use crate::metrics::{FeedbackMetrics, LinkSample, Sample, StreamMetrics};
use crate::packet::Packet;
use crate::route::Route;
use crate::scenario::Scenario;
use crate::wakes::Wakes;
use scream::{Duration, Instant};
use scream_netmodel::{DropCause, LinkStats};

/// Simulation events.
#[derive(Debug)]
enum Ev {
    /// A packet reaches the next element of its route (a link's input or the node at
    /// its end).
    Arrive(Packet),
    /// A directed link asked to be woken.
    LinkWake(u32),
    /// A node asked to be woken.
    NodeWake(u32),
    /// Time to record the sample rows.
    Sample,
}

/// A node and its pending wake-ups.
#[derive(Debug)]
struct Node {
    endpoint: Endpoint,
    wakes: Wakes,
}

/// A directed link and its pending wake-ups.
#[derive(Debug)]
struct Link {
    node: LinkNode,
    wakes: Wakes,
    /// Counters at the previous sample, for per-interval figures.
    at_last_sample: LinkStats,
}

/// A network ready to run.
#[derive(Debug)]
pub struct World {
    events: EventQueue<Ev>,
    links: Vec<Link>,
    nodes: Vec<Node>,
    routes: Vec<Route>,
    /// The flows, in scenario order.
    pub(crate) flows: Vec<Flow>,
    /// Every stream of every flow, flow by flow.
    pub(crate) streams: Vec<StreamInfo>,
    /// What happened to each stream's packets and frames.
    pub(crate) stream_metrics: Vec<StreamMetrics>,
    /// What happened to each flow's feedback.
    pub(crate) feedback: Vec<FeedbackMetrics>,
    /// End of the run.
    pub(crate) end: Instant,
    sample_interval: Duration,
    window: Option<(Instant, Instant)>,
    /// Flow rows recorded so far, by time then flow then stream.
    pub(crate) samples: Vec<Sample>,
    /// Link rows recorded so far, by time then link then direction.
    pub(crate) link_samples: Vec<LinkSample>,
    /// The packet and event logs, when asked for (`set_logs`).
    logs: Option<Box<Logs>>,
}

impl World {
    /// Builds the network of a scenario (validated here) with master seed `seed`.
    pub fn new(s: &Scenario, seed: u64) -> Result<Self, SimError> {
        s.validate()?;
        let links = build::build_links(s, seed)?
            .into_iter()
            .map(|node| Link {
                node,
                wakes: Wakes::default(),
                at_last_sample: LinkStats::default(),
            })
            .collect();
        let mut parts = Parts::default();
        for i in 0..s.flows.len() {
            parts.add_flow(s, i, seed)?;
        }
        let mut events = EventQueue::with_grid(s.clock.step_grid());
        let nodes: Vec<Node> = parts
            .nodes
            .into_iter()
            .map(|endpoint| Node {
                endpoint,
                wakes: Wakes::default(),
            })
            .collect();
        let sample_interval = build::ms(s.sample_interval_ms).max(Duration::from_micros(1));
        events.schedule_exact(Instant::ZERO + sample_interval, Ev::Sample);
        let mut world = Self {
            events,
            links,
            nodes,
            routes: parts.routes,
            flows: parts.flows,
            stream_metrics: vec![StreamMetrics::default(); parts.streams.len()],
            streams: parts.streams,
            feedback: vec![FeedbackMetrics::default(); s.flows.len()],
            end: build::secs(s.duration_s),
            sample_interval,
            window: s
                .report_window_s
                .map(|[a, b]| (build::secs(a), build::secs(b))),
            samples: Vec::new(),
            link_samples: Vec::new(),
            logs: None,
        };
        for n in 0..world.nodes.len() {
            world.schedule_node(n, Instant::ZERO);
        }
        Ok(world)
    }

    /// Writes the logs `options` asks for while the world runs; call before
    /// [`World::run`]. Logging changes nothing about the run.
    pub fn set_logs(&mut self, options: LogOptions) {
        if options.packets.is_none() && options.events.is_none() {
            self.logs = None;
            return;
        }
        if options.events.is_some() {
            for node in &mut self.nodes {
                node.endpoint.enable_cc_events(CC_EVENT_CAPACITY);
            }
        }
        let names = Names {
            flows: self.flows.iter().map(|f| Arc::clone(&f.name)).collect(),
            streams: self.streams.iter().map(|s| Arc::clone(&s.name)).collect(),
            links: self
                .links
                .iter()
                .map(|l| (Arc::clone(&l.node.name), l.node.direction))
                .collect(),
        };
        self.logs = Some(Box::new(Logs::new(options, names)));
    }

    /// Closes the logs (after [`World::run`]) and says what they came to.
    pub fn finish_logs(&mut self) -> Result<LogReport, SimError> {
        let Some(logs) = self.logs.take() else {
            return Ok(LogReport::default());
        };
        let dropped = self
            .nodes
            .iter()
            .map(|n| n.endpoint.cc_events_dropped())
            .sum();
        logs.finish(self.end, dropped)
            .map_err(|(log, e)| SimError::Log {
                log,
                reason: e.to_string(),
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
            match ev {
                Ev::Arrive(p) => self.arrive(now, p),
                Ev::LinkWake(l) => self.wake_link(l as usize, now),
                Ev::NodeWake(n) => self.wake_node(n as usize, now),
                Ev::Sample => self.sample(now),
            }
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

    /// The directed links with their names and directions, `2i` forward and `2i + 1`
    /// reverse for link `i`.
    pub fn links(
        &mut self,
    ) -> impl Iterator<
        Item = (
            &str,
            &'static str,
            &mut scream_netmodel::DirectedLink<Packet>,
        ),
    > {
        self.links
            .iter_mut()
            .map(|l| (&*l.node.name, l.node.direction, &mut l.node.link))
    }

    fn in_window(&self, now: Instant) -> bool {
        self.window.is_some_and(|(a, b)| now >= a && now < b)
    }

    /// `packet` reaches the element at its hop: a link's input, or its route's node.
    fn arrive(&mut self, now: Instant, packet: Packet) {
        let route = &self.routes[packet.route as usize];
        if let Some(&l) = route.links.get(usize::from(packet.hop)) {
            if let Some(logs) = &mut self.logs {
                logs.on_enter(&packet, l, now);
            }
            self.links[l as usize].node.link.handle_input(now, packet);
            self.drain_link(l as usize, now);
            return;
        }
        let n = route.dest as usize;
        match packet.stream() {
            Some(g) => {
                if let Some(s) = self.stream_metrics.get_mut(g as usize) {
                    s.on_received(now, &packet);
                }
            }
            None => self.feedback[packet.flow as usize].delivered += 1,
        }
        if let Some(logs) = &mut self.logs {
            logs.on_delivered(now, &packet);
        }
        self.nodes[n]
            .endpoint
            .handle_packet(now, packet, &mut self.stream_metrics);
        self.drain_node(n, now);
    }

    fn wake_node(&mut self, n: usize, now: Instant) {
        self.nodes[n].wakes.fired(now);
        self.nodes[n]
            .endpoint
            .handle_timeout(now, &mut self.stream_metrics);
        self.drain_node(n, now);
    }

    fn wake_link(&mut self, l: usize, now: Instant) {
        self.links[l].wakes.fired(now);
        self.links[l].node.link.handle_timeout(now);
        self.drain_link(l, now);
    }

    /// Sends everything the node releases now, then schedules its next wake-up.
    fn drain_node(&mut self, n: usize, now: Instant) {
        while let Some(mut packet) = self.nodes[n].endpoint.poll_transmit(now) {
            if let Some(logs) = &mut self.logs {
                logs.on_released(&mut packet);
            }
            match packet.stream() {
                Some(g) => {
                    if let Some(s) = self.stream_metrics.get_mut(g as usize) {
                        s.on_sent(&packet);
                    }
                }
                None => self.feedback[packet.flow as usize].sent += 1,
            }
            self.arrive(now, packet);
        }
        if self.logs.is_some() {
            self.log_cc_events(n);
        }
        if let Some(w) = self.nodes[n].endpoint.poll_timeout() {
            self.schedule_node(n, w.max(now));
        }
    }

    /// Writes the congestion events node `n` made; kept out of `drain_node`, which
    /// runs for every packet, so that it costs nothing there with the logs off.
    #[inline(never)]
    fn log_cc_events(&mut self, n: usize) {
        let Some(logs) = self.logs.as_deref_mut().filter(|l| l.events_on()) else {
            return;
        };
        while let Some((f, event)) = self.nodes[n].endpoint.poll_cc_event() {
            logs.on_cc_event(f, &self.flows[f as usize].streams, &event);
        }
    }

    fn schedule_node(&mut self, n: usize, at: Instant) {
        let at = self.events.run_time(at);
        if self.nodes[n].wakes.arm(at) {
            self.events.schedule(at, Ev::NodeWake(n as u32));
        }
    }

    /// Moves what left the link on to the next hop, accounts for what it dropped, and
    /// schedules its next wake-up.
    fn drain_link(&mut self, l: usize, now: Instant) {
        let in_window = self.in_window(now);
        while let Some((arrival, mut packet)) = self.links[l].node.link.poll_output() {
            if let Some(logs) = &mut self.logs {
                logs.on_exit(&packet);
            }
            let last =
                usize::from(packet.hop) + 1 >= self.routes[packet.route as usize].links.len();
            if let (true, Some(g)) = (last, packet.stream()) {
                if let Some(s) = self.stream_metrics.get_mut(g as usize) {
                    s.on_path_exit(&packet, in_window);
                }
            }
            packet.hop += 1;
            self.events.schedule(arrival, Ev::Arrive(packet));
        }
        while let Some(d) = self.links[l].node.link.poll_drop() {
            match d.packet.stream() {
                Some(g) => {
                    if let Some(s) = self.stream_metrics.get_mut(g as usize) {
                        s.on_dropped(&d.packet, d.cause == DropCause::PathLoss);
                    }
                }
                None => self.feedback[d.packet.flow as usize].lost += 1,
            }
            if let Some(logs) = &mut self.logs {
                logs.on_dropped(l as u32, &d);
            }
        }
        if let Some(w) = self.links[l].node.link.poll_timeout() {
            let w = self.events.run_time(w.max(now));
            if self.links[l].wakes.arm(w) {
                self.events.schedule(w, Ev::LinkWake(l as u32));
            }
        }
    }

    fn sample(&mut self, now: Instant) {
        let period = self.sample_interval.as_secs_f64();
        let mbps = |bytes: u64| bytes as f64 * 8.0 / period * 1e-6;
        let t_s = now.as_secs_f64();
        for (f, flow) in self.flows.iter().enumerate() {
            // The bottleneck of the moment: the smallest capacity on the media route.
            let capacity = self.routes[flow.media_route as usize]
                .links
                .iter()
                .map(|&l| self.links[l as usize].node.link.rate_at(now).mbps())
                .fold(f64::INFINITY, f64::min);
            let first = self.samples.len();
            for &g in &flow.streams {
                let m = &mut self.stream_metrics[g as usize];
                let p = m.take_period();
                let info = &self.streams[g as usize];
                self.samples.push(Sample {
                    t_s,
                    flow: flow.name.clone(),
                    stream: info.name.clone(),
                    flow_index: f as u32,
                    stream_index: g,
                    target_mbps: None,
                    tx_mbps: mbps(p.tx_bytes),
                    rx_mbps: mbps(p.rx_bytes),
                    acked_mbps: None,
                    ref_window_bytes: None,
                    bytes_in_flight: None,
                    srtt_ms: None,
                    est_queue_delay_ms: None,
                    sojourn_ms: p.max_queue_delay.map(|d| d.as_secs_f64() * 1e3),
                    rtp_queue_delay_ms: None,
                    frame_size_bytes: (p.frames > 0)
                        .then(|| p.frame_bytes as f64 / p.frames as f64),
                    rx_packets: p.rx_packets,
                    ce_packets: p.ce,
                    ce_packets_total: m.packets_ce,
                    lost_packets: p.lost,
                    lost_packets_total: m.loss_count(),
                    capacity_mbps: capacity,
                });
            }
            self.nodes[flow.sender as usize]
                .endpoint
                .write_samples(now, &mut self.samples[first..]);
        }
        for l in &mut self.links {
            let s = *l.node.link.stats();
            let prev = core::mem::replace(&mut l.at_last_sample, s);
            let peak = l.node.link.take_sojourn_peak();
            let left = s.packets_out - prev.packets_out;
            self.link_samples.push(LinkSample {
                t_s,
                link: Arc::clone(&l.node.name),
                direction: l.node.direction,
                capacity_mbps: l.node.link.rate_at(now).mbps(),
                tx_mbps: mbps(s.bytes_out - prev.bytes_out),
                queue_bytes: l.node.link.queue_bytes(),
                queue_packets: l.node.link.queue_packets() as u64,
                sojourn_max_ms: (left > 0).then_some(peak.as_secs_f64() * 1e3),
                dropped_packets: (s.dropped_queue_full + s.dropped_aqm)
                    - (prev.dropped_queue_full + prev.dropped_aqm),
                lost_packets: s.lost_on_path - prev.lost_on_path,
                ce_marked_packets: s.ce_marked - prev.ce_marked,
            });
        }
        let next = now + self.sample_interval;
        if next <= self.end {
            self.events.schedule_exact(next, Ev::Sample);
        }
    }
}
