//! Variations of a case: its bottleneck's one-way delay, jitter and queue, as Ericsson
//! ran the RMCAT cases in its 2016 evaluation (one-way delay 10, 50 or 100 ms; jitter
//! 0, 5 or 30 ms; a 300 ms drop-tail queue or CoDel). A variation is a named set of
//! dotted-path overrides (`scream sim --set` syntax) applied to the case.

use std::fmt;

/// One-way delays, ms (RTT 20, 100, 200 ms).
pub const DELAYS_MS: [f64; 3] = [10.0, 50.0, 100.0];
/// Jitter bounds, ms.
pub const JITTERS_MS: [f64; 3] = [0.0, 5.0, 30.0];
/// The jitter's standard deviation is the bound over this (the bound is 3 σ, the
/// model's default truncation; ours).
const JITTER_SIGMAS: f64 = 3.0;
/// CoDel target, ms (RFC 8289 §4.3).
pub const CODEL_TARGET_MS: f64 = 5.0;
/// CoDel interval, ms (RFC 8289 §4.2).
pub const CODEL_INTERVAL_MS: f64 = 100.0;

/// The bottleneck queue of a variation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Queue {
    /// Drop tail at the case's limit (300 ms, RFC 8867 §4.2).
    TailDrop,
    /// CoDel with `CODEL_TARGET_MS` and `CODEL_INTERVAL_MS`.
    CoDel,
}

/// One variation. `None` on an axis: the case fixes it (the override is left out).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Variation {
    /// One-way propagation delay of the bottleneck, ms.
    pub one_way_delay_ms: Option<f64>,
    /// Jitter bound, ms (0: none).
    pub jitter_ms: f64,
    /// The queue.
    pub queue: Option<Queue>,
}

impl Variation {
    /// The RFC 8867 path (§4.2, and the testbed attributes of each §5 case): 50 ms
    /// one-way propagation delay, a maximum end-to-end jitter of 30 ms, a 300 ms
    /// drop-tail queue. The suite's `default`, also called `rfc`.
    pub const DEFAULT: Self = Self {
        one_way_delay_ms: Some(50.0),
        jitter_ms: 30.0,
        queue: Some(Queue::TailDrop),
    };

    /// The RFC path with one axis changed at a time (ours: 6 variations instead of the
    /// 18 of [`Variation::all`], so that five seeds of every cell stay affordable): the
    /// path itself, the other two delays, the other two jitters, and CoDel.
    pub fn axes() -> Vec<Self> {
        let mut out = vec![Self::DEFAULT];
        for d in DELAYS_MS {
            if Some(d) != Self::DEFAULT.one_way_delay_ms {
                out.push(Self {
                    one_way_delay_ms: Some(d),
                    ..Self::DEFAULT
                });
            }
        }
        for j in JITTERS_MS {
            if j != Self::DEFAULT.jitter_ms {
                out.push(Self {
                    jitter_ms: j,
                    ..Self::DEFAULT
                });
            }
        }
        out.push(Self {
            queue: Some(Queue::CoDel),
            ..Self::DEFAULT
        });
        out
    }

    /// Every combination: delays × jitters × queues.
    pub fn all() -> Vec<Self> {
        let mut out = Vec::new();
        for d in DELAYS_MS {
            for j in JITTERS_MS {
                for q in [Queue::TailDrop, Queue::CoDel] {
                    out.push(Self {
                        one_way_delay_ms: Some(d),
                        jitter_ms: j,
                        queue: Some(q),
                    });
                }
            }
        }
        out
    }

    /// Parses a name as [`fmt::Display`] writes it (`d50-j0-tail`, `d10-j30-codel`).
    pub fn parse(name: &str) -> Option<Self> {
        Self::all().into_iter().find(|v| v.to_string() == name)
    }

    /// This variation as it applies to a case: the axes the case fixes are dropped.
    pub fn for_case(self, delay_axis: bool, queue_axis: bool) -> Self {
        Self {
            one_way_delay_ms: self.one_way_delay_ms.filter(|_| delay_axis),
            queue: self.queue.filter(|_| queue_axis),
            ..self
        }
    }

    /// The overrides on the link whose dotted prefix is `link` (`link`, `links.2`):
    /// its forward direction, and also its reverse direction when `both_ways` (a case
    /// whose reverse path is a bottleneck too, §5.3: the same delay, jitter and queue
    /// each way). The jitter bound is divided by `jitter_split` on this link: a case
    /// whose flows cross several jittered links in a row (§6.3) splits the end-to-end
    /// bound among them.
    pub fn overrides(&self, link: &str, both_ways: bool, jitter_split: f64) -> Vec<String> {
        let mut out = self.direction(link, jitter_split);
        if both_ways {
            out.extend(self.direction(&format!("{link}.reverse"), jitter_split));
        }
        out
    }

    fn direction(&self, prefix: &str, jitter_split: f64) -> Vec<String> {
        let jitter = self.jitter_ms / jitter_split.max(1.0);
        let mut out = Vec::new();
        if let Some(d) = self.one_way_delay_ms {
            out.push(format!("{prefix}.one_way_delay_ms={d}"));
        }
        out.push(format!("{prefix}.jitter_ms={}", jitter / JITTER_SIGMAS));
        out.push(format!("{prefix}.jitter_max_ms={jitter}"));
        match self.queue {
            Some(Queue::TailDrop) => out.push(format!("{prefix}.queue.kind=\"tail-drop\"")),
            Some(Queue::CoDel) => out.extend([
                format!("{prefix}.queue.kind=\"codel\""),
                format!("{prefix}.queue.codel_target_ms={CODEL_TARGET_MS}"),
                format!("{prefix}.queue.codel_interval_ms={CODEL_INTERVAL_MS}"),
            ]),
            None => {}
        }
        out
    }
}

impl fmt::Display for Variation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.one_way_delay_ms {
            Some(d) => write!(f, "d{d}")?,
            None => f.write_str("dcase")?,
        }
        write!(f, "-j{}", self.jitter_ms)?;
        f.write_str(match self.queue {
            Some(Queue::TailDrop) => "-tail",
            Some(Queue::CoDel) => "-codel",
            None => "-qcase",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_the_default_is_among_all() {
        let all = Variation::all();
        assert_eq!(all.len(), 18);
        for v in &all {
            assert_eq!(Variation::parse(&v.to_string()), Some(*v));
        }
        assert_eq!(Variation::DEFAULT.to_string(), "d50-j30-tail");
        assert!(all.contains(&Variation::DEFAULT));
        assert_eq!(Variation::parse("d51-j0-tail"), None);
    }

    #[test]
    fn fixed_axes_leave_their_keys_alone() {
        let v = Variation::parse("d10-j30-codel").expect("known");
        let o = v.overrides("links.0", false, 1.0);
        assert!(o.contains(&"links.0.one_way_delay_ms=10".to_owned()));
        assert!(o.contains(&"links.0.jitter_max_ms=30".to_owned()));
        assert!(o.contains(&"links.0.jitter_ms=10".to_owned()));
        assert!(o.contains(&"links.0.queue.kind=\"codel\"".to_owned()));
        // Two jittered links in a row share the end-to-end bound.
        let split = v.overrides("links.0", false, 2.0);
        assert!(split.contains(&"links.0.jitter_max_ms=15".to_owned()));
        assert!(split.contains(&"links.0.jitter_ms=5".to_owned()));
        let fixed = v.for_case(false, false);
        assert_eq!(fixed.to_string(), "dcase-j30-qcase");
        let o = fixed.overrides("link", false, 1.0);
        assert!(
            o.iter()
                .all(|k| !k.contains("delay") && !k.contains("queue")),
            "{o:?}"
        );
    }

    #[test]
    fn the_axes_change_one_axis_of_the_rfc_path_at_a_time() {
        let axes = Variation::axes();
        assert_eq!(axes.len(), 6);
        assert_eq!(axes[0], Variation::DEFAULT);
        for v in &axes[1..] {
            let changed = usize::from(v.one_way_delay_ms != Variation::DEFAULT.one_way_delay_ms)
                + usize::from(v.jitter_ms != Variation::DEFAULT.jitter_ms)
                + usize::from(v.queue != Variation::DEFAULT.queue);
            assert_eq!(changed, 1, "{v}");
            assert!(Variation::all().contains(v), "{v}");
        }
    }

    #[test]
    fn both_ways_gives_the_reverse_direction_the_same_delay_jitter_and_queue() {
        let v = Variation::parse("d10-j30-codel").expect("known");
        let o = v.overrides("link", true, 1.0);
        for key in [
            "link.reverse.one_way_delay_ms=10",
            "link.reverse.jitter_max_ms=30",
            "link.reverse.queue.kind=\"codel\"",
            "link.one_way_delay_ms=10",
        ] {
            assert!(o.contains(&key.to_owned()), "{key} missing from {o:?}");
        }
        assert_eq!(o.len(), 2 * v.overrides("link", false, 1.0).len());
    }
}
