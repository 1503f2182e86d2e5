//! `scream send`: a real-time SCReAM sender of modelled video over UDP.

use std::hash::{BuildHasher, Hasher};
use std::net::SocketAddr;
use std::sync::Arc;

use scream::sender::{EcnMode, Improvements, MediaFrame, Sender, SenderConfig, StreamConfig};
use scream::{Bitrate, Duration, Instant};
use scream_net::{Clock, Encoder, MediaSender, MediaSenderConfig};
use scream_records::Sample;
use scream_traffic::source::{Video, load_frame_sizes};

use super::output::{RunFiles, Series};
use super::{SEND_DEFAULT_DURATION_S, any_addr_for, mbps, parse_addr, say};

/// A sender that heard no feedback at all for this long says so on stderr (once): a
/// receiver on loopback or a LAN answers within milliseconds, and even a link with a
/// long queue within a second or two.
const NO_FEEDBACK_WARN_S: f64 = 3.0;

/// Arguments of `scream send`.
#[derive(Debug, clap::Args)]
pub(crate) struct SendArgs {
    /// Where the RTP goes (a receiver, or a link emulator in front of one): HOST:PORT.
    #[arg(long)]
    to: String,
    /// Local address to send from (default: any address, any port).
    #[arg(long)]
    bind: Option<String>,
    /// ECN: `l4s` (ECT(1), L4S reaction to CE), `classic` (ECT(0), RFC 3168 reaction)
    /// or `none` (Not-ECT; delay and loss only).
    #[arg(long, default_value = "none")]
    ecn: String,
    /// Frame sizes from a trace file (one size in bytes per line, or `builtin:NAME`),
    /// scaled to the target bitrate as in the simulator. A file may hold at most 16 MiB,
    /// and a line at most 1024 bytes.
    #[arg(long, conflicts_with = "constant")]
    video: Option<String>,
    /// Frames of constant size at the target bitrate (the default).
    #[arg(long)]
    constant: bool,
    /// Frames per second.
    #[arg(long, default_value_t = 50.0)]
    fps: f64,
    /// Lowest target bitrate, Mbit/s.
    #[arg(long, default_value_t = 0.1)]
    min_rate: f64,
    /// Initial target bitrate, Mbit/s.
    #[arg(long, default_value_t = 1.0)]
    start_rate: f64,
    /// Highest target bitrate, Mbit/s.
    #[arg(long, default_value_t = 20.0)]
    max_rate: f64,
    #[arg(long, default_value = "scream-v2", help = generation_help())]
    generation: String,
    #[arg(long, value_delimiter = ',', value_name = "LIST", help = improvements_help())]
    improvements: Option<Vec<String>>,
    /// Run the faithful algorithm, as the draft and the reference implementation have
    /// it, without any improvement (the same as `--improvements none`).
    #[arg(long, conflicts_with = "improvements")]
    faithful: bool,
    /// Set a sender parameter by name (see `scream params`): `--set mss_bytes=1200`.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    set: Vec<String>,
    /// RTP SSRC (default: random). The Ericsson reference's receiver reports every
    /// packet as SSRC 100 (0x64), so talking to it needs `--ssrc 100`.
    #[arg(long)]
    ssrc: Option<u32>,
    /// First RTP sequence number. RFC 3550 §5.1 recommends a random one; the
    /// Ericsson reference's receiver expects one near 0, hence the default.
    #[arg(long, default_value_t = 0)]
    initial_seq: u16,
    /// A file holding a key shared with the receiver, 16 to 64 bytes written as 32 to
    /// 128 hex digits: feedback is taken only when sealed with it (keyed HMAC-SHA-256;
    /// docs/real-network.md). The receiver needs the same key; no other RFC 8888 peer
    /// writes sealed feedback.
    #[arg(long, value_name = "FILE")]
    feedback_key: Option<std::path::PathBuf>,
    #[command(flatten)]
    run: super::RunArgs,
}

/// The simulator's video model as the sender's encoder, counting frame sizes for the
/// time series.
struct ModelEncoder {
    video: Video,
    frame_bytes: u64,
    frames: u64,
}

impl Encoder for ModelEncoder {
    fn next_frame(&mut self) -> MediaFrame {
        let f = self.video.next_frame();
        self.frame_bytes += u64::from(f.size_bytes);
        self.frames += 1;
        f
    }
    fn set_target(&mut self, bitrate: Bitrate) {
        self.video.set_target(bitrate);
    }
    fn request_key_frame(&mut self) {
        self.video.request_key_frame();
    }
}

fn ecn_mode(text: &str) -> Result<EcnMode, String> {
    match text {
        "l4s" => Ok(EcnMode::L4s),
        "classic" => Ok(EcnMode::Classic),
        "none" => Ok(EcnMode::None),
        _ => Err(format!("--ecn {text}: expected l4s, classic or none")),
    }
}

/// A random 32-bit value (RFC 3550 §8.1 wants the SSRC random) from the standard
/// library's per-process hash keys.
fn random_u32() -> u32 {
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(u64::from(std::process::id()));
    (h.finish() >> 16) as u32
}

/// The generation the real-network default improvements belong to (the library's
/// improvements are SCReAM V2's; the older generations are there to reproduce
/// published results and run as they were).
const IMPROVED_GENERATION: &str = "scream-v2";

/// `--improvements`' help, naming the default set as the library declares it.
fn generation_help() -> String {
    format!(
        "Sender generation: {}",
        scream::sender::GENERATION_NAMES.join(", ")
    )
}

fn improvements_help() -> String {
    format!(
        "Sender improvements, comma-separated: names from docs/scenarios.md, `all` or \
         `none`. Default with {IMPROVED_GENERATION}: {} (the library's set for real \
         networks: without `fresh-srtt` a call that competing traffic squeezed to its \
         minimum can stay there for tens of seconds after the link empties); none with \
         the other generations. `--faithful` runs the algorithm as the draft and the \
         reference implementation have it",
        Improvements::real_network().enabled().join(",")
    )
}

/// The improvements the sender runs with: `--faithful`, `--improvements`, or the
/// default for the generation.
fn improvements(args: &SendArgs) -> Result<Improvements, String> {
    let Some(names) = &args.improvements else {
        let default = if args.faithful || args.generation != IMPROVED_GENERATION {
            Improvements::default()
        } else {
            Improvements::real_network()
        };
        return Ok(default);
    };
    let mut improvements = Improvements::default();
    for name in names {
        match name.as_str() {
            "all" => improvements = Improvements::all(),
            "none" => improvements = Improvements::default(),
            _ => improvements
                .set(name, true)
                .map_err(|e| format!("--improvements {name}: {e} (or `all`, `none`)"))?,
        }
    }
    Ok(improvements)
}

fn sender_config(args: &SendArgs) -> Result<SenderConfig, String> {
    let base = SenderConfig::for_generation(&args.generation).ok_or_else(|| {
        format!(
            "--generation {}: expected one of {}",
            args.generation,
            scream::sender::GENERATION_NAMES.join(", ")
        )
    })?;
    let improvements = improvements(args)?;
    let mut cfg = SenderConfig {
        ecn: ecn_mode(&args.ecn)?,
        improvements,
        ..base
    };
    for kv in &args.set {
        let (name, value) = kv
            .split_once('=')
            .ok_or_else(|| format!("--set {kv}: expected NAME=VALUE"))?;
        let v: f64 = value
            .trim()
            .parse()
            .map_err(|_| format!("--set {kv}: `{value}` is not a number"))?;
        cfg.set_param(name.trim(), v)
            .map_err(|e| format!("--set {kv}: {e}"))?;
    }
    cfg.validate().map_err(|e| e.to_string())?;
    Ok(cfg)
}

fn encoder(args: &SendArgs, start: Bitrate) -> Result<ModelEncoder, String> {
    let video = match &args.video {
        Some(spec) => Video::from_trace(
            load_frame_sizes(spec, None).map_err(|e| format!("--video: {e}"))?,
            args.fps,
            start,
            0.0,
        ),
        None => Video::constant(args.fps, start, 0.0),
    };
    Ok(ModelEncoder {
        video,
        frame_bytes: 0,
        frames: 0,
    })
}

/// `--min-rate`, `--start-rate` and `--max-rate`, each in range and in order.
fn rates(args: &SendArgs) -> Result<(Bitrate, Bitrate, Bitrate), String> {
    let rate = |flag: &str, v: f64| {
        if v.is_finite() && v > 0.0 && v <= 100_000.0 {
            Ok(Bitrate::from_mbps(v))
        } else {
            Err(format!("{flag} {v}: must be in (0, 100000] Mbit/s"))
        }
    };
    let (min, start, max) = (
        rate("--min-rate", args.min_rate)?,
        rate("--start-rate", args.start_rate)?,
        rate("--max-rate", args.max_rate)?,
    );
    if !(min.bps() <= start.bps() && start.bps() <= max.bps()) {
        return Err("--min-rate <= --start-rate <= --max-rate must hold".into());
    }
    Ok((min, start, max))
}

/// The line that opens the run: where from and to, which algorithm with which
/// improvements, and for how long.
fn start_line(
    args: &SendArgs,
    tx: &MediaSender<ModelEncoder>,
    (local, peer): (SocketAddr, SocketAddr),
    ssrc: u32,
) -> String {
    let improved = tx.sender().config().improvements.enabled();
    let improved = if improved.is_empty() {
        "faithful".to_owned()
    } else {
        format!("improvements {}", improved.join(","))
    };
    format!(
        "sending from {local} to {peer}: SSRC {ssrc:#010x}, {} ({improved}), ECN {}, {}",
        args.generation,
        args.ecn,
        args.run.length(Some(SEND_DEFAULT_DURATION_S))
    )
}

/// Cumulative figures at the previous sample, to difference.
#[derive(Default)]
struct Last {
    t: f64,
    bytes: u64,
    acked: u64,
    ce: u64,
    lost: u64,
    frame_bytes: u64,
    frames: u64,
    printed_s: u64,
}

pub(crate) fn main(args: &SendArgs) -> Result<String, String> {
    let peer = parse_addr("--to", &args.to)?;
    let bind = match &args.bind {
        Some(b) => parse_addr("--bind", b)?,
        None => any_addr_for(peer),
    };
    let (min, start, max) = rates(args)?;
    let interval = args.run.interval()?;
    let mut sender = Sender::new(sender_config(args)?).map_err(|e| e.to_string())?;
    let ssrc = args.ssrc.unwrap_or_else(random_u32);
    let stream = sender
        .add_stream_with_initial_seq(
            StreamConfig {
                ssrc,
                min_bitrate: min,
                start_bitrate: start,
                max_bitrate: max,
                priority: 1.0,
            },
            args.initial_seq,
        )
        .map_err(|e| e.to_string())?;
    let encoder = encoder(args, start)?;
    let stop = args.run.start()?;
    let clock = Clock::start();
    let until = args.run.end(&clock, Some(SEND_DEFAULT_DURATION_S))?;
    let cfg = MediaSenderConfig {
        peer,
        bind,
        fps: args.fps,
        feedback_key: super::feedback_key(args.feedback_key.as_deref())?,
    };
    let mut tx = MediaSender::new(cfg, clock, (sender, stream), encoder)
        .map_err(|e| format!("cannot start the sender: {e}"))?;
    tx.stop_on(stop)
        .map_err(|e| format!("cannot start the sender: {e}"))?;
    let local = tx.local_addr().map_err(|e| e.to_string())?;
    say(&start_line(args, &tx, (local, peer), ssrc));
    let (flow, name): (Arc<str>, Arc<str>) = ("send".into(), "video".into());
    let mut samples = Series::new();
    let mut last = Last::default();
    let mut warned = false;
    let run = tx.run(until, interval, |now, tx| {
        let row = sample(now, tx, &mut last, (&flow, &name));
        if now.as_secs_f64() as u64 > last.printed_s {
            last.printed_s = now.as_secs_f64() as u64;
            say(&line(&row, tx));
        }
        if !warned && tx.counters().feedback == 0 && row.t_s >= NO_FEEDBACK_WARN_S {
            warned = true;
            super::warning(&format!(
                "no feedback from {peer} in {NO_FEEDBACK_WARN_S} s: is a receiver \
                 (`scream recv`, or a link in front of one) listening there?"
            ));
        }
        samples.push(row);
    });
    let end = run.map_err(|e| format!("the sender stopped: {e}"))?;
    // The time of the last report, kept or not.
    let secs = last.t;
    let stopped_by = super::ended(end, secs);
    let summary = summary(&tx, &samples, (peer, ssrc), args, secs, stopped_by);
    let text = args.run.finish(RunFiles {
        title: "scream send",
        samples: samples.rows(),
        link_samples: &[],
        summary,
        max_bitrate_mbps: Some(args.max_rate),
        no_plots: false,
    })?;
    if tx.counters().feedback > 0 {
        return Ok(text);
    }
    // The outputs are written (they show what was sent); the status says the call failed.
    super::print_now(&text);
    Err(format!(
        "no feedback from {peer} in the whole run ({secs:.1} s): nothing answered at \
         --to {}; start `scream recv` there (or `scream link` in front of one) first",
        args.to
    ))
}

fn sample(
    now: Instant,
    tx: &MediaSender<ModelEncoder>,
    last: &mut Last,
    (flow, stream): (&Arc<str>, &Arc<str>),
) -> Sample {
    let s = tx.sender().stats();
    let c = tx.counters();
    let t = now.as_secs_f64();
    let dt = t - last.t;
    let enc = tx.encoder();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let row = Sample {
        t_s: t,
        flow: flow.clone(),
        stream: stream.clone(),
        flow_index: 0,
        stream_index: 0,
        target_mbps: Some(s.target_bitrate.mbps()),
        tx_mbps: mbps(c.bytes - last.bytes, dt),
        rx_mbps: s.rate_acked.mbps(),
        acked_mbps: Some(s.rate_acked.mbps()),
        ref_window_bytes: Some(s.window_bytes as f64),
        bytes_in_flight: Some(s.bytes_in_flight as f64),
        srtt_ms: Some(ms(s.srtt)),
        est_queue_delay_ms: Some(ms(s.queue_delay)),
        sojourn_ms: None,
        rtp_queue_delay_ms: s.streams.first().map(|st| ms(st.rtp_queue_delay)),
        frame_size_bytes: (enc.frames > last.frames).then(|| {
            (enc.frame_bytes - last.frame_bytes) as f64 / (enc.frames - last.frames) as f64
        }),
        rx_packets: s.packets_acked - last.acked,
        ce_packets: s.packets_ce - last.ce,
        ce_packets_total: s.packets_ce,
        lost_packets: s.packets_lost - last.lost,
        lost_packets_total: s.packets_lost,
        capacity_mbps: f64::INFINITY,
    };
    *last = Last {
        t,
        bytes: c.bytes,
        acked: s.packets_acked,
        ce: s.packets_ce,
        lost: s.packets_lost,
        frame_bytes: enc.frame_bytes,
        frames: enc.frames,
        printed_s: last.printed_s,
    };
    row
}

fn line(row: &Sample, tx: &MediaSender<ModelEncoder>) -> String {
    let c = tx.counters();
    let o = |v: Option<f64>| v.unwrap_or(f64::NAN);
    format!(
        "{:7.1} s  target {:7.2}  sent {:7.2}  acked {:7.2} Mbit/s  window {:6.0} kB  \
         in flight {:6.0} kB  sRTT {:6.1} ms  qdelay {:6.1} ms  CE {:4}  lost {:4}  \
         feedback {:6}  malformed {}  foreign {}",
        row.t_s,
        o(row.target_mbps),
        row.tx_mbps,
        o(row.acked_mbps),
        o(row.ref_window_bytes) / 1e3,
        o(row.bytes_in_flight) / 1e3,
        o(row.srtt_ms),
        o(row.est_queue_delay_ms),
        row.ce_packets_total,
        row.lost_packets_total,
        c.feedback,
        c.malformed,
        c.foreign,
    )
}

fn summary(
    tx: &MediaSender<ModelEncoder>,
    series: &Series<Sample>,
    (peer, ssrc): (SocketAddr, u32),
    args: &SendArgs,
    secs: f64,
    stopped_by: Option<String>,
) -> serde_json::Value {
    let samples = series.rows();
    let s = tx.sender().stats();
    let c = tx.counters();
    let mean = |f: &dyn Fn(&Sample) -> Option<f64>| {
        let v: Vec<f64> = samples
            .iter()
            .filter_map(f)
            .filter(|x| x.is_finite())
            .collect();
        (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
    };
    serde_json::json!({
        "role": "send",
        "started_unix_s": tx.clock().origin_unix_s(),
        "peer": peer.to_string(),
        "ssrc": ssrc,
        "generation": args.generation,
        "improvements": tx.sender().config().improvements.enabled(),
        "ecn": args.ecn,
        "duration_s": secs,
        "stopped_by": stopped_by,
        "timeseries_rows_dropped": series.dropped(),
        "frames": c.frames,
        "packets_sent": c.datagrams,
        "bytes_sent": c.bytes,
        "sent_mbps": super::mbps(c.bytes, secs),
        "packets_acked": s.packets_acked,
        "packets_lost": s.packets_lost,
        "packets_ce": s.packets_ce,
        "target_bitrate_mean_mbps": mean(&|r| r.target_mbps),
        "acked_mean_mbps": mean(&|r| r.acked_mbps),
        "srtt_mean_ms": mean(&|r| r.srtt_ms),
        "est_queue_delay_mean_ms": mean(&|r| r.est_queue_delay_ms),
        "frames_skipped": s.streams.iter().map(|x| x.frames_skipped).sum::<u64>(),
        "rtp_queue_discards": s.streams.iter().map(|x| x.queue_discards).sum::<u64>(),
        "feedback": c.feedback,
        "feedback_malformed": c.malformed,
        "foreign_datagrams": c.foreign,
        "feedback_unauthenticated": c.unauthenticated,
        "feedback_replayed": c.replayed,
        "feedback_ignored_reports": s.feedback_ignored,
        "feedback_unproven": s.feedback_unproven,
        "send_buffer_full": c.send_errors.buffer_full,
        "send_errors": c.send_errors.other,
    })
}
