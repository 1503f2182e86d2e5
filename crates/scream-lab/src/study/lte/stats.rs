//! A cell's numbers from its run's summary: per video user the 98th percentile of its
//! frame delay and of its IP packet delay, then the 95th percentile of those over the
//! users ("packet 98 %ile, user 95 %ile" in the draft's tables), the users' mean
//! bitrate, their packet loss, and the FTP throughput actually reached.

use serde::{Deserialize, Serialize};

use scream_records::stats::percentile;
use scream_sim::Summary;

/// Percentile of a cell over its users.
pub const USER_PERCENTILE: f64 = 95.0;

/// One video user of a cell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserMetrics {
    /// Flow name.
    pub name: String,
    /// 98th percentile of its frame delay (RTP queue in, last packet received), ms.
    pub frame_delay_p98_ms: f64,
    /// 98th percentile of its packets' one-way delay (propagation plus time at the
    /// link), ms.
    pub packet_delay_p98_ms: f64,
    /// 98th percentile of its RTP queue delay over the run's samples (every
    /// `sample_interval_ms`), ms: the time media waited at the sender, the part of the
    /// frame delay the network does not see.
    #[serde(default)]
    pub sender_queue_p98_ms: f64,
    /// Bytes received per active second, Mbit/s.
    pub bitrate_mbps: f64,
    /// Packets dropped or lost / packets sent.
    pub loss_ratio: f64,
    /// Packets it sent.
    pub packets_sent: u64,
}

/// A cell: its users and what the table shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellMetrics {
    /// Per video user.
    pub users: Vec<UserMetrics>,
    /// [`USER_PERCENTILE`] over users of their frame delay p98, ms.
    pub frame_delay_ms: f64,
    /// [`USER_PERCENTILE`] over users of their packet delay p98, ms.
    pub packet_delay_ms: f64,
    /// [`USER_PERCENTILE`] over users of their sender queue p98, ms.
    #[serde(default)]
    pub sender_queue_ms: f64,
    /// Mean bitrate per user, Mbit/s.
    pub bitrate_mbps: f64,
    /// Video packets dropped or lost / video packets sent, all users together.
    pub loss_ratio: f64,
    /// Throughput of the FTP flows together over the whole run (their data segments
    /// with headers, retransmissions included), Mbit/s.
    pub ftp_mbps: f64,
    /// Mean capacity of the link over the run, Mbit/s.
    pub capacity_mbps: f64,
}

/// The cell's numbers from `summary`; `propagation_ms` is the one-way propagation delay
/// of the video path, added to the time at the link for the IP packet delay, and
/// `start_s` gives each flow's start by name: a flow's throughput is per active second,
/// the FTP total is per second of the run.
pub fn measure(
    summary: &Summary,
    propagation_ms: f64,
    start_s: &dyn Fn(&str) -> f64,
) -> CellMetrics {
    let is_tcp = |a: &str| a.starts_with("tcp-");
    let users: Vec<UserMetrics> = summary
        .flows
        .iter()
        .filter(|f| !is_tcp(&f.algorithm))
        .map(|f| UserMetrics {
            name: f.name.clone(),
            frame_delay_p98_ms: f.frame_delay_ms.p98,
            packet_delay_p98_ms: propagation_ms + f.queue_delay_ms.p98,
            sender_queue_p98_ms: f.rtp_queue_delay_ms.p98,
            bitrate_mbps: f.throughput_mbps,
            loss_ratio: f.loss_ratio,
            packets_sent: f.packets_sent,
        })
        .collect();
    let of = |g: fn(&UserMetrics) -> f64| {
        let v: Vec<f64> = users.iter().map(g).collect();
        percentile(&v, USER_PERCENTILE).unwrap_or(f64::NAN)
    };
    let sent: u64 = users.iter().map(|u| u.packets_sent).sum();
    let lost: f64 = users
        .iter()
        .map(|u| u.loss_ratio * u.packets_sent as f64)
        .sum();
    CellMetrics {
        frame_delay_ms: of(|u| u.frame_delay_p98_ms),
        packet_delay_ms: of(|u| u.packet_delay_p98_ms),
        sender_queue_ms: of(|u| u.sender_queue_p98_ms),
        bitrate_mbps: if users.is_empty() {
            f64::NAN
        } else {
            users.iter().map(|u| u.bitrate_mbps).sum::<f64>() / users.len() as f64
        },
        loss_ratio: if sent == 0 { 0.0 } else { lost / sent as f64 },
        ftp_mbps: summary
            .flows
            .iter()
            .filter(|f| is_tcp(&f.algorithm))
            .map(|f| {
                let active = (summary.duration_s - start_s(&f.name)).max(0.0);
                f.throughput_mbps * active / summary.duration_s.max(f64::MIN_POSITIVE)
            })
            // Not `sum()`: a float sum of nothing is -0.0, which a cell without FTP
            // would print as "-0.00".
            .fold(0.0, |total, mbps| total + mbps),
        capacity_mbps: summary
            .links
            .iter()
            .find(|l| l.direction == "forward")
            .map_or(f64::NAN, |l| l.capacity_mean_mbps),
        users,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentile() {
        let v: Vec<f64> = (1..=20).map(f64::from).collect();
        assert_eq!(percentile(&v, 95.0), Some(19.0));
        assert_eq!(percentile(&v, 50.0), Some(10.0));
        assert_eq!(percentile(&v, 100.0), Some(20.0));
        assert_eq!(percentile(&[7.0], 95.0), Some(7.0));
        assert_eq!(percentile(&[], 95.0), None);
        assert_eq!(percentile(&[f64::NAN, 3.0], 95.0), Some(3.0));
        // Up to 19 users the 95th percentile over users is the worst user.
        let users = [40.0, 300.0, 55.0, 61.0];
        assert_eq!(percentile(&users, 95.0), Some(300.0));
    }

    fn flow(
        name: &str,
        algorithm: &str,
        frame_p98: f64,
        queue_p98: f64,
        mbps: f64,
    ) -> scream_sim::summary::FlowSummary {
        let dist = |p98| scream_sim::summary::Distribution {
            p98,
            ..Default::default()
        };
        scream_sim::summary::FlowSummary {
            name: name.into(),
            algorithm: algorithm.into(),
            throughput_mbps: mbps,
            target_bitrate_mbps: Default::default(),
            queue_delay_ms: dist(queue_p98),
            estimated_queue_delay_ms: Default::default(),
            srtt_ms: Default::default(),
            rtp_queue_delay_ms: dist(frame_p98 / 2.0),
            frame_delay_ms: dist(frame_p98),
            frames: Default::default(),
            loss_ratio: 0.01,
            ce_ratio: 0.0,
            ref_window_bytes: Default::default(),
            bytes_in_flight: Default::default(),
            packets_sent: 1000,
            packets_received: 990,
            packets_dropped: 10,
            packets_lost: 0,
            packets_ce: 0,
            feedback: Default::default(),
            window: None,
            streams: Vec::new(),
        }
    }

    /// A 10 s run of `flows` without links.
    fn summary_of(flows: Vec<scream_sim::summary::FlowSummary>) -> Summary {
        Summary {
            scenario: "x".into(),
            seed: 1,
            duration_s: 10.0,
            wall_time_s: 0.0,
            links: Vec::new(),
            flows,
        }
    }

    #[test]
    fn user_95th_of_packet_98th_on_synthetic_users() {
        let mut flows: Vec<_> = (1..=20)
            .map(|i| {
                flow(
                    &format!("video{i}"),
                    "gcc",
                    10.0 * f64::from(i),
                    f64::from(i),
                    0.5,
                )
            })
            .collect();
        flows.push(flow("ftp1", "tcp-newreno", 9999.0, 9999.0, 3.0));
        flows.push(flow("ftp2", "tcp-newreno", 9999.0, 9999.0, 0.5));
        let summary = summary_of(flows);
        // ftp2 starts half way: it counts half.
        let start = |name: &str| if name == "ftp2" { 5.0 } else { 0.0 };
        let m = measure(&summary, 20.0, &start);
        assert_eq!(m.users.len(), 20);
        // 19th of 20 users: frame 190 ms, packet 20 + 19 ms; FTP left out.
        assert_eq!(m.frame_delay_ms, 190.0);
        assert_eq!(m.packet_delay_ms, 39.0);
        assert_eq!(m.sender_queue_ms, 95.0);
        assert!((m.bitrate_mbps - 0.5).abs() < 1e-12);
        assert!((m.loss_ratio - 0.01).abs() < 1e-12);
        assert!((m.ftp_mbps - 3.25).abs() < 1e-12);
        assert!(m.capacity_mbps.is_nan());
    }

    #[test]
    fn a_cell_without_ftp_has_a_positive_zero_ftp_rate() {
        let summary = summary_of(vec![flow("video1", "scream", 10.0, 1.0, 0.5)]);
        let m = measure(&summary, 20.0, &|_: &str| 0.0);
        assert_eq!(m.ftp_mbps, 0.0);
        assert!(m.ftp_mbps.is_sign_positive(), "prints as -0.00 otherwise");
    }
}
