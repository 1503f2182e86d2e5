//! The packet log: the journey of every packet under way, and its row once its fate is
//! known.
//!
//! Journeys live in a table here, not in the packets: a packet is copied through the
//! event queue and the link queues, and 8 more bytes in it made the whole simulator
//! about 10 % slower, logs on or off. A packet carries only a 16-bit tag that, with
//! its release time, finds its journey. The time a packet left a link's serializer is
//! read off its accumulated time at links (`Packet::queue_delay`), which the link
//! updates as the last bit leaves.

use std::collections::BTreeMap;

use scream::{Duration, Ecn, Instant};
use scream_netmodel::DropCause;
use serde::Serialize;

use super::Names;
use super::sink::Sink;
use crate::packet::{Body, Packet};

/// One link a packet entered.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Hop {
    link: u32,
    /// When it reached the link's input.
    enqueued: Instant,
    /// When its last bit left the serializer; `None` while it has not.
    dequeued: Option<Instant>,
}

/// What the row needs of a packet, kept from its release to its fate.
#[derive(Debug)]
struct Journey {
    /// Position in the order the nodes released packets (0, 1, ...).
    id: u64,
    flow: u32,
    /// Global stream index, for media.
    stream: Option<u32>,
    seq: Option<u16>,
    frame: Option<u64>,
    size_bytes: u32,
    sent_at: Instant,
    ecn_sent: Ecn,
    /// The packet's accumulated time at links when it entered the current one.
    delay_at_entry: Duration,
    hops: Vec<Hop>,
}

/// How a packet's journey ended, or where it was when the run did.
#[derive(Debug, Clone, Copy)]
enum Fate {
    /// It reached the node at the end of its route, with this ECN codepoint.
    Delivered(Instant, Ecn),
    /// Directed link `link` dropped or lost it.
    Dropped {
        link: u32,
        cause: DropCause,
        at: Instant,
    },
    /// Still under way when the run ended.
    InFlight(Instant),
}

/// The packet log of a running world.
#[derive(Debug)]
pub(crate) struct PacketLog {
    sink: Sink,
    /// Packets under way, by release time and tag.
    journeys: BTreeMap<(Instant, u16), Journey>,
    next_id: u64,
    /// Packets left out because 65 535 others were released at the same instant.
    untracked: u64,
}

impl PacketLog {
    pub(crate) fn new(sink: Sink) -> Self {
        Self {
            sink,
            journeys: BTreeMap::new(),
            next_id: 0,
            untracked: 0,
        }
    }

    /// A node released `packet`: its journey starts, and the packet gets its tag.
    pub(crate) fn on_released(&mut self, packet: &mut Packet) {
        let id = self.next_id;
        self.next_id += 1;
        // Tags 1..=65535, the first free one from the id on: packets released at
        // the same instant get distinct tags (tag 0 means "not logged").
        let start = (id % 65_535) as u16;
        let free = (0..u16::MAX)
            .map(|k| (start.wrapping_add(k) % u16::MAX) + 1)
            .find(|&tag| !self.journeys.contains_key(&(packet.sent_at, tag)));
        let Some(tag) = free else {
            self.untracked += 1;
            return;
        };
        let (stream, seq, frame) = match &packet.body {
            Body::Media(m) => (Some(m.stream), Some(m.seq), m.frame),
            Body::TcpData(d) => (Some(d.stream), None, None),
            Body::Feedback(_) | Body::TcpAck(_) => (None, None, None),
        };
        packet.log_tag = tag;
        let journey = Journey {
            id,
            flow: packet.flow,
            stream,
            seq,
            frame,
            size_bytes: packet.size_bytes,
            sent_at: packet.sent_at,
            ecn_sent: packet.ecn,
            delay_at_entry: Duration::ZERO,
            hops: Vec::with_capacity(2),
        };
        self.journeys.insert((packet.sent_at, tag), journey);
    }

    fn journey(&mut self, packet: &Packet) -> Option<&mut Journey> {
        if packet.log_tag == 0 {
            return None;
        }
        self.journeys.get_mut(&(packet.sent_at, packet.log_tag))
    }

    /// `packet` reached the input of directed link `link` at `now`.
    pub(crate) fn on_enter(&mut self, packet: &Packet, link: u32, now: Instant) {
        if let Some(j) = self.journey(packet) {
            j.delay_at_entry = packet.queue_delay;
            j.hops.push(Hop {
                link,
                enqueued: now,
                dequeued: None,
            });
        }
    }

    /// `packet` left the serializer of the link it last entered.
    pub(crate) fn on_exit(&mut self, packet: &Packet) {
        if let Some(j) = self.journey(packet) {
            let at_link = packet.queue_delay.saturating_sub(j.delay_at_entry);
            if let Some(h) = j.hops.last_mut() {
                h.dequeued = Some(h.enqueued + at_link);
            }
        }
    }

    /// `packet` reached the node at the end of its route at `now`.
    pub(crate) fn on_delivered(&mut self, names: &Names, now: Instant, packet: &Packet) {
        self.close(names, packet, Fate::Delivered(now, packet.ecn));
    }

    /// Directed link `link` dropped `packet` at `at` for `cause`.
    pub(crate) fn on_dropped(
        &mut self,
        names: &Names,
        link: u32,
        packet: &Packet,
        (cause, at): (DropCause, Instant),
    ) {
        if cause == DropCause::PathLoss {
            // Lost after the serializer: it did leave the link.
            self.on_exit(packet);
        }
        self.close(names, packet, Fate::Dropped { link, cause, at });
    }

    fn close(&mut self, names: &Names, packet: &Packet, fate: Fate) {
        if packet.log_tag == 0 {
            return;
        }
        if let Some(j) = self.journeys.remove(&(packet.sent_at, packet.log_tag)) {
            write(&mut self.sink, names, &j, fate);
        }
    }

    /// Writes the packets still under way at `end` (by release time), then closes the
    /// file. Returns its report and the packets that could not be logged.
    pub(crate) fn finish(
        mut self,
        names: &Names,
        end: Instant,
    ) -> std::io::Result<(super::SinkReport, u64)> {
        for j in std::mem::take(&mut self.journeys).into_values() {
            write(&mut self.sink, names, &j, Fate::InFlight(end));
        }
        Ok((self.sink.finish()?, self.untracked))
    }
}

/// Seconds, exact to the nanosecond as printed (shortest round-trip form).
pub(crate) fn secs(t: Instant) -> f64 {
    t.as_nanos() as f64 / 1e9
}

fn ecn_name(e: Ecn) -> &'static str {
    match e {
        Ecn::NotEct => "not-ect",
        Ecn::Ect0 => "ect0",
        Ecn::Ect1 => "ect1",
        Ecn::Ce => "ce",
    }
}

fn cause_name(c: DropCause) -> &'static str {
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

fn write(sink: &mut Sink, names: &Names, j: &Journey, fate: Fate) {
    let link = |l: u32| {
        names
            .links
            .get(l as usize)
            .map_or(("?", "?"), |(n, d)| (&**n, *d))
    };
    let hops = j
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
        id: j.id,
        flow: names.flows.get(j.flow as usize).map_or("?", |f| &**f),
        stream: j
            .stream
            .and_then(|s| names.streams.get(s as usize))
            .map(|s| &**s),
        kind: if j.stream.is_some() {
            "media"
        } else {
            "feedback"
        },
        seq: j.seq,
        frame: j.frame,
        size_bytes: j.size_bytes,
        sent_s: secs(j.sent_at),
        ecn_sent: ecn_name(j.ecn_sent),
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
        Fate::Delivered(at, ecn) => {
            row.received_s = Some(secs(at));
            row.ecn_received = Some(ecn_name(ecn));
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
        Fate::InFlight(end) => {
            row.fate = "in-flight";
            end
        }
    };
    sink.write(secs(t), &row);
}
