//! Synthetic traffic for network-element tests (no congestion controller involved).
#![allow(dead_code, reason = "each test file uses a subset")]

use scream::{Bitrate, Duration, Ecn, Instant};
use scream_sim::link::{Capacity, Link, LinkAction, Started};
use scream_sim::packet::Packet;
use scream_sim::path::{ForwardPath, ReturnPath};
use scream_sim::queue::Queue;

/// A link with `queue`, constant `rate`, no propagation delay.
pub(crate) fn link(rate: Bitrate, queue: Queue, limit_time: Duration, limit_bytes: u64) -> Link {
    Link::new(
        "l".into(),
        Capacity::Constant(rate),
        queue,
        limit_time,
        limit_bytes,
        ForwardPath::new(
            Duration::ZERO,
            (Duration::ZERO, Duration::ZERO),
            true,
            0.0,
            1,
            "l",
        ),
        ReturnPath::new(Duration::ZERO, None),
        1,
        "l",
    )
}

/// What happened at a link fed by [`run_periodic`].
#[derive(Debug, Default)]
pub(crate) struct Trace {
    /// Packets taken by the serializer, with the instant.
    pub(crate) started: Vec<(Instant, Started)>,
    /// Packets dropped (tail or AQM), with the instant.
    pub(crate) dropped: Vec<(Instant, Packet)>,
    /// Queue bytes right after every arrival.
    pub(crate) backlog_after_arrival: Vec<u64>,
}

fn apply(action: LinkAction, tx: &mut Option<Instant>, wake: &mut Option<Instant>) {
    match action {
        LinkAction::TxDone(t) => *tx = Some(t),
        LinkAction::WakeAt(t) => *wake = Some(t),
        LinkAction::Nothing => {}
    }
}

/// Feeds `link` one packet of `size` bytes with `ecn` every `gap` until `until`.
pub(crate) fn run_periodic(
    link: &mut Link,
    gap: Duration,
    size: u32,
    ecn: Ecn,
    until: Instant,
) -> Trace {
    let mut trace = Trace::default();
    let mut next_arrival = Instant::ZERO;
    let mut tx: Option<Instant> = None;
    let mut wake: Option<Instant> = None;
    let mut seq = 0u16;
    let mut scratch = Vec::new();
    loop {
        let candidates = [(next_arrival < until).then_some(next_arrival), tx, wake];
        let Some(now) = candidates.iter().flatten().min().copied() else {
            break;
        };
        if tx == Some(now) {
            tx = None;
            link.complete(now);
        } else if wake == Some(now) {
            wake = None;
        } else {
            link.arrive(now, Packet::synthetic(0, seq, size, ecn, now), &mut scratch);
            trace.backlog_after_arrival.push(link.queue.bytes());
            seq = seq.wrapping_add(1);
            next_arrival = now + gap;
        }
        if tx.is_none() {
            let (action, started) = link.try_start(now, &mut scratch);
            apply(action, &mut tx, &mut wake);
            if let Some(s) = started {
                trace.started.push((now, s));
            }
        }
        trace.dropped.extend(scratch.drain(..).map(|p| (now, p)));
    }
    trace
}

/// Parses `--set`-style overrides.
pub(crate) fn overrides(list: &[&str]) -> Vec<scream_sim::scenario::load::Override> {
    list.iter()
        .map(|s| s.parse().expect("valid override"))
        .collect()
}

/// Absolute path of a link trace in the shared data folder beside the repository.
pub(crate) fn shared(file: &str) -> String {
    format!(
        "{}/../../../shared/data/links/{file}",
        env!("CARGO_MANIFEST_DIR")
    )
}
