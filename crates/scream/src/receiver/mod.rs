//! The SCReAM receiver: per-SSRC reception history and feedback cadence.
//!
//! [`Receiver`] documents its call contract: call order, how it treats the caller's
//! time, and what it costs.

mod clock;
mod config;
mod history;

pub use clock::CLOCK_STEP_TOLERANCE;
pub use config::{MAX_REPORT_WINDOW, ReceiverConfig, ReceiverConfigError};

use crate::ecn::Ecn;
use crate::feedback::Feedback;
use crate::time::{Instant, RemoteInstant};
use clock::Clock;
use history::{Recorded, SsrcHistory};

/// An RTP packet as seen by the receiver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReceivedPacket {
    /// RTP SSRC.
    pub ssrc: u32,
    /// RTP sequence number.
    pub seq: u16,
    /// Size in bytes (counted in stats only).
    pub size_bytes: u32,
    /// ECN codepoint from the IP header.
    pub ecn: Ecn,
    /// RTP marker bit.
    pub marker: bool,
}

/// Counters kept by the receiver.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReceiverStats {
    /// Packets accepted into the history.
    pub packets_received: u64,
    /// Bytes of accepted packets.
    pub bytes_received: u64,
    /// Packets whose sequence number had already arrived.
    pub duplicates: u64,
    /// Packets too old to be reported any more.
    pub too_old: u64,
    /// Times a stream's history was restarted after a sequence-number jump.
    pub restarts: u64,
    /// CE-marked packets accepted.
    pub ce_marked: u64,
    /// Reports produced.
    pub reports: u64,
    /// SSRCs whose reception history is kept at the moment (a gauge, not a counter).
    pub ssrcs_tracked: usize,
    /// Times the caller's `now` stepped back by more than [`CLOCK_STEP_TOLERANCE`] and
    /// the receiver's clock was re-anchored (see [`Receiver`], *Time*).
    pub clock_steps_back: u64,
}

/// A SCReAM receiver.
///
/// # Call order
///
/// ```text
/// inputs : on_packet(now, ReceivedPacket)  -> updates the reception history
/// outputs: poll_feedback(now)              -> Some(report) when one is due
///          poll_timeout()                  -> when a report falls due if nothing arrives
/// getters: stats()
/// ```
///
/// After each `on_packet`, and when `poll_timeout()` is reached, call `poll_feedback`
/// until it returns `None`. A report is due when `packets_per_report` packets arrived
/// since the last one, when a packet carries the RTP marker bit (end of a frame), or
/// when `max_report_interval` passed since the last report and something new arrived.
/// Each report covers the last `report_window` sequence numbers of every stream that
/// received something since the previous report, so a lost report is repaired by the
/// next one as long as fewer than `report_window` packets arrive in between.
///
/// # Time
///
/// `now` is the caller's clock; it should not go backwards, but the receiver copes if
/// it does. The receiver keeps its own clock, which never goes backwards:
///
/// - a `now` later than any before advances it (a jump ahead is taken as elapsed time);
/// - a `now` earlier than the latest by at most [`CLOCK_STEP_TOLERANCE`] (100 ms) is
///   clamped to the latest: a packet arriving then is stamped with the latest instant;
/// - a `now` earlier by more is a step of the caller's clock: the receiver's clock
///   continues from its latest instant and from then on advances with the caller's
///   (counted in [`ReceiverStats::clock_steps_back`]).
///
/// Arrival times and report times in feedback are on the receiver's clock, expressed as
/// [`RemoteInstant`] for the sender; after a step they keep advancing at the caller's
/// pace. `poll_timeout()` is on the caller's clock. So whatever `now` does, the
/// packet-count and marker triggers fire at once, and the interval timer falls due at
/// most `max_report_interval` (plus the tolerance, after a clamp) after the caller's
/// latest `now`.
///
/// A single `now` far in the future (a bogus time stamp) moves the receiver's clock
/// there for good: when the caller's time returns, that is a step back, and reports
/// carry times offset by the jump. The sender sees one step in one-way delay; reports
/// keep their cadence. At `Instant::MAX` the receiver's clock cannot advance any more:
/// the interval has then always run out, so every packet is reported at once (at most
/// one report per packet) rather than never.
#[derive(Debug)]
pub struct Receiver {
    config: ReceiverConfig,
    /// Every instant below is on this clock, never on the caller's.
    clock: Clock,
    streams: Vec<SsrcHistory>,
    /// Packets accepted since the last report (all streams).
    unreported: u32,
    marker_pending: bool,
    last_report: Option<Instant>,
    /// Arrival of the first unreported packet: the interval timer runs from here when
    /// no report was sent yet.
    first_unreported_at: Option<Instant>,
    stats: ReceiverStats,
}

impl Receiver {
    /// A receiver with `config`, which must pass [`ReceiverConfig::validate`].
    pub fn new(config: ReceiverConfig) -> Result<Self, ReceiverConfigError> {
        config.validate()?;
        Ok(Self {
            config,
            clock: Clock::default(),
            streams: Vec::new(),
            unreported: 0,
            marker_pending: false,
            last_report: None,
            first_unreported_at: None,
            stats: ReceiverStats::default(),
        })
    }

    /// A media packet arrived at `now` (receiver clock).
    pub fn on_packet(&mut self, now: Instant, packet: ReceivedPacket) {
        let now = self.clock.observe(now);
        let window = usize::from(self.config.report_window);
        let idx = match self.streams.iter().position(|s| s.ssrc == packet.ssrc) {
            Some(i) => i,
            None => {
                let mut history = SsrcHistory::new(window);
                history.restart(packet.ssrc, packet.seq);
                self.streams.push(history);
                self.streams.len() - 1
            }
        };
        let stream = &mut self.streams[idx];
        // A restart forgets the stream's unreported packets: keep the total in step.
        let before = stream.unreported;
        let outcome = stream.record(now, packet.seq, packet.ecn);
        self.unreported = self.unreported - before + stream.unreported;
        match outcome {
            Recorded::New | Recorded::Restarted => {
                if outcome == Recorded::Restarted {
                    self.stats.restarts += 1;
                }
                self.stats.packets_received += 1;
                self.stats.bytes_received += u64::from(packet.size_bytes);
                if packet.ecn == Ecn::Ce {
                    self.stats.ce_marked += 1;
                }
                self.first_unreported_at.get_or_insert(now);
                if packet.marker && self.config.report_on_marker {
                    self.marker_pending = true;
                }
            }
            Recorded::Duplicate => self.stats.duplicates += 1,
            Recorded::TooOld => self.stats.too_old += 1,
        }
    }

    /// The next feedback report, if one is due at `now`.
    pub fn poll_feedback(&mut self, now: Instant) -> Option<Feedback> {
        let now = self.clock.observe(now);
        if !self.report_due(now) {
            return None;
        }
        let mut feedback = Feedback {
            report_time: RemoteInstant::from_nanos(now.as_nanos()),
            reports: vec![],
        };
        for stream in self.streams.iter_mut().filter(|s| s.unreported > 0) {
            stream.report_into(&mut feedback.reports);
            stream.unreported = 0;
        }
        self.unreported = 0;
        self.marker_pending = false;
        self.first_unreported_at = None;
        self.last_report = Some(now);
        self.stats.reports += 1;
        Some(feedback)
    }

    /// When the next report falls due if no packet arrives, on the caller's clock;
    /// `None` when nothing is waiting to be reported. An instant in the past means now.
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.due().map(|due| self.clock.to_caller(due))
    }

    /// Counters.
    pub fn stats(&self) -> ReceiverStats {
        ReceiverStats {
            ssrcs_tracked: self.streams.len(),
            clock_steps_back: self.clock.steps_back(),
            ..self.stats
        }
    }

    /// When the next report falls due, on the receiver's clock.
    fn due(&self) -> Option<Instant> {
        if self.unreported == 0 {
            return None;
        }
        if self.marker_pending || self.unreported >= self.config.packets_per_report {
            return self.first_unreported_at;
        }
        // The receiver's clock never goes back, so this lies at most one interval after
        // its latest instant: the timer cannot be wedged by a jump of the caller's time.
        let since = self.last_report.or(self.first_unreported_at)?;
        Some(since + self.config.max_report_interval)
    }

    fn report_due(&self, now: Instant) -> bool {
        self.due().is_some_and(|due| due <= now)
    }
}
