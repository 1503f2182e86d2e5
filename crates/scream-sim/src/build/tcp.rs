//! The two nodes of a `tcp-*` flow.

use scream::Instant;
use scream_netmodel::rng::RngStream;

use super::{ecn_of, ms};
use crate::endpoint::{Endpoint, TcpReceiverNode, TcpSenderNode};
use crate::scenario::{Algorithm, EcnSetting, FlowConfig, TcpTraffic};
use scream_traffic::tcp::{
    EcnUse, HEADER_BYTES, LawKind, OnOff, SenderConfig, TcpReceiver, TcpSender, Traffic,
};

/// Where a TCP flow's nodes sit and what they are called.
pub(super) struct Placement<'a> {
    pub(super) flow: u32,
    /// The route of the data, and the route of the ACKs.
    pub(super) routes: (u32, u32),
    /// Global index of the flow's one stream.
    pub(super) stream: u32,
    /// When the application writes.
    pub(super) active: (Instant, Instant),
    /// The flow's name, which names its random stream.
    pub(super) name: &'a str,
}

/// The sender and the receiver of `cfg`, a `tcp-*` flow.
pub(super) fn endpoints(cfg: &FlowConfig, at: &Placement<'_>, seed: u64) -> (Endpoint, Endpoint) {
    let t = cfg.tcp_config();
    let law = match cfg.algorithm {
        Algorithm::TcpCubic => LawKind::Cubic,
        Algorithm::TcpPrague => LawKind::Prague,
        _ => LawKind::NewReno,
    };
    let ecn = match (law, cfg.ecn) {
        (LawKind::Prague, _) => EcnUse::L4s,
        (_, EcnSetting::Classic) => EcnUse::Classic,
        _ => EcnUse::None,
    };
    let traffic = match t.traffic {
        TcpTraffic::Bulk => Traffic::Bulk,
        TcpTraffic::OnOff => {
            let source = OnOff::new(
                kb(t.object_min_kb),
                kb(t.object_max_kb),
                ms(t.idle_mean_s * 1e3),
                RngStream::new(seed, &format!("flow/{}/tcp-traffic", at.name)),
            );
            Traffic::OnOff(Box::new(if t.start_idle {
                source.starting_idle()
            } else {
                source
            }))
        }
    };
    let sender = TcpSender::new(SenderConfig {
        law,
        ecn,
        mss: t.mss_bytes,
        header_bytes: HEADER_BYTES,
        min_rto: ms(t.min_rto_ms),
        traffic,
        active: at.active,
        stream: at.stream,
    });
    let receiver = TcpReceiver::new(t.mss_bytes, t.delayed_ack);
    let (_, ack_ecn) = ecn_of(cfg.feedback_ecn);
    (
        Endpoint::TcpSender(Box::new(TcpSenderNode::new(
            sender,
            at.flow,
            at.routes.0,
            at.active,
        ))),
        Endpoint::TcpReceiver(Box::new(TcpReceiverNode::new(
            receiver,
            at.flow,
            at.routes.1,
            ack_ecn,
        ))),
    )
}

/// kB (1000 bytes) to bytes.
fn kb(v: f64) -> u64 {
    (v * 1e3).round().max(1.0) as u64
}
