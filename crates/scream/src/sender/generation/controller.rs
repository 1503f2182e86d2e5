//! The trait a generation implements: what the chassis asks of it, with defaults for
//! everything a generation may leave alone.
//!
//! Model: quinn-proto's congestion `Controller` and neqo's `WindowAdjustment`. A
//! generation writes the methods where it differs; a default says what "no opinion"
//! means (nothing to do, no timer, no own estimate). The chassis never holds a
//! `dyn Controller`: it calls these methods through the `Generation` enum, one `match`
//! per call, so each call compiles to a direct (usually inlined) call.

use super::contract::{AckSummary, BackOffCause, DelayParams, Measurements, TargetInput};
use crate::sender::config::SenderConfig;
use crate::sender::stream::{MediaFrame, Stream};
use crate::time::{Duration, Instant};
use crate::units::Bitrate;

/// A generation's congestion window law, media rate control and pacing rate, as the
/// chassis drives them. Stream indices are those of the sender's streams, in the order
/// they were added.
pub(crate) trait Controller: Sized {
    /// The generation's own parameters.
    type Config;
    /// The generation's own part of the sender's statistics.
    type Stats;

    /// A generation with the shared configuration `cfg` and its own `params`; `srtt` is
    /// the chassis' smoothed RTT before any sample.
    fn new(cfg: &SenderConfig, params: &Self::Config, srtt: Duration) -> Self;

    /// A stream was added (its index is the number of streams before).
    fn on_stream_added(&mut self, _stream: &Stream) {}

    /// Whether `frame`, arriving at `now` for stream `idx` whose RTP queue is
    /// `queue_delay` old, enters the queue; a refused frame is skipped (frame skipping).
    /// Called before the frame is queued. Default: every frame enters.
    fn admit_frame(
        &mut self,
        _idx: usize,
        _frame: MediaFrame,
        _queue_delay: Duration,
        _now: Instant,
    ) -> bool {
        true
    }

    /// A frame of `size_bytes` entered stream `idx`'s RTP queue, which was
    /// `queue_delay` old just before.
    fn on_frame(
        &mut self,
        _idx: usize,
        _stream: &Stream,
        _size_bytes: u32,
        _queue_delay: Duration,
    ) {
    }

    /// Stream `idx`'s RTP queue was discarded.
    fn on_discard(&mut self, _idx: usize) {}

    /// How the chassis' delay estimator works for this generation, at smoothed RTT
    /// `srtt`.
    fn delay_params(&self, srtt: Duration) -> DelayParams;

    /// Feedback was processed: update the window. Returns the back-off it made, if
    /// any: cause, window before and after (bytes).
    fn on_feedback(
        &mut self,
        ack: &AckSummary,
        m: &Measurements,
    ) -> Option<(BackOffCause, u64, u64)>;

    /// The send window stalled the sender and the flight was given up, the
    /// `in_a_row`-th time with nothing acknowledged since (only with the
    /// `outage-recovery` improvement). Returns the window before and after (bytes) if
    /// it shrank. Default: no reaction of its own.
    fn on_stall(&mut self, _in_a_row: u32) -> Option<(u64, u64)> {
        None
    }

    /// A packet of `size` bytes of stream `idx` left at `now`; `bytes_in_flight`
    /// includes it.
    fn on_packet_sent(&mut self, _idx: usize, _now: Instant, _size: u32, _bytes_in_flight: u64) {}

    /// A packet of `size` bytes of stream `idx` was acknowledged at `now`; `owd_nanos`
    /// is its one-way delay sample if the chassis' delay estimator accepted it.
    fn on_packet_acked(&mut self, _idx: usize, _now: Instant, _size: u32, _owd_nanos: Option<i64>) {
    }

    /// The generation's own queue delay estimate. Default: none, the chassis' counts.
    fn queue_delay(&self) -> Option<Duration> {
        None
    }

    /// Congestion window, bytes, as the statistics report it.
    fn window_bytes(&self) -> u64;

    /// How many bytes may be in flight before the send window closes, given the queue
    /// delay's steadiness and the largest recent packet `mss` (bytes).
    fn send_limit_bytes(&self, steadiness: f64, mss: u64) -> u64;

    /// When the generation's own timer falls due next (sender time). Default: it has
    /// none.
    fn next_timeout(&self) -> Option<Instant> {
        None
    }

    /// Runs the generation's own timers due at `now`; returns whether the streams'
    /// targets are to be recomputed. Default: no timers, nothing to recompute.
    fn on_timeout(&mut self, _now: Instant) -> bool {
        false
    }

    /// Media rate control: sets every stream's `target`.
    fn update_targets(&mut self, streams: &mut [Stream], input: &TargetInput);

    /// The pacing rate for the streams' current targets; `media_rate` is the rate at
    /// which media enters the RTP queues, `delivery_peak` the recent peak delivery rate
    /// (only with the `l4s-pacing` improvement).
    fn pacing_rate(
        &self,
        streams: &[Stream],
        media_rate: Bitrate,
        delivery_peak: Option<Bitrate>,
    ) -> Bitrate;

    /// Whether the window exceeds what the recent bytes in flight can use (the chassis
    /// then follows a falling RTT slowly). Default: never.
    fn app_limited(&self) -> bool {
        false
    }

    /// Averaged CE fraction (L4S). Default: 0, not applicable.
    fn l4s_alpha(&self) -> f64 {
        0.0
    }

    /// The generation's own statistics, given the queue delay's steadiness.
    fn stats(&self, steadiness: f64) -> Self::Stats;
}
