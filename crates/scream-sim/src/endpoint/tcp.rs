//! TCP endpoints: the sender and receiver models of `scream_traffic::tcp` as nodes, their
//! segments and ACKs as packets on the flow's routes.

use crate::metrics::Sample;
use crate::packet::{Body, Packet};
use scream::{Ecn, Instant};
use scream_traffic::tcp::{HEADER_BYTES, TcpReceiver, TcpSender};

/// A TCP sender node.
#[derive(Debug)]
pub(crate) struct TcpSenderNode {
    sender: TcpSender,
    flow: u32,
    route: u32,
    start: Instant,
    stop: Instant,
}

impl TcpSenderNode {
    pub(crate) fn new(
        sender: TcpSender,
        flow: u32,
        route: u32,
        active: (Instant, Instant),
    ) -> Self {
        Self {
            sender,
            flow,
            route,
            start: active.0,
            stop: active.1,
        }
    }

    pub(crate) fn handle_packet(&mut self, now: Instant, packet: Packet) {
        if let Body::TcpAck(ack) = packet.body {
            self.sender.handle_ack(now, &ack);
        }
    }

    pub(crate) fn handle_timeout(&mut self, now: Instant) {
        self.sender.handle_timeout(now);
    }

    pub(crate) fn poll_transmit(&mut self, now: Instant) -> Option<Packet> {
        let (seg, ecn) = self.sender.poll_transmit(now)?;
        Some(Packet::new(
            seg.len + HEADER_BYTES,
            ecn,
            self.flow,
            self.route,
            now,
            Body::TcpData(seg),
        ))
    }

    pub(crate) fn poll_timeout(&self) -> Option<Instant> {
        self.sender.poll_timeout()
    }

    pub(crate) fn write_samples(&self, now: Instant, rows: &mut [Sample]) {
        if !(now > self.start && now <= self.stop) {
            return;
        }
        let s = &self.sender;
        for row in rows.iter_mut() {
            row.ref_window_bytes = Some(s.cwnd());
            row.bytes_in_flight = Some(s.bytes_in_flight() as f64);
            row.srtt_ms = s.srtt().map(|d| d.as_secs_f64() * 1e3);
        }
    }
}

/// A TCP receiver node; its ACKs take the flow's feedback route.
#[derive(Debug)]
pub(crate) struct TcpReceiverNode {
    receiver: TcpReceiver,
    flow: u32,
    route: u32,
    /// ECN codepoint of the ACKs.
    ecn: Ecn,
}

impl TcpReceiverNode {
    pub(crate) fn new(receiver: TcpReceiver, flow: u32, route: u32, ecn: Ecn) -> Self {
        Self {
            receiver,
            flow,
            route,
            ecn,
        }
    }

    pub(crate) fn handle_packet(&mut self, now: Instant, packet: Packet) {
        if let Body::TcpData(seg) = packet.body {
            self.receiver.on_data(now, &seg, packet.ecn == Ecn::Ce);
        }
    }

    pub(crate) fn poll_transmit(&mut self, now: Instant) -> Option<Packet> {
        let ack = self.receiver.poll_ack(now)?;
        Some(Packet::new(
            HEADER_BYTES,
            self.ecn,
            self.flow,
            self.route,
            now,
            Body::TcpAck(ack),
        ))
    }

    pub(crate) fn poll_timeout(&self) -> Option<Instant> {
        self.receiver.poll_timeout()
    }
}
