//! Packet groups and the inter-group delay variation (draft-ietf-rmcat-gcc-02 §5.1,
//! pre-filtering §5.2).

use scream::{Duration, Instant, RemoteInstant};

/// libwebrtc `inter_arrival_delta.cc` `kMaxBurstDuration`: a burst merged by arrival
/// (§5.2's second rule) spans at most this long, so a long train of packets that
/// arrive back-to-back after an outage still splits into groups.
pub(crate) const MAX_BURST_DURATION: Duration = Duration::from_millis(100);

/// One group of packets.
#[derive(Debug, Clone, Copy)]
struct Group {
    /// Departure of its first packet (the burst is measured from it).
    first_sent: Instant,
    /// Departure of its last packet, T(i) (§5.1).
    last_sent: Instant,
    /// Arrival of its first packet.
    first_arrival: RemoteInstant,
    /// Arrival of its last packet, t(i) (§5.1).
    last_arrival: RemoteInstant,
}

/// One completed pair of groups: the deltas between group i-1 and group i.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct GroupDelta {
    /// T(i) - T(i-1), ms.
    pub(crate) send_delta_ms: f64,
    /// t(i) - t(i-1), ms.
    pub(crate) arrival_delta_ms: f64,
    /// d(i) = t(i) - t(i-1) - (T(i) - T(i-1)), ms (§5.1).
    pub(crate) d_ms: f64,
    /// t(i), the arrival of group i.
    pub(crate) arrival: RemoteInstant,
}

/// Forms groups from received packets in sending order and yields a [`GroupDelta`]
/// whenever a group completes.
#[derive(Debug, Clone)]
pub(crate) struct Grouper {
    burst_time: Duration,
    current: Option<Group>,
    previous: Option<Group>,
}

fn signed_ms(later: u64, earlier: u64) -> f64 {
    (later as f64 - earlier as f64) * 1e-6
}

impl Grouper {
    pub(crate) fn new(burst_time: Duration) -> Self {
        Self {
            burst_time,
            current: None,
            previous: None,
        }
    }

    /// Whether a packet sent at `sent` that arrived at `arrival` joins `g`: sent within
    /// burst_time of the group's first packet, or (§5.2) arriving within burst_time of
    /// the group's last packet with a negative delay variation, as a burst released
    /// after an outage does.
    fn joins(&self, g: &Group, sent: Instant, arrival: RemoteInstant) -> bool {
        if sent.saturating_duration_since(g.first_sent) <= self.burst_time {
            return true;
        }
        let arrival_delta = signed_ms(arrival.as_nanos(), g.last_arrival.as_nanos());
        let send_delta = signed_ms(sent.as_nanos(), g.last_sent.as_nanos());
        let burst_span = arrival.saturating_duration_since(g.first_arrival);
        arrival_delta - send_delta < 0.0
            && arrival_delta <= self.burst_time.as_secs_f64() * 1e3
            && burst_span < MAX_BURST_DURATION
    }

    /// A received packet, in sending order. Packets sent before the current group
    /// began are out of order and ignored (§5.1).
    pub(crate) fn on_packet(
        &mut self,
        sent: Instant,
        arrival: RemoteInstant,
    ) -> Option<GroupDelta> {
        let Some(mut g) = self.current else {
            self.current = Some(Group {
                first_sent: sent,
                last_sent: sent,
                first_arrival: arrival,
                last_arrival: arrival,
            });
            return None;
        };
        if sent < g.first_sent {
            return None;
        }
        if self.joins(&g, sent, arrival) {
            g.last_sent = g.last_sent.max(sent);
            g.last_arrival = g.last_arrival.max(arrival);
            self.current = Some(g);
            return None;
        }
        let delta = self.previous.map(|p| {
            let send_delta_ms = signed_ms(g.last_sent.as_nanos(), p.last_sent.as_nanos());
            let arrival_delta_ms = signed_ms(g.last_arrival.as_nanos(), p.last_arrival.as_nanos());
            GroupDelta {
                send_delta_ms,
                arrival_delta_ms,
                d_ms: arrival_delta_ms - send_delta_ms,
                arrival: g.last_arrival,
            }
        });
        self.previous = Some(g);
        self.current = Some(Group {
            first_sent: sent,
            last_sent: sent,
            first_arrival: arrival,
            last_arrival: arrival,
        });
        delta
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ms: u64) -> Instant {
        Instant::from_micros(ms * 1000)
    }
    fn rat(us: u64) -> RemoteInstant {
        RemoteInstant::from_micros(us)
    }

    #[test]
    fn packets_sent_within_five_ms_form_one_group() {
        let mut g = Grouper::new(Duration::from_millis(5));
        // Three groups of three packets, 20 ms apart; each group arrives 2 ms later
        // than the one before.
        let mut deltas = Vec::new();
        for group in 0..3u64 {
            for p in 0..3u64 {
                let sent = at(group * 20 + p);
                let arrival = rat((group * 22 + p + 50) * 1000);
                deltas.extend(g.on_packet(sent, arrival));
            }
        }
        deltas.extend(g.on_packet(at(100), rat(200_000)));
        assert_eq!(deltas.len(), 2, "{deltas:?}");
        for d in &deltas {
            assert!((d.send_delta_ms - 20.0).abs() < 1e-9);
            assert!((d.d_ms - 2.0).abs() < 1e-9, "{d:?}");
        }
    }

    #[test]
    fn a_burst_arriving_after_an_outage_merges_into_one_group() {
        let mut g = Grouper::new(Duration::from_millis(5));
        // Sent 10 ms apart, all released together at 500 ms, 1 ms apart.
        let mut deltas = Vec::new();
        for p in 0..5u64 {
            deltas.extend(g.on_packet(at(p * 10), rat((500 + p) * 1000)));
        }
        assert!(deltas.is_empty(), "{deltas:?}");
    }
}
