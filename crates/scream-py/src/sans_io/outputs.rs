//! What `Sender` hands back: the packets `poll_transmit` releases (`SentPacket`) and
//! the notifications `poll_event` gives (`Event`).

use pyo3::prelude::*;

use super::args::ECN_NAMES;

/// A packet the sender released: send it now, with these RTP header fields.
///
/// `size_bytes` is what the congestion controller accounts for: the RTP payload plus
/// the RTP header (12 bytes unless the sender's `rtp_overhead_bytes` says otherwise).
/// `ecn` is the codepoint to set in the IP header (0 Not-ECT, 1 ECT(1), 2 ECT(0)).
/// `frame_enqueued_ns` is when its frame entered the RTP queue, on the caller's clock.
#[pyclass(module = "scream._scream", frozen, eq, get_all)]
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SentPacket {
    /// The stream it belongs to (the id `add_stream` returned).
    pub(crate) stream: usize,
    /// RTP SSRC.
    pub(crate) ssrc: u32,
    /// RTP sequence number.
    pub(crate) seq: u16,
    /// Size on the wire the controller accounts for (payload + RTP header), bytes.
    pub(crate) size_bytes: u32,
    /// RTP marker bit: the last packet of its frame.
    pub(crate) marker: bool,
    /// ECN codepoint for the IP header (the two ECN bits of the TOS byte).
    pub(crate) ecn: u8,
    /// Index of its frame within the stream (0, 1, ...).
    pub(crate) frame_index: u64,
    /// When its frame entered the RTP queue, caller's clock, integer ns.
    pub(crate) frame_enqueued_ns: u64,
}

#[pymethods]
impl SentPacket {
    fn __repr__(&self) -> String {
        format!(
            "SentPacket(stream={}, ssrc={}, seq={}, size_bytes={}, marker={}, ecn={} ({}), \
             frame_index={}, frame_enqueued_ns={})",
            self.stream,
            self.ssrc,
            self.seq,
            self.size_bytes,
            if self.marker { "True" } else { "False" },
            self.ecn,
            ECN_NAMES[usize::from(self.ecn & 3)],
            self.frame_index,
            self.frame_enqueued_ns
        )
    }
}

/// A notification for the application, from `Sender.poll_event()`.
///
/// One class per kind, each a subclass of `Event`: `Event.TargetBitrate`,
/// `Event.KeyFrameRequest`, `Event.FrameSkipped`. Test with `isinstance` or `match`:
///
/// ```python
/// match event:
///     case Event.TargetBitrate(stream, bitrate_bps): encoder.set_bitrate(bitrate_bps)
///     case Event.KeyFrameRequest(stream): encoder.request_key_frame()
/// ```
#[pyclass(module = "scream._scream", frozen, eq)]
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Event {
    /// The encoder of `stream` should now produce `bitrate_bps` (bit/s).
    TargetBitrate { stream: usize, bitrate_bps: f64 },
    /// The RTP queue of `stream` grew too old and was discarded: the encoder should
    /// produce a key frame.
    KeyFrameRequest { stream: usize },
    /// A frame of `stream` was not queued because its RTP queue was too old (frame
    /// skipping, `scream-draft00` only); an encoder whose next frames predict from it
    /// should produce a key frame.
    FrameSkipped { stream: usize, frame_index: u64 },
}

impl Event {
    /// The library's event in Python's terms; `None` for a kind this binding does not
    /// know yet (the library may add kinds), which the caller skips.
    pub(crate) fn of(event: scream::sender::Event) -> Option<Self> {
        use scream::sender::Event as E;
        Some(match event {
            E::TargetBitrate { stream, bitrate } => Self::TargetBitrate {
                stream: stream.index(),
                bitrate_bps: bitrate.bps(),
            },
            E::KeyFrameRequest { stream } => Self::KeyFrameRequest {
                stream: stream.index(),
            },
            E::FrameSkipped {
                stream,
                frame_index,
            } => Self::FrameSkipped {
                stream: stream.index(),
                frame_index,
            },
            _ => return None,
        })
    }
}

#[pymethods]
impl Event {
    fn __repr__(&self) -> String {
        match self {
            Self::TargetBitrate {
                stream,
                bitrate_bps,
            } => format!("Event.TargetBitrate(stream={stream}, bitrate_bps={bitrate_bps:?})"),
            Self::KeyFrameRequest { stream } => format!("Event.KeyFrameRequest(stream={stream})"),
            Self::FrameSkipped {
                stream,
                frame_index,
            } => format!("Event.FrameSkipped(stream={stream}, frame_index={frame_index})"),
        }
    }
}
