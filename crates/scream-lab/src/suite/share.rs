//! The fair share of each media flow at each sampling instant: the max-min fair
//! allocation of the links' capacities among the flows that hold a share, on the
//! topology of the case (docs/rmcat.md, "share").
//!
//! Who holds a share: the media flows under test while active (each up to its maximum
//! bitrate) and long-lived (bulk) TCP flows (no maximum). Constant-bitrate flows (the
//! RFC 8867 §4.3 audio sources) hold no share: they take their fixed rate off the
//! capacity of every link direction they cross. Short on-off TCP flows hold none either
//! (§5.7: they come and go). With one bottleneck this is capacity / n capped at the
//! maximum bitrate; with several (§6.3) a flow's share is set by the link where it is
//! most constrained, and what it cannot use there goes to the others.

use std::collections::HashMap;

use scream_sim::scenario::{Algorithm, Direction, TcpTraffic};
use scream_sim::{RunResult, Scenario};

/// Below this (Mbit/s) a capacity or a headroom counts as used up.
const EPS: f64 = 1e-9;

/// One flow in the allocation: the link directions it crosses (indexes into the
/// capacities) and the most it can take.
#[derive(Debug, Clone, PartialEq)]
pub struct Claim {
    /// Resources crossed.
    pub resources: Vec<usize>,
    /// Largest rate it can use, Mbit/s (`f64::INFINITY` for none).
    pub cap: f64,
}

/// Max-min fair allocation by progressive filling: all open claims grow together until
/// a resource they cross is full or they reach their cap, then those stop. A claim that
/// crosses no limited resource and has no cap gets `f64::INFINITY`.
pub fn max_min(capacity: &[f64], claims: &[Claim]) -> Vec<f64> {
    let mut left: Vec<f64> = capacity.iter().map(|c| c.max(0.0)).collect();
    let mut alloc = vec![0.0; claims.len()];
    let mut open: Vec<usize> = (0..claims.len()).collect();
    while !open.is_empty() {
        let mut step = f64::INFINITY;
        for (r, room) in left.iter().enumerate() {
            let n = open
                .iter()
                .filter(|&&c| claims[c].resources.contains(&r))
                .count();
            if n > 0 {
                step = step.min(room / n as f64);
            }
        }
        for &c in &open {
            step = step.min(claims[c].cap - alloc[c]);
        }
        if step.is_infinite() {
            for &c in &open {
                alloc[c] = f64::INFINITY;
            }
            break;
        }
        let step = step.max(0.0);
        for &c in &open {
            alloc[c] += step;
            for &r in &claims[c].resources {
                left[r] -= step;
            }
        }
        open.retain(|&c| {
            alloc[c] < claims[c].cap - EPS && claims[c].resources.iter().all(|&r| left[r] > EPS)
        });
    }
    alloc
}

/// When flow `f` sends: between start and stop (the run's end when 0), outside its
/// pauses.
pub fn active(s: &Scenario, f: usize, t: f64) -> bool {
    let c = &s.flows[f];
    let stop = if c.stop_s > 0.0 {
        c.stop_s
    } else {
        s.duration_s
    };
    t > c.start_s && t <= stop && !c.pauses.iter().any(|[a, b]| t > *a && t <= *b)
}

/// A sampling instant as a map key (µs).
fn key(t: f64) -> i64 {
    (t * 1e6).round() as i64
}

/// The fair share of every media flow at every sampling instant of a run.
#[derive(Debug, Clone, Default)]
pub struct FairShares {
    /// Per instant, the share of each media flow in `media` order, Mbit/s.
    by_t: HashMap<i64, Vec<f64>>,
    /// Media flow index -> position in `media`.
    position: HashMap<usize, usize>,
}

impl FairShares {
    /// Computes the shares of the media flows `media` from the run's link samples (the
    /// capacity of each link direction at each instant).
    pub fn of(s: &Scenario, run: &RunResult, media: &[usize]) -> Self {
        let mut resources: Vec<(String, &'static str)> = Vec::new();
        for l in &run.link_samples {
            let id = (l.link.to_string(), l.direction);
            if !resources.contains(&id) {
                resources.push(id);
            }
        }
        let crossed = |f: usize| -> Vec<usize> {
            let cfg = &s.flows[f];
            let dir = match cfg.direction {
                Direction::Forward => "forward",
                Direction::Reverse => "reverse",
            };
            let names: Vec<String> = if cfg.path.is_empty() {
                (0..s.link_configs().len())
                    .map(|i| s.link_name(i))
                    .collect()
            } else {
                cfg.path.clone()
            };
            names
                .iter()
                .filter_map(|n| resources.iter().position(|(l, d)| l == n && *d == dir))
                .collect()
        };
        let max_rate = |f: usize| -> f64 {
            s.flows[f]
                .effective_streams("")
                .iter()
                .map(|st| st.max_bitrate_mbps)
                .sum()
        };
        let fixed_rate = |f: usize| -> f64 {
            s.flows[f]
                .effective_streams("")
                .iter()
                .map(|st| st.start_bitrate_mbps)
                .sum()
        };
        let bulk: Vec<usize> = (0..s.flows.len())
            .filter(|&f| {
                matches!(
                    s.flows[f].algorithm,
                    Algorithm::TcpNewreno | Algorithm::TcpCubic | Algorithm::TcpPrague
                ) && s.flows[f].tcp_config().traffic == TcpTraffic::Bulk
            })
            .collect();
        let cbr: Vec<usize> = (0..s.flows.len())
            .filter(|&f| s.flows[f].algorithm == Algorithm::Cbr && !media.contains(&f))
            .collect();
        let paths: Vec<Vec<usize>> = (0..s.flows.len()).map(crossed).collect();
        let mut by_t = HashMap::new();
        let mut capacity = vec![f64::INFINITY; resources.len()];
        let mut rows = run.link_samples.iter().peekable();
        while let Some(first) = rows.next() {
            let t = first.t_s;
            capacity.fill(f64::INFINITY);
            let mut put = |l: &scream_records::LinkSample| {
                if let Some(r) = resources
                    .iter()
                    .position(|(n, d)| **n == *l.link && *d == l.direction)
                {
                    capacity[r] = l.capacity_mbps;
                }
            };
            put(first);
            while let Some(l) = rows.next_if(|l| l.t_s == t) {
                put(l);
            }
            for &f in cbr.iter().filter(|&&f| active(s, f, t)) {
                for &r in &paths[f] {
                    capacity[r] -= fixed_rate(f);
                }
            }
            let on_media: Vec<usize> = media.iter().copied().filter(|&f| active(s, f, t)).collect();
            let mut claims: Vec<Claim> = on_media
                .iter()
                .map(|&f| Claim {
                    resources: paths[f].clone(),
                    cap: max_rate(f),
                })
                .collect();
            claims.extend(bulk.iter().filter(|&&f| active(s, f, t)).map(|&f| Claim {
                resources: paths[f].clone(),
                cap: f64::INFINITY,
            }));
            let alloc = max_min(&capacity, &claims);
            let mut shares = vec![0.0; media.len()];
            for (k, f) in on_media.iter().enumerate() {
                if let Some(p) = media.iter().position(|g| g == f) {
                    shares[p] = alloc[k];
                }
            }
            by_t.insert(key(t), shares);
        }
        Self {
            by_t,
            position: media.iter().enumerate().map(|(p, &f)| (f, p)).collect(),
        }
    }

    /// The fair share of media flow `f` at instant `t`, Mbit/s (0 where unknown or
    /// where the flow is not active).
    pub fn at(&self, f: usize, t: f64) -> f64 {
        match (self.by_t.get(&key(t)), self.position.get(&f)) {
            (Some(v), Some(&p)) => v[p],
            _ => 0.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claim(resources: &[usize], cap: f64) -> Claim {
        Claim {
            resources: resources.to_vec(),
            cap,
        }
    }

    #[test]
    fn one_link_is_shared_equally_up_to_each_cap() {
        let a = max_min(
            &[3.5],
            &[claim(&[0], 1.5), claim(&[0], 1.5), claim(&[0], 1.5)],
        );
        assert!(a.iter().all(|x| (x - 3.5 / 3.0).abs() < 1e-9), "{a:?}");
        // A capped flow leaves the rest to the uncapped one (a bulk TCP flow).
        let a = max_min(&[4.0], &[claim(&[0], 1.5), claim(&[0], f64::INFINITY)]);
        assert!(
            (a[0] - 1.5).abs() < 1e-9 && (a[1] - 2.5).abs() < 1e-9,
            "{a:?}"
        );
    }

    #[test]
    fn rfc_8867_6_3_parking_lot_gives_0_75_1_25_0_75() {
        // A-B 2, B-C 8, C-D 1.5 Mbit/s; S1 crosses all three, S2 A-B, S3 C-D.
        let caps = [2.0, 8.0, 1.5];
        let a = max_min(
            &caps,
            &[claim(&[0, 1, 2], 1.5), claim(&[0], 1.5), claim(&[2], 1.5)],
        );
        let want = [0.75, 1.25, 0.75];
        for (x, w) in a.iter().zip(want) {
            assert!((x - w).abs() < 1e-9, "{a:?}");
        }
    }

    #[test]
    fn a_flow_on_unlimited_links_without_a_cap_is_unbounded() {
        let a = max_min(
            &[f64::INFINITY],
            &[claim(&[0], f64::INFINITY), claim(&[], 2.0)],
        );
        assert_eq!(a, [f64::INFINITY, 2.0]);
    }
}
