//! The directed links of a scenario: capacity (constant, stepped, trace, synthetic,
//! windowed), queue or AQM, and path effects, one per direction.

use std::sync::Arc;

use super::{ms, rate, secs};
use crate::error::SimError;
use crate::packet::Packet;
use crate::scenario::load::SYNTHETIC_TRACE_PREFIX;
use crate::scenario::{
    DEFAULT_CAPACITY_MBPS, DEFAULT_ONE_WAY_DELAY_MS, LinkConfig, QueueConfig, QueueKind, Scenario,
};
use scream::{Bitrate, Duration, Instant};
use scream_netmodel::queue::{
    Codel, DualPi2, DualPi2Params, EcnThreshold, Fifo, L4sCellular, L4sRamp, NetQueue,
    NetQueueParams,
};
use scream_netmodel::{
    Capacity, DirectedLink, Jitter, LossModel, NetPacket, PathEffects, ProbabilitySchedule, Queue,
    QueueLimit, RateSchedule, TableSpec, load_capacity_trace_with_time_unit, synthetic,
};
use scream_traffic::source::frame_trace::resolve_path;

/// A directed link with what the world keeps beside it.
#[derive(Debug)]
pub(crate) struct LinkNode {
    pub(crate) link: DirectedLink<Packet>,
    pub(crate) name: Arc<str>,
    pub(crate) direction: &'static str,
}

fn build_queue<P: NetPacket>(q: &QueueConfig) -> Queue<P> {
    match q.kind {
        QueueKind::TailDrop => Queue::TailDrop(Fifo::new()),
        QueueKind::Codel => Queue::Codel(Codel::from_keys(&q.codel)),
        QueueKind::EcnThreshold => Queue::EcnThreshold(EcnThreshold::from_keys(&q.ecn_threshold)),
        QueueKind::L4sRamp => Queue::L4sRamp(L4sRamp::from_keys(&q.l4s_ramp)),
        QueueKind::DualPi2 => Queue::DualPi2(DualPi2::new(DualPi2Params::from(&q.dualpi2))),
        QueueKind::L4sCellular => Queue::L4sCellular(L4sCellular::from_keys(&q.l4s_cellular)),
        // Built by `build_direction`, which replaces the serializer too.
        QueueKind::NetQueue => Queue::TailDrop(Fifo::new()),
    }
}

/// The generated capacity a `synthetic:<name>` trace names, drawn from the streams of
/// link direction `id`. It spans the run (up to the model's maximum, after which it
/// repeats), so no run ever sees it loop early.
fn synthetic_capacity(
    s: &Scenario,
    key: &str,
    name: &str,
    seed: u64,
    id: &str,
) -> Result<Capacity, SimError> {
    let model = synthetic::preset(name).ok_or_else(|| SimError::Param {
        key: format!("{key}.trace"),
        reason: format!(
            "unknown synthetic trace \"{name}\" (known: {})",
            synthetic::preset_names().join(", ")
        ),
    })?;
    let span = Duration::try_from_secs_f64(s.duration_s).unwrap_or(synthetic::MAX_SPAN);
    Ok(Capacity::Schedule(model.schedule(seed, id, span)))
}

fn build_capacity(
    s: &Scenario,
    key: &str,
    l: &LinkConfig,
    default_mbps: f64,
    (seed, id): (u64, &str),
) -> Result<Capacity, SimError> {
    let Some(trace) = &l.trace else {
        return stepped_capacity(key, l, default_mbps);
    };
    let traced = if let Some(name) = trace.strip_prefix(SYNTHETIC_TRACE_PREFIX) {
        synthetic_capacity(s, key, name, seed, id)?
    } else {
        let path = resolve_path(trace, s.base_dir.as_deref()).map_err(|e| SimError::Data {
            key: format!("{key}.trace"),
            source: e,
        })?;
        let spec = TableSpec {
            time_column: l.trace_time_column,
            rate_column: l.trace_rate_column,
            unit: l.trace_rate_unit,
            end: l.trace_end,
            row_ns: l.trace_row_ns(),
        };
        let (format, unit, packet) = (l.trace_format, l.trace_time_unit, l.mahimahi_packet_bytes);
        let capacity = load_capacity_trace_with_time_unit(&path, format, &spec, unit, packet)
            .map_err(|e| SimError::LinkTrace {
                key: format!("{key}.trace"),
                source: e,
            })?;
        if spec.row_ns.is_some() && matches!(capacity, Capacity::Mahimahi(_)) {
            return Err(SimError::Param {
                key: format!("{key}.trace_seconds_per_row"),
                reason: "needs a table trace (this file reads as mahimahi)".into(),
            });
        }
        capacity
    };
    match l.trace_window_s {
        Some(window) => windowed_trace(key, l, default_mbps, traced, window),
        None => Ok(traced),
    }
}

/// Most rows a trace spliced into a window may unroll to (a 1 Hz trace over a day is
/// 86 400).
const MAX_WINDOW_ROWS: usize = 10_000_000;

/// The stepped capacity with `traced` in place of it during `[from, until)`.
fn windowed_trace(
    key: &str,
    l: &LinkConfig,
    default_mbps: f64,
    traced: Capacity,
    [from, until]: [f64; 2],
) -> Result<Capacity, SimError> {
    let err = |reason: String| SimError::Param {
        key: format!("{key}.trace_window_s"),
        reason,
    };
    let Capacity::Schedule(mut trace) = traced else {
        return Err(err(
            "needs a table or synthetic trace (a mahimahi trace is a packet schedule)".into(),
        ));
    };
    let (from, until) = (secs(from).as_nanos(), secs(until).as_nanos());
    let inside = trace
        .unrolled(until - from, MAX_WINDOW_ROWS)
        .ok_or_else(|| {
            err(format!(
                "the trace changes more than {MAX_WINDOW_ROWS} times in the window"
            ))
        })?;
    let outside = step_rows(l, default_mbps);
    if outside.iter().any(|(_, r)| !r.bps().is_finite()) {
        return Err(err(
            "the capacity outside the window must be finite (capacity_mbps = inf)".into(),
        ));
    }
    let rate_at = |t: u64| {
        outside
            .iter()
            .take_while(|(start, _)| *start <= t)
            .last()
            .map_or(Bitrate::ZERO, |(_, r)| *r)
    };
    let mut rows: Vec<(u64, Bitrate)> =
        outside.iter().copied().filter(|(t, _)| *t < from).collect();
    rows.extend(inside.into_iter().map(|(t, r)| (from + t, r)));
    rows.push((until, rate_at(until)));
    rows.extend(outside.iter().copied().filter(|(t, _)| *t > until));
    RateSchedule::new(&rows, None)
        .map(Capacity::Schedule)
        .ok_or_else(|| err("no usable capacity".into()))
}

/// `capacity_mbps` then `capacity_steps`, as schedule rows (ns, rate).
fn step_rows(l: &LinkConfig, default_mbps: f64) -> Vec<(u64, Bitrate)> {
    let initial = l.capacity_mbps.unwrap_or(default_mbps);
    let mut rows = vec![(0u64, rate(initial))];
    rows.extend(
        l.capacity_steps
            .iter()
            .map(|[from, mbps]| (secs(*from).as_nanos(), rate(*mbps))),
    );
    rows
}

fn stepped_capacity(key: &str, l: &LinkConfig, default_mbps: f64) -> Result<Capacity, SimError> {
    let initial = l.capacity_mbps.unwrap_or(default_mbps);
    if l.capacity_steps.is_empty() {
        return Ok(if initial.is_infinite() {
            Capacity::Unlimited
        } else {
            Capacity::Constant(rate(initial))
        });
    }
    RateSchedule::new(&step_rows(l, default_mbps), None)
        .map(Capacity::Schedule)
        .ok_or_else(|| SimError::Param {
            key: format!("{key}.capacity_steps"),
            reason: "no usable step".into(),
        })
}

fn build_direction<P: NetPacket>(
    s: &Scenario,
    key: &str,
    l: &LinkConfig,
    default_capacity_mbps: f64,
    default_delay_ms: f64,
    seed: u64,
    id: &str,
) -> Result<DirectedLink<P>, SimError> {
    let jitter = Jitter {
        sigma: ms(l.jitter_ms),
        bound: ms(l.effective_jitter_max_ms()),
        keep_order: l.jitter_keep_order,
    };
    let steps: Vec<(Instant, f64)> = l.loss_steps.iter().map(|[t, p]| (secs(*t), *p)).collect();
    let loss = LossModel {
        probability: ProbabilitySchedule::new(l.loss, &steps),
        mean_burst_packets: l.loss_burst_packets,
    };
    let delay = ms(l.one_way_delay_ms.unwrap_or(default_delay_ms));
    let capacity = build_capacity(s, key, l, default_capacity_mbps, (seed, id))?;
    let limit = QueueLimit::from(&l.queue.limit);
    let effects = PathEffects::new(delay, jitter, loss, seed, id);
    if l.queue.kind == QueueKind::NetQueue {
        // The reference delays before its rate queue: the NetQueue reads the rate one
        // propagation delay ahead (see `scream_netmodel::queue::netqueue`). It releases
        // one packet per step of the scenario's loop clock.
        let steps = s.clock.step_grid().map_or(0, |g| g.hz());
        let params =
            NetQueueParams::from_keys(&l.queue.netqueue, delay, steps).ok_or_else(|| {
                SimError::Param {
                    key: format!("{key}.queue.netqueue_vintage"),
                    reason: "must be 2021 or 2023".into(),
                }
            })?;
        let nq = NetQueue::new(params);
        return Ok(DirectedLink::with_netqueue(
            capacity, nq, limit, effects, seed, id,
        ));
    }
    Ok(DirectedLink::new(
        capacity,
        build_queue(&l.queue),
        limit,
        effects,
        seed,
        id,
    ))
}

/// Both directions of link `i` of `s`, forward then reverse, for any packet type:
/// the simulator's packets or a real-time emulator's datagrams.
pub(crate) fn link_directions<P: NetPacket>(
    s: &Scenario,
    i: usize,
    seed: u64,
) -> Result<(DirectedLink<P>, DirectedLink<P>), SimError> {
    let links = s.link_configs();
    let Some(l) = links.get(i) else {
        return Err(SimError::Param {
            key: "links".into(),
            reason: format!("has no link {i}"),
        });
    };
    let key = s.link_key(i);
    // The forward direction keeps the random-stream names it always had, so adding
    // the reverse direction did not change any forward run.
    let id = format!("link/{}", s.link_name(i));
    let forward = build_direction(
        s,
        &key,
        l,
        DEFAULT_CAPACITY_MBPS,
        DEFAULT_ONE_WAY_DELAY_MS,
        seed,
        &id,
    )?;
    let r = l.reverse_config();
    let reverse = build_direction(
        s,
        &format!("{key}.reverse"),
        &r,
        f64::INFINITY,
        l.forward_delay_ms(),
        seed,
        &format!("{id}/reverse"),
    )?;
    Ok((forward, reverse))
}

/// Both directions of every link: link `i` is `2i` (forward) and `2i + 1` (reverse).
pub(crate) fn build_links(s: &Scenario, seed: u64) -> Result<Vec<LinkNode>, SimError> {
    let mut out = Vec::new();
    for i in 0..s.link_configs().len() {
        let name: Arc<str> = s.link_name(i).into();
        let (forward, reverse) = link_directions(s, i, seed)?;
        out.push(LinkNode {
            link: forward,
            name: name.clone(),
            direction: "forward",
        });
        out.push(LinkNode {
            link: reverse,
            name,
            direction: "reverse",
        });
    }
    Ok(out)
}
