//! The sender element's properties as the library's configuration: which generation,
//! which ECN codepoint, the stream's bitrate limits and `set_param` overrides, each
//! checked with a message that names the property, the value and what is allowed.

use scream::Bitrate;
use scream::sender::{EcnMode, GENERATION_NAMES, Improvements, SenderConfig, StreamConfig};

/// The generation whose defaults include the real-network improvements, as
/// `scream send` runs it.
const IMPROVED_GENERATION: &str = "scream-v2";
/// Highest bitrate limit, kbit/s (the library's 100 Gbit/s).
pub(crate) const MAX_KBPS: u32 = 100_000_000;

/// What `screamsend` is configured with, before it starts.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SendSettings {
    pub(crate) host: String,
    pub(crate) port: u32,
    pub(crate) local_port: u32,
    pub(crate) generation: String,
    pub(crate) ecn: String,
    pub(crate) faithful: bool,
    pub(crate) min_kbps: u32,
    pub(crate) start_kbps: u32,
    pub(crate) max_kbps: u32,
    pub(crate) params: String,
    pub(crate) ssrc: u32,
    pub(crate) encoder: String,
    pub(crate) bitrate_property: String,
    pub(crate) bitrate_unit: String,
    pub(crate) stats_interval_ms: u32,
}

impl Default for SendSettings {
    fn default() -> Self {
        Self {
            host: "127.0.0.1".into(),
            port: 5000,
            local_port: 0,
            generation: IMPROVED_GENERATION.into(),
            ecn: "l4s".into(),
            faithful: false,
            min_kbps: 150,
            start_kbps: 1000,
            max_kbps: 10_000,
            params: String::new(),
            ssrc: 0,
            encoder: String::new(),
            bitrate_property: String::new(),
            bitrate_unit: "kbit/s".into(),
            stats_interval_ms: 1000,
        }
    }
}

/// The ECN mode named `name` (property `ecn`).
pub(crate) fn ecn_mode(name: &str) -> Result<EcnMode, String> {
    match name {
        "l4s" => Ok(EcnMode::L4s),
        "classic" => Ok(EcnMode::Classic),
        "none" => Ok(EcnMode::None),
        _ => Err(format!(
            "ecn = `{name}`: expected one of l4s (ECT(1)), classic (ECT(0)), none (Not-ECT)"
        )),
    }
}

impl SendSettings {
    /// The library sender's configuration.
    pub(crate) fn sender_config(&self) -> Result<SenderConfig, String> {
        let base = SenderConfig::for_generation(&self.generation).ok_or_else(|| {
            format!(
                "generation = `{}`: expected one of {}",
                self.generation,
                GENERATION_NAMES.join(", ")
            )
        })?;
        // As `scream send`: SCReAM V2 with the library's improvements for real
        // networks unless `faithful`; the older generations as published.
        let improvements = if self.faithful || self.generation != IMPROVED_GENERATION {
            Improvements::default()
        } else {
            Improvements::real_network()
        };
        let mut cfg = SenderConfig {
            ecn: ecn_mode(&self.ecn)?,
            improvements,
            ..base
        };
        for item in self
            .params
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
        {
            let (name, value) = item
                .split_once('=')
                .ok_or_else(|| format!("params: `{item}`: expected NAME=VALUE"))?;
            let v: f64 = value
                .trim()
                .parse()
                .map_err(|_| format!("params: `{item}`: `{}` is not a number", value.trim()))?;
            cfg.set_param(name.trim(), v)
                .map_err(|e| format!("params: `{item}`: {e}"))?;
        }
        cfg.validate().map_err(|e| format!("params: {e}"))?;
        Ok(cfg)
    }

    /// The stream's configuration, with RTP SSRC `ssrc`.
    pub(crate) fn stream_config(&self, ssrc: u32) -> Result<StreamConfig, String> {
        let (min, start, max) = (self.min_kbps, self.start_kbps, self.max_kbps);
        for (name, v) in [
            ("min-bitrate", min),
            ("start-bitrate", start),
            ("max-bitrate", max),
        ] {
            if v == 0 || v > MAX_KBPS {
                return Err(format!("{name} = {v} kbit/s: must be in [1, {MAX_KBPS}]"));
            }
        }
        if !(min <= start && start <= max) {
            return Err(format!(
                "min-bitrate ({min}) <= start-bitrate ({start}) <= max-bitrate ({max}) kbit/s \
                 must hold"
            ));
        }
        let kbps = |v: u32| Bitrate::from_bps(f64::from(v) * 1000.0);
        Ok(StreamConfig {
            ssrc,
            min_bitrate: kbps(min),
            start_bitrate: kbps(start),
            max_bitrate: kbps(max),
            priority: 1.0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_scream_v2_l4s_with_real_network_improvements() {
        let cfg = SendSettings::default().sender_config().expect("valid");
        assert_eq!(cfg.ecn, EcnMode::L4s);
        assert_eq!(cfg.improvements, Improvements::real_network());
        let faithful = SendSettings {
            faithful: true,
            ..SendSettings::default()
        };
        let cfg = faithful.sender_config().expect("valid");
        assert_eq!(cfg.improvements, Improvements::default());
    }

    #[test]
    fn params_are_set_by_name() {
        let s = SendSettings {
            params: "mss_bytes=1200, max_rtp_queue_delay=0.5".into(),
            ..SendSettings::default()
        };
        let cfg = s.sender_config().expect("valid");
        assert_eq!(cfg.mss_bytes, 1200);
        assert_eq!(cfg.max_rtp_queue_delay.as_secs_f64(), 0.5);
    }

    #[test]
    fn bad_values_name_the_property_and_the_allowed_values() {
        let bad = |s: SendSettings| s.sender_config().expect_err("invalid");
        let e = bad(SendSettings {
            generation: "scream-v9".into(),
            ..SendSettings::default()
        });
        assert!(
            e.starts_with("generation = `scream-v9`: expected one of scream-v2"),
            "{e}"
        );
        let e = bad(SendSettings {
            ecn: "ect2".into(),
            ..SendSettings::default()
        });
        assert!(e.starts_with("ecn = `ect2`"), "{e}");
        let e = bad(SendSettings {
            params: "mss_bytes".into(),
            ..SendSettings::default()
        });
        assert!(e.contains("expected NAME=VALUE"), "{e}");
        let e = bad(SendSettings {
            params: "no_such_param=1".into(),
            ..SendSettings::default()
        });
        assert!(e.starts_with("params: `no_such_param=1`: "), "{e}");
    }

    #[test]
    fn bitrate_limits_must_be_ordered_and_in_range() {
        let s = SendSettings {
            min_kbps: 2000,
            start_kbps: 1000,
            ..SendSettings::default()
        };
        let e = s.stream_config(1).expect_err("out of order");
        assert!(e.contains("must hold"), "{e}");
        let s = SendSettings {
            min_kbps: 0,
            ..SendSettings::default()
        };
        let e = s.stream_config(1).expect_err("zero");
        assert!(
            e.starts_with("min-bitrate = 0 kbit/s: must be in [1, "),
            "{e}"
        );
        let ok = SendSettings::default().stream_config(9).expect("valid");
        assert_eq!((ok.ssrc, ok.start_bitrate.bps()), (9, 1e6));
    }
}
