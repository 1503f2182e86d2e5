//! Turning a finished [`World`] into a [`Summary`].

use crate::metrics::{distribution, distribution_ns_as_ms, mean};
use crate::scenario::Scenario;
use crate::summary::{FlowSummary, LinkSummary, Mean, Summary, WindowSummary};
use crate::world::World;
use scream::Instant;

fn ratio(num: u64, den: u64) -> f64 {
    if den == 0 {
        0.0
    } else {
        num as f64 / den as f64
    }
}

/// The summary of a finished run.
pub fn summarize(world: &mut World, scenario: &Scenario, seed: u64) -> Summary {
    let end = world.end;
    let duration = end.as_secs_f64();
    let links = world
        .links
        .iter_mut()
        .map(|l| {
            let cap_bytes = l.capacity.deliverable_bytes(Instant::ZERO, end);
            LinkSummary {
                name: l.name.clone(),
                capacity_mean_mbps: if duration > 0.0 {
                    cap_bytes * 8.0 / duration * 1e-6
                } else {
                    0.0
                },
                utilization: if cap_bytes > 0.0 {
                    l.bytes_serialized as f64 / cap_bytes
                } else {
                    0.0
                },
            }
        })
        .collect();
    let flows = world
        .flows
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let (start_s, stop_s) = (f.start.as_secs_f64(), f.stop.as_secs_f64());
            let active = || {
                world
                    .samples
                    .iter()
                    .filter(move |s| s.flow == i && s.t_s > start_s && s.t_s <= stop_s)
            };
            let dist = |g: fn(&crate::metrics::Sample) -> f64| {
                let mut v: Vec<f64> = active().map(g).collect();
                distribution(&mut v)
            };
            let m = &f.metrics;
            let secs = f.active_secs();
            let window = scenario.report_window_s.map(|[a, b]| {
                let span = (b.min(duration) - a).max(0.0);
                WindowSummary {
                    from_s: a,
                    to_s: b,
                    throughput_mbps: if span > 0.0 {
                        m.window_delivered_bytes as f64 * 8.0 / span * 1e-6
                    } else {
                        0.0
                    },
                    queue_delay_ms: distribution_ns_as_ms(&m.window_queue_delays_ns),
                }
            });
            FlowSummary {
                name: f.name.clone(),
                algorithm: f.algorithm.name().to_owned(),
                throughput_mbps: if secs > 0.0 {
                    m.delivered_bytes as f64 * 8.0 / secs * 1e-6
                } else {
                    0.0
                },
                target_bitrate_mbps: Mean {
                    mean: mean(active().map(|s| s.target_mbps)),
                },
                queue_delay_ms: distribution_ns_as_ms(&m.queue_delays_ns),
                estimated_queue_delay_ms: dist(|s| s.est_queue_delay_ms),
                srtt_ms: dist(|s| s.srtt_ms),
                rtp_queue_delay_ms: dist(|s| s.rtp_queue_delay_ms),
                frame_delay_ms: distribution_ns_as_ms(&m.frame_delays_ns),
                loss_ratio: ratio(m.loss_count(), m.packets_sent),
                ce_ratio: ratio(m.packets_ce, m.packets_received),
                ref_window_bytes: Mean {
                    mean: mean(active().map(|s| s.ref_window_bytes)),
                },
                bytes_in_flight: Mean {
                    mean: mean(active().map(|s| s.bytes_in_flight)),
                },
                packets_sent: m.packets_sent,
                packets_received: m.packets_received,
                packets_dropped: m.packets_dropped,
                packets_lost: m.packets_lost,
                packets_ce: m.packets_ce,
                window,
            }
        })
        .collect();
    Summary {
        scenario: scenario.name.clone(),
        seed,
        duration_s: duration,
        wall_time_s: 0.0,
        links,
        flows,
    }
}
