//! A rate-based media sender: one video source, an RTP queue released by a pacer, a
//! send history that turns RFC 8888 feedback into per-packet results, and a
//! [`RateController`] (GCC or NADA) that sets the encoder's target and the pacing
//! rate. The chassis the baseline controllers share; the SCReAM receiver answers it.

mod history;
#[cfg(test)]
mod tests;

use std::collections::VecDeque;

use super::media::MediaStream;
use crate::compat;
use crate::metrics::{Sample, StreamMetrics};
use crate::packet::{Body, Media, Packet};
use crate::rate_control::{PacketResult, RateController, SenderState};
use history::SendHistory;
use scream::wire::ccfb::TimestampUnwrapper;
use scream::{Bitrate, Duration, Ecn, Instant};

/// sRTT before the first sample (RFC 6298 §2.1 starts at 1 s; a real-time path is
/// closer to SCReAM's 50 ms start, which keeps the first controller steps sane).
pub(crate) const INITIAL_RTT: Duration = Duration::from_millis(50);
/// Gain of a new RTT sample in sRTT (RFC 6298 §2.3, alpha = 1/8).
pub(crate) const RTT_GAIN: f64 = 0.125;
/// RTP queue age above which the queue is discarded and a key frame requested: the
/// SCReAM sender's default `max_rtp_queue_delay`, so that both senders give up on old
/// media alike.
pub(crate) const MAX_QUEUE_DELAY: Duration = Duration::from_secs(1);

/// One RTP packet waiting in the queue.
#[derive(Debug, Clone, Copy)]
struct Queued {
    size_bytes: u32,
    frame: u64,
    marker: bool,
    enqueued_at: Instant,
}

/// Packet sizes: payload per packet and the header added to each.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Packetization {
    /// Largest RTP payload, bytes (the SCReAM sender's `mss_bytes`).
    pub(crate) mss_bytes: u32,
    /// Header bytes per packet (the SCReAM sender's `rtp_overhead_bytes`).
    pub(crate) overhead_bytes: u32,
}

/// Where the sender's packets go and when it is active.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Placement {
    pub(crate) flow: u32,
    pub(crate) route: u32,
    pub(crate) ssrc: u32,
    pub(crate) ecn: Ecn,
    pub(crate) active: (Instant, Instant),
}

/// A rate-based sender with one media stream.
#[derive(Debug)]
pub(crate) struct RateSender {
    controller: RateController,
    stream: MediaStream,
    at: Placement,
    sizes: Packetization,
    queue: VecDeque<Queued>,
    queued_bytes: u64,
    /// The pacer's next slot.
    next_send: Instant,
    history: SendHistory,
    unwrapper: TimestampUnwrapper,
    srtt: Option<Duration>,
    results: Vec<PacketResult>,
}

impl RateSender {
    pub(crate) fn new(
        controller: RateController,
        stream: MediaStream,
        at: Placement,
        sizes: Packetization,
    ) -> Self {
        let mut s = Self {
            controller,
            stream,
            history: SendHistory::new(at.ssrc),
            at,
            sizes: Packetization {
                mss_bytes: sizes.mss_bytes.max(1),
                ..sizes
            },
            queue: VecDeque::new(),
            queued_bytes: 0,
            next_send: Instant::ZERO,
            unwrapper: TimestampUnwrapper::new(),
            srtt: None,
            results: Vec::new(),
        };
        s.apply_target();
        s
    }

    fn state(&self) -> SenderState {
        SenderState {
            srtt: self.srtt.unwrap_or(INITIAL_RTT),
            queued_bytes: self.queued_bytes,
        }
    }

    fn apply_target(&mut self) {
        self.stream.source.set_target(self.controller.target());
    }

    pub(crate) fn handle_packet(&mut self, now: Instant, packet: Packet) {
        let Body::Feedback(msg) = packet.body else {
            return;
        };
        let Some(fb) = compat::decode(msg, &mut self.unwrapper) else {
            return;
        };
        let mut results = core::mem::take(&mut self.results);
        if let Some(sample) = self.history.on_feedback(now, &fb, &mut results) {
            self.srtt = Some(match self.srtt {
                None => sample,
                Some(s) => s.mul_f64(1.0 - RTT_GAIN) + sample.mul_f64(RTT_GAIN),
            });
        }
        if !results.is_empty() {
            let state = self.state();
            self.controller.on_feedback(now, &results, state);
            self.apply_target();
        }
        self.results = results;
    }

    pub(crate) fn handle_timeout(&mut self, now: Instant, metrics: &mut [StreamMetrics]) {
        while self.stream.clock.next().is_some_and(|t| t <= now) {
            let index = self.stream.clock.produced();
            self.stream.clock.tick();
            let frame = self.stream.source.next_frame();
            if let Some(m) = metrics.get_mut(self.stream.global as usize) {
                m.on_frame(frame.size_bytes);
            }
            self.enqueue(now, index, frame.size_bytes);
        }
        if self
            .queue
            .front()
            .is_some_and(|q| now.saturating_duration_since(q.enqueued_at) > MAX_QUEUE_DELAY)
        {
            self.queue.clear();
            self.queued_bytes = 0;
            self.stream.source.request_key_frame();
        }
        self.controller.on_queue(self.queued_bytes);
        self.apply_target();
    }

    /// A frame of `bytes` enters the RTP queue as MSS-sized packets, the last with the
    /// marker bit.
    fn enqueue(&mut self, now: Instant, frame: u64, bytes: u32) {
        let mss = self.sizes.mss_bytes;
        let packets = bytes.div_ceil(mss).max(1);
        let mut left = bytes;
        for i in 0..packets {
            let payload = left.min(mss);
            left -= payload;
            let size_bytes = payload + self.sizes.overhead_bytes;
            self.queue.push_back(Queued {
                size_bytes,
                frame,
                marker: i + 1 == packets,
                enqueued_at: now,
            });
            self.queued_bytes += u64::from(size_bytes);
        }
    }

    pub(crate) fn poll_transmit(&mut self, now: Instant) -> Option<Packet> {
        let q = *self.queue.front()?;
        if now < self.next_send {
            return None;
        }
        self.queue.pop_front();
        self.queued_bytes -= u64::from(q.size_bytes);
        let rate = self.controller.pacing_rate().max(Bitrate::from_kbps(1.0));
        let gap = rate
            .transmit_time(u64::from(q.size_bytes))
            .unwrap_or(Duration::from_secs(1));
        // No credit for idle time: a frame after a pause is paced from now.
        self.next_send = self.next_send.max(now) + gap;
        let seq = self.history.next_seq() as u16;
        self.history.on_sent(now, q.size_bytes);
        let media = Media {
            stream: self.stream.global,
            ssrc: self.at.ssrc,
            seq,
            marker: q.marker,
            frame: Some(q.frame),
            frame_enqueued_at: q.enqueued_at,
        };
        Some(Packet::new(
            q.size_bytes,
            self.at.ecn,
            self.at.flow,
            self.at.route,
            now,
            Body::Media(media),
        ))
    }

    pub(crate) fn poll_timeout(&self) -> Option<Instant> {
        let pacing = (!self.queue.is_empty()).then_some(self.next_send);
        let discard = self
            .queue
            .front()
            .map(|q| q.enqueued_at + MAX_QUEUE_DELAY + Duration::from_nanos(1));
        [self.stream.clock.next(), pacing, discard]
            .into_iter()
            .flatten()
            .min()
    }

    pub(crate) fn write_samples(&self, now: Instant, rows: &mut [Sample]) {
        let (start, stop) = self.at.active;
        if !(now > start && now <= stop) {
            return;
        }
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        if let Some(row) = rows.first_mut() {
            row.target_mbps = Some(self.stream.source.target().mbps());
            row.acked_mbps = self.controller.received_rate().map(Bitrate::mbps);
            row.bytes_in_flight = Some(self.history.in_flight_bytes() as f64);
            row.srtt_ms = self.srtt.map(ms);
            row.est_queue_delay_ms = Some(ms(self.controller.queue_delay()));
            row.rtp_queue_delay_ms = Some(
                self.queue
                    .front()
                    .map_or(0.0, |q| ms(now.saturating_duration_since(q.enqueued_at))),
            );
        }
    }
}
