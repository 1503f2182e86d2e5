//! What `screamsend` shares between the streaming thread (packets in) and its
//! worker thread (packets out, feedback in): the library sender, the buffers it has
//! queued by handle, and the counters.

use std::collections::VecDeque;

use scream::sender::{Event, MediaPacket, Sender, StreamConfig, StreamId, Transmit};
use scream::wire::ccfb::{ParseOptions, TimestampUnwrapper, decode_feedback};
use scream::{Ecn, Instant};

use scream::sender::FeedbackUse;

/// Bytes of the RTP fixed header (RFC 3550 §5.1).
const RTP_HEADER: usize = 12;

/// What the worker must do outside the lock after an event of the library.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Action {
    /// Set the encoder to this many bit/s.
    Target(f64),
    /// Ask the encoder for a key frame.
    KeyFrame,
}

/// What the element counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Counters {
    /// RTP packets handed in by the payloader.
    pub(crate) packets_in: u64,
    /// Buffers that are not RTP (shorter than its header or not version 2).
    pub(crate) not_rtp: u64,
    /// Packets of frames the generation skipped, or of an RTP queue it discarded.
    pub(crate) packets_dropped: u64,
    /// Datagrams sent, and their bytes.
    pub(crate) datagrams: u64,
    pub(crate) bytes: u64,
    /// Feedback datagrams from the peer that decoded; those that did not.
    pub(crate) feedback: u64,
    pub(crate) malformed: u64,
    /// Datagrams from any other address.
    pub(crate) foreign: u64,
    /// Key-frame requests passed to the encoder.
    pub(crate) key_frame_requests: u64,
}

/// The library sender and the buffers of the packets it holds.
#[derive(Debug)]
pub(crate) struct Core {
    pub(crate) sender: Sender,
    stream: Option<StreamId>,
    /// SSRC every packet leaves with (0: the first packet's).
    ssrc_setting: u32,
    /// The stream's configuration, less its SSRC (known at the first packet).
    stream_config: StreamConfig,
    /// Buffers the sender queued, by handle, oldest first.
    pending: VecDeque<(u64, gst::Buffer)>,
    next_handle: u64,
    /// Whether the encoder was given the start target.
    started: bool,
    pub(crate) counters: Counters,
    unwrapper: TimestampUnwrapper,
    scratch: Vec<u8>,
}

impl Core {
    pub(crate) fn new(sender: Sender, stream_config: StreamConfig, ssrc: u32) -> Self {
        Self {
            sender,
            stream: None,
            ssrc_setting: ssrc,
            stream_config,
            pending: VecDeque::new(),
            next_handle: 0,
            started: false,
            counters: Counters::default(),
            unwrapper: TimestampUnwrapper::new(),
            scratch: Vec::with_capacity(1500),
        }
    }

    /// An RTP packet from upstream. Returns whether the sender queued it.
    pub(crate) fn on_buffer(&mut self, now: Instant, buffer: gst::Buffer) -> bool {
        let Ok(map) = buffer.map_readable() else {
            self.counters.not_rtp += 1;
            return false;
        };
        let data = map.as_slice();
        if data.len() < RTP_HEADER || data[0] >> 6 != 2 {
            self.counters.not_rtp += 1;
            return false;
        }
        let marker = data[1] & 0x80 != 0;
        let seq = u16::from_be_bytes([data[2], data[3]]);
        let ssrc = u32::from_be_bytes([data[8], data[9], data[10], data[11]]);
        let size = u32::try_from(data.len()).unwrap_or(u32::MAX);
        drop(map);
        self.counters.packets_in += 1;
        let stream = match self.stream {
            Some(s) => s,
            None => {
                let ssrc = if self.ssrc_setting != 0 {
                    self.ssrc_setting
                } else {
                    ssrc
                };
                let cfg = StreamConfig {
                    ssrc,
                    ..self.stream_config.clone()
                };
                // Numbering goes on from the payloader's, so a receiver sees one sequence.
                match self.sender.add_stream_with_initial_seq(cfg, seq) {
                    Ok(s) => *self.stream.insert(s),
                    Err(_) => {
                        // Checked when the element started; nothing else can fail.
                        self.counters.packets_dropped += 1;
                        return false;
                    }
                }
            }
        };
        let key = !buffer.flags().contains(gst::BufferFlags::DELTA_UNIT);
        let handle = self.next_handle;
        self.next_handle += 1;
        let packet = MediaPacket::new(size, marker)
            .with_key_frame(key)
            .with_handle(handle);
        let queued = self.sender.on_rtp_packet(now, stream, packet);
        if queued {
            self.pending.push_back((handle, buffer));
        } else {
            self.counters.packets_dropped += 1;
        }
        self.forget_discarded();
        queued
    }

    /// Drops the buffers of packets the sender no longer holds: a discard empties the
    /// RTP queue from its oldest packets on, so they are the oldest pending.
    fn forget_discarded(&mut self) {
        let Some(stream) = self.stream else { return };
        let queued = self
            .sender
            .stats()
            .streams
            .get(stream.index())
            .map_or(0, |s| s.rtp_queue_packets);
        while self.pending.len() > queued {
            self.pending.pop_front();
            self.counters.packets_dropped += 1;
        }
    }

    /// Runs the sender's timers if due.
    pub(crate) fn on_time(&mut self, now: Instant) {
        if self.sender.poll_timeout().is_some_and(|t| t <= now) {
            self.sender.handle_timeout(now);
            self.forget_discarded();
        }
    }

    /// A datagram from the peer: RFC 8888 feedback, or it is counted as malformed.
    pub(crate) fn on_feedback(&mut self, now: Instant, bytes: &[u8]) {
        match decode_feedback(bytes, &ParseOptions::default(), &self.unwrapper) {
            Ok(fb) => {
                self.counters.feedback += 1;
                if self.sender.on_feedback(now, &fb) == FeedbackUse::Taken {
                    self.unwrapper.accept(fb.report_time);
                }
            }
            Err(_) => self.counters.malformed += 1,
        }
    }

    /// Hands `send` each packet the sender releases (the bytes with the sender's
    /// sequence number and SSRC written in, and the ECN codepoint); returns the
    /// pacer's next slot, if it set one.
    pub(crate) fn transmit(
        &mut self,
        now: Instant,
        mut send: impl FnMut(&[u8], Ecn),
    ) -> Option<Instant> {
        loop {
            let p = match self.sender.poll_transmit(now) {
                Transmit::Now(p) => p,
                Transmit::At(t) => return Some(t),
                _ => return None,
            };
            // Handles leave in the order they came; older ones were discarded.
            while self.pending.front().is_some_and(|(h, _)| *h < p.handle) {
                self.pending.pop_front();
                self.counters.packets_dropped += 1;
            }
            let Some((_, buffer)) = self.pending.pop_front() else {
                continue;
            };
            let Ok(map) = buffer.map_readable() else {
                continue;
            };
            self.scratch.clear();
            self.scratch.extend_from_slice(map.as_slice());
            self.scratch[2..4].copy_from_slice(&p.seq.to_be_bytes());
            self.scratch[8..12].copy_from_slice(&p.ssrc.to_be_bytes());
            send(&self.scratch, p.ecn);
            self.counters.datagrams += 1;
            self.counters.bytes += self.scratch.len() as u64;
        }
    }

    /// What the encoder must be told, from the sender's events.
    pub(crate) fn actions(&mut self) -> Vec<Action> {
        let mut out = Vec::new();
        if let (Some(stream), false) = (self.stream, self.started) {
            // The encoder starts at the stream's start target, not at its own default.
            self.started = true;
            out.push(Action::Target(self.sender.target_bitrate(stream).bps()));
        }
        while let Some(ev) = self.sender.poll_event() {
            match ev {
                Event::TargetBitrate { stream, bitrate } if Some(stream) == self.stream => {
                    out.push(Action::Target(bitrate.bps()));
                }
                Event::KeyFrameRequest { stream } | Event::FrameSkipped { stream, .. }
                    if Some(stream) == self.stream =>
                {
                    self.counters.key_frame_requests += 1;
                    out.push(Action::KeyFrame);
                }
                _ => {}
            }
        }
        out
    }

    /// The statistics as the `stats` property reads them.
    pub(crate) fn stats(&self) -> gst::Structure {
        let s = self.sender.stats();
        let stream = self.stream.and_then(|id| s.streams.get(id.index()));
        let c = &self.counters;
        let ms = |d: scream::Duration| d.as_secs_f64() * 1000.0;
        gst::Structure::builder("scream-send-stats")
            .field("target-bitrate", s.target_bitrate.bps() as u64)
            .field("pacing-rate", s.pacing_rate.bps() as u64)
            .field("rate-transmitted", s.rate_transmitted.bps() as u64)
            .field("rate-acked", s.rate_acked.bps() as u64)
            .field("window-bytes", s.window_bytes)
            .field("bytes-in-flight", s.bytes_in_flight)
            .field("srtt-ms", ms(s.srtt))
            .field("queue-delay-ms", ms(s.queue_delay))
            .field(
                "rtp-queue-delay-ms",
                stream.map_or(0.0, |st| ms(st.rtp_queue_delay)),
            )
            .field(
                "rtp-queue-packets",
                stream.map_or(0, |st| st.rtp_queue_packets as u64),
            )
            .field("queue-discards", stream.map_or(0, |st| st.queue_discards))
            .field("packets-in", c.packets_in)
            .field("packets-dropped", c.packets_dropped)
            .field("packets-sent", c.datagrams)
            .field("bytes-sent", c.bytes)
            .field("packets-acked", s.packets_acked)
            .field("packets-lost", s.packets_lost)
            .field("packets-ce", s.packets_ce)
            .field("feedback", c.feedback)
            .field("feedback-malformed", c.malformed)
            .field("foreign", c.foreign)
            .field("not-rtp", c.not_rtp)
            .field("key-frame-requests", c.key_frame_requests)
            .build()
    }
}
