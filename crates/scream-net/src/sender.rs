//! A SCReAM media sender on a UDP socket: frames from an encoder model enter the
//! library's RTP queue, the packets it releases leave as RTP datagrams with the ECN
//! codepoint it asks for, and RFC 8888 feedback from the peer goes back into it.

use std::io;
use std::net::SocketAddr;

use crate::clock::Clock;
use crate::event_loop::{self, Endpoint, RunEnd, Served};
use crate::poller::Poller;
use crate::socket::{EcnSocket, SendErrors};
use crate::stop::Stop;
use scream::sender::{Event, FeedbackUse, MediaFrame, Sender, SentPacket, StreamId, Transmit};
use scream::wire::ccfb::{ParseOptions, TimestampUnwrapper, decode_feedback};

use crate::auth::{FeedbackKey, Opened, Opener};
use scream::wire::rtp;
use scream::{Bitrate, Duration, Ecn, Instant};

/// RTP payload type of the media (dynamic range, RFC 3551 §6); the Ericsson
/// reference's bandwidth test uses the same, so captures of both read alike.
pub const PAYLOAD_TYPE: u8 = 98;
/// RTP timestamp clock of video, Hz (RFC 3551 §5).
const RTP_CLOCK_HZ: u64 = 90_000;
/// Datagrams read per wake before the loop serves its timers again.
const RECV_BUDGET: usize = 256;
/// A frame clock this far behind real time (the process was stopped or starved)
/// skips the missed frames instead of producing them in a burst.
const FRAME_CATCH_UP_LIMIT: Duration = Duration::from_secs(1);

/// The video encoder the sender drives: frames on demand at the rate it is told.
pub trait Encoder {
    /// The next frame, encoded at the current target.
    fn next_frame(&mut self) -> MediaFrame;
    /// The bitrate the congestion controller asks for.
    fn set_target(&mut self, bitrate: Bitrate);
    /// The controller discarded queued media: the next frame should be a key frame.
    fn request_key_frame(&mut self);
}

/// What the sender's loop counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SendCounters {
    /// Frames produced by the encoder.
    pub frames: u64,
    /// RTP datagrams handed to the socket.
    pub datagrams: u64,
    /// Their UDP payload bytes.
    pub bytes: u64,
    /// Feedback datagrams from the peer that decoded.
    pub feedback: u64,
    /// Datagrams from the peer that are not valid RFC 8888 feedback.
    pub malformed: u64,
    /// Datagrams from any address other than the peer's.
    pub foreign: u64,
    /// With a feedback key: datagrams from the peer without a valid tag.
    pub unauthenticated: u64,
    /// With a feedback key: authentic datagrams seen before (a replay).
    pub replayed: u64,
    /// Sends that failed.
    pub send_errors: SendErrors,
}

/// How to run a [`MediaSender`].
#[derive(Debug, Clone)]
pub struct MediaSenderConfig {
    /// Where the RTP goes, and the only address feedback is accepted from.
    pub peer: SocketAddr,
    /// The local address to bind (port 0: any).
    pub bind: SocketAddr,
    /// Frames per second of the encoder.
    pub fps: f64,
    /// A key shared with the receiver: feedback is taken only when sealed with it
    /// ([`crate::auth`]). `None`: plain RFC 8888, as every peer writes it.
    pub feedback_key: Option<FeedbackKey>,
}

/// A real-time SCReAM sender with one media stream.
#[derive(Debug)]
pub struct MediaSender<E> {
    clock: Clock,
    socket: EcnSocket,
    poller: Poller,
    peer: SocketAddr,
    sender: Sender,
    stream: StreamId,
    ssrc: u32,
    encoder: E,
    frame_period: Duration,
    next_frame: Instant,
    rtp_offset: u32,
    unwrapper: TimestampUnwrapper,
    opener: Option<Opener>,
    batch: Batch,
    counters: SendCounters,
}

/// Datagrams of equal size waiting to leave in one GSO call.
#[derive(Debug, Default)]
struct Batch {
    bytes: Vec<u8>,
    segment: usize,
    count: usize,
    ecn: Option<Ecn>,
}

impl<E: Encoder> MediaSender<E> {
    /// Binds the socket. `sender` must already hold the stream `stream`; `clock` is the
    /// endpoint's clock, the one the sender has seen so far.
    pub fn new(
        cfg: MediaSenderConfig,
        clock: Clock,
        (sender, stream): (Sender, StreamId),
        encoder: E,
    ) -> io::Result<Self> {
        let ssrc = sender
            .stats()
            .streams
            .get(stream.index())
            .map(|s| s.ssrc)
            .ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("the sender has no stream {}", stream.index()),
                )
            })?;
        if !(cfg.fps.is_finite() && cfg.fps > 0.0 && cfg.fps <= 1000.0) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("fps = {}: must be in (0, 1000]", cfg.fps),
            ));
        }
        let mut socket = EcnSocket::bind(cfg.bind)?;
        let mut poller = Poller::new()?;
        poller.register(&mut socket)?;
        let now = clock.now();
        Ok(Self {
            clock,
            socket,
            poller,
            peer: cfg.peer,
            sender,
            stream,
            ssrc,
            encoder,
            frame_period: Duration::from_nanos((1e9 / cfg.fps).round() as u64),
            next_frame: now,
            // RFC 3550 §5.1 wants a random initial timestamp; one drawn from the SSRC
            // (itself random) is as unpredictable and keeps runs reproducible.
            rtp_offset: ssrc.rotate_left(13) ^ 0x9e37_79b9,
            unwrapper: TimestampUnwrapper::new(),
            opener: cfg.feedback_key.map(Opener::new),
            batch: Batch::default(),
            counters: SendCounters::default(),
        })
    }

    /// The local address of the socket.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.socket.local_addr()
    }

    /// The library's sender, for its statistics.
    pub fn sender(&self) -> &Sender {
        &self.sender
    }

    /// What the loop counted so far.
    pub fn counters(&self) -> SendCounters {
        SendCounters {
            send_errors: self.socket.send_errors(),
            ..self.counters
        }
    }

    /// The encoder.
    pub fn encoder(&self) -> &E {
        &self.encoder
    }

    /// The endpoint's clock.
    pub fn clock(&self) -> Clock {
        self.clock
    }

    /// Ends every run, after one last observation, once `stop` is requested.
    pub fn stop_on(&mut self, stop: Stop) -> io::Result<()> {
        self.poller.set_stop(stop)
    }

    /// Runs until `until` (`None`: until stopped, see [`Self::stop_on`]), calling
    /// `observe` every `interval` and once at the end; returns why it ended.
    pub fn run(
        &mut self,
        until: impl Into<Option<Instant>>,
        interval: Duration,
        mut observe: impl FnMut(Instant, &Self),
    ) -> io::Result<RunEnd> {
        event_loop::run(self, until.into(), interval, |now, s| observe(now, s))
    }

    /// Returns whether the socket was drained.
    fn read_feedback(&mut self, now: Instant) -> io::Result<bool> {
        let Self {
            socket,
            sender,
            peer,
            unwrapper,
            opener,
            counters,
            ..
        } = self;
        socket.recv_each(RECV_BUDGET, |d| {
            if d.from != *peer {
                counters.foreign += 1;
                return;
            }
            let rtcp = match opener.as_mut().map(|o| o.open(d.payload)) {
                None => d.payload,
                Some(Opened::Authentic(rtcp)) => rtcp,
                Some(Opened::Forged) => {
                    counters.unauthenticated += 1;
                    return;
                }
                Some(Opened::Replayed) => {
                    counters.replayed += 1;
                    return;
                }
            };
            match decode_feedback(rtcp, &ParseOptions::default(), unwrapper) {
                Ok(fb) => {
                    counters.feedback += 1;
                    if sender.on_feedback(now, &fb) == FeedbackUse::Taken {
                        unwrapper.accept(fb.report_time);
                    }
                }
                Err(_) => counters.malformed += 1,
            }
        })
    }

    fn produce_frames(&mut self, now: Instant) {
        if now.saturating_duration_since(self.next_frame) > FRAME_CATCH_UP_LIMIT {
            self.next_frame = now;
        }
        while self.next_frame <= now {
            let frame = self.encoder.next_frame();
            self.counters.frames += 1;
            self.sender.on_media_frame(now, self.stream, frame);
            self.next_frame += self.frame_period;
        }
    }

    /// Sends what the sender releases; returns the pacer's next slot, if it set one.
    fn transmit(&mut self, now: Instant) -> Option<Instant> {
        let next = loop {
            match self.sender.poll_transmit(now) {
                Transmit::Now(p) => self.push(p),
                Transmit::At(t) => break Some(t),
                _ => break None,
            }
        };
        self.flush();
        next
    }

    fn push(&mut self, p: SentPacket) {
        let len = usize::try_from(p.size_bytes)
            .unwrap_or(usize::MAX)
            .clamp(rtp::field::FIXED_HEADER_LEN, MAX_DATAGRAM);
        let b = &self.batch;
        let fits = b.count > 0
            && b.ecn == Some(p.ecn)
            && len <= b.segment
            && b.bytes.len() % b.segment == 0
            && b.count < self.socket.max_segments()
            && b.bytes.len() + len <= MAX_BATCH_BYTES;
        if !fits {
            self.flush();
            self.batch.segment = len;
            self.batch.ecn = Some(p.ecn);
        }
        let at = self.batch.bytes.len();
        self.batch.bytes.resize(at + len, 0);
        let timestamp = self.rtp_timestamp(p.frame_enqueued_at);
        let header = rtp::Repr {
            marker: p.marker,
            payload_type: PAYLOAD_TYPE,
            sequence_number: p.seq,
            timestamp,
            ssrc: p.ssrc,
            csrcs: rtp::CsrcList::default(),
            payload_len: len - rtp::field::FIXED_HEADER_LEN,
        };
        // The buffer was sized for this header and payload, so emitting cannot fail.
        let _ = header.emit_bytes(&mut self.batch.bytes[at..]);
        self.batch.count += 1;
        self.counters.datagrams += 1;
        self.counters.bytes += len as u64;
    }

    fn flush(&mut self) {
        let b = &mut self.batch;
        if b.count > 0 {
            let ecn = b.ecn.unwrap_or(Ecn::NotEct);
            self.socket
                .send_segments(self.peer, ecn, &b.bytes, b.segment);
        }
        b.bytes.clear();
        b.count = 0;
        b.ecn = None;
    }

    fn rtp_timestamp(&self, t: Instant) -> u32 {
        let ticks = u128::from(t.as_nanos()) * u128::from(RTP_CLOCK_HZ) / 1_000_000_000;
        (ticks as u32).wrapping_add(self.rtp_offset)
    }

    fn apply_events(&mut self) {
        while let Some(ev) = self.sender.poll_event() {
            match ev {
                Event::TargetBitrate { stream, bitrate } if stream == self.stream => {
                    self.encoder.set_target(bitrate);
                }
                Event::KeyFrameRequest { stream } if stream == self.stream => {
                    self.encoder.request_key_frame();
                }
                _ => {}
            }
        }
    }

    /// The RTP SSRC of the stream.
    pub fn ssrc(&self) -> u32 {
        self.ssrc
    }
}

impl<E: Encoder> Endpoint for MediaSender<E> {
    fn loop_clock(&self) -> Clock {
        self.clock
    }
    fn poller_mut(&mut self) -> &mut Poller {
        &mut self.poller
    }
    fn serve(&mut self, now: Instant) -> io::Result<Served> {
        let drained = self.read_feedback(now)?;
        self.produce_frames(now);
        if self.sender.poll_timeout().is_some_and(|t| t <= now) {
            self.sender.handle_timeout(now);
        }
        let pacing = self.transmit(now);
        self.apply_events();
        let deadline = [Some(self.next_frame), self.sender.poll_timeout(), pacing]
            .into_iter()
            .flatten()
            .min();
        Ok(Served { drained, deadline })
    }
}

/// Largest datagram the sender emits (an MSS of the library is at most this).
const MAX_DATAGRAM: usize = 65_000;
/// Largest GSO batch.
const MAX_BATCH_BYTES: usize = 64_000;
