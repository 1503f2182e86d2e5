//! `scream send` → `scream link` → `scream recv` over loopback, as three processes:
//! real sockets, real time, ECN bits through the kernel. Each run lasts about ten
//! seconds; the delay-only and the L4S run go one after the other.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use serde_json::Value;

/// Link capacity, Mbit/s, and one-way delay, ms.
const RATE_MBPS: f64 = 10.0;
const DELAY_MS: &str = "20";
/// Seconds the sender sends.
const SEND_S: f64 = 10.0;

/// A child process that is killed if the test fails before it ends.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `scream ARGS`, waits for its first line (which names the address it bound)
/// and returns the process with that line. The rest of its output is drained in the
/// background so that it never blocks on a full pipe.
fn start(args: &[&str]) -> (Running, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_scream"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the scream binary starts");
    let mut out = BufReader::new(child.stdout.take().expect("piped stdout"));
    let mut first = String::new();
    out.read_line(&mut first).expect("a first line");
    std::thread::spawn(move || for _ in out.lines() {});
    (Running(child), first)
}

/// The `HOST:PORT` after `marker` in `line`.
fn addr_after(line: &str, marker: &str) -> String {
    let rest = &line[line
        .find(marker)
        .unwrap_or_else(|| panic!("{marker} in {line}"))
        + marker.len()..];
    rest.split_whitespace()
        .next()
        .unwrap_or_default()
        .trim_end_matches(':')
        .to_owned()
}

fn summary(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("summary.json")).expect("summary.json");
    serde_json::from_str(&text).expect("summary.json parses")
}

struct Outcome {
    /// Media the receiver got, Mbit/s over the sending time (UDP payload).
    rx_mbps: f64,
    /// 95th percentile of the time media spent at the bottleneck, ms.
    sojourn_p95_ms: f64,
    /// 95th percentile of how late the link delivered media, ms.
    late_p95_ms: f64,
    ce: f64,
    send: Value,
}

fn run(dir: &Path, link_flags: &[&str], ecn: &str) -> Outcome {
    let (recv_out, link_out, send_out) = (dir.join("recv"), dir.join("link"), dir.join("send"));
    let long = format!("{}", SEND_S + 4.0);
    let (mut recv, line) = start(&[
        "recv",
        "--listen",
        "127.0.0.1:0",
        "--duration",
        &long,
        "--out",
        recv_out.to_str().unwrap(),
        "--no-plots",
    ]);
    let recv_addr = addr_after(&line, "receiving on ");
    let mut args = vec![
        "link",
        "--listen",
        "127.0.0.1:0",
        "--forward",
        &recv_addr,
        "--duration",
        &long,
        "--delay",
        DELAY_MS,
        "--out",
        link_out.to_str().unwrap(),
    ];
    let rate = RATE_MBPS.to_string();
    args.extend(["--rate", &rate]);
    args.extend(link_flags);
    let (mut link, line) = start(&args);
    let link_addr = addr_after(&line, ": ");
    let send_s = SEND_S.to_string();
    let sent = Command::new(env!("CARGO_BIN_EXE_scream"))
        .args([
            "send",
            "--to",
            &link_addr,
            "--duration",
            &send_s,
            "--ecn",
            ecn,
            "--start-rate",
            "5",
            "--max-rate",
            "20",
            "--out",
            send_out.to_str().unwrap(),
            "--no-plots",
        ])
        .output()
        .expect("scream send runs");
    assert!(
        sent.status.success(),
        "{}",
        String::from_utf8_lossy(&sent.stderr)
    );
    assert!(link.0.wait().expect("link ends").success());
    assert!(recv.0.wait().expect("recv ends").success());
    let (r, l) = (summary(&recv_out), summary(&link_out));
    let peer = &r["peers"][0];
    Outcome {
        rx_mbps: peer["bytes"].as_f64().unwrap() * 8.0 / SEND_S / 1e6,
        sojourn_p95_ms: l["forward"]["sojourn_ms"]["p95"].as_f64().unwrap(),
        late_p95_ms: l["forward"]["late_ms"]["p95"].as_f64().unwrap(),
        ce: peer["ce"].as_f64().unwrap(),
        send: summary(&send_out),
    }
}

/// The emulator's p95 lateness in delivering, ms, above which the machine, not the
/// emulated link, shaped the run: a link process held off the CPU that long was not
/// alone, and the sender and receiver added jitter of their own. On an idle two-core
/// machine it is 1.1-1.2 ms (mio's epoll timeouts count whole milliseconds); with the
/// two runs side by side 2.2-2.4 ms and the delay-only run at 7.6-8.4 Mbit/s; with two
/// busy loops sharing the processes' core 5.1-5.9 ms and 6.1-7.3 Mbit/s.
const STARVED_LATE_P95_MS: f64 = 2.0;

/// Whether a run's figures describe the link or the machine.
enum Verdict {
    Held,
    /// The machine starved the processes: what the throughput bound would have said.
    Starved(String),
}

/// Both runs side by side in `dir`, and what they must show; `Err` says what did not
/// hold, with the figures. The throughput bound holds only on a machine that kept the
/// processes running: under CPU starvation the sender, link and receiver add jitter
/// of their own, and SCReAM V2 restrains its growth while the delay varies, as it
/// should.
fn both_runs(dir: &Path) -> Result<Verdict, String> {
    let (a, b) = (dir.join("delay"), dir.join("l4s"));
    // One after the other: side by side, six processes on a two-core machine delay
    // each other by milliseconds, which is jitter that the emulated link did not add.
    let delay = run(&a, &[], "none");
    let l4s = run(&b, &["--queue", "l4s-ramp"], "l4s");
    let late_p95 = delay.late_p95_ms.max(l4s.late_p95_ms);
    let check = |ok: bool, what: String| if ok { Ok(()) } else { Err(what) };
    // 80 % of the link with delay alone: the sender starts at half the capacity and
    // the link counts IP and UDP headers, the receiver only the UDP payload. With L4S
    // SCReAM V2 trades throughput for delay at this rate (8.3 of 10 Mbit/s at 25 ms
    // in the reference's own simulator), so the bound there is lower.
    let mut short = Vec::new();
    for (name, o, share) in [("delay-only", &delay, 0.8), ("l4s", &l4s, 0.6)] {
        if o.rx_mbps < share * RATE_MBPS {
            short.push(format!("{name}: {:.2} Mbit/s of {RATE_MBPS}", o.rx_mbps));
        }
        check(
            o.send["feedback_malformed"] == 0,
            format!(
                "{name}: malformed feedback {}",
                o.send["feedback_malformed"]
            ),
        )?;
        check(
            o.send["feedback"].as_u64().unwrap_or(0) > 100,
            format!("{name}: only {} feedback packets", o.send["feedback"]),
        )?;
    }
    // SCReAM V2's delay target keeps a tail-drop queue well below its 300 ms limit.
    check(
        delay.sojourn_p95_ms < 100.0,
        format!("delay-only p95 {} ms", delay.sojourn_p95_ms),
    )?;
    check(
        delay.ce == 0.0,
        format!("{} CE marks without an AQM", delay.ce),
    )?;
    check(l4s.ce > 0.0, "the L4S ramp marked nothing".into())?;
    check(
        l4s.sojourn_p95_ms < delay.sojourn_p95_ms,
        format!(
            "L4S p95 {} ms, delay-only {} ms",
            l4s.sojourn_p95_ms, delay.sojourn_p95_ms
        ),
    )?;
    if short.is_empty() {
        return Ok(Verdict::Held);
    }
    let why = format!("{} (the link late by {late_p95} ms, p95)", short.join("; "));
    if late_p95 > STARVED_LATE_P95_MS {
        Ok(Verdict::Starved(why))
    } else {
        Err(why)
    }
}

#[test]
fn send_link_recv_on_loopback_fills_the_link_and_l4s_keeps_the_queue_short() {
    let tmp = tempfile::tempdir().unwrap();
    // Real time on a shared machine: a run during which the processes were starved of
    // CPU may miss a bound. Up to three attempts, and the first that holds counts. If
    // none holds, the test fails when any of them ran on a machine that kept the
    // processes running (a miss there is the code's), and otherwise reports the
    // throughput bound as not checked, in a line the test output shows.
    let (mut failed, mut starved) = (Vec::new(), Vec::new());
    let mut held = None;
    // The first starved attempt's outputs, for the plot below when none held.
    let mut complete = None;
    for attempt in 1..=3 {
        let dir = tmp.path().join(format!("attempt-{attempt}"));
        match both_runs(&dir) {
            Ok(Verdict::Held) => {
                held = Some(dir);
                break;
            }
            Ok(Verdict::Starved(why)) => {
                starved.push(why);
                complete.get_or_insert(dir);
            }
            Err(why) => failed.push(why),
        }
    }
    let dir = match held {
        Some(dir) => dir,
        None => {
            assert!(
                failed.is_empty(),
                "missed on a machine that kept up: {failed:?} (starved: {starved:?})"
            );
            // Written past the test harness's capture, so that a passing run shows it.
            let line = format!(
                "skipped the throughput bound of real_network: the machine starved every \
                 run of CPU ({})\n",
                starved.join(" | ")
            );
            let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
            complete.expect("three starved attempts")
        }
    };
    let delay_dir = dir.join("delay");

    // `scream plot` lines the link's queue delay up with the sender's time series.
    let plot = Command::new(env!("CARGO_BIN_EXE_scream"))
        .args(["plot", delay_dir.to_str().unwrap()])
        .output()
        .expect("scream plot runs");
    assert!(
        plot.status.success(),
        "{}",
        String::from_utf8_lossy(&plot.stderr)
    );
    let csv = std::fs::read_to_string(delay_dir.join("plots/timeseries.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (sojourn, capacity) = (col("sojourn_ms"), col("capacity_mbps"));
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    let with_sojourn = rows.iter().filter(|r| !r[sojourn].is_empty()).count();
    assert!(
        with_sojourn * 10 >= rows.len() * 9,
        "{with_sojourn} of {} rows",
        rows.len()
    );
    assert!(
        rows.iter().all(|r| r[capacity] == "10.0"),
        "the link's capacity"
    );
    assert!(delay_dir.join("plots/overview.png").is_file());
}
