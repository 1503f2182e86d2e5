//! `l4s-growth`: while an L4S bottleneck marks, the queue-delay-variation restraint
//! of the window's growth has the floor of the L4S back-off's (see
//! [`crate::sender::Improvements::l4s_growth`]).
//!
//! The restraint makes sense for a delay-based flow, for which a varying queue delay is
//! the congestion signal itself. With L4S marks the marker says when the queue is too
//! long; a delay that varies because the link serves in bursts (cellular schedulers)
//! says nothing about the flow's own share, yet faithfully it cuts the growth to a
//! tenth while each mark still costs a full back-off.

use super::V2Settings;
use crate::sender::config::EcnMode;

/// The bottleneck counts as marking while `l4s_alpha`, the averaged CE fraction, is at
/// least one mark in a thousand packets (the threshold `l4s-pacing` uses too). It
/// decays by 1/128 per 10 ms update, so after the last mark the restraint returns
/// within about 6 s (from 0.1) as the flow falls back on its delay-based control.
const MARKING_MIN_ALPHA: f64 = 0.001;

/// Whether the window's growth takes the L4S back-off's restraint floor.
pub(crate) fn frees_growth(cfg: &V2Settings, l4s_alpha: f64) -> bool {
    cfg.improvements.l4s_growth && cfg.ecn == EcnMode::L4s && l4s_alpha >= MARKING_MIN_ALPHA
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sender::config::SenderConfig;

    fn settings(ecn: EcnMode, on: bool) -> V2Settings {
        let mut cfg = SenderConfig {
            ecn,
            ..SenderConfig::default()
        };
        cfg.improvements.l4s_growth = on;
        V2Settings::of(&cfg)
    }

    #[test]
    fn only_an_l4s_flow_that_sees_marks_with_the_option_on_is_freed() {
        assert!(frees_growth(&settings(EcnMode::L4s, true), 0.05));
        assert!(!frees_growth(&settings(EcnMode::L4s, true), 0.0005));
        assert!(!frees_growth(&settings(EcnMode::L4s, false), 0.05));
        assert!(!frees_growth(&settings(EcnMode::Classic, true), 0.05));
        assert!(!frees_growth(&settings(EcnMode::None, true), 0.05));
    }
}
