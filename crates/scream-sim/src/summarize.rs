//! Turning a finished [`World`] into a [`Summary`].

use crate::flow::Flow;
use crate::metrics::{
    DelayHistogram, FrameTracker, Sample, StreamMetrics, distribution, rows_by_flow,
};
use crate::scenario::Scenario;
use crate::summary::{
    CountOf, FeedbackSummary, FlowSummary, FrameCounts, LinkSummary, Mean, StreamSummary, Summary,
    WindowSummary,
};
use crate::world::World;
use scream::Instant;
use scream_records::stats;

/// Mean of `values`, 0 when there is none (the summary's "no value").
fn mean(values: impl Iterator<Item = f64>) -> f64 {
    stats::mean(values).unwrap_or(0.0)
}

fn ratio(num: u64, den: u64) -> f64 {
    if den == 0 {
        0.0
    } else {
        num as f64 / den as f64
    }
}

fn frame_counts<'a>(trackers: impl Iterator<Item = &'a FrameTracker>) -> FrameCounts {
    let mut c = FrameCounts::default();
    for t in trackers {
        c.delivered += t.delivered;
        c.lost += t.lost;
        c.discarded += t.discarded;
        c.unfinished += t.in_flight();
    }
    c.loss_ratio = ratio(c.lost + c.discarded, c.delivered + c.lost + c.discarded);
    c
}

pub(crate) fn merged<'a>(hists: impl Iterator<Item = &'a DelayHistogram>) -> DelayHistogram {
    let mut out = DelayHistogram::new();
    for h in hists {
        out.merge(h);
    }
    out
}

fn per_second(bytes: u64, secs: f64) -> f64 {
    if secs > 0.0 {
        bytes as f64 * 8.0 / secs * 1e-6
    } else {
        0.0
    }
}

fn links(world: &mut World) -> Vec<LinkSummary> {
    let end = world.end;
    let duration = end.as_secs_f64();
    world
        .links()
        .map(|(name, direction, l)| {
            let cap_bytes = l.capacity_mut().deliverable_bytes(Instant::ZERO, end);
            let s = *l.stats();
            LinkSummary {
                name: name.to_owned(),
                direction,
                capacity_mean_mbps: if duration > 0.0 {
                    cap_bytes * 8.0 / duration * 1e-6
                } else {
                    0.0
                },
                utilization: if cap_bytes > 0.0 && cap_bytes.is_finite() {
                    s.bytes_out as f64 / cap_bytes
                } else {
                    0.0
                },
                packets_out: s.packets_out,
                packets_dropped: s.dropped_queue_full + s.dropped_aqm,
                packets_lost: s.lost_on_path,
                packets_ce_marked: s.ce_marked,
            }
        })
        .collect()
}

/// The summary of a finished run.
pub(crate) fn summarize(world: &mut World, scenario: &Scenario, seed: u64) -> Summary {
    let duration = world.end.as_secs_f64();
    let links = links(world);
    let world = &*world;
    let rows = rows_by_flow(&world.samples, world.flows.len());
    let flows = world
        .flows
        .iter()
        .zip(&rows)
        .enumerate()
        .map(|(i, (flow, rows))| {
            let view = FlowView {
                world,
                flow,
                rows,
                metrics: flow
                    .streams
                    .iter()
                    .map(|&g| &world.stream_metrics[g as usize])
                    .collect(),
                span: (flow.start.as_secs_f64(), flow.stop.as_secs_f64()),
            };
            view.summary(i, scenario.report_window_s, duration)
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

/// One flow of a finished run: its rows and its streams' metrics.
struct FlowView<'a> {
    world: &'a World,
    flow: &'a Flow,
    rows: &'a [&'a Sample],
    metrics: Vec<&'a StreamMetrics>,
    /// Start and stop, s.
    span: (f64, f64),
}

impl<'a> FlowView<'a> {
    /// The rows of the flow's active time, of stream `g` or of all its streams.
    fn active(&self, g: Option<u32>) -> impl Iterator<Item = &'a Sample> + use<'a> {
        let (start_s, stop_s) = self.span;
        self.rows.iter().copied().filter(move |s| {
            g.is_none_or(|g| s.stream_index == g) && s.t_s > start_s && s.t_s <= stop_s
        })
    }

    /// Flow-level columns repeat in every stream's row: the first stream's rows.
    fn flow_rows(&self) -> impl Iterator<Item = &'a Sample> + use<'a> {
        self.active(self.flow.streams.first().copied())
    }

    fn sum(&self, g: impl Fn(&StreamMetrics) -> u64) -> u64 {
        self.metrics.iter().map(|m| g(m)).sum::<u64>()
    }

    fn summary(&self, i: usize, report_window_s: Option<[f64; 2]>, duration: f64) -> FlowSummary {
        let f = self.flow;
        let secs = f.active_secs();
        let flow_dist = |g: fn(&Sample) -> Option<f64>| {
            let mut v: Vec<f64> = self.flow_rows().filter_map(g).collect();
            distribution(&mut v)
        };
        let flow_mean = |g: fn(&Sample) -> Option<f64>| Mean {
            mean: mean(self.flow_rows().filter_map(g)),
        };
        let mut rtp_all: Vec<f64> = self
            .active(None)
            .filter_map(|s| s.rtp_queue_delay_ms)
            .collect();
        let fb = self.world.feedback[i];
        FlowSummary {
            name: f.name.to_string(),
            algorithm: f.algorithm.name().to_owned(),
            throughput_mbps: per_second(self.sum(|m| m.delivered_bytes), secs),
            target_bitrate_mbps: Mean {
                mean: self.target_sum(),
            },
            queue_delay_ms: merged(self.metrics.iter().map(|m| &m.queue_delay))
                .distribution_ms(CountOf::Packets),
            estimated_queue_delay_ms: flow_dist(|s| s.est_queue_delay_ms),
            srtt_ms: flow_dist(|s| s.srtt_ms),
            rtp_queue_delay_ms: distribution(&mut rtp_all),
            frame_delay_ms: merged(self.metrics.iter().map(|m| &m.frames.delay))
                .distribution_ms(CountOf::Frames),
            frames: frame_counts(self.metrics.iter().map(|m| &m.frames)),
            loss_ratio: ratio(
                self.sum(StreamMetrics::loss_count),
                self.sum(|m| m.packets_sent),
            ),
            ce_ratio: ratio(self.sum(|m| m.packets_ce), self.sum(|m| m.packets_received)),
            ref_window_bytes: flow_mean(|s| s.ref_window_bytes),
            bytes_in_flight: flow_mean(|s| s.bytes_in_flight),
            packets_sent: self.sum(|m| m.packets_sent),
            packets_received: self.sum(|m| m.packets_received),
            packets_dropped: self.sum(|m| m.packets_dropped),
            packets_lost: self.sum(|m| m.packets_lost),
            packets_ce: self.sum(|m| m.packets_ce),
            feedback: FeedbackSummary {
                sent: fb.sent,
                delivered: fb.delivered,
                lost: fb.lost,
            },
            window: report_window_s.map(|w| self.window(w, duration)),
            streams: self.streams(),
        }
    }

    /// The figures of the scenario's report window `[a, b]`.
    fn window(&self, [a, b]: [f64; 2], duration: f64) -> WindowSummary {
        let span = (b.min(duration) - a).max(0.0);
        WindowSummary {
            from_s: a,
            to_s: b,
            throughput_mbps: per_second(self.sum(|m| m.window_delivered_bytes), span),
            queue_delay_ms: merged(self.metrics.iter().map(|m| &m.window_queue_delay))
                .distribution_ms(CountOf::Packets),
        }
    }

    /// Mean over sampling instants of the flow's streams' summed target bitrates.
    fn target_sum(&self) -> f64 {
        let per_time = self
            .active(None)
            .fold(Vec::<(f64, f64)>::new(), |mut acc, s| {
                match acc.last_mut() {
                    Some((t, sum)) if *t == s.t_s => *sum += s.target_mbps.unwrap_or(0.0),
                    _ => acc.push((s.t_s, s.target_mbps.unwrap_or(0.0))),
                }
                acc
            });
        mean(per_time.into_iter().map(|(_, v)| v))
    }

    fn streams(&self) -> Vec<StreamSummary> {
        let secs = self.flow.active_secs();
        self.flow
            .streams
            .iter()
            .zip(&self.metrics)
            .map(|(&g, m)| {
                let mut rtp: Vec<f64> = self
                    .active(Some(g))
                    .filter_map(|s| s.rtp_queue_delay_ms)
                    .collect();
                StreamSummary {
                    name: self.world.streams[g as usize].name.to_string(),
                    throughput_mbps: per_second(m.delivered_bytes, secs),
                    target_bitrate_mbps: Mean {
                        mean: mean(self.active(Some(g)).filter_map(|s| s.target_mbps)),
                    },
                    queue_delay_ms: m.queue_delay.distribution_ms(CountOf::Packets),
                    rtp_queue_delay_ms: distribution(&mut rtp),
                    frame_delay_ms: m.frames.delay.distribution_ms(CountOf::Frames),
                    frames: frame_counts(core::iter::once(&m.frames)),
                    loss_ratio: ratio(m.loss_count(), m.packets_sent),
                    ce_ratio: ratio(m.packets_ce, m.packets_received),
                    packets_sent: m.packets_sent,
                    packets_received: m.packets_received,
                }
            })
            .collect()
    }
}
