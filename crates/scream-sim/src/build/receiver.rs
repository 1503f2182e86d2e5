//! The receiving endpoint every media flow shares: the SCReAM receiver.

use super::{RTCP_SSRC_FLIP, ecn_of, ms};
use crate::endpoint::{Endpoint, ScreamReceiver};
use crate::error::SimError;
use crate::scenario::{FlowConfig, Scenario};
use scream::receiver::{Receiver, ReceiverConfig};

/// The SCReAM receiver of a flow, answering with RFC 8888 feedback over
/// `feedback_route` (every controller's receiver).
pub(super) fn scream_receiver(
    s: &Scenario,
    cfg: &FlowConfig,
    key: &str,
    flow: u32,
    feedback_route: u32,
    media_ssrc: u32,
) -> Result<Endpoint, SimError> {
    let receiver = Receiver::new(ReceiverConfig {
        packets_per_report: cfg.packets_per_report,
        max_report_interval: ms(cfg.max_report_interval_ms),
        report_window: cfg.report_window,
        ..ReceiverConfig::default()
    })
    .map_err(|e| SimError::Param {
        key: format!("{key}.packets_per_report"),
        reason: e.to_string(),
    })?;
    let (_, fb_ecn) = ecn_of(cfg.feedback_ecn);
    Ok(Endpoint::ScreamReceiver(Box::new(ScreamReceiver::new(
        receiver,
        flow,
        feedback_route,
        media_ssrc ^ RTCP_SSRC_FLIP,
        s.feedback_as_bytes,
        fb_ecn,
    ))))
}
