//! The streams of a rate-based sender: each with its source, its RTP queue and its send
//! history; how the flow's one target is split over them; and which queue the pacer
//! serves next.

use std::collections::VecDeque;

use super::Packetization;
use super::history::SendHistory;
use crate::endpoint::media::MediaStream;
use scream::{Bitrate, Duration, Instant};

/// One RTP packet waiting in a stream's queue.
#[derive(Debug, Clone, Copy)]
pub(super) struct Queued {
    pub(super) size_bytes: u32,
    pub(super) frame: u64,
    pub(super) marker: bool,
    pub(super) enqueued_at: Instant,
    /// Position in the flow-wide order of enqueueing (the pacer's order).
    order: u64,
}

/// What a stream may be given: its share weight and its bitrate range.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StreamLimits {
    /// Relative weight of the stream's share (> 0).
    pub(crate) priority: f64,
    /// Lowest target of its encoder.
    pub(crate) min: Bitrate,
    /// Highest target of its encoder.
    pub(crate) max: Bitrate,
}

/// One stream of a rate-based sender: its own SSRC, sequence numbers, RTP queue and
/// send history, so that RFC 8888 reports resolve per SSRC as a receiver sends them.
#[derive(Debug)]
pub(crate) struct RtpStream {
    pub(super) media: MediaStream,
    pub(super) ssrc: u32,
    pub(super) limits: StreamLimits,
    queue: VecDeque<Queued>,
    queued_bytes: u64,
    pub(super) history: SendHistory,
}

impl RtpStream {
    pub(crate) fn new(media: MediaStream, ssrc: u32, limits: StreamLimits) -> Self {
        Self {
            media,
            ssrc,
            limits,
            queue: VecDeque::new(),
            queued_bytes: 0,
            history: SendHistory::new(ssrc),
        }
    }

    pub(super) fn queued_bytes(&self) -> u64 {
        self.queued_bytes
    }

    pub(super) fn front(&self) -> Option<&Queued> {
        self.queue.front()
    }

    /// A frame of `bytes` enters the RTP queue as MSS-sized packets, the last with the
    /// marker bit; `order` numbers the packets across the flow's streams.
    pub(super) fn enqueue(
        &mut self,
        now: Instant,
        frame: u64,
        bytes: u32,
        sizes: Packetization,
        order: &mut u64,
    ) {
        let mss = sizes.mss_bytes;
        let packets = bytes.div_ceil(mss).max(1);
        let mut left = bytes;
        for i in 0..packets {
            let payload = left.min(mss);
            left -= payload;
            let size_bytes = payload + sizes.overhead_bytes;
            self.queue.push_back(Queued {
                size_bytes,
                frame,
                marker: i + 1 == packets,
                enqueued_at: now,
                order: *order,
            });
            *order += 1;
            self.queued_bytes += u64::from(size_bytes);
        }
    }

    pub(super) fn pop(&mut self) -> Option<Queued> {
        let q = self.queue.pop_front()?;
        self.queued_bytes -= u64::from(q.size_bytes);
        Some(q)
    }

    /// Discards the queue and asks the encoder for a key frame when its oldest packet
    /// waited longer than `limit` (stale media is worth less than a fresh start).
    pub(super) fn discard_stale(&mut self, now: Instant, limit: Duration) {
        if self
            .queue
            .front()
            .is_some_and(|q| now.saturating_duration_since(q.enqueued_at) > limit)
        {
            self.queue.clear();
            self.queued_bytes = 0;
            self.media.source.request_key_frame();
        }
    }

    /// How long the oldest queued packet has waited (zero when empty).
    pub(super) fn queue_delay(&self, now: Instant) -> Duration {
        self.queue.front().map_or(Duration::ZERO, |q| {
            now.saturating_duration_since(q.enqueued_at)
        })
    }
}

/// The stream whose packet the pacer sends next: the one enqueued first, flow-wide.
///
/// Earliest-enqueued first rather than a round robin weighted by priority: the
/// priorities already act where the rate is made, in the encoders' targets, so the
/// queues fill in that proportion and a FIFO across them drains them in it too. A
/// pacer weighting by priority on top would count the priority twice: whenever the
/// pacing rate falls behind, the lower-priority stream's packets would wait longer and
/// its queue would reach the stale-media limit first, although its encoder is already
/// held to its share. FIFO keeps every stream's queueing delay the same, and a
/// one-stream flow is served exactly as a single queue.
pub(super) fn next_stream(streams: &[RtpStream]) -> Option<usize> {
    streams
        .iter()
        .enumerate()
        .filter_map(|(i, s)| s.front().map(|q| (q.order, i)))
        .min()
        .map(|(_, i)| i)
}

/// Splits `total` over streams by priority, each within its own range, writing the
/// shares to `shares` (one per stream, in order): water-filling.
///
/// Every stream gets `priority × λ` clamped to `[min, max]`, with the one level λ at
/// which the shares add up to `total`; a stream held at its max leaves what it cannot
/// use to the others, one held at its min takes what it needs from them. Below the sum
/// of the minimums every stream gets its min (an encoder goes no lower), above the sum
/// of the maximums its max. One stream gets `total` within its range, unrounded.
pub(super) fn split(total: Bitrate, limits: &[StreamLimits], shares: &mut Vec<Bitrate>) {
    shares.clear();
    let sum_min: f64 = limits.iter().map(|l| l.min.bps()).sum();
    let sum_max: f64 = limits.iter().map(|l| l.max.bps()).sum();
    let total = total.bps();
    if total <= sum_min {
        shares.extend(limits.iter().map(|l| l.min));
        return;
    }
    if total >= sum_max {
        shares.extend(limits.iter().map(|l| l.max));
        return;
    }
    // `None`: still free to follow λ; `Some`: pinned at a bound. A stream pinned stays
    // pinned (below): at most one round per stream.
    let mut pinned: Vec<Option<f64>> = vec![None; limits.len()];
    let mut free_share = vec![0.0; limits.len()];
    loop {
        let remaining = total - pinned.iter().flatten().sum::<f64>();
        let weight: f64 = limits
            .iter()
            .zip(&pinned)
            .filter(|(_, p)| p.is_none())
            .map(|(l, _)| l.priority)
            .sum();
        if weight <= 0.0 {
            break;
        }
        let (mut above, mut below) = (0.0, 0.0);
        for ((l, p), s) in limits.iter().zip(&pinned).zip(&mut free_share) {
            if p.is_some() {
                continue;
            }
            // priority / weight first: 1 exactly for a lone free stream, so that it
            // gets `remaining` itself.
            *s = remaining * (l.priority / weight);
            above += (*s - l.max.bps()).max(0.0);
            below += (l.min.bps() - *s).max(0.0);
        }
        if above <= 0.0 && below <= 0.0 {
            break;
        }
        // Pinning every violator of the larger side is final: if the excess above the
        // maximums outweighs the shortfall below the minimums, clamping all leaves less
        // than `total` handed out, so λ can only rise and those above stay above (and
        // the mirror case). Pinning both sides at once could pin a stream the final λ
        // frees.
        let raise = above >= below;
        for ((l, p), s) in limits.iter().zip(&mut pinned).zip(&free_share) {
            if p.is_some() {
                continue;
            }
            if raise && *s > l.max.bps() {
                *p = Some(l.max.bps());
            } else if !raise && *s < l.min.bps() {
                *p = Some(l.min.bps());
            }
        }
    }
    shares.extend(
        pinned
            .iter()
            .zip(&free_share)
            .map(|(p, s)| Bitrate::from_bps(p.unwrap_or(*s))),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(spec: &[(f64, f64, f64)]) -> Vec<StreamLimits> {
        spec.iter()
            .map(|&(priority, min, max)| StreamLimits {
                priority,
                min: Bitrate::from_mbps(min),
                max: Bitrate::from_mbps(max),
            })
            .collect()
    }

    fn mbps(total: f64, l: &[StreamLimits]) -> Vec<f64> {
        let mut out = Vec::new();
        split(Bitrate::from_mbps(total), l, &mut out);
        out.iter().map(|b| (b.mbps() * 1e6).round() / 1e6).collect()
    }

    #[test]
    fn shares_follow_the_priorities_inside_the_ranges() {
        let l = limits(&[(1.0, 0.15, 1.5), (0.5, 0.15, 1.5)]);
        assert_eq!(mbps(0.9, &l), [0.6, 0.3]);
        assert_eq!(mbps(2.1, &l), [1.4, 0.7]);
    }

    #[test]
    fn a_stream_at_its_maximum_leaves_the_rest_to_the_others() {
        let l = limits(&[(1.0, 0.15, 1.5), (0.5, 0.15, 1.5)]);
        // 2:1 of 2.4 would be 1.6 and 0.8; the first stops at 1.5.
        assert_eq!(mbps(2.4, &l), [1.5, 0.9]);
        // Three streams, the heaviest capped low: the other two split the rest 1:1.
        let l = limits(&[(4.0, 0.1, 0.5), (1.0, 0.1, 5.0), (1.0, 0.1, 5.0)]);
        assert_eq!(mbps(3.5, &l), [0.5, 1.5, 1.5]);
    }

    #[test]
    fn a_stream_at_its_minimum_takes_its_floor_from_the_others() {
        let l = limits(&[(1.0, 0.1, 2.0), (0.1, 0.4, 2.0)]);
        // 10:1 of 1.1 would give the second 0.1, below its 0.4.
        assert_eq!(mbps(1.1, &l), [0.7, 0.4]);
    }

    #[test]
    fn outside_the_summed_range_every_stream_sits_at_its_bound() {
        let l = limits(&[(1.0, 0.15, 1.5), (0.5, 0.2, 1.0)]);
        assert_eq!(mbps(0.1, &l), [0.15, 0.2]);
        assert_eq!(mbps(9.0, &l), [1.5, 1.0]);
    }

    #[test]
    fn the_shares_add_up_to_the_total_and_one_stream_gets_it_unchanged() {
        let l = limits(&[(0.7, 0.1, 3.0), (0.3, 0.5, 0.9), (2.0, 0.2, 1.2)]);
        for total in [0.81, 1.0, 1.7, 2.5, 3.9, 5.0] {
            let mut out = Vec::new();
            split(Bitrate::from_mbps(total), &l, &mut out);
            let sum: f64 = out.iter().map(|b| b.mbps()).sum();
            assert!((sum - total).abs() < 1e-9, "{total}: {out:?}");
            for (s, l) in out.iter().zip(&l) {
                assert!(*s >= l.min && *s <= l.max, "{total}: {out:?}");
            }
        }
        let one = limits(&[(0.7, 0.15, 1.5)]);
        let mut out = Vec::new();
        let total = Bitrate::from_bps(1_234_567.891);
        split(total, &one, &mut out);
        assert_eq!(out, [total]);
    }
}
