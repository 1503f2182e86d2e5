//! Baseline media congestion controllers for comparison with SCReAM: GCC
//! (draft-ietf-rmcat-gcc-02) and NADA (RFC 8698), both sans-I/O and both run at the
//! sender from RFC 8888 per-packet feedback.
//!
//! The sending endpoint (the simulator's rate-based sender) turns each feedback report into
//! per-packet [`PacketResult`]s — when the packet left, when it arrived on the
//! receiver's clock or that it was lost, its size and ECN mark — and hands them to the
//! [`RateController`], which answers with a target bitrate for the encoder and a rate
//! for the pacer. Call order: `on_feedback` for every report, then read `target`,
//! `pacing_rate` and `queue_delay`.

pub mod gcc;
pub mod nada;
mod params;
mod window;

pub use params::Tunable;
pub(crate) use window::ArrivalRate;

use scream::{Bitrate, Duration, Ecn, Instant, RemoteInstant};

/// What the feedback says of one sent packet.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PacketResult {
    /// When the sender released it (sender's clock).
    pub sent: Instant,
    /// Its fate.
    pub arrival: Arrival,
    /// Size on the wire, bytes.
    pub size_bytes: u32,
    /// The probe cluster it was sent in (GCC's probing), if any.
    pub probe: Option<u32>,
}

/// The fate of a packet as the feedback reports it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Arrival {
    /// Received at this time of the receiver's clock, with this ECN codepoint.
    At(RemoteInstant, Ecn),
    /// Received, but its arrival time did not fit the report (RFC 8888 §3.1, 0x1FFF).
    Untimed(Ecn),
    /// Not received, and later packets were: taken for lost.
    Lost,
}

impl PacketResult {
    /// Whether the packet arrived.
    pub fn received(&self) -> bool {
        !matches!(self.arrival, Arrival::Lost)
    }

    /// Whether it arrived marked CE.
    pub fn ce(&self) -> bool {
        matches!(
            self.arrival,
            Arrival::At(_, Ecn::Ce) | Arrival::Untimed(Ecn::Ce)
        )
    }

    /// The arrival time, when known.
    pub fn arrival_time(&self) -> Option<RemoteInstant> {
        match self.arrival {
            Arrival::At(t, _) => Some(t),
            _ => None,
        }
    }

    /// One-way delay in ns as the two unrelated clocks show it: only differences
    /// between such values mean anything (the clock offset cancels).
    pub fn apparent_delay_ns(&self) -> Option<i128> {
        self.arrival_time()
            .map(|a| i128::from(a.as_nanos()) - i128::from(self.sent.as_nanos()))
    }
}

/// The controller of a rate-based sender (an enum: no dynamic dispatch per report).
#[derive(Debug)]
pub enum RateController {
    /// Google Congestion Control, draft-ietf-rmcat-gcc-02.
    Gcc(Box<gcc::Gcc>),
    /// NADA, RFC 8698.
    Nada(Box<nada::Nada>),
}

/// What the sender tells the controller beside the feedback.
#[derive(Debug, Clone, Copy)]
pub struct SenderState {
    /// Smoothed round-trip time.
    pub srtt: Duration,
    /// Bytes waiting in the sender's RTP queue (NADA's rate-shaping buffer).
    pub queued_bytes: u64,
}

impl RateController {
    /// One feedback report's newly resolved packets, in sending order.
    pub fn on_feedback(&mut self, now: Instant, results: &[PacketResult], s: SenderState) {
        match self {
            Self::Gcc(c) => c.on_feedback(now, results, s),
            Self::Nada(c) => c.on_feedback(now, results, s),
        }
    }

    /// The sender's RTP queue changed size (NADA reshapes its rates on it).
    pub fn on_queue(&mut self, queued_bytes: u64) {
        match self {
            Self::Gcc(_) => {}
            Self::Nada(c) => c.on_queue(queued_bytes),
        }
    }

    /// Target bitrate of the encoder.
    pub fn target(&self) -> Bitrate {
        match self {
            Self::Gcc(c) => c.target(),
            Self::Nada(c) => c.encoder_rate(),
        }
    }

    /// Rate at which the pacer releases the RTP queue.
    pub fn pacing_rate(&self) -> Bitrate {
        match self {
            Self::Gcc(c) => c.pacing_rate(),
            Self::Nada(c) => c.sending_rate(),
        }
    }

    /// The controller's own estimate of the queueing delay on the path.
    pub fn queue_delay(&self) -> Duration {
        match self {
            Self::Gcc(c) => c.queue_delay(),
            Self::Nada(c) => c.queue_delay(),
        }
    }

    /// The probe cluster to send now, if the controller asks for one (libwebrtc GCC
    /// only); `sending` is the rate the sender's media left at lately, which tells
    /// whether it is application-limited.
    pub fn poll_probe(
        &mut self,
        now: Instant,
        sending: Option<Bitrate>,
    ) -> Option<gcc::ProbeCluster> {
        match self {
            Self::Gcc(c) => c.poll_probe(now, sending),
            Self::Nada(_) => None,
        }
    }

    /// The receive rate the controller measured from the feedback.
    pub fn received_rate(&self) -> Option<Bitrate> {
        match self {
            Self::Gcc(c) => c.received_rate(),
            Self::Nada(c) => c.received_rate(),
        }
    }
}

/// Milliseconds of a duration, as the drafts' formulas take them.
pub(crate) fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// A duration from (non-negative, finite) milliseconds; anything else is zero.
pub(crate) fn from_ms(v: f64) -> Duration {
    Duration::try_from_secs_f64(v.max(0.0) * 1e-3).unwrap_or(Duration::ZERO)
}
