//! The sending endpoint of a baseline flow (gcc, nada): the rate-based sender with the
//! flow's streams and one controller for the flow, its tunables set by name.

use super::{build_source, pauses, phase};
use crate::endpoint::{
    Endpoint, FrameClock, MediaStream, Packetization, Placement, RateSender, RtpStream,
    StreamLimits,
};
use crate::error::SimError;
use crate::scenario::{Algorithm, Scenario, StreamConfig};
use scream::Bitrate;
use scream::sender::SenderConfig;
use scream_traffic::rate_control::RateController;
use scream_traffic::rate_control::gcc::{Gcc, GccConfig};
use scream_traffic::rate_control::nada::{Nada, NadaConfig};

/// One stream of a baseline flow as the builder hands it over: its configuration, its
/// global index, its SSRC and the key its source is configured under.
pub(super) struct StreamSpec<'a> {
    pub(super) config: &'a StreamConfig,
    pub(super) global: u32,
    pub(super) ssrc: u32,
    pub(super) source_key: String,
}

/// The sender of a baseline flow (key `key`, placed by `placement`) with its streams;
/// `seed` and the flow's `name` draw each stream's frame phase.
pub(super) fn sender(
    s: &Scenario,
    key: &str,
    (seed, name): (u64, &str),
    specs: &[StreamSpec<'_>],
    placement: Placement,
) -> Result<Endpoint, SimError> {
    let cfg = &s.flows[placement.flow as usize];
    let rate = Bitrate::from_mbps;
    let (start, stop) = placement.active;
    let mut streams = Vec::with_capacity(specs.len());
    // The controller runs the flow: its range and start are the streams' summed.
    let mut flow_rates = [Bitrate::ZERO; 3];
    let mut fps: f64 = 0.0;
    for spec in specs {
        let st = spec.config;
        let [min, max] = [st.min_bitrate_mbps, st.max_bitrate_mbps].map(rate);
        let start_rate = rate(st.start_bitrate_mbps).clamp(min, max);
        let (source, period_ns) = build_source(s, &spec.source_key, &st.source, start_rate)?;
        let offset = phase(
            &st.source,
            period_ns,
            seed,
            &format!("flow/{name}/{}", st.name),
        );
        let media = MediaStream {
            global: spec.global,
            source,
            clock: FrameClock::new(start + offset, period_ns, stop)
                .with_pauses(pauses(&cfg.pauses)),
        };
        let limits = StreamLimits {
            priority: st.priority,
            min,
            max,
        };
        streams.push(RtpStream::new(media, spec.ssrc, limits));
        let rates = [
            st.min_bitrate_mbps,
            st.start_bitrate_mbps,
            st.max_bitrate_mbps,
        ]
        .map(rate);
        for (sum, r) in flow_rates.iter_mut().zip(rates) {
            *sum = *sum + r;
        }
        // NADA drains its rate-shaping buffer within a frame interval (RFC 8698
        // §5.2.2): the shortest interval among the streams, so no stream's frames wait
        // behind a slower one's.
        fps = fps.max(st.source.fps);
    }
    let err = |param: &str, reason: String| SimError::Param {
        key: format!("{key}.params.{param}"),
        reason,
    };
    let controller = match cfg.algorithm {
        Algorithm::Nada => {
            let mut c = NadaConfig::default();
            for (param, v) in &cfg.params {
                c.set(param, *v).map_err(|r| err(param, r))?;
            }
            RateController::Nada(Box::new(Nada::new(c, flow_rates, fps)))
        }
        _ => {
            let options = cfg.gcc.unwrap_or_default();
            // The variant sets the defaults; `params` overrides them by name.
            let mut c = GccConfig::for_variant(options.variant);
            for (param, v) in &cfg.params {
                c.set(param, *v).map_err(|r| err(param, r))?;
            }
            RateController::Gcc(Box::new(Gcc::new(
                c,
                options.estimator(),
                options.variant,
                flow_rates,
            )))
        }
    };
    // Packets as the SCReAM sender cuts them, so that rates compare packet for packet.
    let scream = SenderConfig::default();
    let sizes = Packetization {
        mss_bytes: scream.mss_bytes,
        overhead_bytes: scream.rtp_overhead_bytes,
    };
    Ok(Endpoint::RateSender(Box::new(RateSender::new(
        controller, streams, placement, sizes,
    ))))
}
