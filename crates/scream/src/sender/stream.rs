//! Media streams: what the application gives a stream (its configuration and its
//! frames) and the per-stream state (RTP queue, sent packets, target, frame period).

use super::in_flight::SentHistory;
use super::params::ConfigError;
use super::rtp_queue::RtpQueue;
use crate::time::{Duration, Instant};
use crate::units::Bitrate;

/// Most streams one sender serves.
pub const MAX_STREAMS: usize = 64;
/// Highest value a stream's bitrate limits may take, bit/s (100 Gbit/s).
pub(crate) const MAX_STREAM_BITRATE_BPS: f64 = 1e11;
/// Largest ratio between the priorities of two streams of a sender.
pub(crate) const MAX_PRIORITY_RATIO: f64 = 1e6;

/// Frame period assumed before two frames were seen (draft state variable
/// `frame_period`, 0.02 s).
const INITIAL_FRAME_PERIOD: f64 = 0.02;
/// Weight of the newest inter-frame time in the frame period estimate (reference: 0.9).
const FRAME_PERIOD_G: f64 = 0.9;
/// Minimum time between two RTP queue discards (reference
/// `kMinRtpQueueDiscardInterval`, 0.25 s).
const MIN_DISCARD_INTERVAL: Duration = Duration::from_millis(250);

/// Per-stream settings given to [`Sender::add_stream`](super::Sender::add_stream),
/// which checks them and names the offending field in its [`ConfigError`].
#[derive(Clone, Debug, PartialEq)]
pub struct StreamConfig {
    /// RTP SSRC the stream's packets carry; unique among the sender's streams.
    pub ssrc: u32,
    /// Lowest target bitrate the encoder can produce. Range (0, 100 Gbit/s], at most
    /// `max_bitrate`.
    pub min_bitrate: Bitrate,
    /// Target bitrate before any feedback has arrived. Range (0, 100 Gbit/s]; a value
    /// outside `[min_bitrate, max_bitrate]` is brought into it.
    pub start_bitrate: Bitrate,
    /// Highest useful target bitrate. Range (0, 100 Gbit/s].
    pub max_bitrate: Bitrate,
    /// Relative share of the total target and of the transmission order (a stream of
    /// priority 2 gets twice the share of a stream of priority 1). Finite and > 0, of
    /// any scale, but within a factor 10^6 of the other streams' priorities.
    pub priority: f64,
}

/// One encoded media frame handed to
/// [`Sender::on_media_frame`](super::Sender::on_media_frame).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct MediaFrame {
    /// Encoded size in bytes (RTP payload of all its packets together).
    pub size_bytes: u32,
    /// Whether the frame is a key frame (informational, for stats and queue discard).
    pub key_frame: bool,
    /// The caller's name for the frame's bytes (a slot in its buffer pool, an index
    /// into its own queue, ...); the sender hands it back, untouched, in every
    /// [`SentPacket::handle`](super::SentPacket::handle) of the frame. 0 unless set.
    pub handle: u64,
}

impl MediaFrame {
    /// A frame of `size_bytes` that is not a key frame.
    pub fn new(size_bytes: u32) -> Self {
        Self {
            size_bytes,
            key_frame: false,
            handle: 0,
        }
    }

    /// The same frame, marked as a key frame or not.
    pub fn with_key_frame(self, key_frame: bool) -> Self {
        Self { key_frame, ..self }
    }

    /// The same frame, its bytes named by `handle`.
    pub fn with_handle(self, handle: u64) -> Self {
        Self { handle, ..self }
    }
}

/// One media stream.
#[derive(Debug)]
pub(crate) struct Stream {
    pub(crate) config: StreamConfig,
    pub(crate) queue: RtpQueue,
    pub(crate) sent: SentHistory,
    /// Current target (clamped to the stream's limits).
    pub(crate) target: Bitrate,
    /// Target last announced with an event.
    pub(crate) announced: Bitrate,
    /// This stream's share of the total rate before its own corrections.
    pub(crate) rate_share: Bitrate,
    /// Frames handed in so far.
    pub(crate) frames: u64,
    last_frame_at: Option<Instant>,
    /// Smoothed time between frames, seconds.
    pub(crate) frame_period: f64,
    pub(crate) queue_discards: u64,
    /// Frames the generation refused to queue (frame skipping).
    pub(crate) frames_skipped: u64,
    /// The frame whose RTP packets are coming in, until its last one
    /// (`Sender::on_rtp_packet`).
    pub(crate) open_frame: Option<super::packet_input::OpenFrame>,
    last_discard: Option<Instant>,
    /// Priority relative to the first stream's, in [1e-6, 1e6]: priorities of any
    /// scale split rates and service like their ratio without overflowing.
    pub(crate) weight: f64,
    /// Scheduler virtual time: bytes served divided by `weight`.
    pub(crate) vtime: f64,
}

impl Stream {
    /// A stream with `config` (which passed [`check_new`]); `weight` is its priority
    /// over the first stream's.
    pub(crate) fn new(config: StreamConfig, first_seq: u16, weight: f64) -> Self {
        let target = config
            .start_bitrate
            .clamp(config.min_bitrate, config.max_bitrate);
        Self {
            config,
            queue: RtpQueue::default(),
            sent: SentHistory::new(first_seq),
            target,
            announced: target,
            rate_share: target,
            frames: 0,
            last_frame_at: None,
            frame_period: INITIAL_FRAME_PERIOD,
            queue_discards: 0,
            frames_skipped: 0,
            open_frame: None,
            last_discard: None,
            weight,
            vtime: 0.0,
        }
    }

    /// Updates the frame statistics for a frame arriving at `now`, before it is queued.
    /// Returns the frame's index.
    pub(crate) fn on_frame(&mut self, now: Instant) -> u64 {
        if let Some(prev) = self.last_frame_at {
            let dt = now.saturating_duration_since(prev).as_secs_f64();
            if dt > 0.0 {
                self.frame_period =
                    FRAME_PERIOD_G * dt + (1.0 - FRAME_PERIOD_G) * self.frame_period;
            }
        }
        self.last_frame_at = Some(now);
        let idx = self.frames;
        self.frames += 1;
        idx
    }

    /// Discards the RTP queue if it is older than `max_delay`; returns the packets and
    /// bytes discarded if it did.
    pub(crate) fn check_discard(
        &mut self,
        now: Instant,
        max_delay: Duration,
    ) -> Option<(u64, u64)> {
        if self.queue.is_empty() || self.queue.delay(now) <= max_delay {
            return None;
        }
        let allowed = self
            .last_discard
            .is_none_or(|t| now.saturating_duration_since(t) >= MIN_DISCARD_INTERVAL);
        if !allowed {
            return None;
        }
        let bytes = self.queue.bytes();
        let packets = self.queue.clear();
        self.queue_discards += 1;
        self.last_discard = Some(now);
        Some((packets, bytes))
    }

    /// When the queue will be older than `max_delay`, if it holds anything.
    pub(crate) fn discard_deadline(&self, max_delay: Duration) -> Option<Instant> {
        let t = self.queue.oldest()? + max_delay + Duration::from_nanos(1);
        Some(match self.last_discard {
            Some(d) => t.max(d + MIN_DISCARD_INTERVAL),
            None => t,
        })
    }
}

/// Checks `config` for a stream joining `existing` ones: at most [`MAX_STREAMS`]
/// streams, a new SSRC, a finite positive priority within [`MAX_PRIORITY_RATIO`] of
/// the others', and bitrate limits in (0, 100 Gbit/s] with `min <= max`.
pub(crate) fn check_new(config: &StreamConfig, existing: &[Stream]) -> Result<(), ConfigError> {
    let bad = |field: &'static str, value: String, reason: String| ConfigError {
        field,
        value,
        reason,
    };
    if existing.len() >= MAX_STREAMS {
        return Err(bad(
            "streams",
            existing.len().to_string(),
            format!("at most {MAX_STREAMS} streams"),
        ));
    }
    if existing.iter().any(|s| s.config.ssrc == config.ssrc) {
        return Err(bad(
            "ssrc",
            config.ssrc.to_string(),
            "already used by another stream".to_owned(),
        ));
    }
    let p = config.priority;
    if !(p.is_finite() && p > 0.0) {
        return Err(bad(
            "priority",
            number(p),
            "must be finite and > 0".to_owned(),
        ));
    }
    let (lo, hi) = existing
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), s| {
            (lo.min(s.config.priority), hi.max(s.config.priority))
        });
    if !existing.is_empty() && (p > lo * MAX_PRIORITY_RATIO || p < hi / MAX_PRIORITY_RATIO) {
        return Err(bad(
            "priority",
            number(p),
            format!(
                "must be within a factor 10^6 of the other streams' priorities, here in [{}, {}]",
                number(hi / MAX_PRIORITY_RATIO),
                number(lo * MAX_PRIORITY_RATIO)
            ),
        ));
    }
    for (field, rate) in [
        ("min_bitrate", config.min_bitrate),
        ("start_bitrate", config.start_bitrate),
        ("max_bitrate", config.max_bitrate),
    ] {
        let bps = rate.bps();
        if !(bps > 0.0 && bps <= MAX_STREAM_BITRATE_BPS) {
            return Err(bad(
                field,
                format!("{} bit/s", number(bps)),
                "must be in (0, 100 Gbit/s] (a NaN or negative rate reads as 0)".to_owned(),
            ));
        }
    }
    if config.min_bitrate > config.max_bitrate {
        return Err(bad(
            "min_bitrate",
            config.min_bitrate.to_string(),
            format!("must not exceed max_bitrate ({})", config.max_bitrate),
        ));
    }
    Ok(())
}

/// `v` as text, in scientific notation when very large or small.
fn number(v: f64) -> String {
    if v == 0.0 || (1e-4..1e9).contains(&v.abs()) || !v.is_finite() {
        v.to_string()
    } else {
        format!("{v:e}")
    }
}
