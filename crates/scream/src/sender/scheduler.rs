//! Stream scheduler and rate split (draft §"Stream Prioritization" stream prioritization).
//!
//! Transmission: weighted fair queueing by virtual time. Each stream's virtual time
//! grows by `bytes / priority` when it sends; the backlogged stream with the smallest
//! virtual time goes next. This gives the same long-run byte shares as the reference's
//! credit scheduler (credit to waiting streams in proportion to priority) with O(streams)
//! work per packet and no tuning constant.
//!
//! Rates: the total target is split in proportion to priority, water-filling the share
//! of streams that hit their maximum into the others.
//!
//! Both work on each stream's `weight`, its priority relative to the first stream's
//! (within [1e-6, 1e6] by validation), so priorities of any scale (1e300 and 2e300)
//! behave like their ratio instead of overflowing.

use super::stream::Stream;
use crate::units::Bitrate;

/// The stream to serve next: backlogged, smallest virtual time; ties to the higher
/// priority, then the earlier stream.
pub(crate) fn pick(streams: &[Stream]) -> Option<usize> {
    let mut best: Option<usize> = None;
    for (i, s) in streams.iter().enumerate() {
        if s.queue.is_empty() {
            continue;
        }
        best = match best {
            None => Some(i),
            Some(b) => {
                let o = &streams[b];
                let better = s.vtime < o.vtime || (s.vtime == o.vtime && s.weight > o.weight);
                Some(if better { i } else { b })
            }
        };
    }
    best
}

/// Advances `stream`'s virtual time for `bytes` sent.
pub(crate) fn on_served(stream: &mut Stream, bytes: u32) {
    stream.vtime += f64::from(bytes) / stream.weight;
}

/// A stream that was idle must not claim the service it missed: bring its virtual time
/// up to the smallest one among the backlogged streams before it queues.
pub(crate) fn on_backlogged(streams: &mut [Stream], idx: usize) {
    let floor = streams
        .iter()
        .enumerate()
        .filter(|(i, s)| *i != idx && !s.queue.is_empty())
        .map(|(_, s)| s.vtime)
        .fold(f64::INFINITY, f64::min);
    if floor.is_finite() {
        let s = &mut streams[idx];
        s.vtime = s.vtime.max(floor);
    }
}

/// Splits `total` across streams by priority into each stream's `rate_share`; a stream
/// never gets more than its maximum, and what it cannot take goes to the others.
pub(crate) fn allocate(total: Bitrate, streams: &mut [Stream]) {
    let mut left = total.bps();
    let mut prio_sum = 0.0;
    for s in streams.iter_mut() {
        s.rate_share = Bitrate::ZERO;
        prio_sum += s.weight;
    }
    let mut saturated = 0u64; // bit set; streams are few (the index is capped below)
    let n = streams.len();
    // Each round saturates at least one stream or hands out everything.
    for _ in 0..=n {
        if left <= 1.0 || prio_sum <= 0.0 {
            break;
        }
        for (i, s) in streams.iter_mut().enumerate() {
            if !is_set(saturated, i) {
                s.rate_share = s.rate_share + Bitrate::from_bps(left * s.weight / prio_sum);
            }
        }
        left = 0.0;
        for (i, s) in streams.iter_mut().enumerate() {
            if !is_set(saturated, i) && s.rate_share > s.config.max_bitrate {
                left += s.rate_share.bps() - s.config.max_bitrate.bps();
                s.rate_share = s.config.max_bitrate;
                prio_sum -= s.weight;
                saturated = set(saturated, i);
            }
        }
    }
}

fn is_set(bits: u64, i: usize) -> bool {
    i < 64 && bits & (1 << i) != 0
}

fn set(bits: u64, i: usize) -> u64 {
    if i < 64 { bits | (1 << i) } else { bits }
}
