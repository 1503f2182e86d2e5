//! The SCReAM receiver endpoint: the library's `Receiver`, its reports encoded as RFC
//! 8888 feedback packets sent back over the flow's feedback route.

use crate::compat;
use crate::packet::{Body, Packet};
use scream::receiver::{ReceivedPacket, Receiver};
use scream::{Ecn, Instant};

/// A SCReAM receiver.
#[derive(Debug)]
pub(crate) struct ScreamReceiver {
    receiver: Receiver,
    flow: u32,
    /// The route feedback takes back to the sender.
    route: u32,
    /// RTCP sender SSRC of the feedback.
    rtcp_ssrc: u32,
    /// RFC 8888 bytes (true) or the abstract report handed over as is.
    as_bytes: bool,
    /// ECN codepoint of the feedback packets.
    ecn: Ecn,
}

impl ScreamReceiver {
    pub(crate) fn new(
        receiver: Receiver,
        flow: u32,
        route: u32,
        rtcp_ssrc: u32,
        as_bytes: bool,
        ecn: Ecn,
    ) -> Self {
        Self {
            receiver,
            flow,
            route,
            rtcp_ssrc,
            as_bytes,
            ecn,
        }
    }

    pub(crate) fn handle_packet(&mut self, now: Instant, packet: Packet) {
        let Body::Media(m) = packet.body else {
            return;
        };
        self.receiver.on_packet(
            now,
            ReceivedPacket {
                ssrc: m.ssrc,
                seq: m.seq,
                size_bytes: packet.size_bytes,
                ecn: packet.ecn,
                marker: m.marker,
            },
        );
    }

    pub(crate) fn poll_transmit(&mut self, now: Instant) -> Option<Packet> {
        let fb = self.receiver.poll_feedback(now)?;
        let (msg, size_bytes) = compat::encode(fb, self.as_bytes, self.rtcp_ssrc);
        let body = Body::Feedback(msg);
        Some(Packet::new(
            size_bytes, self.ecn, self.flow, self.route, now, body,
        ))
    }

    pub(crate) fn poll_timeout(&self) -> Option<Instant> {
        self.receiver.poll_timeout()
    }
}
