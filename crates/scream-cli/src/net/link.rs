//! `scream link`: a real-time bottleneck for UDP built from a scenario's link model.

use std::sync::Arc;

use scream::{Duration, Instant};
use std::net::IpAddr;

#[cfg(target_os = "linux")]
use scream_net::link::tun::TunPort;
use scream_net::link::udp::UdpRelay;
use scream_net::link::{Direction, Transport};
use scream_net::{Clock, LinkDatagram, LinkEmulator};
use scream_records::LinkSample;
use scream_sim::Scenario;
use scream_sim::emulator::{LINK_BASE, emulated_link};
use scream_sim::scenario::load::{Override, load_named, load_str};

use super::output::{RunFiles, Series};
use super::{mbps, parse_addr, say};

/// Arguments of `scream link`.
#[derive(Debug, clap::Args)]
pub(crate) struct LinkArgs {
    /// UDP relay: the address clients send to, HOST:PORT.
    #[arg(long, requires = "forward", conflicts_with = "tun")]
    listen: Option<String>,
    /// UDP relay: the server datagrams are forwarded to, HOST:PORT.
    #[arg(long, requires = "listen")]
    forward: Option<String>,
    /// TUN mode (Linux, root): the TUN device a router namespace routes the traffic
    /// through (see scripts/netns-bottleneck.sh); any IP traffic, TCP included.
    #[arg(long, requires = "forward_net")]
    tun: Option<String>,
    /// TUN mode: packets to this network (ADDR/PREFIX) take the forward link, all
    /// others the reverse one.
    #[arg(long, requires = "tun")]
    forward_net: Option<String>,
    /// Capacity, Mbit/s (`link.capacity_mbps`; default unlimited).
    #[arg(long)]
    rate: Option<f64>,
    /// Capacity trace file (`link.trace`; mahimahi or a table, see docs/scenarios.md).
    #[arg(long)]
    trace: Option<String>,
    /// One-way propagation delay, ms (`link.one_way_delay_ms`).
    #[arg(long)]
    delay: Option<f64>,
    /// Delay jitter (standard deviation), ms (`link.jitter_ms`).
    #[arg(long)]
    jitter: Option<f64>,
    /// Random loss probability, 0..1 (`link.loss`).
    #[arg(long)]
    loss: Option<f64>,
    /// Queue: tail-drop, codel, l4s-ramp, ecn-threshold or dualpi2 (`link.queue.kind`).
    #[arg(long)]
    queue: Option<String>,
    /// Queue limit, ms at the current capacity (`link.queue.limit_ms`).
    #[arg(long)]
    queue_ms: Option<f64>,
    /// Reverse (server to client) capacity, Mbit/s (`link.reverse.capacity_mbps`).
    #[arg(long)]
    reverse_rate: Option<f64>,
    /// Reverse one-way delay, ms (default: the forward delay).
    #[arg(long)]
    reverse_delay: Option<f64>,
    /// Reverse jitter, ms.
    #[arg(long)]
    reverse_jitter: Option<f64>,
    /// Reverse random loss probability, 0..1.
    #[arg(long)]
    reverse_loss: Option<f64>,
    /// Take the link from this scenario (built-in name or .toml file) instead of the
    /// flags' unlimited base; flags and --set still apply to its `link` table.
    #[arg(long)]
    scenario: Option<String>,
    /// With --scenario: which of its `[[links]]`, by name (default: the first).
    #[arg(long)]
    link: Option<String>,
    /// Any other link key: `--set link.queue.ramp_max_ms=4`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Random seed of jitter, loss and AQM draws (default: the scenario's).
    #[arg(long)]
    seed: Option<u64>,
    #[command(flatten)]
    run: super::RunArgs,
}

/// The flags as `--set` overrides of the link table.
fn overrides(args: &LinkArgs) -> Result<Vec<Override>, String> {
    let num = |key: &str, v: Option<f64>| v.map(|v| format!("link.{key}={v}"));
    let text = |key: &str, v: &Option<String>| v.as_ref().map(|v| format!("link.{key}={v:?}"));
    let flags = [
        num("capacity_mbps", args.rate),
        text("trace", &args.trace),
        num("one_way_delay_ms", args.delay),
        num("jitter_ms", args.jitter),
        num("loss", args.loss),
        text("queue.kind", &args.queue),
        num("queue.limit_ms", args.queue_ms),
        num("reverse.capacity_mbps", args.reverse_rate),
        num("reverse.one_way_delay_ms", args.reverse_delay),
        num("reverse.jitter_ms", args.reverse_jitter),
        num("reverse.loss", args.reverse_loss),
    ];
    // A generated capacity trace spans the scenario's duration: the run's, or for a
    // service without an end the longest span generated (an hour, then it repeats).
    let span = args
        .run
        .duration
        .unwrap_or(scream_sim::netmodel::synthetic::MAX_SPAN.as_secs_f64());
    let mut all = vec![format!("duration_s={span}")];
    all.extend(flags.into_iter().flatten());
    if let Some(seed) = args.seed {
        all.push(format!("seed={seed}"));
    }
    all.extend(args.set.iter().cloned());
    crate::parse_overrides(&all)
}

fn scenario(args: &LinkArgs) -> Result<Scenario, String> {
    let o = overrides(args)?;
    match &args.scenario {
        Some(name) => load_named(name, &o),
        None => load_str(LINK_BASE, "link", None, &o),
    }
    .map_err(|e| e.to_string())
}

/// Cumulative link counters at the previous sample, per direction.
#[derive(Default, Clone, Copy)]
struct Last {
    t: f64,
    bytes_out: u64,
    dropped: u64,
    lost: u64,
    ce: u64,
}

fn link_row(
    now: Instant,
    d: &mut Direction,
    last: &mut Last,
    name: (&Arc<str>, &'static str),
) -> LinkSample {
    let t = now.as_secs_f64();
    let s = *d.stats();
    let dropped = s.dropped_queue_full + s.dropped_aqm + d.dropped_overflow;
    let ms = |x: Duration| x.as_secs_f64() * 1e3;
    let row = LinkSample {
        t_s: t,
        link: name.0.clone(),
        direction: name.1,
        capacity_mbps: d.rate_at(now).mbps(),
        tx_mbps: mbps(s.bytes_out - last.bytes_out, t - last.t),
        queue_bytes: d.queue_bytes(),
        queue_packets: 0,
        sojourn_max_ms: (d.sojourn_interval.count() > 0).then(|| ms(d.sojourn_interval.max())),
        dropped_packets: dropped - last.dropped,
        lost_packets: s.lost_on_path - last.lost,
        ce_marked_packets: s.ce_marked - last.ce,
    };
    *last = Last {
        t,
        bytes_out: s.bytes_out,
        dropped,
        lost: s.lost_on_path,
        ce: s.ce_marked,
    };
    row
}

fn direction_summary(d: &Direction, secs: f64) -> serde_json::Value {
    let s = d.stats();
    let ms = |x: Option<Duration>| x.map(|x| x.as_secs_f64() * 1e3);
    serde_json::json!({
        "packets_in": s.packets_in,
        "packets_delivered": d.delivered,
        "delivered_mbps": mbps(d.delivered_bytes, secs),
        "dropped_queue_full": s.dropped_queue_full,
        "dropped_aqm": s.dropped_aqm,
        "dropped_overflow": d.dropped_overflow,
        "lost_on_path": s.lost_on_path,
        "ce_marked": s.ce_marked,
        "delivered_ce": d.delivered_ce,
        "sojourn_ms": {
            "mean": ms(d.sojourn.mean()),
            "p50": ms(d.sojourn.quantile(0.5)),
            "p95": ms(d.sojourn.quantile(0.95)),
            "p99": ms(d.sojourn.quantile(0.99)),
            "max": ms((d.sojourn.count() > 0).then(|| d.sojourn.max())),
            "count": d.sojourn.count(),
        },
        // The emulator's own lateness in delivering: delay the model did not add.
        "late_ms": {
            "p50": ms(d.late.quantile(0.5)),
            "p95": ms(d.late.quantile(0.95)),
            "p99": ms(d.late.quantile(0.99)),
            "max": ms((d.late.count() > 0).then(|| d.late.max())),
        },
    })
}

/// `ADDR/PREFIX`.
fn parse_net(text: &str) -> Result<(IpAddr, u8), String> {
    let err = |why: &str| {
        format!("--forward-net {text}: {why} (expected ADDR/PREFIX, e.g. 10.200.2.0/24)")
    };
    let (addr, prefix) = text
        .split_once('/')
        .ok_or_else(|| err("no prefix length"))?;
    let addr: IpAddr = addr.parse().map_err(|_| err("not an IP address"))?;
    let max = if addr.is_ipv4() { 32 } else { 128 };
    let prefix: u8 = prefix
        .parse()
        .ok()
        .filter(|p| *p <= max)
        .ok_or_else(|| err(&format!("the prefix length must be 0 to {max}")))?;
    Ok((addr, prefix))
}

/// The transport the flags ask for, and how to name it in the first line.
fn transport(args: &LinkArgs) -> Result<(Transport, String), String> {
    if let (Some(listen), Some(forward)) = (&args.listen, &args.forward) {
        let listen = parse_addr("--listen", listen)?;
        let server = parse_addr("--forward", forward)?;
        let relay = UdpRelay::bind(listen, server)
            .map_err(|e| format!("cannot listen on {listen}: {e}"))?;
        let local = relay.local_addr().map_err(|e| e.to_string())?;
        return Ok((Transport::Udp(relay), format!("{local} -> {server}")));
    }
    #[cfg(target_os = "linux")]
    if let (Some(name), Some(net)) = (&args.tun, &args.forward_net) {
        let net = parse_net(net)?;
        let port = TunPort::open(name, net).map_err(|e| e.to_string())?;
        return Ok((
            Transport::Tun(port),
            format!("TUN {name}, forward to {}/{}", net.0, net.1),
        ));
    }
    Err("give --listen and --forward (UDP relay) or --tun and --forward-net (TUN mode)".into())
}

pub(crate) fn main(args: &LinkArgs) -> Result<String, String> {
    let interval = args.run.interval()?;
    let s = scenario(args)?;
    let (name, forward, reverse) =
        emulated_link::<LinkDatagram>(&s, args.link.as_deref()).map_err(|e| e.to_string())?;
    let stop = args.run.start()?;
    let clock = Clock::start();
    let until = args.run.end(&clock, None)?;
    let (transport, route) = transport(args)?;
    let mut link = LinkEmulator::new(transport, (forward, reverse), clock)
        .map_err(|e| format!("cannot start the link: {e}"))?;
    link.stop_on(stop)
        .map_err(|e| format!("cannot start the link: {e}"))?;
    say(&format!("link `{name}`: {route} {}", args.run.length(None)));
    let name: Arc<str> = name.into();
    let (mut fwd_last, mut rev_last) = (Last::default(), Last::default());
    let mut rows = Series::new();
    let mut printed_s = 0;
    let end = link.run(until, interval, |now, l| {
        let f = link_row(now, &mut l.forward, &mut fwd_last, (&name, "forward"));
        let r = link_row(now, &mut l.reverse, &mut rev_last, (&name, "reverse"));
        if now.as_secs_f64() as u64 > printed_s {
            printed_s = now.as_secs_f64() as u64;
            // `-` when no packet left the link in the interval: there is no delay to show.
            let p95 = l.forward.sojourn_interval.quantile(0.95).map_or_else(
                || "-".to_owned(),
                |d| format!("{:.1}", d.as_secs_f64() * 1e3),
            );
            say(&format!(
                "{:7.1} s  forward {:7.2} of {:7.2} Mbit/s  queue {:7} B  sojourn p95 {p95:>6} ms  \
                 dropped {:4}  CE {:4}  |  reverse {:6.2} Mbit/s  clients {}",
                f.t_s,
                f.tx_mbps,
                f.capacity_mbps,
                f.queue_bytes,
                f.dropped_packets,
                f.ce_marked_packets,
                r.tx_mbps,
                l.clients(),
            ));
        }
        rows.push(f);
        rows.push(r);
    })
    .map_err(|e| format!("the link stopped: {e}"))?;
    // The time of the last report, kept or not.
    let secs = fwd_last.t;
    let stopped_by = super::ended(end, secs);
    let c = link.counters();
    let summary = serde_json::json!({
        "role": "link",
        "started_unix_s": link.clock().origin_unix_s(),
        "link": &*name,
        "route": route,
        "duration_s": secs,
        "stopped_by": stopped_by,
        "timeseries_rows_dropped": rows.dropped(),
        "forward": direction_summary(&link.forward, secs),
        "reverse": direction_summary(&link.reverse, secs),
        "foreign_datagrams": c.foreign,
        "not_rtp": c.not_rtp,
        "unproven": c.unproven,
        "probation_evicted": c.probation_evicted,
        "clients_refused": c.clients_refused,
        "clients_evicted": c.clients_evicted,
        "clients_expired": c.clients_expired,
        "send_failed": c.send_failed,
        "orphaned": c.orphaned,
    });
    args.run.finish(RunFiles {
        title: "scream link",
        samples: &[],
        link_samples: rows.rows(),
        summary,
        max_bitrate_mbps: None,
        no_plots: true,
    })
}
