//! The packet log: what a packet carries about its own journey while the log is on,
//! and the row written once its fate is known.
//!
//! The journey travels with the packet (boxed, so a packet without it grows by one
//! pointer) rather than in a table keyed by packet: the links hand packets back in
//! whatever order they leave, drop or lose them, and the packet is the one thing every
//! step has in hand.

use scream::{Duration, Ecn, Instant};
use scream_netmodel::DropCause;
use serde::Serialize;

use super::Names;
use crate::packet::{Body, Packet};

/// The journey of one packet so far.
#[derive(Debug, Clone, PartialEq)]
pub struct PacketTrace {
    /// Position of the packet in the order the nodes released packets (0, 1, ...),
    /// unique within a run.
    pub id: u64,
    /// ECN codepoint the sender set.
    pub ecn_sent: Ecn,
    /// The links it entered, in order.
    pub hops: Vec<Hop>,
}

/// One link a packet entered.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hop {
    /// Index of the directed link.
    pub link: u32,
    /// When it reached the link's input.
    pub enqueued: Instant,
    /// When its last bit left the link's serializer; `None` while it has not (queued,
    /// or dropped before).
    pub dequeued: Option<Instant>,
}

impl PacketTrace {
    /// The packet reached the input of directed link `link` at `now`.
    pub(crate) fn enter(&mut self, link: u32, now: Instant) {
        self.hops.push(Hop {
            link,
            enqueued: now,
            dequeued: None,
        });
    }

    /// Its last bit left the current link's serializer `time_at_link` after it entered.
    pub(crate) fn exit(&mut self, time_at_link: Duration) {
        if let Some(h) = self.hops.last_mut() {
            h.dequeued = Some(h.enqueued + time_at_link);
        }
    }
}

/// How a packet's journey ended.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Fate {
    /// It reached the node at the end of its route at this instant.
    Delivered(Instant),
    /// Directed link `link` dropped or lost it at this instant.
    Dropped {
        link: u32,
        cause: DropCause,
        at: Instant,
    },
}

/// Seconds, exact to the nanosecond as printed (shortest round-trip form).
pub(crate) fn secs(t: Instant) -> f64 {
    t.as_nanos() as f64 / 1e9
}

pub(crate) fn ecn_name(e: Ecn) -> &'static str {
    match e {
        Ecn::NotEct => "not-ect",
        Ecn::Ect0 => "ect0",
        Ecn::Ect1 => "ect1",
        Ecn::Ce => "ce",
    }
}

pub(crate) fn cause_name(c: DropCause) -> &'static str {
    match c {
        DropCause::QueueFull => "queue-full",
        DropCause::Aqm => "aqm",
        DropCause::PathLoss => "path-loss",
    }
}

/// One line of packets.jsonl (docs/logs.md lists every field).
#[derive(Serialize)]
struct Row<'a> {
    id: u64,
    flow: &'a str,
    stream: Option<&'a str>,
    kind: &'static str,
    seq: Option<u16>,
    frame: Option<u64>,
    size_bytes: u32,
    sent_s: f64,
    ecn_sent: &'static str,
    hops: Vec<HopRow<'a>>,
    fate: &'static str,
    received_s: Option<f64>,
    ecn_received: Option<&'static str>,
    drop_cause: Option<&'static str>,
    drop_link: Option<&'a str>,
    drop_direction: Option<&'static str>,
    drop_s: Option<f64>,
}

#[derive(Serialize)]
struct HopRow<'a> {
    link: &'a str,
    direction: &'static str,
    enqueue_s: f64,
    dequeue_s: Option<f64>,
}

/// Writes `packet`'s row to `sink` if it carries a journey.
pub(crate) fn write(sink: &mut super::sink::Sink, names: &Names, packet: &Packet, fate: Fate) {
    let Some(trace) = packet.trace.as_deref() else {
        return;
    };
    let link = |l: u32| {
        names
            .links
            .get(l as usize)
            .map_or(("?", "?"), |(n, d)| (&**n, *d))
    };
    let (kind, stream, seq, frame) = match &packet.body {
        Body::Media(m) => (
            "media",
            names.streams.get(m.stream as usize).map(|s| &**s),
            Some(m.seq),
            m.frame,
        ),
        Body::Feedback(_) => ("feedback", None, None, None),
    };
    let hops = trace
        .hops
        .iter()
        .map(|h| {
            let (name, direction) = link(h.link);
            HopRow {
                link: name,
                direction,
                enqueue_s: secs(h.enqueued),
                dequeue_s: h.dequeued.map(secs),
            }
        })
        .collect();
    let mut row = Row {
        id: trace.id,
        flow: names.flows.get(packet.flow as usize).map_or("?", |f| &**f),
        stream,
        kind,
        seq,
        frame,
        size_bytes: packet.size_bytes,
        sent_s: secs(packet.sent_at),
        ecn_sent: ecn_name(trace.ecn_sent),
        hops,
        fate: "delivered",
        received_s: None,
        ecn_received: None,
        drop_cause: None,
        drop_link: None,
        drop_direction: None,
        drop_s: None,
    };
    let t = match fate {
        Fate::Delivered(at) => {
            row.received_s = Some(secs(at));
            row.ecn_received = Some(ecn_name(packet.ecn));
            at
        }
        Fate::Dropped { link: l, cause, at } => {
            let (name, direction) = link(l);
            row.fate = "dropped";
            row.drop_cause = Some(cause_name(cause));
            row.drop_link = Some(name);
            row.drop_direction = Some(direction);
            row.drop_s = Some(secs(at));
            at
        }
    };
    sink.write(secs(t), &row);
}
