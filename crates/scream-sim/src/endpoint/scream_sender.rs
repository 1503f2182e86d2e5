//! The SCReAM sender endpoint: the library's `Sender` with one media source per stream.
//!
//! On a loop clock (`crate::clock`) the library reads whole ticks: every call hands it
//! the tick at or before the simulator's instant, and the instants it asks to be
//! woken at are rounded up to a tick, so that the step that wakes it reads a tick at or
//! after the one it asked for. On a step grid it releases at most one packet per step:
//! `scream_v_a.cpp` `main` transmits once per pass of its loop and calls the sender
//! again at `nextCallN`, at least one step later (both vintages).

use super::media::MediaStream;
use crate::clock::{ClockKeys, Grid};
use crate::compat;
use crate::metrics::{Sample, StreamMetrics};
use crate::packet::{Body, Media, Packet};
use scream::sender::{CongestionEvent, Event, FeedbackUse, Sender, StreamId, Transmit};
use scream::wire::ccfb::TimestampUnwrapper;
use scream::{Duration, Instant};

/// A SCReAM sender and its streams (stream `j` of the sender is `streams[j]`).
#[derive(Debug)]
pub(crate) struct ScreamSender {
    sender: Sender,
    streams: Vec<(StreamId, MediaStream)>,
    flow: u32,
    route: u32,
    start: Instant,
    stop: Instant,
    /// The pacer's next slot, when `poll_transmit` last answered `At`.
    pacing_at: Option<Instant>,
    /// Extends the 32-bit report timestamps of this flow's RFC 8888 feedback.
    unwrapper: TimestampUnwrapper,
    /// The ticks the library reads, if whole ticks.
    ticks: Option<Grid>,
    /// On a step grid: the step of the last release, the step after which the next
    /// may go (and when to wake for it).
    stepped: bool,
    last_release: Option<Instant>,
    next_step: Option<Instant>,
}

impl ScreamSender {
    pub(crate) fn new(
        sender: Sender,
        streams: Vec<(StreamId, MediaStream)>,
        flow: u32,
        route: u32,
        active: (Instant, Instant),
        clock: &ClockKeys,
    ) -> Self {
        Self {
            sender,
            streams,
            flow,
            route,
            start: active.0,
            stop: active.1,
            pacing_at: None,
            unwrapper: TimestampUnwrapper::new(),
            ticks: clock.sender_ticks(),
            stepped: clock.step_grid().is_some(),
            last_release: None,
            next_step: None,
        }
    }

    /// The library's time at the simulator's instant `now`.
    fn read(&self, now: Instant) -> Instant {
        self.ticks.map_or(now, |g| g.floor(now))
    }

    /// The simulator's instant at which the library reads `t` or later.
    fn wake_for(&self, t: Instant) -> Instant {
        self.ticks.map_or(t, |g| g.ceil(t))
    }

    pub(crate) fn handle_packet(&mut self, now: Instant, packet: Packet) {
        let Body::Feedback(msg) = packet.body else {
            return;
        };
        let now = self.read(now);
        if let Some(fb) = compat::decode(msg, &self.unwrapper) {
            if self.sender.on_feedback(now, &fb) == FeedbackUse::Taken {
                self.unwrapper.accept(fb.report_time);
            }
        }
    }

    pub(crate) fn handle_timeout(&mut self, now: Instant, metrics: &mut [StreamMetrics]) {
        let sim_now = now;
        let now = self.read(now);
        for (id, s) in &mut self.streams {
            while s.clock.next().is_some_and(|t| t <= sim_now) {
                // The sender numbers a stream's frames in the order they come, as the
                // clock counts them.
                let index = s.clock.produced();
                s.clock.tick();
                let frame = s.source.next_frame();
                if let Some(m) = metrics.get_mut(s.global as usize) {
                    m.on_frame(frame.size_bytes);
                }
                let skipped = self.sender.frames_skipped(*id);
                self.sender.on_media_frame(now, *id, frame);
                if self.sender.frames_skipped(*id) > skipped {
                    if let Some(m) = metrics.get_mut(s.global as usize) {
                        m.on_skipped(index);
                    }
                }
            }
        }
        if self.sender.poll_timeout().is_some_and(|t| t <= now) {
            self.sender.handle_timeout(now);
        }
    }

    pub(crate) fn poll_transmit(&mut self, now: Instant) -> Option<Packet> {
        if self.stepped && self.last_release == Some(now) {
            // One release per step: ask again at the next step (the event queue
            // rounds the nanosecond after up to it).
            self.next_step = Some(now + Duration::from_nanos(1));
            self.apply_events();
            return None;
        }
        self.next_step = None;
        let sim_now = now;
        let now = self.read(now);
        match self.sender.poll_transmit(now) {
            Transmit::Now(sp) => {
                self.pacing_at = None;
                self.last_release = Some(sim_now);
                let global = self
                    .streams
                    .get(sp.stream.index())
                    .map_or(0, |(_, s)| s.global);
                let media = Media {
                    stream: global,
                    ssrc: sp.ssrc,
                    seq: sp.seq,
                    marker: sp.marker,
                    frame: Some(sp.frame_index),
                    frame_enqueued_at: sp.frame_enqueued_at,
                };
                let body = Body::Media(media);
                Some(Packet::new(
                    sp.size_bytes,
                    sp.ecn,
                    self.flow,
                    self.route,
                    sim_now,
                    body,
                ))
            }
            other => {
                self.pacing_at = match other {
                    Transmit::At(t) => Some(self.wake_for(t)),
                    _ => None,
                };
                // The encoders learn new targets once the sender has nothing more to say.
                self.apply_events();
                None
            }
        }
    }

    fn apply_events(&mut self) {
        while let Some(ev) = self.sender.poll_event() {
            let (stream, target) = match ev {
                Event::TargetBitrate { stream, bitrate } => (stream, Some(bitrate)),
                Event::KeyFrameRequest { stream } => (stream, None),
                // A newer library's notification this simulator does not model.
                _ => continue,
            };
            let Some((_, s)) = self.streams.get_mut(stream.index()) else {
                continue;
            };
            match target {
                Some(bitrate) => s.source.set_target(bitrate),
                None => s.source.request_key_frame(),
            }
        }
    }

    pub(crate) fn sender_mut(&mut self) -> &mut Sender {
        &mut self.sender
    }

    pub(crate) fn poll_cc_event(&mut self) -> Option<(u32, CongestionEvent)> {
        self.sender.poll_cc_event().map(|e| (self.flow, e))
    }

    pub(crate) fn cc_events_dropped(&self) -> u64 {
        self.sender.cc_events_dropped()
    }

    pub(crate) fn poll_timeout(&self) -> Option<Instant> {
        let frames = self
            .streams
            .iter()
            .filter_map(|(_, s)| s.clock.next())
            .min();
        let timer = self.sender.poll_timeout().map(|t| self.wake_for(t));
        [frames, timer, self.pacing_at, self.next_step]
            .into_iter()
            .flatten()
            .min()
    }

    pub(crate) fn write_samples(&self, now: Instant, rows: &mut [Sample]) {
        if !(now > self.start && now <= self.stop) {
            return;
        }
        let stats = self.sender.stats();
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        for (row, (id, _)) in rows.iter_mut().zip(&self.streams) {
            row.target_mbps = Some(self.sender.target_bitrate(*id).mbps());
            row.acked_mbps = Some(stats.rate_acked.mbps());
            row.ref_window_bytes = Some(stats.window_bytes as f64);
            row.bytes_in_flight = Some(stats.bytes_in_flight as f64);
            row.srtt_ms = Some(ms(stats.srtt));
            row.est_queue_delay_ms = Some(ms(stats.queue_delay));
            row.rtp_queue_delay_ms = stats.streams.get(id.index()).map(|s| ms(s.rtp_queue_delay));
        }
    }
}
