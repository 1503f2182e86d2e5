//! The loop clock: a simulator that runs on a grid of steps, as a discrete-time test
//! application does, and a sender that reads time in whole ticks.
//!
//! Ericsson's test application (`code/scream_v_a.cpp`, `main`) is a loop over a step
//! counter `n`: at `ac89024` a step is 0.1 ms (`timeBase` 10000) and the sender is
//! handed `time_ntp = n * 65536 / 10000 + 100` truncated to whole 1/65536 s ticks; at
//! `0924c0b` a step is one tick (`time_ntp = n`). Everything in the loop (frames, the
//! network queues' releases, the receiver, feedback, the sender's calls) happens on a
//! step, and the sender never sees a time finer than a tick.
//!
//! The simulator models this with two roundings, each in one place:
//! - the **step grid** in the event queue ([`crate::engine::EventQueue`]): an event due
//!   between two steps runs at the next step, whatever scheduled it (a link, a node, a
//!   packet's arrival), as the loop only looks at anything once per step;
//! - the **sender's ticks** in the SCReAM sender endpoint: the library is handed the
//!   tick the loop would hand it (the step's time floored to a tick) and the instant it
//!   asks to be woken is rounded up to a tick, so that the wake-up step reads a tick at
//!   or after it. The sender is the only element that reads `time_ntp`; the receiver's
//!   clock is remote to it and the network queues are modelled on the step grid.
//!
//! The `+ 100` tick offset of `ac89024` is left out: it is common to every time the
//! sender reads, so no difference the sender computes changes.

use scream::Instant;
use scream_netmodel::keys::Range;
use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserializer, Serializer};

/// Steps or ticks per second: 0 (continuous time) or 1 kHz (a packet per millisecond at
/// most, from a sender limited to one per step) to 1 GHz (the clock's nanosecond).
pub const CLOCK_HZ: Range = Range {
    zero: true,
    ..Range::closed(1e3, 1e9, "Hz")
};

scream_netmodel::declare_keys! {
    /// The `[clock]` table of a scenario. Both keys default to 0: continuous time, as
    /// before the table existed.
    pub struct ClockKeys {
        /// Loop steps per second (`scream_v_a.cpp` `main`: 10000 at ac89024, 65536 at 0924c0b): events run at the next step, a sender releases at most one packet per step, frames come every whole number of steps; 0 = continuous
        step_hz: f64 = 0.0, unit "Hz", range CLOCK_HZ;
        /// Ticks per second of the time the SCReAM sender reads (65536: `time_ntp`, Q16 seconds); 0 = the simulator's nanoseconds
        sender_tick_hz: f64 = 0.0, unit "Hz", range CLOCK_HZ;
    }
}

impl ClockKeys {
    /// Whether every key has its default (the table is then not written back).
    pub fn is_default(&self) -> bool {
        *self == Self::default()
    }

    /// The step grid, if the loop is discrete.
    pub fn step_grid(&self) -> Option<Grid> {
        Grid::new(self.step_hz)
    }

    /// The sender's tick grid, if it reads whole ticks.
    pub fn sender_ticks(&self) -> Option<Grid> {
        Grid::new(self.sender_tick_hz)
    }

    /// The period of a source at `fps` frames per second, ns: `1e9 / fps`, or on a
    /// step grid a whole number of steps, `(int)(steps per second / fps)` as
    /// `scream_v_a.cpp` `main` computes its `tick` (1310 ticks at 50 fps at 0924c0b,
    /// 200 steps of 0.1 ms at ac89024), never less than one step.
    pub fn frame_period_ns(&self, fps: f64) -> f64 {
        match self.step_grid() {
            Some(g) => {
                let steps = (g.hz as f64 / fps).trunc().max(1.0);
                steps * 1e9 / g.hz as f64
            }
            None => 1e9 / fps,
        }
    }
}

/// `hz` points per second; point `k` is at `ceil(k * 1e9 / hz)` ns, so that every
/// point is a whole nanosecond at or after its exact time and the point at or before
/// a point's instant is that point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grid {
    hz: u64,
}

impl Grid {
    /// A grid of `hz` (rounded to a whole number) points per second; `None` for 0.
    pub fn new(hz: f64) -> Option<Self> {
        let hz = hz.round();
        (hz >= 1.0 && hz.is_finite()).then_some(Self { hz: hz as u64 })
    }

    /// Points per second.
    pub fn hz(&self) -> u64 {
        self.hz
    }

    /// Point `k`.
    pub fn point(&self, k: u64) -> Instant {
        // In 64 bits while the product fits (every run shorter than 200 days at 1 GHz),
        // as a 128-bit division costs several times a 64-bit one on the per-event path.
        let ns = match k.checked_mul(1_000_000_000) {
            Some(p) => u128::from(p.div_ceil(self.hz)),
            None => (u128::from(k) * 1_000_000_000).div_ceil(u128::from(self.hz)),
        };
        Instant::from_nanos(u64::try_from(ns).unwrap_or(u64::MAX))
    }

    /// The index of the last point at or before `t`.
    pub fn index_at_or_before(&self, t: Instant) -> u64 {
        // point(k) <= t  <=>  k * 1e9 / hz <= t (t is whole), so k = floor(t * hz / 1e9).
        let k = match t.as_nanos().checked_mul(self.hz) {
            Some(p) => u128::from(p / 1_000_000_000),
            None => u128::from(t.as_nanos()) * u128::from(self.hz) / 1_000_000_000,
        };
        u64::try_from(k).unwrap_or(u64::MAX)
    }

    /// The last point at or before `t`.
    pub fn floor(&self, t: Instant) -> Instant {
        self.point(self.index_at_or_before(t))
    }

    /// The first point at or after `t`.
    pub fn ceil(&self, t: Instant) -> Instant {
        let k = self.index_at_or_before(t);
        let p = self.point(k);
        if p == t { p } else { self.point(k + 1) }
    }
}

/// Reads a `[clock]` table key by key, so that an unknown key names the known ones.
pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<ClockKeys, D::Error> {
    struct ClockVisitor;
    impl<'de> Visitor<'de> for ClockVisitor {
        type Value = ClockKeys;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a [clock] table")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ClockKeys, A::Error> {
            let mut keys = ClockKeys::default();
            while let Some(name) = map.next_key::<String>()? {
                match keys.deserialize_key(&name, &mut map) {
                    Some(read) => read?,
                    None => {
                        const NAMES: &[&str] = &["step_hz", "sender_tick_hz"];
                        return Err(serde::de::Error::unknown_field(&name, NAMES));
                    }
                }
            }
            Ok(keys)
        }
    }
    d.deserialize_map(ClockVisitor)
}

/// Writes a `[clock]` table with every key.
pub(crate) fn serialize<S: Serializer>(keys: &ClockKeys, s: S) -> Result<S::Ok, S::Error> {
    let mut map = s.serialize_map(Some(ClockKeys::keys().len()))?;
    keys.serialize_keys(&mut map)?;
    map.end()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sender_reads_the_ticks_the_loop_hands_it() {
        // ac89024: step n is n x 0.1 ms and the sender reads trunc(n x 6.5536) ticks.
        let steps = Grid::new(10_000.0).expect("grid");
        let ticks = Grid::new(65_536.0).expect("grid");
        for n in [0_u64, 1, 7, 200, 625, 1234, 99_999, 1_000_000] {
            let read = ticks.index_at_or_before(steps.point(n));
            assert_eq!(read, n * 65_536 / 10_000, "step {n}");
        }
    }

    #[test]
    fn a_point_floors_and_ceils_to_itself_and_others_to_their_neighbours() {
        let g = Grid::new(65_536.0).expect("grid");
        for k in [0_u64, 1, 1310, 65_535, 65_536, 6_553_600] {
            let p = g.point(k);
            assert_eq!(g.floor(p), p);
            assert_eq!(g.ceil(p), p);
            assert_eq!(g.index_at_or_before(p), k);
            if k > 0 {
                let before = Instant::from_nanos(p.as_nanos() - 1);
                assert_eq!(g.ceil(before), p);
                assert_eq!(g.floor(before), g.point(k - 1));
            }
            let after = Instant::from_nanos(p.as_nanos() + 1);
            assert_eq!(g.ceil(after), g.point(k + 1));
        }
    }

    #[test]
    fn frames_come_every_whole_number_of_steps() {
        let on = |hz: f64| ClockKeys {
            step_hz: hz,
            ..ClockKeys::default()
        };
        // 0924c0b: (int)(65536 / 50) = 1310 ticks; ac89024: 200 steps of 0.1 ms.
        let ns = on(65_536.0).frame_period_ns(50.0);
        assert!((ns - 1310.0 * 1e9 / 65_536.0).abs() < 1e-6, "{ns}");
        assert_eq!(on(10_000.0).frame_period_ns(50.0), 2e7);
        assert_eq!(ClockKeys::default().frame_period_ns(30.0), 1e9 / 30.0);
    }

    #[test]
    fn a_clock_out_of_range_names_the_key() {
        let keys = ClockKeys {
            sender_tick_hz: 10.0,
            ..ClockKeys::default()
        };
        let (name, reason) = keys.check().expect_err("10 Hz is too coarse");
        assert_eq!(name, "sender_tick_hz");
        assert!(reason.contains("[1000, 1e9] Hz"), "{reason}");
        assert!(ClockKeys::default().check().is_ok());
    }
}
