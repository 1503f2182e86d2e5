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

/// What a sender driven by [`run_frames`] sends into, and what comes back.
pub(crate) trait Path {
    /// Called at every wake-up before the sender is polled: feedback due by `now` goes
    /// to the sender here. Returns when the path next needs a wake-up, if ever.
    fn before_poll(
        &mut self,
        _now: Instant,
        _sender: &mut scream::sender::Sender,
    ) -> Option<Instant> {
        None
    }
    /// The sender released `packet` at `now`.
    fn sent(&mut self, now: Instant, sender: &scream::sender::Sender, packet: &SentPacket);
}

/// Runs a sender for `span` from 1 s, with 5 kB frames every 20 ms (2 Mbit/s) on one
/// stream (SSRC 1) of 0.1-10 Mbit/s, waking exactly when it or `path` asks to.
pub(crate) fn run_frames(cfg: scream::sender::SenderConfig, span: Duration, path: &mut impl Path) {
    use scream::sender::{Sender, StreamConfig, Transmit};
    const FRAME: Duration = Duration::from_millis(20);
    let mut s = Sender::new(cfg).unwrap();
    s.enable_cc_events(4096);
    let id = s
        .add_stream(StreamConfig {
            ssrc: 1,
            min_bitrate: Bitrate::from_kbps(100.0),
            start_bitrate: Bitrate::from_mbps(2.0),
            max_bitrate: Bitrate::from_mbps(10.0),
            priority: 1.0,
        })
        .unwrap();
    let t0 = Instant::from_millis(1000);
    let end = t0 + span;
    let (mut next_frame, mut now) = (t0, t0);
    while now < end {
        let path_at = path.before_poll(now, &mut s);
        if now >= next_frame {
            s.on_media_frame(now, id, MediaFrame::new(5000));
            next_frame += FRAME;
        }
        if s.poll_timeout().is_some_and(|t| t <= now) {
            s.handle_timeout(now);
        }
        let pace_at = loop {
            match s.poll_transmit(now) {
                Transmit::Now(p) => path.sent(now, &s, &p),
                Transmit::At(t) => break Some(t),
                Transmit::Idle => break None,
            }
        };
        while s.poll_event().is_some() {}
        now = [Some(next_frame), s.poll_timeout(), pace_at, path_at]
            .into_iter()
            .flatten()
            .filter(|t| *t > now)
            .min()
            .unwrap_or(end);
    }
}

/// [`run_frames`] into a path where every packet vanishes (no feedback ever);
/// `on_send` sees each transmission and the sender right after it.
pub(crate) fn run_silent(
    cfg: scream::sender::SenderConfig,
    span: Duration,
    on_send: impl FnMut(Instant, &scream::sender::Sender, &SentPacket),
) {
    struct Silent<F>(F);
    impl<F: FnMut(Instant, &scream::sender::Sender, &SentPacket)> Path for Silent<F> {
        fn sent(&mut self, now: Instant, sender: &scream::sender::Sender, packet: &SentPacket) {
            (self.0)(now, sender, packet);
        }
    }
    run_frames(cfg, span, &mut Silent(on_send));
}
