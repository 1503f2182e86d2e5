//! SCReAM V2 media rate control (draft §"Media Rate Control"): the total target bitrate is the
//! reference window per smoothed RTT, with the corrections of the draft and the
//! reference implementation.

use super::V2Settings;
use crate::time::Duration;
use crate::units::Bitrate;

/// sRTT is padded by 1 ms: coarse clocks make it rather too small than too large, and
/// an underestimate inflates the rate (reference implementation).
const SRTT_PAD: Duration = Duration::from_millis(1);
/// sRTT used by the rate is kept in [1 ms, 200 ms] (reference implementation).
const SRTT_MIN: Duration = Duration::from_millis(1);
const SRTT_MAX: Duration = Duration::from_millis(200);
/// Windows of only a few packets make the rate jumpy; from `mss/ref_wnd` above 0.1 the
/// rate is scaled down, by at most 20 % (draft §"Media Rate Control"; reference limits to 0.2).
const SMALL_WINDOW_RATIO: f64 = 0.1;
const SMALL_WINDOW_MAX_CUT: f64 = 0.2;

/// `8 · ref_wnd / s_rtt`, scaled down for small windows, for frame-size variation and
/// for per-packet overhead.
pub(crate) fn total_target(
    cfg: &V2Settings,
    ref_wnd_bytes: u64,
    srtt: Duration,
    mss: u64,
) -> Bitrate {
    let rtt = (srtt + SRTT_PAD).clamp(SRTT_MIN, SRTT_MAX);
    let (wnd, mss) = (ref_wnd_bytes.max(1) as f64, mss.max(1) as f64);
    let mut bps = 8.0 * wnd / rtt.as_secs_f64();
    let ratio = mss / wnd;
    bps *= 1.0 - (ratio - SMALL_WINDOW_RATIO).clamp(0.0, SMALL_WINDOW_MAX_CUT);
    bps /= cfg.frame_size_margin;
    bps *= mss / (mss + f64::from(cfg.packet_overhead_bytes));
    Bitrate::from_bps(bps)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sender::config::SenderConfig;

    #[test]
    fn target_is_window_per_rtt_with_corrections() {
        let mut c = SenderConfig {
            packet_overhead_bytes: 0,
            ..SenderConfig::default()
        };
        c.set_param("frame_size_margin", 1.0).unwrap();
        let cfg = V2Settings::of(&c);
        // 50 kB per 49 + 1 ms = 8 Mbit/s.
        let r = total_target(&cfg, 50_000, Duration::from_millis(49), 1000);
        assert!((r.mbps() - 8.0).abs() < 1e-9, "{r}");
        // A window of two packets (ratio 0.5) is cut by the maximum 20 %.
        let r = total_target(&cfg, 2000, Duration::from_millis(49), 1000);
        assert!((r.kbps() - 320.0 * 0.8).abs() < 1e-6, "{r}");
        let cfg = V2Settings::of(&SenderConfig::default());
        let r = total_target(&cfg, 50_000, Duration::from_millis(49), 1000);
        assert!((r.mbps() - 8.0 / 1.1 * 1000.0 / 1020.0).abs() < 1e-9, "{r}");
    }
}
