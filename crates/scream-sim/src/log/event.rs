//! The event log: one row per congestion-control decision of a SCReAM sender, from
//! the library's opt-in channel (`Sender::poll_cc_event`).

use scream::sender::{BackOffCause, CongestionEvent, CongestionEventKind};
use serde::Serialize;

use super::Names;
use super::packet::secs;
use super::sink::Sink;

/// One line of events.jsonl (docs/logs.md lists every field).
#[derive(Serialize)]
struct Row<'a> {
    t_s: f64,
    flow: &'a str,
    stream: Option<&'a str>,
    #[serde(flatten)]
    what: What,
}

/// The event's own fields, after its name in `event`.
#[derive(Serialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
enum What {
    #[serde(rename = "backoff")]
    BackOff {
        cause: &'static str,
        window_before_bytes: u64,
        window_after_bytes: u64,
    },
    Stall {
        packets: u64,
        bytes: u64,
    },
    Target {
        previous_mbps: f64,
        target_mbps: f64,
    },
    RtpQueueDiscard {
        packets: u64,
        bytes: u64,
    },
    KeyFrameRequest,
}

fn cause_name(c: BackOffCause) -> &'static str {
    match c {
        BackOffCause::Loss => "loss",
        BackOffCause::Ce => "ce",
        BackOffCause::L4s => "l4s",
        BackOffCause::Delay => "delay",
        BackOffCause::Stall => "stall",
        // The library may learn new causes; the log still says something true.
        _ => "other",
    }
}

/// Writes the row of `event` of `flow`; `stream` is the global index of the stream of
/// the flow's sender that the event concerns, given as its index within the sender.
pub(crate) fn write(
    sink: &mut Sink,
    names: &Names,
    flow: u32,
    streams: &[u32],
    event: &CongestionEvent,
) {
    let stream_name = |i: usize| {
        streams
            .get(i)
            .and_then(|&g| names.streams.get(g as usize))
            .map(|s| &**s)
    };
    let (stream, what) = match event.kind {
        CongestionEventKind::BackOff {
            cause,
            window_before,
            window_after,
        } => (
            None,
            What::BackOff {
                cause: cause_name(cause),
                window_before_bytes: window_before,
                window_after_bytes: window_after,
            },
        ),
        CongestionEventKind::Stall { packets, bytes } => (None, What::Stall { packets, bytes }),
        CongestionEventKind::TargetBitrate {
            stream,
            previous,
            target,
        } => (
            stream_name(stream.index()),
            What::Target {
                previous_mbps: previous.mbps(),
                target_mbps: target.mbps(),
            },
        ),
        CongestionEventKind::RtpQueueDiscard {
            stream,
            packets,
            bytes,
        } => (
            stream_name(stream.index()),
            What::RtpQueueDiscard { packets, bytes },
        ),
        CongestionEventKind::KeyFrameRequest { stream } => {
            (stream_name(stream.index()), What::KeyFrameRequest)
        }
        // A kind this simulator does not know yet: nothing to write that would be true.
        _ => return,
    };
    let row = Row {
        t_s: secs(event.at),
        flow: names.flows.get(flow as usize).map_or("?", |f| &**f),
        stream,
        what,
    };
    sink.write(row.t_s, &row);
}
