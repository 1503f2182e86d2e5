//! Link capacity models and the serializer timing they imply.
//!
//! A rate model (constant, steps, time/rate table) drains bits at the rate of the
//! moment: the time to serialise a packet is found by integrating the rate across rate
//! changes, and a zero-rate period stalls the link. A mahimahi trace instead offers
//! delivery opportunities of a fixed number of bytes; a packet leaves at the opportunity
//! that carries its last byte, and bytes of an opportunity that the queue could not use
//! are lost (as in mahimahi's link emulator). An unlimited capacity serialises in no
//! time; a schedule may hold infinite segments too.
//!
//! Every model answers in bounded work for any input: a rate below [`MIN_RATE_BPS`]
//! counts as zero, a finish time beyond the last representable nanosecond is "never",
//! and a looping schedule skips whole periods arithmetically instead of walking them.

use scream::{Bitrate, Duration, Instant};

const NANOS_PER_SEC: f64 = 1e9;

/// Rates below this many bit/s count as zero (an outage). At 1 bit/s a 1500-byte
/// packet already takes over three hours; anything slower is a link that delivers
/// nothing within a run, and treating it as zero keeps `any_positive` meaning "can
/// deliver".
pub const MIN_RATE_BPS: f64 = 1.0;

/// Whether `bps` can move bits at all (see [`MIN_RATE_BPS`]; `inf` can).
fn usable(bps: f64) -> bool {
    bps >= MIN_RATE_BPS
}

/// Time to send `bytes` at `rate`: `None` at an unusable rate, saturated at
/// [`Duration::MAX`] when it does not fit (the library's `Bitrate::transmit_time`
/// panics there). The conversion is the library's own, so ordinary rates give the
/// same nanoseconds.
pub(crate) fn transmit_time(rate: Bitrate, bytes: u64) -> Option<Duration> {
    usable(rate.bps()).then(|| {
        Duration::try_from_secs_f64(bytes as f64 * 8.0 / rate.bps()).unwrap_or(Duration::MAX)
    })
}

/// What happens after the last row of a table trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TraceEnd {
    /// Start again from the first row.
    #[default]
    Loop,
    /// Keep the last rate forever.
    Hold,
}

/// A piecewise-constant rate: segment `i` starts at `starts[i]` (ns, `starts[0] == 0`).
#[derive(Debug, Clone)]
pub struct RateSchedule {
    starts: Vec<u64>,
    rates_bps: Vec<f64>,
    /// Loop period in ns (`None`: the last segment lasts forever).
    period: Option<u64>,
    /// Bits one loop period delivers (0 without a period).
    bits_per_period: f64,
    any_positive: bool,
    cursor: usize,
}

/// Whole periods beyond which [`RateSchedule`] integrates by multiplication rather
/// than segment by segment. Spans shorter than this are summed exactly as they always
/// were, so existing results keep every bit.
const WALK_PERIODS: u64 = 64;

impl RateSchedule {
    /// A schedule from `(start, rate)` rows sorted by start; the first start is taken as
    /// time zero. With `period`, the schedule repeats every `period` ns (which must be
    /// greater than the last start). Rates below [`MIN_RATE_BPS`] count as zero, and a
    /// schedule with no usable rate never delivers. Returns `None` for an empty list
    /// or rows out of order.
    pub fn new(rows: &[(u64, Bitrate)], period: Option<u64>) -> Option<Self> {
        let first = rows.first()?.0;
        if rows.windows(2).any(|w| w[1].0 < w[0].0) {
            return None;
        }
        let starts: Vec<u64> = rows.iter().map(|r| r.0 - first).collect();
        let rates_bps: Vec<f64> = rows
            .iter()
            .map(|r| if usable(r.1.bps()) { r.1.bps() } else { 0.0 })
            .collect();
        let last = *starts.last()?;
        let period = period.filter(|p| *p > last);
        let bits_per_period = period.map_or(0.0, |p| {
            (0..starts.len())
                .map(|i| {
                    let end = starts.get(i + 1).copied().unwrap_or(p);
                    // An empty segment adds nothing, even at an infinite rate.
                    match end - starts[i] {
                        0 => 0.0,
                        len => rates_bps[i] * len as f64 / NANOS_PER_SEC,
                    }
                })
                .sum()
        });
        // A positive rate counts only on a segment that lasts: rows sharing a start
        // leave all but the last of them empty.
        let any_positive = (0..starts.len()).any(|i| {
            let end = starts.get(i + 1).copied().or(period).unwrap_or(u64::MAX);
            rates_bps[i] > 0.0 && end > starts[i]
        });
        Some(Self {
            any_positive,
            starts,
            rates_bps,
            period,
            bits_per_period,
            cursor: 0,
        })
    }

    /// The schedule over `[0, span)` as `(start, rate)` rows with its loops unrolled,
    /// so that it can be spliced into another schedule. `None` when that would take
    /// more than `max_rows` rows.
    pub fn unrolled(&mut self, span: u64, max_rows: usize) -> Option<Vec<(u64, Bitrate)>> {
        let mut rows = Vec::new();
        let mut t = 0;
        while t < span {
            if rows.len() >= max_rows {
                return None;
            }
            let (i, _, end) = self.segment(t);
            rows.push((t, Bitrate::from_bps(self.rates_bps[i])));
            t = end;
        }
        Some(rows)
    }

    /// The segment holding `t`: (index, absolute start, absolute end or u64::MAX).
    fn segment(&mut self, t: u64) -> (usize, u64, u64) {
        let (base, local) = match self.period {
            Some(p) => ((t / p) * p, t % p),
            None => (0, t),
        };
        let n = self.starts.len();
        let period = self.period;
        let end_of = |i: usize, starts: &[u64]| -> u64 {
            if i + 1 < n {
                starts[i + 1]
            } else {
                period.unwrap_or(u64::MAX - base)
            }
        };
        let c = self.cursor;
        let idx = if self.starts[c] <= local && local < end_of(c, &self.starts) {
            c
        } else {
            self.starts
                .partition_point(|s| *s <= local)
                .saturating_sub(1)
        };
        self.cursor = idx;
        let end = end_of(idx, &self.starts);
        (idx, base + self.starts[idx], base.saturating_add(end))
    }

    fn rate_at(&mut self, t: u64) -> f64 {
        let (i, _, _) = self.segment(t);
        self.rates_bps[i]
    }

    /// When `bits` starting at `start` have left, or `None` if never (within the
    /// nanoseconds a `u64` holds).
    fn finish(&mut self, start: u64, bits: f64) -> Option<u64> {
        if !self.any_positive {
            return None;
        }
        let mut t = start;
        let mut bits = bits;
        // Each iteration consumes one segment. Without a period the last segment lasts
        // forever, so every segment is visited at most once. With a period, each
        // period delivers `bits_per_period` > 0; at a period boundary the periods that
        // cannot finish the packet are skipped by multiplication, leaving between one
        // and two periods' worth to walk.
        loop {
            let (i, _, end) = self.segment(t);
            let rate = self.rates_bps[i];
            if rate > 0.0 {
                let need_ns = (bits * NANOS_PER_SEC / rate).round();
                let room_ns = (end - t) as f64;
                if need_ns <= room_ns {
                    return Some(t + need_ns as u64);
                }
                bits -= rate * room_ns / NANOS_PER_SEC;
            }
            if end == u64::MAX {
                return None;
            }
            t = end;
            if let Some(p) = self.period {
                let whole = (bits / self.bits_per_period).floor() - 1.0;
                if t % p == 0 && whole >= 1.0 {
                    let skip_ns = whole * p as f64;
                    if skip_ns >= u64::MAX as f64 {
                        return None;
                    }
                    t = t.checked_add(skip_ns as u64)?;
                    bits -= whole * self.bits_per_period;
                }
            }
        }
    }

    fn first_positive_at_or_after(&mut self, t: u64) -> Option<u64> {
        if !self.any_positive {
            return None;
        }
        let mut t = t;
        loop {
            let (i, _, end) = self.segment(t);
            if self.rates_bps[i] > 0.0 {
                return Some(t);
            }
            if end == u64::MAX {
                return None;
            }
            t = end;
        }
    }

    fn bits_between(&mut self, from: u64, to: u64) -> f64 {
        let mut t = from;
        let mut bits = 0.0;
        while t < to {
            if let Some(p) = self.period {
                // Many whole periods ahead: count them at once.
                let periods = (to - t) / p;
                if t % p == 0 && periods > WALK_PERIODS {
                    bits += periods as f64 * self.bits_per_period;
                    t += periods * p;
                    continue;
                }
            }
            let (i, _, end) = self.segment(t);
            let stop = end.min(to);
            bits += self.rates_bps[i] * (stop - t) as f64 / NANOS_PER_SEC;
            t = stop;
        }
        bits
    }
}

/// A mahimahi trace: delivery opportunities at millisecond time stamps, repeating with
/// the period of the last time stamp.
#[derive(Debug, Clone)]
pub struct MahimahiTrace {
    times_ns: Vec<u64>,
    period_ns: u64,
    packet_bytes: u32,
    /// Absolute index (cycle * len + i) of the last opportunity used, if any, and its
    /// unused bytes.
    current: Option<u64>,
    leftover: u32,
}

/// Latest mahimahi time stamp accepted, ms (10^13 ms, about 317 years): its
/// nanoseconds, 10^19, still fit in a `u64` (whose limit is about 1.8 x 10^19).
pub const MAX_MAHIMAHI_MS: u64 = 10_000_000_000_000;

impl MahimahiTrace {
    /// A trace from its time stamps in ms (sorted ascending; the last must be > 0 and
    /// at most [`MAX_MAHIMAHI_MS`]) and the bytes one opportunity delivers.
    pub fn new(times_ms: &[u64], packet_bytes: u32) -> Option<Self> {
        let last = *times_ms.last()?;
        if last == 0
            || last > MAX_MAHIMAHI_MS
            || packet_bytes == 0
            || times_ms.windows(2).any(|w| w[1] < w[0])
        {
            return None;
        }
        Some(Self {
            times_ns: times_ms.iter().map(|t| t * 1_000_000).collect(),
            period_ns: last * 1_000_000,
            packet_bytes,
            current: None,
            leftover: 0,
        })
    }

    /// Time of opportunity `idx` (saturating: indices far beyond any run are "never").
    fn time_of(&self, idx: u64) -> u64 {
        let n = self.times_ns.len() as u64;
        (idx / n)
            .saturating_mul(self.period_ns)
            .saturating_add(self.times_ns[(idx % n) as usize])
    }

    /// Absolute index of the first opportunity at or after `t`.
    fn first_at_or_after(&self, t: u64) -> u64 {
        let n = self.times_ns.len() as u64;
        let cycle = t / self.period_ns;
        let local = t % self.period_ns;
        if local == 0 && cycle > 0 {
            // Opportunities stamped exactly at the period belong to the previous cycle
            // and fall on `t` itself.
            let i = self.times_ns.partition_point(|x| *x < self.period_ns) as u64;
            return (cycle - 1).saturating_mul(n).saturating_add(i);
        }
        let i = self.times_ns.partition_point(|x| *x < local) as u64;
        cycle.saturating_mul(n).saturating_add(i)
    }

    /// The opportunity a packet arriving at `t` starts with, and the bytes it offers:
    /// the rest of the last one used if that is not in the past, else the first unused
    /// one at or after `t` (an opportunity is never used twice).
    fn entry(&self, t: u64) -> (u64, u32) {
        match self.current {
            Some(c) if self.leftover > 0 && self.time_of(c) >= t => (c, self.leftover),
            Some(c) => (
                self.first_at_or_after(t).max(c.saturating_add(1)),
                self.packet_bytes,
            ),
            None => (self.first_at_or_after(t), self.packet_bytes),
        }
    }

    fn service_start(&self, t: u64) -> u64 {
        self.time_of(self.entry(t).0)
    }

    /// Packs `bytes` into opportunities from the entry at `start` on, in constant time
    /// whatever the packet and opportunity sizes.
    fn finish(&mut self, start: u64, bytes: u32) -> u64 {
        let (idx, avail) = self.entry(start);
        let (idx, leftover) = if bytes <= avail {
            (idx, avail - bytes)
        } else {
            let rest = u64::from(bytes - avail);
            let per = u64::from(self.packet_bytes);
            let more = rest.div_ceil(per);
            // `more * per - rest` < `per`, so it fits the u32 it came from.
            (idx.saturating_add(more), (more * per - rest) as u32)
        };
        self.current = Some(idx);
        self.leftover = leftover;
        self.time_of(idx)
    }

    fn bytes_between(&self, from: u64, to: u64) -> f64 {
        let count = self
            .first_at_or_after(to)
            .saturating_sub(self.first_at_or_after(from));
        count as f64 * f64::from(self.packet_bytes)
    }

    fn mean_rate_bps(&self) -> f64 {
        self.times_ns.len() as f64 * f64::from(self.packet_bytes) * 8.0 * NANOS_PER_SEC
            / self.period_ns as f64
    }
}

/// The capacity of one link direction.
#[derive(Debug, Clone)]
pub enum Capacity {
    /// No limit: a packet is serialised in no time and never queues.
    Unlimited,
    /// The same rate at all times.
    Constant(Bitrate),
    /// A piecewise-constant rate (steps or a time/rate table).
    Schedule(RateSchedule),
    /// Delivery opportunities from a mahimahi trace.
    Mahimahi(MahimahiTrace),
}

impl Capacity {
    /// The rate at `t`. For a mahimahi trace: the mean rate over the 100 ms before `t`.
    pub fn rate_at(&mut self, t: Instant) -> Bitrate {
        let t = t.as_nanos();
        match self {
            Self::Unlimited => Bitrate::from_bps(f64::INFINITY),
            Self::Constant(r) => *r,
            Self::Schedule(s) => Bitrate::from_bps(s.rate_at(t)),
            Self::Mahimahi(m) => {
                const WINDOW_NS: u64 = 100_000_000;
                let from = t.saturating_sub(WINDOW_NS);
                let span = (t - from).max(1) as f64 / NANOS_PER_SEC;
                Bitrate::from_bps(m.bytes_between(from, t) * 8.0 / span)
            }
        }
    }

    /// The rate used to turn a queue limit in time into bytes at `t`: the rate of the
    /// moment for rate models, the trace's long-term mean for mahimahi (whose
    /// instantaneous rate is either zero or a burst).
    pub fn nominal_rate(&mut self, t: Instant) -> Bitrate {
        match self {
            Self::Mahimahi(m) => Bitrate::from_bps(m.mean_rate_bps()),
            _ => self.rate_at(t),
        }
    }

    /// The earliest instant at or after `t` at which serialisation can begin (the next
    /// positive-rate moment or delivery opportunity); `None` if the link never delivers
    /// again.
    pub fn service_start(&mut self, t: Instant) -> Option<Instant> {
        let ns = t.as_nanos();
        match self {
            Self::Unlimited => Some(t),
            Self::Constant(r) => usable(r.bps()).then_some(t),
            Self::Schedule(s) => s.first_positive_at_or_after(ns).map(Instant::from_nanos),
            Self::Mahimahi(m) => Some(Instant::from_nanos(m.service_start(ns))),
        }
    }

    /// When a packet of `bytes` whose serialisation begins at `start` (an instant from
    /// [`Capacity::service_start`]) has fully left; commits mahimahi opportunities used.
    pub fn finish_time(&mut self, start: Instant, bytes: u32) -> Option<Instant> {
        let ns = start.as_nanos();
        let bits = f64::from(bytes) * 8.0;
        match self {
            Self::Unlimited => Some(start),
            Self::Constant(r) => {
                transmit_time(*r, u64::from(bytes)).and_then(|d| start.checked_add(d))
            }
            Self::Schedule(s) => s.finish(ns, bits).map(Instant::from_nanos),
            Self::Mahimahi(m) => Some(Instant::from_nanos(m.finish(ns, bytes))),
        }
    }

    /// Bytes the link could deliver in `[from, to)`.
    pub fn deliverable_bytes(&mut self, from: Instant, to: Instant) -> f64 {
        let (a, b) = (from.as_nanos(), to.as_nanos().max(from.as_nanos()));
        match self {
            Self::Unlimited => f64::INFINITY,
            Self::Constant(r) => r.bps() * (b - a) as f64 / NANOS_PER_SEC / 8.0,
            Self::Schedule(s) => s.bits_between(a, b) / 8.0,
            Self::Mahimahi(m) => m.bytes_between(a, b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> Instant {
        Instant::from_millis(x)
    }

    #[test]
    fn serialisation_integrates_across_a_rate_change() {
        // 8 Mbit/s for 1 ms, then 4 Mbit/s: 1500 bytes = 12000 bits; 8000 bits in the
        // first ms, the remaining 4000 bits take 1 ms more.
        let rows = [
            (0, Bitrate::from_mbps(8.0)),
            (1_000_000, Bitrate::from_mbps(4.0)),
        ];
        let mut c = Capacity::Schedule(RateSchedule::new(&rows, None).unwrap());
        assert_eq!(c.finish_time(ms(0), 1500), Some(ms(2)));
    }

    #[test]
    fn zero_rate_period_stalls_the_serializer() {
        let rows = [
            (0, Bitrate::from_mbps(8.0)),
            (1_000_000, Bitrate::ZERO),
            (5_000_000, Bitrate::from_mbps(8.0)),
        ];
        let mut c = Capacity::Schedule(RateSchedule::new(&rows, None).unwrap());
        assert_eq!(
            c.finish_time(ms(0), 1500),
            Some(ms(5) + scream::Duration::from_micros(500))
        );
        assert_eq!(c.service_start(ms(2)), Some(ms(5)));
    }

    #[test]
    fn looping_table_repeats_its_rates() {
        let rows = [
            (0, Bitrate::from_mbps(1.0)),
            (1_000_000_000, Bitrate::from_mbps(2.0)),
        ];
        let mut c = Capacity::Schedule(RateSchedule::new(&rows, Some(2_000_000_000)).unwrap());
        assert_eq!(
            c.rate_at(Instant::from_millis(4_500)),
            Bitrate::from_mbps(1.0)
        );
        assert_eq!(
            c.rate_at(Instant::from_millis(5_500)),
            Bitrate::from_mbps(2.0)
        );
        let bytes = c.deliverable_bytes(Instant::ZERO, Instant::from_millis(4_000));
        assert!((bytes - 750_000.0).abs() < 1e-6, "{bytes}");
    }

    #[test]
    fn mahimahi_packs_bytes_into_opportunities_and_wastes_idle_ones() {
        let mut c = Capacity::Mahimahi(MahimahiTrace::new(&[1, 1, 3, 4], 1500).unwrap());
        // Two 1000-byte packets share the 1 ms opportunities: the first leaves at 1 ms,
        // the second needs 500 bytes of the first opportunity and 500 of the second.
        let s = c.service_start(ms(0)).unwrap();
        assert_eq!(s, ms(1));
        assert_eq!(c.finish_time(s, 1000), Some(ms(1)));
        let s = c.service_start(ms(1)).unwrap();
        assert_eq!(c.finish_time(s, 1000), Some(ms(1)));
        // 1000 bytes are left of the second 1 ms opportunity, but the queue was empty
        // until 2 ms: the next packet waits for the 3 ms opportunity.
        let s = c.service_start(ms(2)).unwrap();
        assert_eq!(s, ms(3));
        // The trace loops with period 4 ms: opportunities at 5, 5, 7, 8 ms ...
        assert_eq!(
            c.service_start(ms(4) + scream::Duration::from_nanos(1)),
            Some(ms(5))
        );
        let b = c.deliverable_bytes(Instant::ZERO, ms(8));
        assert_eq!(b, 7.0 * 1500.0);
    }

    #[test]
    fn mahimahi_never_reuses_an_opportunity_it_filled_exactly() {
        let mut c = Capacity::Mahimahi(MahimahiTrace::new(&[1, 1, 1, 9], 1500).unwrap());
        let mut finishes = Vec::new();
        for _ in 0..4 {
            let s = c.service_start(ms(0)).unwrap();
            finishes.push(c.finish_time(s, 1500).unwrap());
        }
        assert_eq!(finishes, [ms(1), ms(1), ms(1), ms(9)]);
    }
}
