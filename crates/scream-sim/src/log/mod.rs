//! Per-packet and per-event logs, as JSON Lines (`docs/logs.md` documents every field).
//!
//! - The **packet log** has one row per media and feedback packet, written when its
//!   fate is known (delivered to the node at the end of its route, or dropped by a
//!   link with the cause), so every row is complete. Packets still under way when the
//!   run ends get an `in-flight` row at the end.
//! - The **event log** has one row per congestion-control decision of each SCReAM
//!   sender: back-offs with their cause, stalls, target changes, RTP-queue discards,
//!   key-frame requests.
//!
//! Both are off unless asked for, and logging only observes: a run's outputs are the
//! same with and without it. With both off the event pump pays one test of
//! `Option<Box<Logs>>` where a packet is released, enters or leaves a link, is dropped
//! or arrives. Each log stops at a size cap and then says so on its last line.

mod event;
mod packet;
mod sink;

use std::io::{self, Write};
use std::sync::Arc;

use scream::Instant;
use scream::sender::CongestionEvent;
use scream_netmodel::Dropped;

use crate::packet::Packet;
pub use sink::SinkReport;

use packet::PacketLog;
use sink::Sink;

/// Default size cap of each log: 100 MB.
pub const DEFAULT_LIMIT_BYTES: u64 = 100_000_000;

/// Congestion events a sender may hold between two drains. The world drains after
/// every input to the sender, which makes a handful at most; the bound is only there
/// so that memory stays fixed whatever happens.
pub(crate) const CC_EVENT_CAPACITY: usize = 1024;

/// Which logs to write, where, and their size cap.
pub struct LogOptions {
    /// Destination of the packet log (packets.jsonl), if wanted.
    pub packets: Option<Box<dyn Write + Send>>,
    /// Destination of the event log (events.jsonl), if wanted.
    pub events: Option<Box<dyn Write + Send>>,
    /// Size cap of each log, bytes.
    pub limit_bytes: u64,
}

impl Default for LogOptions {
    fn default() -> Self {
        Self {
            packets: None,
            events: None,
            limit_bytes: DEFAULT_LIMIT_BYTES,
        }
    }
}

impl std::fmt::Debug for LogOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LogOptions")
            .field("packets", &self.packets.is_some())
            .field("events", &self.events.is_some())
            .field("limit_bytes", &self.limit_bytes)
            .finish()
    }
}

/// What the logs of a run came to.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LogReport {
    /// The packet log, if it was on.
    pub packets: Option<SinkReport>,
    /// The event log, if it was on.
    pub events: Option<SinkReport>,
    /// Congestion events the senders dropped before the world could drain them
    /// (always 0 unless a sender makes more than a thousand at one input).
    pub cc_events_dropped: u64,
    /// Packets the packet log left out because 65 535 others were released at the
    /// same nanosecond (always 0 in practice).
    pub packets_untracked: u64,
}

/// The names rows carry, looked up by index.
#[derive(Debug, Default)]
pub(crate) struct Names {
    pub(crate) flows: Vec<Arc<str>>,
    pub(crate) streams: Vec<Arc<str>>,
    /// Link name and direction of each directed link.
    pub(crate) links: Vec<(Arc<str>, &'static str)>,
}

/// The logs of a running world.
#[derive(Debug)]
pub(crate) struct Logs {
    packets: Option<PacketLog>,
    events: Option<Sink>,
    names: Names,
}

impl Logs {
    pub(crate) fn new(options: LogOptions, names: Names) -> Self {
        let limit = options.limit_bytes;
        Self {
            packets: options.packets.map(|w| PacketLog::new(Sink::new(w, limit))),
            events: options.events.map(|w| Sink::new(w, limit)),
            names,
        }
    }

    pub(crate) fn events_on(&self) -> bool {
        self.events.is_some()
    }

    // The hooks below run only with a log on; kept out of line so that the event
    // pump's hot path stays as it is without logs.

    /// A node released `packet`.
    #[inline(never)]
    pub(crate) fn on_released(&mut self, packet: &mut Packet) {
        if let Some(p) = &mut self.packets {
            p.on_released(packet);
        }
    }

    /// `packet` reached the input of directed link `link` at `now`.
    #[inline(never)]
    pub(crate) fn on_enter(&mut self, packet: &Packet, link: u32, now: Instant) {
        if let Some(p) = &mut self.packets {
            p.on_enter(packet, link, now);
        }
    }

    /// `packet` left the serializer of the link it last entered, not lost.
    #[inline(never)]
    pub(crate) fn on_exit(&mut self, packet: &Packet) {
        if let Some(p) = &mut self.packets {
            p.on_exit(packet);
        }
    }

    /// `packet` reached the node at the end of its route at `now`.
    #[inline(never)]
    pub(crate) fn on_delivered(&mut self, now: Instant, packet: &Packet) {
        if let Some(p) = &mut self.packets {
            p.on_delivered(&self.names, now, packet);
        }
    }

    /// Directed link `link` dropped or lost a packet.
    #[inline(never)]
    pub(crate) fn on_dropped(&mut self, link: u32, d: &Dropped<Packet>) {
        if let Some(p) = &mut self.packets {
            p.on_dropped(&self.names, link, &d.packet, (d.cause, d.at));
        }
    }

    /// The sender of `flow`, whose streams are `streams` (global indices in the
    /// sender's order), made `event`.
    pub(crate) fn on_cc_event(&mut self, flow: u32, streams: &[u32], event: &CongestionEvent) {
        if let Some(sink) = &mut self.events {
            event::write(sink, &self.names, flow, streams, event);
        }
    }

    /// Closes both logs at the end of the run, `end`. An error names the log that
    /// failed.
    pub(crate) fn finish(
        self,
        end: Instant,
        cc_events_dropped: u64,
    ) -> Result<LogReport, (&'static str, io::Error)> {
        let names = &self.names;
        let (packets, packets_untracked) = match self.packets {
            Some(p) => {
                let (report, untracked) = p.finish(names, end).map_err(|e| ("packet log", e))?;
                (Some(report), untracked)
            }
            None => (None, 0),
        };
        let events = self
            .events
            .map(Sink::finish)
            .transpose()
            .map_err(|e| ("event log", e))?;
        Ok(LogReport {
            packets,
            events,
            cc_events_dropped,
            packets_untracked,
        })
    }
}
