//! `delay-convergence`: a queue signal is answered at most once per round trip of data.
//!
//! Faithfully (draft §"Network Congestion Control", and the reference implementation,
//! whose CE event needs `min(30 ms, sRTT)` since the previous loss or CE event), a
//! congestion event needs only `min(VIRTUAL_RTT, sRTT)` of *time* since the previous
//! one. That interval stands for a round trip, but it is measured on the clock, and
//! the sRTT it is capped by is an average that lags the path: after a sudden capacity
//! drop, the queue holds far more than a round trip's worth of packets sent at the old
//! rate, every report acknowledges packets that left before the last back-off, and
//! each one answers the same congestion again. On a classic ECN step of 5 ms at
//! 1-6 Mbit/s (one packet takes 2-10 ms to serialise, so every frame crosses the
//! step) the window was cut by `beta_ecn` every 25 ms down to its minimum and regrew
//! at well under a kilobyte per second. Behind a link that only trickles, the same
//! holds for queue delay: each report acknowledges a packet sent seconds earlier, and
//! on a near-dead stretch of 4.5 s the delay-based back-off took a delay-only flow's
//! window to its 3 kB minimum (faithful: 24 kB) and the restart starved it for 2 s.
//!
//! With this gate, a CE or queue-delay back-off needs the newest acknowledged packet
//! to have left after the previous back-off: only a packet sent with the reduced
//! window can tell whether the reduction was enough. This is RFC 3168 §6.1.2 ("should
//! react to congestion at most once per window of data"), TCP's recovery point
//! (RFC 6582 §3.2) and QUIC's recovery period (RFC 9002 §7.3.2), counted in data as
//! they do, not in time. Loss keeps the faithful timing (its back-off is the
//! strongest and a lost packet is reported lost once), and so do L4S marks: an L4S
//! sender reacts in proportion to the fraction of marked packets (RFC 9331 §4.3,
//! `l4s_alpha`), which the draft already scales per RTT.

use crate::sender::config::EcnMode;
use crate::sender::generation::contract::Measurements;
use crate::sender::improvements::Improvements;
use crate::time::Instant;

/// Whether a CE or queue-delay back-off may answer this report: always faithfully;
/// with `delay-convergence`, for delay-only and classic ECN flows, only if the newest
/// acknowledged packet left after the previous back-off at `last_congestion`.
pub(super) fn answered(
    improvements: &Improvements,
    ecn: EcnMode,
    m: &Measurements,
    last_congestion: Instant,
) -> bool {
    let gated = improvements.delay_convergence && ecn != EcnMode::L4s;
    !gated || m.newest_acked_sent_at.is_none_or(|t| t > last_congestion)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Duration;
    use crate::units::Bitrate;

    /// A report at 2 s whose newest acknowledged packet left at `sent_ms`.
    fn report(sent_ms: u64) -> Measurements {
        Measurements {
            now: Instant::from_millis(2000),
            srtt: Duration::from_millis(20),
            qdelay_avg: Duration::ZERO,
            queue_delay: Duration::ZERO,
            rtt_falling: false,
            rate_acked: Bitrate::ZERO,
            bytes_in_flight: 0,
            steadiness: 1.0,
            total_target: Bitrate::from_mbps(5.0),
            total_max: Bitrate::from_mbps(50.0),
            mss_bytes: 1200,
            newest_acked_sent_at: Some(Instant::from_millis(sent_ms)),
        }
    }

    #[test]
    fn a_back_off_waits_for_a_packet_sent_after_the_previous_one_except_for_l4s() {
        let last = Instant::from_millis(1500);
        let on = Improvements {
            delay_convergence: true,
            ..Improvements::default()
        };
        let off = Improvements::default();
        for ecn in [EcnMode::None, EcnMode::Classic, EcnMode::L4s] {
            assert!(answered(&off, ecn, &report(1400), last), "faithful {ecn:?}");
            assert!(answered(&on, ecn, &report(1600), last), "{ecn:?}");
        }
        assert!(!answered(&on, EcnMode::None, &report(1400), last));
        assert!(!answered(&on, EcnMode::Classic, &report(1500), last));
        assert!(answered(&on, EcnMode::L4s, &report(1400), last));
    }
}
