//! Sender configuration: every tunable of SCReAM V2 as a documented field.
//!
//! Sections are named by title in draft-ietf-ccwg-rfc8298bis-screamv2-00 (May 2026),
//! because their numbers shift between revisions:
//! §"Constants", §"Network Congestion Control" (reaction to loss, ECN-CE
//! and delay; reference window update; lost packet detection), §"Send Window",
//! §"Packet Pacing", §"Media Rate Control". Where a default differs from the
//! draft's recommendation, the field says why (see also the module docs of
//! [`crate::sender`]).

use crate::time::Duration;
use crate::units::Bitrate;

/// Which congestion signal the sender asks the network for and reacts to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum EcnMode {
    /// Packets are sent Not-ECT; delay and loss are the only signals.
    #[default]
    None,
    /// Packets are sent ECT(0); CE is a classic ECN signal (RFC 3168 reaction).
    Classic,
    /// Packets are sent ECT(1); CE fraction drives an L4S back-off (RFC 9330/9331).
    L4s,
}

/// An invalid configuration value.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("invalid `{field}` = {value}: {reason}")]
pub struct ConfigError {
    /// Name of the offending field.
    pub field: &'static str,
    /// The offending value, as text.
    pub value: String,
    /// What the allowed range is.
    pub reason: String,
}

/// Sender parameters. Start from [`SenderConfig::default`] and change what you need;
/// [`SenderConfig::set_param`] sets any numeric field by its name.
#[derive(Clone, Debug, PartialEq)]
pub struct SenderConfig {
    /// ECN mode. Default [`EcnMode::None`] (delay and loss only).
    pub ecn: EcnMode,
    /// Maximum RTP payload per packet (draft §"Constants" `MSS`), bytes. Default 1000.
    /// Range 100..=65000.
    pub mss_bytes: u32,
    /// RTP header bytes added to every payload in the size the controller accounts for,
    /// bytes. Default 12 (RFC 3550 fixed header). Range 0..=1000.
    pub rtp_overhead_bytes: u32,
    /// Per-packet overhead (RTP 12 + UDP 8 bytes) that the target bitrate discounts so
    /// that the encoder's output plus headers fits the window (reference implementation
    /// `kPacketOverhead`), bytes. Default 20. Range 0..=1000.
    pub packet_overhead_bytes: u32,
    /// RTP queue age above which the queue is discarded and a key frame requested.
    /// Default 1 s (the value the reference simulator gives its video stream).
    /// Range 10 ms..=60 s.
    pub max_rtp_queue_delay: Duration,
    /// Queue delay target (draft §"Constants" `QDELAY_TARGET_LO`): virtual L4S marking sets in
    /// at half of it and reaches 100 % at it. Default 60 ms. Range 1 ms..=1 s.
    pub qdelay_target: Duration,
    /// Minimum reference window (draft §"Constants" `MIN_REF_WND`), bytes. Default 3000.
    /// Range 100..=10^9. The effective minimum is never below two full packets.
    pub min_ref_wnd_bytes: u32,
    /// Reference window before any feedback, bytes. Default 10000 (the reference
    /// simulator's initial window; the draft starts at `MIN_REF_WND`, which would make
    /// the first target far lower than the streams' start bitrates).
    /// Range 100..=10^9.
    pub initial_ref_wnd_bytes: u32,
    /// Reference window scale factor on a loss event (draft §"Constants" `BETA_LOSS`).
    /// Default 0.7. Range (0, 1]; 1 ignores loss.
    pub beta_loss: f64,
    /// Reference window scale factor on a classic ECN-CE event (draft §"Constants"
    /// `BETA_ECN`). Default 0.8. Range (0, 1].
    pub beta_ecn: f64,
    /// EWMA gain of `l4s_alpha`, the averaged CE fraction, when the CE fraction is at or
    /// above it (draft §"Constants" `L4S_AVG_G`). Default 1/8, the reference
    /// implementation's rise gain (the draft recommends 1/16 both ways; with it the
    /// L4S queue p95 in the reference scenario is ~20 % above the reference's).
    /// Range (0, 1].
    pub l4s_avg_g: f64,
    /// EWMA gain of `l4s_alpha` when the CE fraction is below it, so that `l4s_alpha`
    /// rises quickly and decays slowly (reference implementation: up 1/8, down 1/128;
    /// the draft uses `L4S_AVG_G` both ways). Default 1/128 (reference). Range (0, 1].
    pub l4s_avg_g_down: f64,
    /// EWMA gain (on increase) of the averaged queue delay (draft §"Constants"
    /// `QDELAY_AVG_G`). Default 1/4. Range (0, 1].
    pub qdelay_avg_g: f64,
    /// How many RTTs after a congestion event the multiplicative increase stays
    /// restrained (draft §"Constants" `POST_CONGESTION_DELAY_RTT`), RTTs (of at least
    /// `virtual_rtt`). Default 200, the reference implementation's value (draft: 100;
    /// with 100 the window regrows so fast after a capacity recovery that the classic
    /// ECN queue overshoots past the marking threshold). Range 1..=10^5.
    pub post_congestion_delay_rtts: f64,
    /// Fraction of the reference window it may grow by per RTT when far from congestion
    /// (draft §"Constants" `MUL_INCREASE_FACTOR`). Default 0.05, the reference simulator's
    /// value (the draft recommends 0.02; 0.05 reproduces the reference's ramp-up).
    /// Range 0..=1.
    pub mul_increase_factor: f64,
    /// Virtual RTT (draft §"Constants" `VIRTUAL_RTT`): the congestion interval is
    /// `min(virtual_rtt, srtt)`, and window growth is slowed for RTTs below it.
    /// Default 25 ms. Range 1 ms..=1 s.
    pub virtual_rtt: Duration,
    /// Pacing rate relative to the target bitrate (draft §"Constants"
    /// `PACKET_PACING_HEADROOM`). Default 1.5. Range 1..=10.
    pub packet_pacing_headroom: f64,
    /// Minimum pacing rate (draft §"Constants" `RATE_PACE_MIN`), bit/s. Default 50 kbit/s.
    /// Range 1 kbit/s..=10 Gbit/s.
    pub rate_pace_min: Bitrate,
    /// Largest factor by which pacing is relaxed when the total target approaches the
    /// streams' total maximum (reference "relaxed pacing": none below 80 % of the
    /// maximum, full at 100 %). Default 5; 1 disables. Range 1..=100.
    pub relaxed_pacing_max_factor: f64,
    /// Largest factor by which the pacing rate follows frames larger than the average,
    /// or an RTP queue backlog larger than one average frame (reference
    /// `maxAdaptivePacingRateScale`). Default 1.5; 1 disables. Range 1..=10.
    pub max_adaptive_pacing_scale: f64,
    /// How late a caller may poll without losing pacing slots: when
    /// [`super::Sender::poll_transmit`] comes after the [`super::Transmit::At`]
    /// instant it gave, the slots that passed meanwhile, back to at most this long
    /// before `now`, may still be used, and their packets leave back-to-back. A caller
    /// on a coarse timer (1 ms, or 4 ms and worse) thus keeps the pacing rate instead of
    /// sending one packet per wake-up. Not in the draft, which assumes exact timers.
    /// Set it to at least the caller's timer period. Default 10 ms. Range 0..=100 ms;
    /// 0 gives no credit for late polls.
    pub pacing_catch_up: Duration,
    /// How far bytes in flight may exceed the reference window (draft §"Constants"
    /// `REF_WND_OVERHEAD`), the send window's headroom when the queue delay varies.
    /// Default 1.5. Range 1..=10.
    pub ref_wnd_overhead: f64,
    /// Headroom of the send window when the queue delay is steady (reference adaptive
    /// window headroom, `maxWindowHeadroom`). Default 3.0. Range `ref_wnd_overhead`..=10.
    pub ref_wnd_overhead_max: f64,
    /// How far the reference window may grow beyond the recent maximum of bytes in
    /// flight (draft §"Constants" `BYTES_IN_FLIGHT_HEAD_ROOM`). Default 2.0. Range 1..=10.
    pub bytes_in_flight_head_room: f64,
    /// Reordering window (draft §"Network Congestion Control" lost packet detection, RFC 8985 RACK): a packet
    /// is lost once a packet sent more than this later has been acknowledged.
    /// Default 30 ms (reference `kReorderTime`). Range 0..=10 s.
    pub reorder_time: Duration,
    /// A packet still unresolved this long after it was sent is dropped from the bytes
    /// in flight (counted lost, without a back-off), so that lost feedback cannot stall
    /// the sender. Default 1 s. Range 10 ms..=1 h.
    pub in_flight_timeout: Duration,
    /// When media waits and nothing has been sent for this long, every packet still in
    /// flight leaves the bytes in flight (counted lost, without a back-off), so the
    /// send window opens again. After a capacity collapse the packets tail-dropped at
    /// the bottleneck are never reported, because nothing behind them arrives; without
    /// this the sender waits for `in_flight_timeout` with a closed window while its RTP
    /// queue grows. Default 0.5 s (reference `ScreamV2Tx::isOkToTransmit`: 0.5 s after
    /// the last transmission). Range 10 ms..=1 h.
    pub stall_timeout: Duration,
    /// Margin the target bitrate leaves for frame-size variation (reference
    /// implementation divides by 1.1). Default 1.1. Range 1..=10.
    pub frame_size_margin: f64,
    /// Relative change of a stream's target that raises [`super::Event::TargetBitrate`].
    /// Default 0.01 (1 %). Range 0..=1.
    pub target_event_threshold: f64,
    /// Span of the base (minimum one-way) delay history, kept in 10 buckets (draft
    /// §"Network Congestion Control", as in RFC 6817 LEDBAT). Default 600 s. Range 1 s..=1 h.
    pub base_delay_window: Duration,
    /// Opt-in improvements over the faithful algorithm. Default: none.
    pub improvements: super::Improvements,
}

impl Default for SenderConfig {
    fn default() -> Self {
        Self {
            ecn: EcnMode::None,
            mss_bytes: 1000,
            rtp_overhead_bytes: 12,
            packet_overhead_bytes: 20,
            max_rtp_queue_delay: Duration::from_secs(1),
            qdelay_target: Duration::from_millis(60),
            min_ref_wnd_bytes: 3000,
            initial_ref_wnd_bytes: 10_000,
            beta_loss: 0.7,
            beta_ecn: 0.8,
            l4s_avg_g: 1.0 / 8.0,
            l4s_avg_g_down: 1.0 / 128.0,
            qdelay_avg_g: 1.0 / 4.0,
            post_congestion_delay_rtts: 200.0,
            mul_increase_factor: 0.05,
            virtual_rtt: Duration::from_millis(25),
            packet_pacing_headroom: 1.5,
            rate_pace_min: Bitrate::from_kbps(50.0),
            relaxed_pacing_max_factor: 5.0,
            max_adaptive_pacing_scale: 1.5,
            pacing_catch_up: Duration::from_millis(10),
            ref_wnd_overhead: 1.5,
            ref_wnd_overhead_max: 3.0,
            bytes_in_flight_head_room: 2.0,
            reorder_time: Duration::from_millis(30),
            in_flight_timeout: Duration::from_secs(1),
            stall_timeout: Duration::from_millis(500),
            frame_size_margin: 1.1,
            target_event_threshold: 0.01,
            base_delay_window: Duration::from_secs(600),
            improvements: super::Improvements::default(),
        }
    }
}

/// Names accepted by [`SenderConfig::set_param`], in field order.
const PARAM_NAMES: &[&str] = &[
    "mss_bytes",
    "rtp_overhead_bytes",
    "packet_overhead_bytes",
    "max_rtp_queue_delay",
    "qdelay_target",
    "min_ref_wnd_bytes",
    "initial_ref_wnd_bytes",
    "beta_loss",
    "beta_ecn",
    "l4s_avg_g",
    "l4s_avg_g_down",
    "qdelay_avg_g",
    "post_congestion_delay_rtts",
    "mul_increase_factor",
    "virtual_rtt",
    "packet_pacing_headroom",
    "rate_pace_min",
    "relaxed_pacing_max_factor",
    "max_adaptive_pacing_scale",
    "pacing_catch_up",
    "ref_wnd_overhead",
    "ref_wnd_overhead_max",
    "bytes_in_flight_head_room",
    "reorder_time",
    "in_flight_timeout",
    "stall_timeout",
    "frame_size_margin",
    "target_event_threshold",
    "base_delay_window",
];

fn err(field: &'static str, value: impl ToString, reason: &str) -> ConfigError {
    ConfigError {
        field,
        value: value.to_string(),
        reason: reason.to_owned(),
    }
}

fn check_f64(
    field: &'static str,
    v: f64,
    lo: f64,
    hi: f64,
    lo_open: bool,
) -> Result<(), ConfigError> {
    let below = if lo_open { v <= lo } else { v < lo };
    if v.is_nan() || below || v > hi {
        let open = if lo_open { "(" } else { "[" };
        return Err(err(field, v, &format!("must be in {open}{lo}, {hi}]")));
    }
    Ok(())
}

fn check_u32(field: &'static str, v: u32, lo: u32, hi: u32) -> Result<(), ConfigError> {
    if v < lo || v > hi {
        return Err(err(field, v, &format!("must be in [{lo}, {hi}]")));
    }
    Ok(())
}

fn check_dur(
    field: &'static str,
    v: Duration,
    lo: Duration,
    hi: Duration,
) -> Result<(), ConfigError> {
    if v < lo || v > hi {
        return Err(err(
            field,
            format!("{}s", v.as_secs_f64()),
            &format!(
                "must be in [{} s, {} s]",
                lo.as_secs_f64(),
                hi.as_secs_f64()
            ),
        ));
    }
    Ok(())
}

impl SenderConfig {
    /// Checks every field against its allowed range.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let ms = Duration::from_millis;
        let s = Duration::from_secs;
        check_u32("mss_bytes", self.mss_bytes, 100, 65_000)?;
        check_u32("rtp_overhead_bytes", self.rtp_overhead_bytes, 0, 1000)?;
        check_u32("packet_overhead_bytes", self.packet_overhead_bytes, 0, 1000)?;
        check_dur(
            "max_rtp_queue_delay",
            self.max_rtp_queue_delay,
            ms(10),
            s(60),
        )?;
        check_dur("qdelay_target", self.qdelay_target, ms(1), s(1))?;
        check_u32(
            "min_ref_wnd_bytes",
            self.min_ref_wnd_bytes,
            100,
            1_000_000_000,
        )?;
        check_u32(
            "initial_ref_wnd_bytes",
            self.initial_ref_wnd_bytes,
            100,
            1_000_000_000,
        )?;
        check_f64("beta_loss", self.beta_loss, 0.0, 1.0, true)?;
        check_f64("beta_ecn", self.beta_ecn, 0.0, 1.0, true)?;
        check_f64("l4s_avg_g", self.l4s_avg_g, 0.0, 1.0, true)?;
        check_f64("l4s_avg_g_down", self.l4s_avg_g_down, 0.0, 1.0, true)?;
        check_f64("qdelay_avg_g", self.qdelay_avg_g, 0.0, 1.0, true)?;
        check_f64(
            "post_congestion_delay_rtts",
            self.post_congestion_delay_rtts,
            1.0,
            1e5,
            false,
        )?;
        check_f64(
            "mul_increase_factor",
            self.mul_increase_factor,
            0.0,
            1.0,
            false,
        )?;
        check_dur("virtual_rtt", self.virtual_rtt, ms(1), s(1))?;
        check_f64(
            "packet_pacing_headroom",
            self.packet_pacing_headroom,
            1.0,
            10.0,
            false,
        )?;
        check_f64("rate_pace_min", self.rate_pace_min.bps(), 1e3, 1e10, false)?;
        check_f64(
            "relaxed_pacing_max_factor",
            self.relaxed_pacing_max_factor,
            1.0,
            100.0,
            false,
        )?;
        check_f64(
            "max_adaptive_pacing_scale",
            self.max_adaptive_pacing_scale,
            1.0,
            10.0,
            false,
        )?;
        check_dur(
            "pacing_catch_up",
            self.pacing_catch_up,
            Duration::ZERO,
            ms(100),
        )?;
        check_f64("ref_wnd_overhead", self.ref_wnd_overhead, 1.0, 10.0, false)?;
        check_f64(
            "ref_wnd_overhead_max",
            self.ref_wnd_overhead_max,
            self.ref_wnd_overhead.max(1.0),
            10.0,
            false,
        )?;
        check_f64(
            "bytes_in_flight_head_room",
            self.bytes_in_flight_head_room,
            1.0,
            10.0,
            false,
        )?;
        check_dur("reorder_time", self.reorder_time, Duration::ZERO, s(10))?;
        check_dur("in_flight_timeout", self.in_flight_timeout, ms(10), s(3600))?;
        check_dur("stall_timeout", self.stall_timeout, ms(10), s(3600))?;
        check_f64(
            "frame_size_margin",
            self.frame_size_margin,
            1.0,
            10.0,
            false,
        )?;
        check_f64(
            "target_event_threshold",
            self.target_event_threshold,
            0.0,
            1.0,
            false,
        )?;
        check_dur("base_delay_window", self.base_delay_window, s(1), s(3600))?;
        Ok(())
    }

    /// Names of every field [`SenderConfig::set_param`] accepts.
    pub fn param_names() -> &'static [&'static str] {
        PARAM_NAMES
    }

    /// Sets the numeric field called `name` to `value`: durations in seconds, bitrates
    /// in bit/s, byte sizes in bytes (rounded to the nearest integer), ratios as they
    /// are. The value is range-checked like [`SenderConfig::validate`] does; on error the
    /// configuration is unchanged.
    pub fn set_param(&mut self, name: &str, value: f64) -> Result<(), ConfigError> {
        let mut next = self.clone();
        let field = PARAM_NAMES
            .iter()
            .copied()
            .find(|n| *n == name)
            .ok_or_else(|| ConfigError {
                field: "<unknown>",
                value: name.to_owned(),
                reason: format!("unknown parameter; known: {}", PARAM_NAMES.join(", ")),
            })?;
        if !value.is_finite() {
            return Err(err(field, value, "must be a finite number"));
        }
        let bytes = || -> Result<u32, ConfigError> {
            if !(0.0..=f64::from(u32::MAX)).contains(&value) {
                return Err(err(field, value, "must be a byte count in [0, 2^32)"));
            }
            Ok(value.round() as u32)
        };
        let secs = || -> Result<Duration, ConfigError> {
            Duration::try_from_secs_f64(value)
                .map_err(|_| err(field, value, "must be a non-negative number of seconds"))
        };
        match field {
            "mss_bytes" => next.mss_bytes = bytes()?,
            "rtp_overhead_bytes" => next.rtp_overhead_bytes = bytes()?,
            "packet_overhead_bytes" => next.packet_overhead_bytes = bytes()?,
            "max_rtp_queue_delay" => next.max_rtp_queue_delay = secs()?,
            "qdelay_target" => next.qdelay_target = secs()?,
            "min_ref_wnd_bytes" => next.min_ref_wnd_bytes = bytes()?,
            "initial_ref_wnd_bytes" => next.initial_ref_wnd_bytes = bytes()?,
            "beta_loss" => next.beta_loss = value,
            "beta_ecn" => next.beta_ecn = value,
            "l4s_avg_g" => next.l4s_avg_g = value,
            "l4s_avg_g_down" => next.l4s_avg_g_down = value,
            "qdelay_avg_g" => next.qdelay_avg_g = value,
            "post_congestion_delay_rtts" => next.post_congestion_delay_rtts = value,
            "mul_increase_factor" => next.mul_increase_factor = value,
            "virtual_rtt" => next.virtual_rtt = secs()?,
            "packet_pacing_headroom" => next.packet_pacing_headroom = value,
            "rate_pace_min" => next.rate_pace_min = Bitrate::from_bps(value),
            "relaxed_pacing_max_factor" => next.relaxed_pacing_max_factor = value,
            "max_adaptive_pacing_scale" => next.max_adaptive_pacing_scale = value,
            "pacing_catch_up" => next.pacing_catch_up = secs()?,
            "ref_wnd_overhead" => next.ref_wnd_overhead = value,
            "ref_wnd_overhead_max" => next.ref_wnd_overhead_max = value,
            "bytes_in_flight_head_room" => next.bytes_in_flight_head_room = value,
            "reorder_time" => next.reorder_time = secs()?,
            "in_flight_timeout" => next.in_flight_timeout = secs()?,
            "stall_timeout" => next.stall_timeout = secs()?,
            "frame_size_margin" => next.frame_size_margin = value,
            "target_event_threshold" => next.target_event_threshold = value,
            "base_delay_window" => next.base_delay_window = secs()?,
            _ => unreachable!("every name in PARAM_NAMES has an arm"),
        }
        next.validate()?;
        *self = next;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid() {
        assert_eq!(SenderConfig::default().validate(), Ok(()));
    }

    #[test]
    fn every_param_name_sets_its_field() {
        // Reading back through Debug is not possible generically; instead set each field
        // to a value inside its range and check validate still passes and something changed.
        for name in SenderConfig::param_names() {
            let mut c = SenderConfig::default();
            let before = c.clone();
            let probe = match *name {
                "ref_wnd_overhead_max" => 4.0,
                "ref_wnd_overhead" => 1.2,
                "rate_pace_min" => 123_456.0,
                n if n.ends_with("_bytes") => 345.0,
                "post_congestion_delay_rtts" => 7.0,
                "relaxed_pacing_max_factor"
                | "max_adaptive_pacing_scale"
                | "packet_pacing_headroom" => 2.5,
                "bytes_in_flight_head_room" | "frame_size_margin" => 1.7,
                "base_delay_window" => 30.0,
                "max_rtp_queue_delay" | "in_flight_timeout" => 0.5,
                "stall_timeout" => 0.25,
                "pacing_catch_up" => 0.05,
                _ => 0.3,
            };
            c.set_param(name, probe)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_ne!(c, before, "{name} did not change anything");
        }
    }

    #[test]
    fn set_param_uses_seconds_and_bits_per_second() {
        let mut c = SenderConfig::default();
        c.set_param("qdelay_target", 0.1).unwrap();
        assert_eq!(c.qdelay_target, Duration::from_millis(100));
        c.set_param("rate_pace_min", 2e5).unwrap();
        assert_eq!(c.rate_pace_min, Bitrate::from_kbps(200.0));
        c.set_param("mss_bytes", 1200.0).unwrap();
        assert_eq!(c.mss_bytes, 1200);
    }

    #[test]
    fn unknown_name_and_out_of_range_are_rejected_without_change() {
        let mut c = SenderConfig::default();
        let e = c.set_param("no_such_thing", 1.0).unwrap_err();
        assert!(e.reason.contains("unknown"));
        let e = c.set_param("beta_loss", 1.5).unwrap_err();
        assert_eq!(e.field, "beta_loss");
        assert!(e.reason.contains("(0, 1]"));
        let e = c.set_param("qdelay_target", -1.0).unwrap_err();
        assert_eq!(e.field, "qdelay_target");
        assert_eq!(c, SenderConfig::default());
    }

    #[test]
    fn validate_names_the_field_and_range() {
        let c = SenderConfig {
            mss_bytes: 10,
            ..SenderConfig::default()
        };
        let e = c.validate().unwrap_err();
        assert_eq!(e.field, "mss_bytes");
        assert_eq!(e.value, "10");
        assert!(e.reason.contains("[100, 65000]"));
    }
}
