//! A packet as it travels through the simulated network: what the links need (size,
//! ECN), where it is going (route and hop), and a body for the endpoint it reaches.

use crate::compat::FeedbackMsg;
use scream::{Duration, Ecn, Instant};
use scream_netmodel::NetPacket;

pub use scream_traffic::tcp::{TcpAck, TcpData};

/// RTP metadata of a media packet, and what the simulator needs to follow its frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Media {
    /// Global index of the stream (across all flows).
    pub stream: u32,
    /// RTP SSRC.
    pub ssrc: u32,
    /// RTP sequence number.
    pub seq: u16,
    /// RTP marker bit (last packet of a frame).
    pub marker: bool,
    /// Index of the frame within its stream; `None` for frameless traffic.
    pub frame: Option<u64>,
    /// When its frame entered the sender's RTP queue.
    pub frame_enqueued_at: Instant,
}

/// What a packet carries.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    /// An RTP media packet.
    Media(Media),
    /// An RTCP feedback packet for the flow's sender.
    Feedback(FeedbackMsg),
    /// A TCP data segment.
    TcpData(TcpData),
    /// A TCP acknowledgement for the flow's sender.
    TcpAck(TcpAck),
}

/// One packet in the simulated network.
#[derive(Debug, Clone, PartialEq)]
pub struct Packet {
    /// Size on the wire, bytes.
    pub size_bytes: u32,
    /// ECN codepoint; an AQM may change it to CE.
    pub ecn: Ecn,
    /// Index of the flow it belongs to.
    pub flow: u32,
    /// The route it follows.
    pub route: u32,
    /// Index on the route of the next link to enter; past the last link, the packet is
    /// at the route's destination node.
    pub hop: u8,
    /// When its sender released it.
    pub sent_at: Instant,
    /// Sum of its times at the links it has left so far.
    pub queue_delay: Duration,
    /// What it carries.
    pub body: Body,
    /// While the packet log is on, with `sent_at` the key of its journey in the log
    /// (`crate::log`); 0 when it is not logged. Two bytes that fit in what would
    /// otherwise be padding: a packet 8 bytes larger made the whole simulator 10 %
    /// slower (it is copied through the event queue and the link queues).
    pub(crate) log_tag: u16,
}

impl Packet {
    /// A packet of `flow` that a node releases at `now` onto `route`.
    pub fn new(size_bytes: u32, ecn: Ecn, flow: u32, route: u32, now: Instant, body: Body) -> Self {
        Self {
            size_bytes,
            ecn,
            flow,
            route,
            hop: 0,
            sent_at: now,
            queue_delay: Duration::ZERO,
            body,
            log_tag: 0,
        }
    }

    /// The media metadata, if it is a media packet.
    pub fn media(&self) -> Option<&Media> {
        match &self.body {
            Body::Media(m) => Some(m),
            Body::Feedback(_) | Body::TcpData(_) | Body::TcpAck(_) => None,
        }
    }

    /// The global stream a data packet (media or TCP data) is counted in; `None` for
    /// feedback (RTCP or TCP ACKs), which the flow's feedback counters take.
    pub fn stream(&self) -> Option<u32> {
        match &self.body {
            Body::Media(m) => Some(m.stream),
            Body::TcpData(d) => Some(d.stream),
            Body::Feedback(_) | Body::TcpAck(_) => None,
        }
    }
}

impl NetPacket for Packet {
    fn size_bytes(&self) -> u32 {
        self.size_bytes
    }
    fn ecn(&self) -> Ecn {
        self.ecn
    }
    fn set_ecn(&mut self, ecn: Ecn) {
        self.ecn = ecn;
    }
    fn on_link_exit(&mut self, time_at_link: Duration) {
        self.queue_delay += time_at_link;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The packet is copied through the event queue and every link queue: a larger
    /// one made the whole simulator slower (see `log_tag`). TCP segments must fit in
    /// what media packets already take.
    #[test]
    fn a_packet_stays_within_80_bytes() {
        assert!(
            core::mem::size_of::<Packet>() <= 80,
            "{}",
            core::mem::size_of::<Packet>()
        );
        // The body without the TCP variants, as it was before them.
        #[expect(dead_code, reason = "only its size matters")]
        enum MediaAndFeedback {
            Media(Media),
            Feedback(FeedbackMsg),
        }
        assert_eq!(
            core::mem::size_of::<Body>(),
            core::mem::size_of::<MediaAndFeedback>()
        );
    }
}
