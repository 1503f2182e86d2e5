//! Endpoints: the nodes at the ends of routes. Every kind shares one contract, in the
//! style of the library's `Sender`:
//!
//! ```text
//! inputs : handle_packet(now, packet, metrics)   a packet reached the node
//!          handle_timeout(now, metrics)          at (or after) poll_timeout()
//! outputs: poll_transmit(now) -> Option<Packet>  until None, after every input
//!          poll_timeout() -> Option<Instant>
//! samples: write_samples(now, rows)              the node's share of its flow's rows
//! ```
//!
//! `handle_timeout` may also come early (a wake-up the node no longer needs): a node
//! acts only on what is due. The world calls nothing else, so a new kind of traffic is
//! a new variant here and in
//! the scenario model, never a change to the event loop. `metrics` holds every
//! stream's counters; a node writes only what is true at it (a source's frame sizes).

mod cbr;
mod media;
mod rate_sender;
mod scream_receiver;
mod scream_sender;
mod tcp;

pub(crate) use cbr::{Cbr, CbrStream, Sink};
pub(crate) use media::{FrameClock, MediaStream};
pub(crate) use rate_sender::{Packetization, Placement, RateSender, RtpStream, StreamLimits};
pub(crate) use scream_receiver::ScreamReceiver;
pub(crate) use scream_sender::ScreamSender;
pub(crate) use tcp::{TcpReceiverNode, TcpSenderNode};

use crate::metrics::{Sample, StreamMetrics};
use crate::packet::Packet;
use scream::Instant;
use scream::sender::CongestionEvent;

/// A node of the simulated network (an enum: no dynamic dispatch per packet).
#[derive(Debug)]
pub(crate) enum Endpoint {
    /// A SCReAM sender with its streams' media sources.
    ScreamSender(Box<ScreamSender>),
    /// A SCReAM receiver that answers with RFC 8888 feedback.
    ScreamReceiver(Box<ScreamReceiver>),
    /// A rate-based media sender (GCC or NADA) answered by a SCReAM receiver.
    RateSender(Box<RateSender>),
    /// A paced constant-bitrate source.
    Cbr(Cbr),
    /// Receives and answers nothing.
    Sink(Sink),
    /// A TCP sender and its application's traffic.
    TcpSender(Box<TcpSenderNode>),
    /// A TCP receiver that answers with ACKs.
    TcpReceiver(Box<TcpReceiverNode>),
}

impl Endpoint {
    pub(crate) fn handle_packet(
        &mut self,
        now: Instant,
        packet: Packet,
        metrics: &mut [StreamMetrics],
    ) {
        match self {
            Self::ScreamSender(e) => e.handle_packet(now, packet),
            Self::ScreamReceiver(e) => e.handle_packet(now, packet),
            Self::TcpSender(e) => e.handle_packet(now, packet),
            Self::TcpReceiver(e) => e.handle_packet(now, packet),
            Self::RateSender(e) => e.handle_packet(now, packet),
            Self::Cbr(_) | Self::Sink(_) => {}
        }
        let _ = metrics;
    }

    pub(crate) fn handle_timeout(&mut self, now: Instant, metrics: &mut [StreamMetrics]) {
        match self {
            Self::ScreamSender(e) => e.handle_timeout(now, metrics),
            Self::TcpSender(e) => e.handle_timeout(now),
            Self::RateSender(e) => e.handle_timeout(now, metrics),
            // The receiver's only timer is the delayed ACK, which `poll_transmit` sends.
            Self::TcpReceiver(_) | Self::ScreamReceiver(_) | Self::Cbr(_) | Self::Sink(_) => {}
        }
    }

    pub(crate) fn poll_transmit(&mut self, now: Instant) -> Option<Packet> {
        match self {
            Self::ScreamSender(e) => e.poll_transmit(now),
            Self::ScreamReceiver(e) => e.poll_transmit(now),
            Self::RateSender(e) => e.poll_transmit(now),
            Self::Cbr(e) => e.poll_transmit(now),
            Self::TcpSender(e) => e.poll_transmit(now),
            Self::TcpReceiver(e) => e.poll_transmit(now),
            Self::Sink(_) => None,
        }
    }

    pub(crate) fn poll_timeout(&self) -> Option<Instant> {
        match self {
            Self::ScreamSender(e) => e.poll_timeout(),
            Self::ScreamReceiver(e) => e.poll_timeout(),
            Self::RateSender(e) => e.poll_timeout(),
            Self::Cbr(e) => e.poll_timeout(),
            Self::TcpSender(e) => e.poll_timeout(),
            Self::TcpReceiver(e) => e.poll_timeout(),
            Self::Sink(_) => None,
        }
    }

    /// Starts recording the congestion-control events of a SCReAM sender (`crate::log`).
    pub(crate) fn enable_cc_events(&mut self, capacity: usize) {
        if let Self::ScreamSender(e) = self {
            e.sender_mut().enable_cc_events(capacity);
        }
    }

    /// The next congestion-control event of a SCReAM sender, with its flow.
    pub(crate) fn poll_cc_event(&mut self) -> Option<(u32, CongestionEvent)> {
        match self {
            Self::ScreamSender(e) => e.poll_cc_event(),
            Self::ScreamReceiver(_)
            | Self::RateSender(_)
            | Self::Cbr(_)
            | Self::Sink(_)
            | Self::TcpSender(_)
            | Self::TcpReceiver(_) => None,
        }
    }

    /// Congestion-control events dropped because nobody drained them in time.
    pub(crate) fn cc_events_dropped(&self) -> u64 {
        match self {
            Self::ScreamSender(e) => e.cc_events_dropped(),
            Self::ScreamReceiver(_)
            | Self::RateSender(_)
            | Self::Cbr(_)
            | Self::Sink(_)
            | Self::TcpSender(_)
            | Self::TcpReceiver(_) => 0,
        }
    }

    /// Fills in what this node knows of its flow's rows (one per stream, in stream
    /// order); `now` is the sampling instant.
    pub(crate) fn write_samples(&self, now: Instant, rows: &mut [Sample]) {
        match self {
            Self::ScreamSender(e) => e.write_samples(now, rows),
            Self::RateSender(e) => e.write_samples(now, rows),
            Self::Cbr(e) => e.write_samples(now, rows),
            Self::TcpSender(e) => e.write_samples(now, rows),
            Self::ScreamReceiver(_) | Self::TcpReceiver(_) | Self::Sink(_) => {}
        }
    }
}
