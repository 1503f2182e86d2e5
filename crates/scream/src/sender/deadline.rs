//! `media-deadline`: media that would arrive too late is not sent, and a sender that
//! hears nothing sends at most one window, then probes (RFC 8083's circuit breakers,
//! applied per packet instead of per session).
//!
//! Two rules, both off unless [`super::Improvements::media_deadline`] is on (the
//! silence bound also with [`super::Improvements::outage_recovery`]):
//!
//! - **Deadline.** A packet's deadline is [`MEDIA_DEADLINE`] after its frame entered
//!   the RTP queue. It would arrive at about its age now plus the one-way delay it
//!   will still see, estimated from the latest feedback: the queue delay of the latest
//!   sample plus half the RTT that remains without it (the propagation, both ways,
//!   and the receiver's report delay, a slight over-estimate of the one-way
//!   propagation). While that sum is past the deadline, the packet waits and the RTP
//!   queue is discarded at the next allowed discard (with a key frame request), as
//!   for `max_rtp_queue_delay`. The rule holds only while something is in flight:
//!   with nothing in flight, nothing will refresh the estimate, so the next packet
//!   goes and measures the path again (a path that has drained is otherwise never
//!   seen to have drained).
//! - **Silence bound.** Bytes sent since the latest feedback that acknowledged
//!   anything are at most one send window. Faithfully, the stall guard gives up an
//!   unanswered flight and the sender sends a whole new window into the same silent
//!   path every `stall_timeout`; behind a deep buffer that only trickles, those
//!   windows come out seconds late. With the bound, once a window went unanswered,
//!   only a probe leaves every probe timeout (RFC 8985 §7.2: twice the smoothed RTT),
//!   as RFC 8083 §4.3 asks of a sender whose reports stopped (cease, or cut to a
//!   trickle, instead of sending on). The first acknowledgement lifts the bound.

use super::Sender;
use crate::time::{Duration, Instant};

/// The deadline of media, from its entry into the RTP queue to its arrival: 400 ms,
/// ITU-T G.114's (05/2003, §A and Figure 1) upper limit of one-way delay for
/// interactive use. Beyond it most conversations fail; a frame that late is skipped or
/// frozen by the player anyway, and sending it only delays the frames behind it.
pub(crate) const MEDIA_DEADLINE: Duration = Duration::from_millis(400);

/// Bytes sent since an acknowledgement: counted from which progress instant.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct SilentBytes {
    /// The `last_ack_progress` the count starts from.
    since: Option<Instant>,
    /// Bytes sent since then (probes included).
    bytes: u64,
}

impl Sender {
    /// The one-way delay a packet sent now is expected to see: the latest queue delay
    /// plus half of the rest of the latest RTT (see the module documentation).
    pub(super) fn expected_one_way(&self) -> Duration {
        let queue = self.delay.queue_delay();
        let rest = self.delay.last_rtt().saturating_sub(queue);
        queue.saturating_add(rest / 2)
    }

    /// How long a packet may still wait in the RTP queue under the deadline, or `None`
    /// when the deadline does not apply (option off, no feedback yet, nothing in
    /// flight).
    pub(super) fn deadline_budget(&self) -> Option<Duration> {
        if !self.config.improvements.media_deadline
            || !self.have_feedback
            || self.bytes_in_flight == 0
        {
            return None;
        }
        Some(MEDIA_DEADLINE.saturating_sub(self.expected_one_way()))
    }

    /// The RTP-queue age above which a queue is discarded: `max_rtp_queue_delay`, or
    /// less under the deadline.
    pub(super) fn discard_age(&self) -> Duration {
        let max = self.config.max_rtp_queue_delay;
        self.deadline_budget().map_or(max, |b| b.min(max))
    }

    /// Whether the packet of stream `idx` next in line is past its deadline.
    pub(super) fn past_deadline(&self, now: Instant, idx: usize) -> bool {
        let Some(budget) = self.deadline_budget() else {
            return false;
        };
        self.streams
            .get(idx)
            .is_some_and(|s| s.queue.delay(now) >= budget)
    }

    /// Whether the silence bound applies: with `media-deadline`, and with
    /// `outage-recovery`, whose quicker stall would otherwise send a new window into
    /// a silent path every few RTTs instead of every `stall_timeout`.
    pub(super) fn silence_bound_on(&self) -> bool {
        let imp = &self.config.improvements;
        imp.media_deadline || imp.outage_recovery
    }

    /// Bytes sent since the latest feedback that acknowledged anything (or since the
    /// start).
    fn silent_bytes(&self) -> u64 {
        if self.silent.since == self.last_ack_progress {
            self.silent.bytes
        } else {
            0
        }
    }

    /// Counts `bytes` just sent toward the silence bound.
    pub(super) fn note_silent_bytes(&mut self, bytes: u32) {
        if self.silent.since != self.last_ack_progress {
            self.silent = SilentBytes {
                since: self.last_ack_progress,
                bytes: 0,
            };
        }
        self.silent.bytes = self.silent.bytes.saturating_add(u64::from(bytes));
    }

    /// Whether the silence bound holds the next packet back: a whole send window went
    /// out since the latest acknowledgement.
    pub(super) fn silence_bound_reached(&self) -> bool {
        if !self.silence_bound_on() {
            return false;
        }
        let limit = self
            .generation
            .send_limit_bytes(self.delay.steadiness(), self.largest_packet);
        self.silent_bytes() >= limit
    }

    /// When a probe may pass the silence bound: a probe timeout after the latest of the
    /// last transmission, the last probe and the last acknowledgement.
    /// `None` while there is nothing to send: a deadline then would only wake the
    /// caller for nothing, again and again.
    pub(super) fn silence_probe_deadline(&self) -> Option<Instant> {
        if !self.silence_bound_reached() || self.next_packet().is_none() {
            return None;
        }
        let last = self.last_sent?;
        let since = [self.last_probe, self.last_ack_progress]
            .into_iter()
            .flatten()
            .fold(last, Instant::max);
        Some(since + self.probe_timeout())
    }
}
