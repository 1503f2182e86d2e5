//! A rate-based media sender: one or more video streams, each with its source, RTP
//! queue and send history; one pacer over all the queues; and one [`RateController`]
//! (GCC or NADA) for the whole flow, whose target is split over the streams by
//! priority, as a WebRTC sender shares one bandwidth estimate among its streams. The
//! chassis the baseline controllers share; the SCReAM receiver answers it.

mod history;
mod probing;
mod streams;
#[cfg(test)]
mod tests;

use crate::compat;
use crate::metrics::{Sample, StreamMetrics};
use crate::packet::{Body, Media, Packet};
use probing::Probing;
use scream::wire::ccfb::TimestampUnwrapper;
use scream::{Bitrate, Duration, Ecn, Instant};
use scream_traffic::rate_control::{PacketResult, RateController, SenderState};
pub(crate) use streams::{RtpStream, StreamLimits};

/// sRTT before the first sample (RFC 6298 §2.1 starts at 1 s; a real-time path is
/// closer to SCReAM's 50 ms start, which keeps the first controller steps sane).
pub(crate) const INITIAL_RTT: Duration = Duration::from_millis(50);
/// Gain of a new RTT sample in sRTT (RFC 6298 §2.3, alpha = 1/8).
pub(crate) const RTT_GAIN: f64 = 0.125;
/// RTP queue age above which the queue is discarded and a key frame requested: the
/// SCReAM sender's default `max_rtp_queue_delay`, so that both senders give up on old
/// media alike.
pub(crate) const MAX_QUEUE_DELAY: Duration = Duration::from_secs(1);

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
    pub(crate) ecn: Ecn,
    pub(crate) active: (Instant, Instant),
}

/// A rate-based sender with its streams (at least one).
#[derive(Debug)]
pub(crate) struct RateSender {
    controller: RateController,
    streams: Vec<RtpStream>,
    at: Placement,
    sizes: Packetization,
    /// Packets enqueued so far, flow-wide: the pacer's order across the queues.
    enqueued: u64,
    /// The pacer's next slot.
    next_send: Instant,
    unwrapper: TimestampUnwrapper,
    srtt: Option<Duration>,
    results: Vec<PacketResult>,
    /// Scratch of the target split: the streams' limits and their shares.
    limits: Vec<StreamLimits>,
    shares: Vec<Bitrate>,
    /// The probe cluster being sent and the recent media rate (GCC's probing).
    probing: Probing,
}

impl RateSender {
    pub(crate) fn new(
        controller: RateController,
        streams: Vec<RtpStream>,
        at: Placement,
        sizes: Packetization,
    ) -> Self {
        let limits = streams.iter().map(|s| s.limits).collect();
        let mut s = Self {
            controller,
            streams,
            at,
            sizes: Packetization {
                mss_bytes: sizes.mss_bytes.max(1),
                ..sizes
            },
            enqueued: 0,
            next_send: Instant::ZERO,
            unwrapper: TimestampUnwrapper::new(),
            srtt: None,
            results: Vec::new(),
            limits,
            shares: Vec::new(),
            probing: Probing::default(),
        };
        s.apply_target();
        s
    }

    fn queued_bytes(&self) -> u64 {
        self.streams.iter().map(RtpStream::queued_bytes).sum()
    }

    fn state(&self) -> SenderState {
        SenderState {
            srtt: self.srtt.unwrap_or(INITIAL_RTT),
            queued_bytes: self.queued_bytes(),
        }
    }

    /// The controller's target, split over the encoders.
    fn apply_target(&mut self) {
        streams::split(self.controller.target(), &self.limits, &mut self.shares);
        for (s, share) in self.streams.iter_mut().zip(&self.shares) {
            s.media.source.set_target(*share);
        }
    }

    pub(crate) fn handle_packet(&mut self, now: Instant, packet: Packet) {
        let Body::Feedback(msg) = packet.body else {
            return;
        };
        let Some(fb) = compat::decode(msg, &self.unwrapper) else {
            return;
        };
        // The baselines keep no report clock: every decoded report counts, and only
        // simulated receivers write them.
        self.unwrapper.accept(fb.report_time);
        let mut results = core::mem::take(&mut self.results);
        results.clear();
        // Each stream resolves its own SSRC's reports; the RTT sample is the one of
        // the packet sent last, the freshest view of the path.
        let mut newest: Option<(Instant, Duration)> = None;
        for s in &mut self.streams {
            if let Some((sent, rtt)) = s.history.on_feedback(now, &fb, &mut results) {
                if newest.is_none_or(|(t, _)| sent > t) {
                    newest = Some((sent, rtt));
                }
            }
        }
        if self.streams.len() > 1 {
            // The controllers take the packets in sending order, across the streams.
            results.sort_by_key(|r| r.sent);
        }
        if let Some((_, sample)) = newest {
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
        for s in &mut self.streams {
            while s.media.clock.next().is_some_and(|t| t <= now) {
                let index = s.media.clock.produced();
                s.media.clock.tick();
                let frame = s.media.source.next_frame();
                if let Some(m) = metrics.get_mut(s.media.global as usize) {
                    m.on_frame(frame.size_bytes);
                }
                s.enqueue(now, index, frame.size_bytes, self.sizes, &mut self.enqueued);
            }
            s.discard_stale(now, MAX_QUEUE_DELAY);
        }
        self.controller.on_queue(self.queued_bytes());
        self.apply_target();
    }

    /// Asks the controller for a probe cluster when none is in progress.
    fn poll_probe(&mut self, now: Instant) {
        let (start, stop) = self.at.active;
        if self.probing.active().is_some() || now < start || now >= stop {
            return;
        }
        let sending = self.probing.sending_rate(now, start);
        if let Some(cluster) = self.controller.poll_probe(now, sending) {
            self.probing.start(cluster);
        }
    }

    pub(crate) fn poll_transmit(&mut self, now: Instant) -> Option<Packet> {
        self.poll_probe(now);
        let probe = self.probing.active();
        let next = streams::next_stream(&self.streams);
        if (next.is_none() && probe.is_none()) || now < self.next_send {
            return None;
        }
        // A probe cluster is paced at its own rate, with media when there is some and
        // padding on the first stream otherwise (as libwebrtc's pacer pads a probe).
        let i = next.unwrap_or(0);
        let s = &mut self.streams[i];
        let (size_bytes, media) = match next.and_then(|_| s.pop()) {
            Some(q) => (q.size_bytes, Some(q)),
            None => (self.sizes.mss_bytes + self.sizes.overhead_bytes, None),
        };
        let rate = probe
            .map_or_else(|| self.controller.pacing_rate(), |(_, r)| r)
            .max(Bitrate::from_kbps(1.0));
        let gap = rate
            .transmit_time(u64::from(size_bytes))
            .unwrap_or(Duration::from_secs(1));
        // No credit for idle time: a frame after a pause is paced from now.
        self.next_send = self.next_send.max(now) + gap;
        let seq = s.history.next_seq() as u16;
        s.history.on_sent(now, size_bytes, probe.map(|(id, _)| id));
        self.probing.on_sent(now, size_bytes, media.is_some());
        let media = Media {
            stream: s.media.global,
            ssrc: s.ssrc,
            seq,
            marker: media.as_ref().is_some_and(|q| q.marker),
            frame: media.as_ref().map(|q| q.frame),
            frame_enqueued_at: media.as_ref().map_or(now, |q| q.enqueued_at),
        };
        Some(Packet::new(
            size_bytes,
            self.at.ecn,
            self.at.flow,
            self.at.route,
            now,
            Body::Media(media),
        ))
    }

    pub(crate) fn poll_timeout(&self) -> Option<Instant> {
        let queued = self.streams.iter().any(|s| s.front().is_some());
        let pacing = (queued || self.probing.active().is_some()).then_some(self.next_send);
        let discard = self
            .streams
            .iter()
            .filter_map(|s| s.front())
            .map(|q| q.enqueued_at + MAX_QUEUE_DELAY + Duration::from_nanos(1))
            .min();
        let frames = self
            .streams
            .iter()
            .filter_map(|s| s.media.clock.next())
            .min();
        [frames, pacing, discard].into_iter().flatten().min()
    }

    /// Each stream's row gets its encoder's target and its RTP queue's delay; the
    /// flow's figures (the controller's, the path's) go in every row, as the SCReAM
    /// sender writes them.
    pub(crate) fn write_samples(&self, now: Instant, rows: &mut [Sample]) {
        let (start, stop) = self.at.active;
        if !(now > start && now <= stop) {
            return;
        }
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        let in_flight: u64 = self
            .streams
            .iter()
            .map(|s| s.history.in_flight_bytes())
            .sum();
        for (row, s) in rows.iter_mut().zip(&self.streams) {
            row.target_mbps = Some(s.media.source.target().mbps());
            row.acked_mbps = self.controller.received_rate().map(Bitrate::mbps);
            row.bytes_in_flight = Some(in_flight as f64);
            row.srtt_ms = self.srtt.map(ms);
            row.est_queue_delay_ms = Some(ms(self.controller.queue_delay()));
            row.rtp_queue_delay_ms = Some(ms(s.queue_delay(now)));
        }
    }
}
