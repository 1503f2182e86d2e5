//! Bandwidth probing as libwebrtc runs it (`modules/congestion_controller/goog_cc/
//! probe_controller.cc` and `probe_bitrate_estimator.cc`); the draft has none.
//!
//! The controller asks for probe clusters — short bursts sent at a rate above the
//! estimate — when the call starts (3x and 6x the start rate), again at twice a result
//! that came close to the rate probed (exponential probing), and every few seconds while
//! the sender is application-limited (ALR). The estimator measures each cluster's rate
//! from the feedback of its packets; a valid result lifts the delay-based estimate.

use std::collections::VecDeque;

use scream::{Bitrate, Duration, Instant, RemoteInstant};

use super::super::PacketResult;

/// `probe_controller.cc` `first_exponential_probe_scale`: the first initial probe is
/// at 3x the start bitrate.
pub(crate) const FIRST_PROBE_SCALE: f64 = 3.0;
/// `probe_controller.cc` `second_exponential_probe_scale`: the second at 6x.
pub(crate) const SECOND_PROBE_SCALE: f64 = 6.0;
/// `probe_controller.cc` `further_exponential_probe_scale`: a further probe at 2x
/// the estimate...
pub(crate) const FURTHER_PROBE_SCALE: f64 = 2.0;
/// ...when the estimate exceeds `further_probe_threshold` (0.7) of the rate probed
/// last: the link carried nearly all of it, so there may be more.
pub(crate) const FURTHER_PROBE_THRESHOLD: f64 = 0.7;
/// `probe_controller.cc` `kMaxWaitingTimeForProbingResult`: exponential probing ends
/// when no result asks for more within 1 s.
pub(crate) const MAX_WAIT_FOR_RESULT: Duration = Duration::from_secs(1);
/// `probe_controller.cc` `alr_probe_scale`: ALR probes are at 2x the estimate...
pub(crate) const ALR_PROBE_SCALE: f64 = 2.0;
/// ...every `alr_probing_interval` (5 s) while the sender stays application-limited.
pub(crate) const ALR_PROBE_INTERVAL: Duration = Duration::from_secs(5);
/// `alr_detector.cc` `bandwidth_usage_ratio` 0.65: the sender is application-limited
/// while it sends less than this share of its target.
pub(crate) const ALR_USAGE_RATIO: f64 = 0.65;
/// `bitrate_prober.cc` `kMinProbePacketsSent`: a cluster is at least 5 packets...
pub(crate) const MIN_PROBE_PACKETS: u32 = 5;
/// ...and `kMinProbeDurationMs` (15 ms) worth of bytes at its rate.
pub(crate) const MIN_PROBE_DURATION: Duration = Duration::from_millis(15);
/// `probe_bitrate_estimator.cc` `kMinReceivedProbesRatio` and `kMinReceivedBytesRatio`:
/// a result needs 80 % of the cluster's packets and bytes reported received.
pub(crate) const MIN_RECEIVED_RATIO: f64 = 0.8;
/// `probe_bitrate_estimator.cc` `kMaxValidRatio`: a receive rate above 2x the send rate
/// is a measurement artefact, not a result.
pub(crate) const MAX_VALID_RATIO: f64 = 2.0;
/// `probe_bitrate_estimator.cc` `kMinRatioForUnsaturatedLink`: a receive rate below 90 %
/// of the send rate means the probe saturated the link...
pub(crate) const MIN_RATIO_UNSATURATED: f64 = 0.9;
/// ...and then the result is `kTargetUtilizationFraction` (95 %) of the receive rate.
pub(crate) const TARGET_UTILIZATION: f64 = 0.95;
/// `probe_bitrate_estimator.cc` `kMaxProbeInterval`: a cluster spread over more than
/// 1 s at either end is no measurement of the link.
pub(crate) const MAX_PROBE_INTERVAL: Duration = Duration::from_secs(1);
/// `probe_bitrate_estimator.cc` `kMaxClusterHistory`: clusters older than 1 s are
/// forgotten.
pub(crate) const CLUSTER_HISTORY: Duration = Duration::from_secs(1);

/// One probe cluster the sender is asked to send: at least `min_packets` packets and
/// `min_bytes` bytes paced at `rate`, each tagged with `id`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProbeCluster {
    /// Tag of the cluster's packets in [`PacketResult::probe`].
    pub id: u32,
    /// Pacing rate of the cluster.
    pub rate: Bitrate,
    /// Fewest packets to send.
    pub min_packets: u32,
    /// Fewest bytes to send.
    pub min_bytes: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// The initial probes are not asked for yet.
    Init,
    /// Exponential probing: a result may ask for a further probe.
    Waiting,
    /// Done with exponential probing; only ALR probes from here on.
    Complete,
}

/// When to probe and at which rate.
#[derive(Debug, Clone)]
pub(crate) struct ProbeController {
    state: State,
    max: Bitrate,
    next_id: u32,
    pending: VecDeque<ProbeCluster>,
    last_probe_rate: Bitrate,
    last_probe_at: Option<Instant>,
    alr_since: Option<Instant>,
}

impl ProbeController {
    pub(crate) fn new(max: Bitrate) -> Self {
        Self {
            state: State::Init,
            max,
            next_id: 0,
            pending: VecDeque::new(),
            last_probe_rate: Bitrate::ZERO,
            last_probe_at: None,
            alr_since: None,
        }
    }

    fn ask(&mut self, now: Instant, rate: Bitrate) {
        let rate = rate.min(self.max);
        let min_bytes = (rate.bps() * MIN_PROBE_DURATION.as_secs_f64() / 8.0).ceil() as u64;
        self.pending.push_back(ProbeCluster {
            id: self.next_id,
            rate,
            min_packets: MIN_PROBE_PACKETS,
            min_bytes,
        });
        self.next_id = self.next_id.wrapping_add(1);
        self.last_probe_rate = rate;
        self.last_probe_at = Some(now);
    }

    /// The next cluster to send, if one is due. `estimate` is the current target and
    /// `alr` whether the sender is application-limited now.
    pub(crate) fn poll(
        &mut self,
        now: Instant,
        estimate: Bitrate,
        alr: bool,
    ) -> Option<ProbeCluster> {
        if self.state == State::Init {
            self.ask(now, estimate.scale(FIRST_PROBE_SCALE));
            if estimate.scale(SECOND_PROBE_SCALE) <= self.max {
                self.ask(now, estimate.scale(SECOND_PROBE_SCALE));
            }
            self.state = State::Waiting;
        }
        if self.state == State::Waiting
            && self
                .last_probe_at
                .is_some_and(|t| now.saturating_duration_since(t) > MAX_WAIT_FOR_RESULT)
        {
            self.state = State::Complete;
        }
        self.alr_since = if alr {
            self.alr_since.or(Some(now))
        } else {
            None
        };
        if self.state == State::Complete
            && self.pending.is_empty()
            && estimate < self.max
            && let Some(since) = self.alr_since
        {
            let from = self.last_probe_at.map_or(since, |t| t.max(since));
            if now.saturating_duration_since(from) >= ALR_PROBE_INTERVAL {
                self.ask(now, estimate.scale(ALR_PROBE_SCALE));
            }
        }
        self.pending.pop_front()
    }

    /// A new estimate after a probe result: probe further while the link carried
    /// nearly all of the last probe.
    pub(crate) fn on_estimate(&mut self, now: Instant, estimate: Bitrate) {
        if self.state != State::Waiting || !self.pending.is_empty() {
            return;
        }
        if self.last_probe_rate >= self.max {
            self.state = State::Complete;
            return;
        }
        if estimate > self.last_probe_rate.scale(FURTHER_PROBE_THRESHOLD) {
            self.ask(now, estimate.scale(FURTHER_PROBE_SCALE));
        }
    }
}

/// What the feedback showed of one cluster so far.
#[derive(Debug, Clone, Copy)]
struct Aggregate {
    id: u32,
    min_packets: u32,
    min_bytes: u64,
    created: Instant,
    first_send: Instant,
    last_send: Instant,
    last_send_size: u32,
    first_arrival: RemoteInstant,
    last_arrival: RemoteInstant,
    first_arrival_size: u32,
    packets: u32,
    bytes: u64,
}

/// Rates measured from probe clusters' feedback.
#[derive(Debug, Clone, Default)]
pub(crate) struct ProbeEstimator {
    clusters: Vec<Aggregate>,
    sent: Vec<(u32, u32, u64)>,
}

impl ProbeEstimator {
    /// The sender started cluster `c` (its minimums judge what the feedback shows).
    pub(crate) fn on_cluster(&mut self, c: &ProbeCluster) {
        self.sent.retain(|&(id, ..)| id != c.id);
        self.sent.push((c.id, c.min_packets, c.min_bytes));
        if self.sent.len() > 16 {
            self.sent.remove(0);
        }
    }

    /// One received packet of cluster `id`; the cluster's rate if it is now a valid
    /// result.
    pub(crate) fn on_packet(&mut self, now: Instant, id: u32, r: &PacketResult) -> Option<Bitrate> {
        let arrival = r.arrival_time()?;
        self.clusters
            .retain(|c| now.saturating_duration_since(c.created) <= CLUSTER_HISTORY);
        let &(_, min_packets, min_bytes) = self.sent.iter().find(|s| s.0 == id)?;
        let i = match self.clusters.iter().position(|c| c.id == id) {
            Some(i) => i,
            None => {
                self.clusters.push(Aggregate {
                    id,
                    min_packets,
                    min_bytes,
                    created: now,
                    first_send: r.sent,
                    last_send: r.sent,
                    last_send_size: r.size_bytes,
                    first_arrival: arrival,
                    last_arrival: arrival,
                    first_arrival_size: r.size_bytes,
                    packets: 0,
                    bytes: 0,
                });
                self.clusters.len() - 1
            }
        };
        let c = &mut self.clusters[i];
        if r.sent < c.first_send {
            c.first_send = r.sent;
        }
        if r.sent >= c.last_send {
            c.last_send = r.sent;
            c.last_send_size = r.size_bytes;
        }
        if arrival < c.first_arrival {
            c.first_arrival = arrival;
            c.first_arrival_size = r.size_bytes;
        }
        c.last_arrival = c.last_arrival.max(arrival);
        c.packets += 1;
        c.bytes += u64::from(r.size_bytes);
        rate_of(c)
    }
}

/// The cluster's measured rate once enough of it was reported (see the constants).
fn rate_of(c: &Aggregate) -> Option<Bitrate> {
    if f64::from(c.packets) < MIN_RECEIVED_RATIO * f64::from(c.min_packets)
        || (c.bytes as f64) < MIN_RECEIVED_RATIO * c.min_bytes as f64
    {
        return None;
    }
    let send = c.last_send.saturating_duration_since(c.first_send);
    let recv = c.last_arrival.saturating_duration_since(c.first_arrival);
    if send.is_zero() || recv.is_zero() || send > MAX_PROBE_INTERVAL || recv > MAX_PROBE_INTERVAL {
        return None;
    }
    // The last packet sent and the first received only mark the ends of the
    // intervals; the bytes between them are what crossed.
    let send_bits = 8.0 * c.bytes.saturating_sub(u64::from(c.last_send_size)) as f64;
    let recv_bits = 8.0 * c.bytes.saturating_sub(u64::from(c.first_arrival_size)) as f64;
    let send_rate = send_bits / send.as_secs_f64();
    let recv_rate = recv_bits / recv.as_secs_f64();
    if recv_rate > MAX_VALID_RATIO * send_rate {
        return None;
    }
    let rate = if recv_rate < MIN_RATIO_UNSATURATED * send_rate {
        TARGET_UTILIZATION * recv_rate
    } else {
        send_rate.min(recv_rate)
    };
    Some(Bitrate::from_bps(rate))
}
