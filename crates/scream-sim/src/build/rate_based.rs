//! The sending endpoint of a baseline flow (gcc, nada): the rate-based sender with the
//! flow's controller, its tunables set by name.

use crate::endpoint::{Endpoint, MediaStream, Packetization, Placement, RateSender};
use crate::error::SimError;
use crate::rate_control::RateController;
use crate::rate_control::gcc::{Gcc, GccConfig};
use crate::rate_control::nada::{Nada, NadaConfig};
use crate::scenario::{Algorithm, FlowConfig, StreamConfig};
use scream::Bitrate;
use scream::sender::SenderConfig;

/// The sender of baseline flow `cfg` (key `key`) with its one stream `st`.
pub(super) fn sender(
    cfg: &FlowConfig,
    key: &str,
    st: &StreamConfig,
    media: MediaStream,
    placement: Placement,
) -> Result<Endpoint, SimError> {
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
