//! The shipped synthetic models. docs/scenarios.md explains each value and what it
//! imitates; the values are round figures from published measurement studies, not fits
//! to any recorded trace.

use super::{Gaps, MarkovState, SyntheticModel};

/// An LTE downlink seen by one user: four signal-quality states from the cell centre to
/// its edge, each a band of rates redrawn every 100 ms, moving one step at a time (a
/// user drifts through coverage, the rate rarely leaps from best to worst), plus a
/// short gap of 20-80 ms about every two seconds (scheduling stalls and handover
/// interruptions).
const LTE: SyntheticModel = SyntheticModel {
    name: "lte",
    summary: "LTE downlink: 0.2-40 Mbit/s in four states, 20-80 ms gaps about every 2 s",
    states: &[
        MarkovState {
            name: "good",
            min_mbps: 12.0,
            max_mbps: 40.0,
            min_dwell_s: 0.5,
            mean_dwell_s: 4.0,
            next: &[0.0, 1.0, 0.0, 0.0],
        },
        MarkovState {
            name: "fair",
            min_mbps: 4.0,
            max_mbps: 12.0,
            min_dwell_s: 0.5,
            mean_dwell_s: 4.0,
            next: &[0.5, 0.0, 0.5, 0.0],
        },
        MarkovState {
            name: "poor",
            min_mbps: 1.0,
            max_mbps: 4.0,
            min_dwell_s: 0.5,
            mean_dwell_s: 3.0,
            next: &[0.0, 0.7, 0.0, 0.3],
        },
        MarkovState {
            name: "edge",
            min_mbps: 0.2,
            max_mbps: 1.0,
            min_dwell_s: 0.2,
            mean_dwell_s: 1.5,
            next: &[0.0, 0.0, 1.0, 0.0],
        },
    ],
    start: 1,
    redraw_s: 0.1,
    gaps: Gaps {
        per_s: 0.5,
        min_ms: 20.0,
        max_ms: 80.0,
    },
};

/// A walking user on commercial mmWave 5G: hundreds of Mbit/s in line of sight, less
/// on a reflected beam, LTE-like rates when a body or building blocks the beam, and
/// outages of about a second (beam failure recovery, handoffs). Blockage is abrupt, so
/// any state may follow any other. Rates are redrawn every 200 ms.
const FIVE_G_WALKING: SyntheticModel = SyntheticModel {
    name: "5g-walking",
    summary: "mmWave 5G while walking: 5-1500 Mbit/s in three states, outages of ~1 s",
    states: &[
        MarkovState {
            name: "line-of-sight",
            min_mbps: 300.0,
            max_mbps: 1500.0,
            min_dwell_s: 1.0,
            mean_dwell_s: 6.0,
            next: &[0.0, 0.7, 0.2, 0.1],
        },
        MarkovState {
            name: "reflected",
            min_mbps: 80.0,
            max_mbps: 400.0,
            min_dwell_s: 0.5,
            mean_dwell_s: 4.0,
            next: &[0.5, 0.0, 0.4, 0.1],
        },
        MarkovState {
            name: "blocked",
            min_mbps: 5.0,
            max_mbps: 80.0,
            min_dwell_s: 0.3,
            mean_dwell_s: 2.0,
            next: &[0.1, 0.6, 0.0, 0.3],
        },
        MarkovState {
            name: "outage",
            min_mbps: 0.0,
            max_mbps: 0.0,
            min_dwell_s: 0.5,
            mean_dwell_s: 1.0,
            next: &[0.3, 0.4, 0.3, 0.0],
        },
    ],
    start: 0,
    redraw_s: 0.2,
    gaps: Gaps {
        per_s: 0.0,
        min_ms: 0.0,
        max_ms: 0.0,
    },
};

/// Every synthetic model a scenario can name.
pub const PRESETS: &[SyntheticModel] = &[LTE, FIVE_G_WALKING];
