//! `l4s-bursty`: an L4S flow behind a link that serves in bursts keeps the share its
//! marks allow (see [`crate::sender::Improvements::l4s_bursty`]).
//!
//! Two estimates of the faithful V2 read a cellular scheduler's silences as the flow's
//! own congestion:
//! - the queue-delay variation that restrains the window's growth is measured per
//!   packet, and a silence makes the packets that arrive during it wait while the
//!   others pass: with the option it is measured on the standing queue (the minimum
//!   queue delay of each round trip, `delay::standing`);
//! - `l4s_alpha` rises with gain 1/8 and decays with 1/128 (the reference's), which
//!   for marks spread evenly over the packets settles near the marked fraction, but a
//!   marker that marks the packets of each silence together marks whole 10 ms update
//!   windows and leaves the others clean: with a fraction `p` of the windows marked
//!   this average settles near `16p / (1 + 15p)`, 0.58 for `p = 0.08`, against a
//!   marked fraction of 0.08. With the option it averages with the draft's
//!   `L4S_AVG_G` both ways, which settles on the marked fraction whatever its
//!   clustering, as DCTCP's `alpha` does (RFC 8257 §3.3, g = 1/16).

use super::V2Settings;
use crate::sender::config::EcnMode;
use crate::sender::generation::contract::Measurements;

/// `L4S_AVG_G` of the draft (§"Constants"), DCTCP's `g` (RFC 8257 §4.2: 1/16).
const L4S_AVG_G: f64 = 1.0 / 16.0;

fn on(cfg: &V2Settings) -> bool {
    cfg.improvements.l4s_bursty && cfg.ecn == EcnMode::L4s
}

/// The queue-delay steadiness that restrains the window's growth: per packet
/// (faithful), or of the standing queue for an L4S flow with `l4s-bursty`.
pub(crate) fn growth_steadiness(cfg: &V2Settings, m: &Measurements) -> f64 {
    if on(cfg) {
        m.standing_steadiness
    } else {
        m.steadiness
    }
}

/// The gains of `l4s_alpha` when the CE fraction is above and below it.
pub(crate) fn alpha_gains(cfg: &V2Settings) -> (f64, f64) {
    if on(cfg) {
        (L4S_AVG_G, L4S_AVG_G)
    } else {
        (cfg.l4s_avg_g, cfg.l4s_avg_g_down)
    }
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
        cfg.improvements.l4s_bursty = on;
        V2Settings::of(&cfg)
    }

    #[test]
    fn only_an_l4s_flow_with_the_option_on_changes_its_estimates() {
        let faithful = settings(EcnMode::L4s, false);
        let faithful_gains = (faithful.l4s_avg_g, faithful.l4s_avg_g_down);
        assert_eq!(alpha_gains(&faithful), faithful_gains);
        assert_eq!(
            alpha_gains(&settings(EcnMode::L4s, true)),
            (L4S_AVG_G, L4S_AVG_G)
        );
        for ecn in [EcnMode::None, EcnMode::Classic] {
            let s = settings(ecn, true);
            assert_eq!(alpha_gains(&s), (s.l4s_avg_g, s.l4s_avg_g_down));
        }
    }
}
