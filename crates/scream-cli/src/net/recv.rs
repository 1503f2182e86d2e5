//! `scream recv`: a real-time SCReAM receiver that answers every sender with RFC 8888
//! feedback.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;

use scream::Instant;
use scream::receiver::ReceiverConfig;
use scream::wire::ccfb::CountConvention;
use scream_net::receiver::PeerView;
use scream_net::{Clock, MediaReceiver, MediaReceiverConfig};
use scream_records::Sample;

use super::output::{RunFiles, Series};
use super::{mbps, parse_addr, say};

/// Arguments of `scream recv`.
#[derive(Debug, clap::Args)]
pub(crate) struct RecvArgs {
    /// Address to receive RTP on: HOST:PORT.
    #[arg(long)]
    listen: String,
    /// Send all feedback here instead of back to each sender's source address.
    #[arg(long)]
    feedback_to: Option<String>,
    /// RTCP SSRC of the feedback.
    #[arg(long, default_value_t = 0x0a)]
    rtcp_ssrc: u32,
    /// How feedback writes `num_reports`: `rfc` (RFC 8888 with erratum 8166) or
    /// `minus-one` (count − 1, what the Ericsson reference's sender reads).
    #[arg(long, default_value = "rfc")]
    num_reports: String,
    /// A file holding a key shared with the senders, 16 to 64 bytes written as 32 to
    /// 128 hex digits: every feedback datagram is sealed with it (keyed HMAC-SHA-256;
    /// docs/real-network.md), and only a sender with the same key reads it.
    #[arg(long, value_name = "FILE")]
    feedback_key: Option<std::path::PathBuf>,
    #[command(flatten)]
    run: super::RunArgs,
}

/// A sender's cumulative counters at the previous sample, and its index in the rows.
struct Seen {
    index: u32,
    name: Arc<str>,
    stream: Arc<str>,
    t: f64,
    bytes: u64,
    packets: u64,
    ce: u64,
    lost: u64,
}

pub(crate) fn main(args: &RecvArgs) -> Result<String, String> {
    let listen = parse_addr("--listen", &args.listen)?;
    let feedback_to = args
        .feedback_to
        .as_deref()
        .map(|a| parse_addr("--feedback-to", a))
        .transpose()?;
    let interval = args.run.interval()?;
    let count = count_convention(&args.num_reports)?;
    let stop = args.run.start()?;
    let clock = Clock::start();
    let until = args.run.end(&clock, None)?;
    let cfg = MediaReceiverConfig {
        listen,
        feedback_to,
        rtcp_ssrc: args.rtcp_ssrc,
        receiver: ReceiverConfig::default(),
        count,
        feedback_key: super::feedback_key(args.feedback_key.as_deref())?,
    };
    let mut rx =
        MediaReceiver::new(cfg, clock).map_err(|e| format!("cannot start the receiver: {e}"))?;
    rx.stop_on(stop)
        .map_err(|e| format!("cannot start the receiver: {e}"))?;
    let local = rx.local_addr().map_err(|e| e.to_string())?;
    say(&format!("receiving on {local} {}", args.run.length(None)));
    let mut seen: HashMap<(std::net::SocketAddr, u32), Seen> = HashMap::new();
    let mut samples = Series::new();
    let mut printed_s = 0;
    let mut last_t = 0.0;
    let end = rx
        .run(until, interval, |now, rx| {
            last_t = now.as_secs_f64();
            let print = now.as_secs_f64() as u64 > printed_s;
            if print {
                printed_s = now.as_secs_f64() as u64;
            }
            for p in rx.peers() {
                let row = sample(now, &p, &mut seen);
                if print {
                    say(&progress_line(&row, &p));
                }
                samples.push(row);
            }
        })
        .map_err(|e| format!("the receiver stopped: {e}"))?;
    let stopped_by = super::ended(end, last_t);
    let summary = summary(&rx, local, last_t, stopped_by, &samples);
    args.run.finish(RunFiles {
        title: "scream recv",
        samples: samples.rows(),
        link_samples: &[],
        summary,
        max_bitrate_mbps: None,
        no_plots: false,
    })
}

/// `--num-reports`.
fn count_convention(text: &str) -> Result<CountConvention, String> {
    match text {
        "rfc" => Ok(CountConvention::Rfc),
        "minus-one" => Ok(CountConvention::MinusOne),
        other => Err(format!("--num-reports {other}: expected rfc or minus-one")),
    }
}

/// The line printed each second for a sender.
fn progress_line(row: &Sample, p: &PeerView) -> String {
    format!(
        "{:7.1} s  {} SSRC {:#010x}  {:7.2} Mbit/s  packets {:8}  CE {:6}  \
         lost {:5}  feedback {:6}",
        row.t_s,
        p.addr,
        p.ssrc,
        row.rx_mbps,
        p.counters.packets,
        p.counters.ce,
        p.counters.lost,
        p.counters.feedback,
    )
}

/// summary.json of the run: the receiver's counters and every sender it served.
fn summary(
    rx: &MediaReceiver,
    local: SocketAddr,
    last_t: f64,
    stopped_by: Option<String>,
    samples: &Series<Sample>,
) -> serde_json::Value {
    let c = rx.counters();
    // Every sender of the run: those that left first (oldest first), then those still
    // served, each saying which.
    let departed = rx.departed_peers().map(|p| (p, false));
    let peers: Vec<serde_json::Value> = departed
        .chain(rx.peers().map(|p| (p, true)))
        .map(|(p, active)| peer_summary(&p, active))
        .collect();
    serde_json::json!({
        "role": "recv",
        "started_unix_s": rx.clock().origin_unix_s(),
        "listen": local.to_string(),
        "duration_s": last_t,
        "stopped_by": stopped_by,
        "timeseries_rows_dropped": samples.dropped(),
        "datagrams": c.datagrams,
        "malformed": c.malformed,
        "rtcp_ignored": c.rtcp,
        "unproven": c.unproven,
        "probation_evicted": c.probation_evicted,
        "peers_refused": c.peers_refused,
        "peers_evicted": c.peers_evicted,
        "peers_expired": c.peers_expired,
        "feedback_withheld": c.feedback_withheld,
        "send_buffer_full": c.send_errors.buffer_full,
        "send_errors": c.send_errors.other,
        "peers": peers,
    })
}

/// One sender in summary.json; `active` when it was still served at the end.
fn peer_summary(p: &PeerView, active: bool) -> serde_json::Value {
    serde_json::json!({
        "active": active,
        "from": p.addr.to_string(),
        "feedback_to": p.feedback_to.to_string(),
        "ssrc": p.ssrc,
        "packets": p.counters.packets,
        "bytes": p.counters.bytes,
        "ce": p.counters.ce,
        "ecn_capable": p.counters.ecn_capable,
        "lost": p.counters.lost,
        "feedback": p.counters.feedback,
        "feedback_bytes": p.counters.feedback_bytes,
        "feedback_withheld": p.counters.feedback_withheld,
    })
}

fn sample(
    now: Instant,
    p: &PeerView,
    seen: &mut HashMap<(std::net::SocketAddr, u32), Seen>,
) -> Sample {
    let t = now.as_secs_f64();
    let next = seen.len() as u32;
    let s = seen.entry((p.addr, p.ssrc)).or_insert_with(|| Seen {
        index: next,
        name: p.addr.to_string().into(),
        stream: format!("{:#010x}", p.ssrc).into(),
        t: 0.0,
        bytes: 0,
        packets: 0,
        ce: 0,
        lost: 0,
    });
    let c = &p.counters;
    // What the sender released is not known here: `tx_mbps` stays 0, the sender's.
    let row = Sample {
        rx_mbps: mbps(c.bytes.saturating_sub(s.bytes), t - s.t),
        rx_packets: c.packets.saturating_sub(s.packets),
        ce_packets: c.ce.saturating_sub(s.ce),
        ce_packets_total: c.ce,
        lost_packets: c.lost.saturating_sub(s.lost),
        lost_packets_total: c.lost,
        ..Sample::empty(t, s.name.clone(), s.stream.clone(), s.index)
    };
    s.t = t;
    s.bytes = c.bytes;
    s.packets = c.packets;
    s.ce = c.ce;
    s.lost = c.lost;
    row
}
