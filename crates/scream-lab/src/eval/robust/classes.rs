//! The condition classes of `scream eval robust` and the links drawn from them.
//!
//! A class says what kind of trouble a link brings (a deep buffer, a sudden drop, ...);
//! a draw fixes every number of one such link — capacity over time, buffer, delay, ECN
//! mode, flows — from a random stream named after the draw seed, the class and the draw
//! index. The draw seed is the evaluation's input: a fresh seed gives links no one has
//! seen, so an algorithm cannot be tuned to them. The ranges drawn from are named
//! constants here and in `scream_netmodel::synthetic::shapes`, each with its reason.

use std::fmt;

use scream_netmodel::RngStream;
use scream_netmodel::synthetic::{self, shapes};
use scream_sim::scenario::{LinkConfig, Scenario};

use crate::eval::OptionSet;
use crate::eval::cases::{Mode, eval_flow};

/// One-way propagation delay, ms: a metro path to a continental one.
pub(crate) const ONE_WAY_MS: [f64; 2] = [5.0, 50.0];
/// Deep buffers, bytes: the hundreds of kB to MB that cellular base stations hold per
/// user (Jiang et al., "Tackling bufferbloat in 3G/4G networks", IMC 2012). In bytes,
/// not time: a buffer that holds 1 MB holds it however slowly the link drains.
pub(crate) const DEEP_BUFFER_BYTES: [f64; 2] = [250e3, 2e6];
/// Shallow buffers, ms at the link's mean capacity, held as bytes: well under one RTT,
/// as a switch or an AQM-less router sized for many flows. A device's buffer is memory,
/// so it is a byte count that does not shrink when the radio pauses; a time limit at
/// the capacity of the moment dropped every packet that arrived during the `lte`
/// preset's 20-80 ms delivery gaps and most of those in a slow state (3 to 8 times the
/// drops of the same depth in bytes, half the utilisation on delay-based draws).
pub(crate) const SHALLOW_BUFFER_MS: [f64; 2] = [10.0, 40.0];
/// Buffer of the other classes, ms at the current capacity: from shallow to deep, the
/// RMCAT 300 ms (RFC 8867 §5.1) in the middle of the range.
pub(crate) const ANY_BUFFER_MS: [f64; 2] = [30.0, 1000.0];
/// Several flows: how many share the bottleneck.
pub(crate) const FLOWS: [usize; 2] = [2, 4];
/// Several flows: the capacity they share, Mbit/s.
pub(crate) const SHARED_MBPS: [f64; 2] = [5.0, 100.0];
/// Several flows: each after the first starts at a uniform time up to this, s.
pub(crate) const LAST_START_S: f64 = 10.0;
/// Length of the runs, s, except the classes below.
pub(crate) const RUN_S: f64 = 30.0;
/// Dead stretches start up to 10 s and last up to 15 s; 10 s more show the recovery.
pub(crate) const DEAD_RUN_S: f64 = 35.0;
/// Several flows: 10 s of staggered starts, then 30 s together.
pub(crate) const SHARED_RUN_S: f64 = 40.0;

/// A kind of link trouble.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ConditionClass {
    /// A cellular link (the `lte` Markov preset, drawn afresh) behind a deep buffer.
    DeepBuffer,
    /// The same kind of link behind a shallow buffer.
    ShallowBuffer,
    /// The capacity falls by one to two decades and stays above 1 Mbit/s.
    SuddenDrop,
    /// The link delivers nothing, or a trickle, for 1 to 15 s.
    DeadStretch,
    /// Delivery in bursts of a few ms separated by tens of ms (saturator-like).
    Bursty,
    /// Two to four flows share a constant bottleneck, starting at different times.
    SeveralFlows,
}

impl ConditionClass {
    /// Every class, in report order.
    pub const ALL: [Self; 6] = [
        Self::DeepBuffer,
        Self::ShallowBuffer,
        Self::SuddenDrop,
        Self::DeadStretch,
        Self::Bursty,
        Self::SeveralFlows,
    ];

    /// The name a report and `--class` use.
    pub fn name(self) -> &'static str {
        match self {
            Self::DeepBuffer => "deep-buffer",
            Self::ShallowBuffer => "shallow-buffer",
            Self::SuddenDrop => "sudden-drop",
            Self::DeadStretch => "dead-stretch",
            Self::Bursty => "bursty",
            Self::SeveralFlows => "several-flows",
        }
    }

    /// The class called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.name() == name)
    }
}

impl fmt::Display for ConditionClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The buffer in front of the bottleneck.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Buffer {
    /// At most this many bytes, whatever the capacity.
    Bytes(f64),
    /// At most this many ms at the current capacity.
    Ms(f64),
}

/// When the class's event happens, for the measures that follow it.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Event {
    /// No single event.
    None,
    /// The capacity drops at `at_s` and comes back at `until_s`.
    Drop {
        /// When it drops, s.
        at_s: f64,
        /// When the capacity returns (or the run ends), s.
        until_s: f64,
    },
    /// The link is dead from `from_s` to `to_s`.
    Dead {
        /// Start, s.
        from_s: f64,
        /// End, s.
        to_s: f64,
    },
}

/// One link drawn from a class: everything its runs need, whatever the option set.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Draw {
    /// Its class.
    pub class: ConditionClass,
    /// Its index within the class, from 0.
    pub index: u32,
    /// The draw seed it was drawn from.
    pub draw_seed: u64,
    /// The master seed of its runs (frame phases, the chain of the cellular classes).
    pub seed: u64,
    /// The ECN mode of its queue and flows.
    pub mode: Mode,
    /// One-way propagation delay each way, ms.
    pub one_way_ms: f64,
    /// The bottleneck's buffer.
    pub buffer: Buffer,
    /// Capacity rows `[from s, Mbit/s]`, the first at 0.
    pub capacity: Vec<[f64; 2]>,
    /// Start of each flow, s.
    pub starts_s: Vec<f64>,
    /// Run length, s.
    pub duration_s: f64,
    /// The class's event.
    pub event: Event,
}

impl serde::Serialize for Mode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Rows `(ns, bit/s)` as `[s, Mbit/s]`.
fn in_mbps(rows: &[(u64, f64)]) -> Vec<[f64; 2]> {
    rows.iter()
        .map(|&(t, bps)| [t as f64 * 1e-9, bps * 1e-6])
        .collect()
}

/// Draw `index` of `class` under draw seed `draw_seed`. Each draw has a stream of its
/// own, so adding draws or classes never changes the others.
pub fn draw(class: ConditionClass, draw_seed: u64, index: u32) -> Draw {
    let rng = &mut RngStream::new(draw_seed, &format!("eval-robust/{class}/{index}"));
    // A 64-bit seed for the runs, from the same stream.
    let seed = (rng.uniform() * 2f64.powi(53)) as u64;
    let mode = Mode::ALL[((rng.uniform() * 3.0) as usize).min(2)];
    let one_way_ms = shapes::log_uniform(rng, ONE_WAY_MS[0], ONE_WAY_MS[1]);
    let any_buffer = Buffer::Ms(shapes::log_uniform(rng, ANY_BUFFER_MS[0], ANY_BUFFER_MS[1]));
    let mut d = Draw {
        class,
        index,
        draw_seed,
        seed,
        mode,
        one_way_ms,
        buffer: any_buffer,
        capacity: Vec::new(),
        starts_s: vec![0.0],
        duration_s: RUN_S,
        event: Event::None,
    };
    match class {
        ConditionClass::DeepBuffer | ConditionClass::ShallowBuffer => {
            let lte = synthetic::preset("lte").expect("the lte preset ships with netmodel");
            let span = scream::Duration::from_secs(RUN_S as u64);
            d.capacity = in_mbps(&lte.rows(seed, "eval-robust", span));
            d.buffer = if class == ConditionClass::DeepBuffer {
                Buffer::Bytes(
                    shapes::log_uniform(rng, DEEP_BUFFER_BYTES[0], DEEP_BUFFER_BYTES[1]).round(),
                )
            } else {
                let ms = shapes::log_uniform(rng, SHALLOW_BUFFER_MS[0], SHALLOW_BUFFER_MS[1]);
                let mean_bps = mean_mbps(&d.capacity, RUN_S) * 1e6;
                Buffer::Bytes((ms * 1e-3 * mean_bps / 8.0).round())
            };
        }
        ConditionClass::SuddenDrop => {
            let (rows, at_s) = shapes::sudden_drop(rng, RUN_S);
            let until_s = rows.get(2).map_or(RUN_S, |r| r.0 as f64 * 1e-9);
            d.capacity = in_mbps(&rows);
            d.event = Event::Drop { at_s, until_s };
        }
        ConditionClass::DeadStretch => {
            d.duration_s = DEAD_RUN_S;
            let (rows, [from_s, to_s]) = shapes::dead_stretch(rng, DEAD_RUN_S);
            d.capacity = in_mbps(&rows);
            d.event = Event::Dead { from_s, to_s };
            // A device's buffer is memory: a limit in time turned into bytes at the
            // rate of the moment would shrink to a packet or none while the link is
            // dead or trickling and drop what the sender had in flight. Held in bytes
            // at the run's mean rate, as the shallow-buffer and bursty classes are.
            if let Buffer::Ms(ms) = d.buffer {
                let mean_bps = mean_mbps(&d.capacity, DEAD_RUN_S) * 1e6;
                d.buffer = Buffer::Bytes((ms * 1e-3 * mean_bps / 8.0).round().max(1.0));
            }
        }
        ConditionClass::Bursty => d.capacity = in_mbps(&shapes::bursty(rng, RUN_S)),
        ConditionClass::SeveralFlows => {
            d.duration_s = SHARED_RUN_S;
            let n = FLOWS[0] + ((rng.uniform() * (FLOWS[1] - FLOWS[0] + 1) as f64) as usize);
            let n = n.min(FLOWS[1]);
            d.capacity = vec![[
                0.0,
                shapes::log_uniform(rng, SHARED_MBPS[0], SHARED_MBPS[1]),
            ]];
            d.starts_s = std::iter::once(0.0)
                .chain((1..n).map(|_| shapes::uniform(rng, 0.0, LAST_START_S)))
                .collect();
        }
    }
    d
}

/// `draws` draws of each of `classes`, class by class.
pub fn draws(classes: &[ConditionClass], draw_seed: u64, draws: u32) -> Vec<Draw> {
    pooled_draws(classes, &[draw_seed], draws)
}

/// `draws` draws of each of `classes` from each of `draw_seeds`: class by class, in a
/// class seed by seed. A draw is the same whichever seeds it is pooled with.
pub fn pooled_draws(classes: &[ConditionClass], draw_seeds: &[u64], draws: u32) -> Vec<Draw> {
    classes
        .iter()
        .flat_map(|&c| {
            draw_seeds
                .iter()
                .flat_map(move |&s| (0..draws).map(move |i| draw(c, s, i)))
        })
        .collect()
}

impl Draw {
    /// `class/index`, e.g. `sudden-drop/3`: the id within one draw seed.
    pub fn id(&self) -> String {
        format!("{}/{}", self.class, self.index)
    }

    /// `class/sSEED/index`, e.g. `sudden-drop/s7/3`: the id among draws of several
    /// draw seeds.
    pub fn seeded_id(&self) -> String {
        format!("{}/s{}/{}", self.class, self.draw_seed, self.index)
    }

    /// One line on what was drawn.
    pub fn describe(&self) -> String {
        let buffer = match self.buffer {
            Buffer::Bytes(b) => format!("{:.0} kB", b / 1e3),
            Buffer::Ms(ms) => format!("{ms:.0} ms"),
        };
        let first = self.capacity.first().map_or(0.0, |r| r[1]);
        let link = match self.event {
            Event::Drop { at_s, until_s } => {
                let low = self.capacity.get(1).map_or(0.0, |r| r[1]);
                format!("{first:.1} -> {low:.2} Mbit/s at {at_s:.1}-{until_s:.1} s")
            }
            Event::Dead { from_s, to_s } => {
                let low = self.capacity.get(1).map_or(0.0, |r| r[1]);
                format!("{first:.1} Mbit/s, {low:.2} at {from_s:.1}-{to_s:.1} s")
            }
            Event::None if self.class == ConditionClass::SeveralFlows => {
                format!("{} flows on {first:.1} Mbit/s", self.starts_s.len())
            }
            Event::None => {
                let mean = mean_mbps(&self.capacity, self.duration_s);
                format!("mean {mean:.1} Mbit/s, {} rows", self.capacity.len())
            }
        };
        format!(
            "{}, {:.0} ms one way, buffer {buffer}, {link}",
            self.mode, self.one_way_ms
        )
    }

    /// The scenario of this draw with the senders running `options`.
    pub fn scenario(&self, options: OptionSet) -> Scenario {
        // A bursty link is a cellular scheduler's: its L4S marks follow the radio
        // access network's queue-delay estimate, not the sojourn of a packet waiting
        // for the next transmission opportunity (see `l4s-cellular`).
        let mut queue = if self.class == ConditionClass::Bursty {
            self.mode.cellular_queue()
        } else {
            self.mode.queue()
        };
        match self.buffer {
            Buffer::Bytes(b) => {
                queue.limit.limit_ms = 0.0;
                queue.limit.limit_bytes = b as u64;
            }
            // A bursty link's rate of the moment is either zero or a burst: a limit in
            // time turned into bytes at it would hold one packet through every silence
            // and drop the rest. Its buffer is held in bytes at the mean rate instead,
            // as a mahimahi trace's is (`Capacity::nominal_rate`).
            Buffer::Ms(ms) if self.class == ConditionClass::Bursty => {
                let mean_bps = mean_mbps(&self.capacity, self.duration_s) * 1e6;
                queue.limit.limit_ms = 0.0;
                queue.limit.limit_bytes = ((ms * 1e-3 * mean_bps / 8.0) as u64).max(1);
            }
            Buffer::Ms(ms) => queue.limit.limit_ms = ms,
        }
        let link = LinkConfig {
            name: "bottleneck".to_owned(),
            one_way_delay_ms: Some(self.one_way_ms),
            capacity_mbps: Some(self.capacity.first().map_or(0.0, |r| r[1])),
            capacity_steps: self.capacity.iter().skip(1).copied().collect(),
            queue,
            ..LinkConfig::default()
        };
        let flows = self
            .starts_s
            .iter()
            .enumerate()
            .map(|(i, &start_s)| eval_flow(i, self.mode, start_s, options))
            .collect();
        Scenario {
            name: format!("{}/{options}", self.id()),
            duration_s: self.duration_s,
            seed: self.seed,
            link: Some(link),
            flows,
            ..Scenario::default()
        }
    }
}

/// Time-weighted mean of capacity rows over `[0, span_s)`, Mbit/s.
fn mean_mbps(rows: &[[f64; 2]], span_s: f64) -> f64 {
    let mut sum = 0.0;
    for (i, r) in rows.iter().enumerate() {
        let end = rows.get(i + 1).map_or(span_s, |n| n[0]).min(span_s);
        sum += r[1] * (end - r[0]).max(0.0);
    }
    if span_s > 0.0 { sum / span_s } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_draw_is_a_valid_scenario() {
        for d in draws(&ConditionClass::ALL, 11, 5) {
            for options in OptionSet::every() {
                let s = d.scenario(options);
                assert_eq!(s.validate(), Ok(()), "{}: {}", d.id(), d.describe());
            }
        }
    }

    #[test]
    fn the_draw_seed_decides_the_links_and_nothing_else_does() {
        let a = draws(&ConditionClass::ALL, 5, 3);
        assert_eq!(a, draws(&ConditionClass::ALL, 5, 3));
        let b = draws(&ConditionClass::ALL, 6, 3);
        for (x, y) in a.iter().zip(&b) {
            assert_ne!(x.capacity, y.capacity, "{}", x.id());
        }
        // A draw does not depend on how many others are drawn.
        assert_eq!(draws(&ConditionClass::ALL, 5, 1)[0], a[0]);
        assert_eq!(draw(ConditionClass::Bursty, 5, 2), a[4 * 3 + 2]);
        // Nor on the seeds it is pooled with.
        let pooled = pooled_draws(&ConditionClass::ALL, &[6, 5], 3);
        assert_eq!(pooled.len(), a.len() + b.len());
        for d in a.iter().chain(&b) {
            assert_eq!(
                pooled.iter().filter(|p| *p == d).count(),
                1,
                "{}",
                d.seeded_id()
            );
        }
        assert_eq!(pooled[..3], b[..3]);
        assert_eq!(pooled[3..6], a[..3]);
        assert_eq!(a[2].seeded_id(), "deep-buffer/s5/2");
    }

    #[test]
    fn classes_draw_what_they_promise() {
        for d in draws(&ConditionClass::ALL, 21, 20) {
            match d.class {
                ConditionClass::DeepBuffer => assert!(matches!(d.buffer, Buffer::Bytes(_))),
                ConditionClass::ShallowBuffer => {
                    // In bytes, at most the deepest shallow buffer at the mean rate.
                    let mean_bytes_per_ms = mean_mbps(&d.capacity, RUN_S) * 1e3 / 8.0;
                    let most = SHALLOW_BUFFER_MS[1] * mean_bytes_per_ms + 1.0;
                    assert!(
                        matches!(d.buffer, Buffer::Bytes(b) if b <= most),
                        "{}",
                        d.id()
                    );
                }
                ConditionClass::SuddenDrop => {
                    assert!(matches!(d.event, Event::Drop { .. }));
                    assert!(d.capacity.iter().all(|r| r[1] >= shapes::DROP_FLOOR_MBPS));
                }
                ConditionClass::DeadStretch => {
                    let Event::Dead { from_s, to_s } = d.event else {
                        panic!("{}", d.id())
                    };
                    assert!(to_s - from_s >= 1.0 && to_s < d.duration_s);
                    // In bytes, at most the deepest buffer at the mean rate.
                    let mean_bytes_per_ms = mean_mbps(&d.capacity, DEAD_RUN_S) * 1e3 / 8.0;
                    let most = ANY_BUFFER_MS[1] * mean_bytes_per_ms + 1.0;
                    assert!(
                        matches!(d.buffer, Buffer::Bytes(b) if b >= 1.0 && b <= most),
                        "{}",
                        d.id()
                    );
                }
                ConditionClass::Bursty => assert!(d.capacity.len() > 100),
                ConditionClass::SeveralFlows => {
                    assert!((FLOWS[0]..=FLOWS[1]).contains(&d.starts_s.len()));
                }
            }
        }
    }
}
