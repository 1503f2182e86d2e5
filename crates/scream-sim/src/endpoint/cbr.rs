//! A paced constant-bitrate source and the sink that receives it.

use crate::metrics::Sample;
use crate::packet::{Body, Media, Packet};
use scream::{Bitrate, Duration, Ecn, Instant};

/// One constant-bitrate stream: packets of a fixed size, evenly spaced.
#[derive(Debug, Clone)]
pub(crate) struct CbrStream {
    global: u32,
    ssrc: u32,
    rate: Bitrate,
    packet_bytes: u32,
    first: Instant,
    /// Gap between packets, ns (fractional, so the rate does not drift).
    gap_ns: f64,
    sent: u64,
    seq: u16,
}

impl CbrStream {
    /// `packet_bytes`-byte packets at `rate` from `first`.
    pub(crate) fn new(
        global: u32,
        ssrc: u32,
        rate: Bitrate,
        packet_bytes: u32,
        first: Instant,
    ) -> Self {
        let gap_ns = f64::from(packet_bytes) * 8.0 * 1e9 / rate.bps();
        Self {
            global,
            ssrc,
            rate,
            packet_bytes,
            first,
            gap_ns,
            sent: 0,
            seq: 0,
        }
    }

    fn next(&self) -> Instant {
        let offset = (self.sent as f64 * self.gap_ns).round();
        self.first + Duration::from_nanos(offset.min(u64::MAX as f64) as u64)
    }
}

/// A paced constant-bitrate sender; it ignores the network.
#[derive(Debug, Clone)]
pub(crate) struct Cbr {
    streams: Vec<CbrStream>,
    flow: u32,
    route: u32,
    ecn: Ecn,
    start: Instant,
    stop: Instant,
}

impl Cbr {
    pub(crate) fn new(
        streams: Vec<CbrStream>,
        flow: u32,
        route: u32,
        ecn: Ecn,
        active: (Instant, Instant),
    ) -> Self {
        Self {
            streams,
            flow,
            route,
            ecn,
            start: active.0,
            stop: active.1,
        }
    }

    pub(crate) fn poll_transmit(&mut self, now: Instant) -> Option<Packet> {
        let stop = self.stop;
        let s = self
            .streams
            .iter_mut()
            .filter(|s| s.next() <= now && s.next() < stop)
            .min_by_key(|s| s.next())?;
        s.sent += 1;
        let seq = s.seq;
        s.seq = s.seq.wrapping_add(1);
        let media = Media {
            stream: s.global,
            ssrc: s.ssrc,
            seq,
            marker: false,
            frame: None,
            frame_enqueued_at: now,
        };
        let size = s.packet_bytes;
        Some(Packet::new(
            size,
            self.ecn,
            self.flow,
            self.route,
            now,
            Body::Media(media),
        ))
    }

    pub(crate) fn poll_timeout(&self) -> Option<Instant> {
        self.streams
            .iter()
            .map(CbrStream::next)
            .filter(|t| *t < self.stop)
            .min()
    }

    pub(crate) fn write_samples(&self, now: Instant, rows: &mut [Sample]) {
        if !(now > self.start && now <= self.stop) {
            return;
        }
        for (row, s) in rows.iter_mut().zip(&self.streams) {
            row.target_mbps = Some(s.rate.mbps());
        }
    }
}

/// Receives packets and answers nothing.
#[derive(Debug, Clone, Default)]
pub(crate) struct Sink;
