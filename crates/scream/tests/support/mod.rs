//! Pieces the library's closed-loop tests share: the encoder's frame at its target, the
//! packet a receiver sees, and a FIFO bottleneck's serializer.
#![allow(dead_code, reason = "each test file uses a subset")]

use scream::receiver::ReceivedPacket;
use scream::sender::{MediaFrame, SentPacket};
use scream::{Bitrate, Duration, Instant};

/// A frame the size an encoder at `target` produces in one `interval`.
pub(crate) fn frame_at(target: Bitrate, interval: Duration) -> MediaFrame {
    let size = (target.bps() / 8.0 * interval.as_secs_f64()).round() as u32;
    MediaFrame::new(size)
}

/// What the receiver is told of a packet the sender released.
pub(crate) fn received(p: &SentPacket) -> ReceivedPacket {
    ReceivedPacket {
        ssrc: p.ssrc,
        seq: p.seq,
        size_bytes: p.size_bytes,
        ecn: p.ecn,
        marker: p.marker,
    }
}

/// A FIFO serializer: packets leave one after another at the rate of the moment.
#[derive(Debug, Default)]
pub(crate) struct Serializer {
    free_at: Instant,
}

impl Serializer {
    /// When a packet arriving at `now` would start serialising.
    pub(crate) fn start(&self, now: Instant) -> Instant {
        self.free_at.max(now)
    }

    /// Serialises `bytes` arriving at `now` at `rate_bps`; returns when its last bit
    /// leaves.
    pub(crate) fn send(&mut self, now: Instant, bytes: u32, rate_bps: f64) -> Instant {
        let tx = Duration::from_secs_f64(f64::from(bytes) * 8.0 / rate_bps);
        self.free_at = self.start(now) + tx;
        self.free_at
    }
}
