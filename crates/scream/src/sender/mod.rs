//! The SCReAM sender: RTP queues, transmission control, congestion control and media
//! rate control.
//!
//! Runs SCReAM V2 ([`v2`], draft-ietf-ccwg-rfc8298bis-screamv2-00, the default).
//! Where a draft leaves details open, the behaviour follows the Ericsson reference
//! implementation, whose simulator results this crate is compared against.
//!
//! # Call order
//!
//! ```text
//! inputs : on_media_frame(now, stream, frame)  -> packets enter the stream's RTP queue
//!          on_rtp_packet(now, stream, packet)  -> or: whole RTP packets enter it
//!          on_feedback(now, &feedback)         -> acks, losses, ECN, delay samples
//!          handle_timeout(now)                 -> when poll_timeout()'s instant is reached
//! outputs: poll_transmit(now)                  -> Transmit::{Now(packet), At(t), Idle}
//!          poll_timeout()                      -> the next instant handle_timeout wants
//!          poll_event()                        -> TargetBitrate, KeyFrameRequest, ...
//!          poll_cc_event()                     -> back-offs and their causes, stalls, ...
//!                                                 (opt-in: enable_cc_events; analysis)
//! getters: target_bitrate(stream), stats()
//! ```
//!
//! After every input, drain `poll_transmit` until it returns `At` or `Idle`, and
//! `poll_event` until `None`; then sleep until the earlier of `poll_timeout()` and the
//! `At` instant. See [`Sender`] for what happens when the caller is late or its clock
//! misbehaves.
//!
//! # Structure
//!
//! [`Sender`] is the chassis: it owns what every SCReAM generation shares, streams
//! and their RTP queues (`rtp_queue`), the sent-packet bookkeeping and loss detection
//! (`in_flight`), delay estimation (`delay`), the pacer's spacing (`pacing`) and the
//! stream scheduler (`scheduler`). The generation it runs ([`GenerationConfig`]) owns
//! the congestion window law, the media rate control, the pacing rate, whether a frame
//! is admitted to the RTP queue, and its own per-stream state (`generation`, with one
//! module per generation). The configuration is split the same way: shared parameters
//! in [`SenderConfig`], the generation's in [`V2Config`], [`V1Config`] or
//! [`Draft00Config`]; each is declared once with its unit, default, range and source
//! ([`SenderConfig::params`]).
//!
//! - [`v2`] — SCReAM V2 (`scream-v2`, the default), and where it departs from its
//!   draft and why.
//! - [`v1`] — SCReAM V1 (`scream-v1`): RFC 8298 as the Ericsson code ran it before V2,
//!   the generation of the published 2022–2023 5G studies; its departures from the RFC.
//! - [`draft00`] — the 2014 SCReAM of draft-johansson-rmcat-scream-cc-00
//!   (`scream-draft00`), for historical comparison: a LEDBAT-like window with an 80 ms
//!   one-way delay target, a media rate scaled down as the RTP queue ages, and frame
//!   skipping ([`Event::FrameSkipped`]); what that draft leaves open and what was
//!   chosen.

use crate::time::Instant;
use crate::units::Bitrate;

/// Identifies a stream added with [`Sender::add_stream`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StreamId(pub(crate) u32);

impl StreamId {
    /// Index of the stream in the order streams were added (0, 1, ...).
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// What [`Sender::poll_transmit`] asks the caller to do.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Transmit {
    /// Send this packet now.
    Now(SentPacket),
    /// Nothing may be sent before this instant (pacing); poll again then.
    At(Instant),
    /// Nothing to send (empty queues or a full send window); poll again after the next
    /// input.
    Idle,
}

/// A packet the sender released for transmission.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct SentPacket {
    /// The stream it belongs to.
    pub stream: StreamId,
    /// RTP SSRC.
    pub ssrc: u32,
    /// RTP sequence number.
    pub seq: u16,
    /// Size on the wire that the congestion controller accounts for (RTP payload plus
    /// RTP header), in bytes.
    pub size_bytes: u32,
    /// RTP marker bit: last packet of a frame.
    pub marker: bool,
    /// ECN codepoint to set on the IP header.
    pub ecn: crate::Ecn,
    /// When the frame this packet belongs to entered the RTP queue (on the caller's
    /// clock as it reads now; see [`Sender`] for clock steps).
    pub frame_enqueued_at: Instant,
    /// Index of the frame within its stream (0, 1, ...), to correlate packets of a frame.
    pub frame_index: u64,
    /// The handle the caller gave the bytes this packet carries
    /// ([`MediaFrame::handle`] or [`MediaPacket::handle`]).
    pub handle: u64,
    /// Where the bytes this packet carries start in the caller's buffer: the offset
    /// into the encoded frame ([`Sender::on_media_frame`]), or 0 for a whole RTP
    /// packet ([`Sender::on_rtp_packet`]).
    pub payload_offset: u32,
    /// How many of the caller's bytes it carries from `payload_offset` on: its RTP
    /// payload (`size_bytes` less the accounted RTP header) for a frame, the whole
    /// packet as handed in for an RTP packet.
    pub payload_len: u32,
}

mod ack;
mod cc_events;
mod clock;
mod config;
mod deadline;
mod delay;
mod delivery;
pub mod draft00;
mod events;
mod generation;
mod improvements;
mod in_flight;
mod late_feedback;
mod pacing;
mod packet_input;
pub(crate) mod params;
mod proof;
mod rate_control;
mod rate_meter;
mod rtp_queue;
mod scheduler;
mod stall;
mod stats;
mod stream;
pub mod v1;
pub mod v2;

use std::collections::VecDeque;

pub use cc_events::{CongestionEvent, CongestionEventKind, MAX_CC_EVENTS};
pub use clock::{MAX_TIME_STEP, RTT_LEAP, TIME_JITTER_TOLERANCE};
pub use config::{EcnMode, GENERATION_NAMES, GenerationConfig, SenderConfig};
pub use draft00::Draft00Config;
pub use events::Event;
pub use generation::GenerationStats;
pub use generation::contract::BackOffCause;
pub use improvements::{IMPROVEMENT_NAMES, Improvements};
pub use packet_input::MediaPacket;
pub use params::{ConfigError, ParamInfo};
pub use proof::FeedbackUse;
pub use stats::{SenderStats, StreamStats};
pub use stream::{MAX_STREAMS, MediaFrame, StreamConfig};
pub use {draft00::stats::Draft00Stats, v1::stats::V1Stats, v2::stats::V2Stats};
pub use {v1::V1Config, v2::V2Config};

use clock::Clock;
use delay::DelayEstimator;
use events::push_event;
use generation::Generation;
use pacing::Pacer;
use rate_meter::RateMeter;
use stream::Stream;

/// A SCReAM sender (all streams sharing one congestion controller).
///
/// # Call contract
///
/// After every input (`on_media_frame`, `on_feedback`, `handle_timeout`), drain
/// `poll_transmit` until it returns `At` or `Idle`, and `poll_event` until `None`; then
/// sleep until the earlier of `poll_timeout()` and the `At` instant, and call
/// `handle_timeout` (if `poll_timeout` was due) and `poll_transmit` again.
///
/// **Late callers.** Waking later than asked is fine. `handle_timeout` runs whatever
/// fell due meanwhile. `poll_transmit` may still use the pacing slots that passed since
/// the `At` instant it gave, back to at most [`SenderConfig::pacing_catch_up`] (10 ms)
/// before `now`; those packets come out back-to-back, so a caller on a 1 ms or 4 ms
/// timer keeps the pacing rate. A period with nothing to send, or a full send window,
/// earns no such credit.
///
/// **The caller's clock.** `now` is the caller's clock, any epoch. The sender keeps its
/// own monotonic time, which follows `now` forward; instants it returns (`At`,
/// `poll_timeout`, `SentPacket::frame_enqueued_at`) are on the caller's clock as of the
/// latest input.
/// - A `now` up to [`TIME_JITTER_TOLERANCE`] (10 ms) earlier than the latest is taken
///   as the latest.
/// - A single `now` further back is taken as a stray value and changes nothing. Two
///   inputs in a row further back mean the caller's clock stepped back: the sender's
///   time stays where it was and follows the caller's clock from there on, so nothing
///   waits for the old clock to catch up.
/// - A jump forward is elapsed time (timers that fall due run: a long-idle sender
///   discards stale RTP queues and forgets packets in flight), up to
///   [`MAX_TIME_STEP`] (24 h) per input. A single far-future value followed by normal
///   time thus costs at most one RTP queue discard and the packets in flight; the
///   sender sends again at once.
///
/// # Payloads
///
/// The sender never holds media bytes: it queues sizes, and says which of the
/// caller's bytes each released packet carries. Media enters one of two ways:
///
/// - **Frames** ([`on_media_frame`](Sender::on_media_frame)): an encoded frame, named
///   by the caller's [`MediaFrame::handle`]. The sender cuts it into packets of at most
///   [`SenderConfig::mss_bytes`] payload; each [`SentPacket`] gives the frame's
///   `handle` and the byte range `payload_offset .. payload_offset + payload_len` of
///   the frame it carries. The caller writes an RTP header (12 bytes as
///   [`SenderConfig::rtp_overhead_bytes`] accounts, with `seq`, `ssrc` and `marker`
///   from the packet) in front of that range and sends it. The ranges of a frame
///   follow each other without gap or overlap, in order.
/// - **RTP packets** ([`on_rtp_packet`](Sender::on_rtp_packet)): packets an RTP
///   payloader already cut, each named by its [`MediaPacket::handle`] and accounted at
///   its own size. Each leaves whole ([`SentPacket::payload_offset`] 0,
///   `payload_len` its size); the caller sends its bytes with the sequence number
///   rewritten to [`SentPacket::seq`] (and the SSRC to [`SentPacket::ssrc`]), since
///   the sender numbers packets as they leave so that a discarded queue leaves no
///   gap the receiver would take for loss.
///
/// Handles come back in the order they went in, per stream; a queue discard drops
/// whole frames, so when a packet with handle `h` comes out, the bytes of every
/// handle queued on that stream before `h` and not yet sent were discarded and can be
/// freed. The simulator uses frames with sizes only (handle 0) and ignores the ranges.
#[derive(Debug)]
pub struct Sender {
    config: SenderConfig,
    streams: Vec<Stream>,
    generation: Generation,
    delay: DelayEstimator,
    pacer: Pacer,
    pacing_rate: Bitrate,
    bytes_in_flight: u64,
    /// Largest packet (accounted size) released so far; the draft's MSS.
    largest_packet: u64,
    events: VecDeque<Event>,
    /// The sender's own time line (see `clock`).
    time: Clock,
    have_feedback: bool,
    last_report_time: Option<crate::time::RemoteInstant>,
    newest_acked_sent_at: Option<Instant>,
    /// When the latest packet the send window allowed left (sender time).
    last_sent: Option<Instant>,
    /// When the latest feedback probe left (sender time; see `probe`).
    last_probe: Option<Instant>,
    /// Stalls since the last feedback that acknowledged anything.
    silent_stalls: u32,
    /// When the latest feedback that acknowledged anything arrived (sender time).
    last_ack_progress: Option<Instant>,
    /// Until when losses are not congestion: the outage's own (`outage-recovery`).
    outage_grace_until: Option<Instant>,
    /// Bytes sent since the latest acknowledgement (`media-deadline`).
    silent: deadline::SilentBytes,
    counters: Counters,
    rate_tx: RateMeter,
    rate_acked: RateMeter,
    rate_lost: RateMeter,
    rate_ce: RateMeter,
    rate_media: RateMeter,
    /// Recent peak delivery rate (`l4s-pacing`).
    delivery: delivery::DeliveryPeak,
    /// Opt-in record of congestion-control decisions (`cc_events`).
    cc_events: cc_events::CcEventQueue,
}

#[derive(Debug, Default, Clone, Copy)]
struct Counters {
    packets_sent: u64,
    packets_acked: u64,
    packets_lost: u64,
    packets_ce: u64,
    feedback_ignored: u64,
    feedback_unproven: u64,
}

impl Sender {
    /// A sender with `config`, which must pass [`SenderConfig::validate`].
    pub fn new(config: SenderConfig) -> Result<Self, ConfigError> {
        config.validate()?;
        let delay = DelayEstimator::new(config.base_delay_window);
        let generation = Generation::new(&config, delay.srtt());
        Ok(Self {
            // No stream yet: the generation's floor.
            pacing_rate: generation.pacing_rate(&[], Bitrate::ZERO, None),
            generation,
            delay,
            largest_packet: u64::from(config.mss_bytes + config.rtp_overhead_bytes),
            config,
            streams: Vec::new(),
            pacer: Pacer::default(),
            bytes_in_flight: 0,
            events: VecDeque::new(),
            time: Clock::default(),
            have_feedback: false,
            last_report_time: None,
            newest_acked_sent_at: None,
            last_sent: None,
            last_probe: None,
            silent_stalls: 0,
            last_ack_progress: None,
            outage_grace_until: None,
            silent: deadline::SilentBytes::default(),
            counters: Counters::default(),
            rate_tx: RateMeter::default(),
            rate_acked: RateMeter::default(),
            rate_lost: RateMeter::default(),
            rate_ce: RateMeter::default(),
            rate_media: RateMeter::default(),
            delivery: delivery::DeliveryPeak::default(),
            cc_events: cc_events::CcEventQueue::default(),
        })
    }

    /// The configuration the sender runs with.
    pub fn config(&self) -> &SenderConfig {
        &self.config
    }

    /// Adds a media stream; its RTP sequence numbers start at 0.
    pub fn add_stream(&mut self, config: StreamConfig) -> Result<StreamId, ConfigError> {
        self.add_stream_with_initial_seq(config, 0)
    }

    /// Adds a media stream whose first RTP sequence number is `initial_seq` (RFC 3550
    /// recommends a random one; pass it from the caller's RNG).
    pub fn add_stream_with_initial_seq(
        &mut self,
        config: StreamConfig,
        initial_seq: u16,
    ) -> Result<StreamId, ConfigError> {
        stream::check_new(&config, &self.streams)?;
        let weight = self
            .streams
            .first()
            .map_or(1.0, |first| config.priority / first.config.priority);
        let id = StreamId(u32::try_from(self.streams.len()).unwrap_or(u32::MAX));
        self.streams.push(Stream::new(config, initial_seq, weight));
        self.generation.on_stream_added(&self.streams[id.index()]);
        self.update_pacing_rate();
        Ok(id)
    }

    /// The sender's time for an input at the caller's `now` (see [`Sender`]).
    fn clock(&mut self, now: Instant) -> Instant {
        self.time.advance(now)
    }

    /// A frame was encoded: it enters the stream's RTP queue as MSS-sized packets,
    /// unless the generation skips it ([`Event::FrameSkipped`]). An unknown `stream` is
    /// ignored.
    pub fn on_media_frame(&mut self, now: Instant, stream: StreamId, frame: MediaFrame) {
        let now = self.clock(now);
        let idx = stream.index();
        let (mss, overhead) = (self.config.mss_bytes, self.config.rtp_overhead_bytes);
        let Some(s) = self.streams.get_mut(idx) else {
            return;
        };
        let frame_index = s.on_frame(now);
        let queue_delay = s.queue.delay(now);
        if !self.generation.admit_frame(idx, frame, queue_delay, now) {
            s.frames_skipped += 1;
            push_event(
                &mut self.events,
                Event::FrameSkipped {
                    stream,
                    frame_index,
                },
            );
            self.check_queues(now);
            if self.have_feedback {
                self.update_targets(now);
            }
            return;
        }
        let was_empty = s.queue.is_empty();
        let before = s.queue.bytes();
        s.queue.push_frame(
            now,
            (frame_index, frame.handle),
            frame.size_bytes,
            mss,
            overhead,
        );
        self.generation
            .on_frame(idx, s, frame.size_bytes, queue_delay);
        let added = s.queue.bytes() - before;
        if was_empty && !s.queue.is_empty() {
            scheduler::on_backlogged(&mut self.streams, idx);
        }
        self.rate_media.add(now, added);
        self.check_queues(now);
        if self.have_feedback {
            self.update_targets(now);
        } else {
            self.update_pacing_rate();
        }
    }

    /// Runs timers that are due at `now`: RTP queue discards, the in-flight timeout and
    /// the generation's own.
    pub fn handle_timeout(&mut self, now: Instant) {
        let now = self.clock(now);
        self.check_queues(now);
        if self.generation.on_timeout(now) && self.have_feedback {
            self.update_targets(now);
        }
        let next = self.next_packet();
        self.expire_in_flight(now, next);
    }

    // Inlined into `poll_transmit`, which runs it for every packet.
    #[inline(always)]
    fn check_queues(&mut self, now: Instant) {
        let max = self.discard_age();
        for (i, s) in self.streams.iter_mut().enumerate() {
            if let Some(discarded) = s.check_discard(now, max) {
                self.generation.on_discard(i);
                let stream = StreamId(u32::try_from(i).unwrap_or(u32::MAX));
                push_event(&mut self.events, Event::KeyFrameRequest { stream });
                if self.cc_events.enabled() {
                    let at = self.time.to_caller(now);
                    self.cc_events.on_discard(at, stream, discarded);
                }
            }
        }
    }

    /// The next packet to send, or when to ask again.
    pub fn poll_transmit(&mut self, now: Instant) -> Transmit {
        let now = self.clock(now);
        self.check_queues(now);
        let mut next = self.next_packet();
        if self.expire_in_flight(now, next) {
            next = self.next_packet();
        }
        let Some((idx, _, blocked)) = next else {
            self.pacer.on_idle();
            return Transmit::Idle;
        };
        // A closed window lets a probe through once feedback is overdue (`probe`);
        // so does the silence bound of `media-deadline`, which also holds media past
        // its deadline (`deadline`).
        let silenced = self.silence_bound_reached();
        let probe = (blocked && self.probe_deadline().is_some_and(|t| now >= t))
            || (silenced && self.silence_probe_deadline().is_some_and(|t| now >= t));
        let held = blocked || silenced || self.past_deadline(now, idx);
        if held && !probe {
            self.pacer.on_idle();
            return Transmit::Idle;
        }
        if now < self.pacer.next_send() {
            self.pacer.on_wait();
            return Transmit::At(self.time.to_caller(self.pacer.next_send()));
        }
        let s = &mut self.streams[idx];
        let Some(p) = s.queue.pop() else {
            self.pacer.on_idle();
            return Transmit::Idle;
        };
        let seq = s.sent.on_sent(now, p.size_bytes);
        scheduler::on_served(s, p.size_bytes);
        let packet = SentPacket {
            stream: StreamId(u32::try_from(idx).unwrap_or(u32::MAX)),
            ssrc: s.config.ssrc,
            seq,
            size_bytes: p.size_bytes,
            marker: p.marker,
            ecn: match self.config.ecn {
                EcnMode::None => crate::Ecn::NotEct,
                EcnMode::Classic => crate::Ecn::Ect0,
                EcnMode::L4s => crate::Ecn::Ect1,
            },
            frame_enqueued_at: self.time.to_caller(p.enqueued_at),
            frame_index: p.frame_index,
            handle: p.handle,
            payload_offset: p.payload_offset,
            payload_len: p.payload_len,
        };
        self.bytes_in_flight += u64::from(p.size_bytes);
        self.largest_packet = self.largest_packet.max(u64::from(p.size_bytes));
        self.generation
            .on_packet_sent(idx, now, p.size_bytes, self.bytes_in_flight);
        let catch_up = self.config.pacing_catch_up;
        self.pacer
            .on_sent(now, p.size_bytes, self.pacing_rate, catch_up);
        self.counters.packets_sent += 1;
        if self.silence_bound_on() {
            self.note_silent_bytes(p.size_bytes);
        }
        if probe {
            self.last_probe = Some(now);
        } else {
            self.last_sent = Some(now);
        }
        self.rate_tx.add(now, u64::from(p.size_bytes));
        Transmit::Now(packet)
    }

    /// The next instant (on the caller's clock) at which [`Sender::handle_timeout`]
    /// must be called: when an RTP queue will be too old, the oldest packet in flight
    /// times out, a closed send window will have stalled the sender for
    /// [`SenderConfig::stall_timeout`], or, while the return path loses reports, overdue
    /// reports open the window or a probe may pass it (see `late_feedback`).
    pub fn poll_timeout(&self) -> Option<Instant> {
        let max = self.discard_age();
        let timeout = self.config.in_flight_timeout;
        self.streams
            .iter()
            .flat_map(|s| {
                let discard = s.discard_deadline(max);
                let expiry = s.sent.oldest_in_flight().map(|t| t + timeout);
                [discard, expiry]
            })
            .chain([
                self.stall_deadline(),
                self.late_feedback_deadline(),
                self.silence_probe_deadline(),
                self.generation.next_timeout(),
            ])
            .flatten()
            .min()
            .map(|t| self.time.to_caller(t))
    }

    /// The next pending event.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// Current target bitrate of `stream` (zero for an unknown stream).
    pub fn target_bitrate(&self, stream: StreamId) -> Bitrate {
        self.streams
            .get(stream.index())
            .map_or(Bitrate::ZERO, |s| s.target)
    }

    /// Bytes sent and neither acknowledged nor declared lost.
    pub fn bytes_in_flight(&self) -> u64 {
        self.bytes_in_flight
    }
}
