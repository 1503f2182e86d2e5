//! The sending endpoint of a baseline flow (gcc, nada): the rate-based sender with the
//! flow's controller, its tunables set by name.

use super::{build_source, phase};
use crate::endpoint::{Endpoint, FrameClock, MediaStream, Packetization, Placement, RateSender};
use crate::error::SimError;
use crate::rate_control::RateController;
use crate::rate_control::gcc::{Gcc, GccConfig};
use crate::rate_control::nada::{Nada, NadaConfig};
use crate::scenario::{Algorithm, Scenario, StreamConfig};
use scream::Bitrate;
use scream::sender::SenderConfig;

/// The sender of a baseline flow (key `key`, placed by `placement`) with its one stream
/// `st` of global index `global`; `seed` and the flow's `name` draw its frame phase.
pub(super) fn sender(
    s: &Scenario,
    key: &str,
    (seed, name): (u64, &str),
    (st, global): (&StreamConfig, u32),
    placement: Placement,
) -> Result<Endpoint, SimError> {
    let cfg = &s.flows[placement.flow as usize];
    let rate = Bitrate::from_mbps;
    let start_rate =
        rate(st.start_bitrate_mbps).clamp(rate(st.min_bitrate_mbps), rate(st.max_bitrate_mbps));
    let (source, period_ns) = build_source(s, &format!("{key}.source"), &st.source, start_rate)?;
    let offset = phase(
        &st.source,
        period_ns,
        seed,
        &format!("flow/{name}/{}", st.name),
    );
    let (start, stop) = placement.active;
    let media = MediaStream {
        global,
        source,
        clock: FrameClock::new(start + offset, period_ns, stop),
    };
    let err = |param: &str, reason: String| SimError::Param {
        key: format!("{key}.params.{param}"),
        reason,
    };
    let rates = [
        st.min_bitrate_mbps,
        st.start_bitrate_mbps,
        st.max_bitrate_mbps,
    ]
    .map(Bitrate::from_mbps);
    let controller = match cfg.algorithm {
        Algorithm::Nada => {
            let mut c = NadaConfig::default();
            for (param, v) in &cfg.params {
                c.set(param, *v).map_err(|r| err(param, r))?;
            }
            RateController::Nada(Box::new(Nada::new(c, rates, st.source.fps)))
        }
        _ => {
            let mut c = GccConfig::default();
            for (param, v) in &cfg.params {
                c.set(param, *v).map_err(|r| err(param, r))?;
            }
            let estimator = cfg.gcc.unwrap_or_default().estimator;
            RateController::Gcc(Box::new(Gcc::new(c, estimator, rates)))
        }
    };
    // Packets as the SCReAM sender cuts them, so that rates compare packet for packet.
    let scream = SenderConfig::default();
    let sizes = Packetization {
        mss_bytes: scream.mss_bytes,
        overhead_bytes: scream.rtp_overhead_bytes,
    };
    Ok(Endpoint::RateSender(Box::new(RateSender::new(
        controller, media, placement, sizes,
    ))))
}
