//! `[flows.tcp]`: the TCP connection of a `tcp-*` flow.

use serde::{Deserialize, Serialize};

/// What the application above a TCP flow writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TcpTraffic {
    /// Always data to send between the flow's start and stop.
    #[default]
    Bulk,
    /// Objects of uniform size separated by exponential idle times (RFC 8867 §5.7).
    OnOff,
}

/// The TCP connection of a flow.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TcpFlowConfig {
    /// Traffic pattern. Default bulk.
    pub traffic: TcpTraffic,
    /// On-off: smallest object, kB (1000 bytes). Default 30.
    pub object_min_kb: f64,
    /// On-off: largest object, kB. Default 50.
    pub object_max_kb: f64,
    /// On-off: mean idle time between the end of an object and the next, s. Default 10.
    pub idle_mean_s: f64,
    /// On-off: the source is OFF when the flow starts, so its first object waits for
    /// an idle time (RFC 8867 §5.7: 2 of the 10 short flows start ON, 8 OFF). Default
    /// false.
    pub start_idle: bool,
    /// Payload bytes per full segment; each segment adds 52 bytes of IPv4 and TCP
    /// headers with the timestamp option. Default 1448 (1500-byte packets).
    pub mss_bytes: u32,
    /// Whether the receiver delays ACKs (every second segment or 40 ms). Default true.
    pub delayed_ack: bool,
    /// Lower bound of the retransmission timeout, ms. Default 200 (Linux's; RFC 6298
    /// asks for 1000).
    pub min_rto_ms: f64,
}

impl Default for TcpFlowConfig {
    fn default() -> Self {
        Self {
            traffic: TcpTraffic::Bulk,
            object_min_kb: 30.0,
            object_max_kb: 50.0,
            idle_mean_s: 10.0,
            start_idle: false,
            mss_bytes: 1448,
            delayed_ack: true,
            min_rto_ms: scream_traffic::tcp::LINUX_MIN_RTO.as_secs_f64() * 1e3,
        }
    }
}
