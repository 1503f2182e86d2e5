//! Whole runs of the baseline controllers (gcc, nada) on the rate-based sender with the
//! SCReAM receiver's RFC 8888 feedback.
//!
//! The link: 5 Mbit/s constant, 25 ms each way (50 ms RTT), a 300 ms tail-drop queue
//! (the RMCAT default). Each flow runs alone for 60 s; the figures are taken over the
//! second half, after GCC's multiplicative increase (8 %/s from 1 Mbit/s) has had time
//! to reach the capacity (about 21 s). The bounds:
//! - utilisation of at least 70 % over the second half: a controller that holds the
//!   link near capacity; sawtooth and back-off cycles cost the rest;
//! - p95 of the path's queueing delay (sojourn) well below the 300 ms the queue allows:
//!   a delay-based controller keeps the queue short, a loss-driven one would sit at
//!   the limit. GCC's threshold is at least 6 ms of scaled gradient and its decrease
//!   lands at 85 % of the receive rate, so its queue drains each cycle: 100 ms. NADA
//!   settles where x_curr = XREF RMAX / r_ref, 10 ms x 20/5 = 40 ms at the flow's 20
//!   Mbit/s maximum: 100 ms leaves room for its approach.

use scream_records::timeseries_csv;
use scream_sim::output::summary_json;
use scream_sim::{Scenario, run};

const CAPACITY_MBPS: f64 = 5.0;

fn scenario(algorithm: &str, extra: &str) -> Scenario {
    let text = format!(
        r#"
name = "baseline-{algorithm}"
duration_s = 60.0
report_window_s = [30.0, 60.0]

[link]
capacity_mbps = {CAPACITY_MBPS}
one_way_delay_ms = 25.0

[link.queue]
kind = "tail-drop"
limit_ms = 300.0

[[flows]]
name = "{algorithm}"
algorithm = "{algorithm}"
{extra}
"#
    );
    scream_sim::scenario::load::load_str(&text, "baseline.toml", None, &[]).expect("valid scenario")
}

struct Figures {
    utilisation: f64,
    p95_sojourn_ms: f64,
    mean_sojourn_ms: f64,
}

#[expect(
    clippy::print_stderr,
    reason = "the figures are the test's report, shown with --nocapture"
)]
fn measure(s: &Scenario) -> Figures {
    let r = run(s, 1, None).expect("runs");
    let f = &r.summary.flows[0];
    let w = f.window.as_ref().expect("report window");
    let fig = Figures {
        utilisation: w.throughput_mbps / CAPACITY_MBPS,
        p95_sojourn_ms: w.queue_delay_ms.p95,
        mean_sojourn_ms: w.queue_delay_ms.mean,
    };
    eprintln!(
        "{}: utilisation {:.1} %, sojourn mean {:.1} ms p95 {:.1} ms, loss {:.2} %, whole-run throughput {:.2} Mbit/s",
        s.name,
        fig.utilisation * 100.0,
        fig.mean_sojourn_ms,
        fig.p95_sojourn_ms,
        f.loss_ratio * 100.0,
        f.throughput_mbps
    );
    fig
}

fn assert_converges(s: &Scenario) {
    let fig = measure(s);
    assert!(
        fig.utilisation >= 0.70 && fig.utilisation <= 1.0,
        "{}: utilisation {}",
        s.name,
        fig.utilisation
    );
    assert!(
        fig.p95_sojourn_ms <= 100.0,
        "{}: p95 sojourn {} ms",
        s.name,
        fig.p95_sojourn_ms
    );
}

#[test]
fn gcc_with_the_kalman_filter_converges_near_capacity_with_a_short_queue() {
    assert_converges(&scenario("gcc", ""));
}

#[test]
fn gcc_with_the_trendline_converges_near_capacity_with_a_short_queue() {
    assert_converges(&scenario("gcc", "[flows.gcc]\nestimator = \"trendline\""));
}

#[test]
fn nada_converges_near_capacity_with_a_short_queue() {
    assert_converges(&scenario("nada", ""));
}

#[test]
fn baseline_runs_are_byte_identical() {
    for algorithm in ["gcc", "nada"] {
        let mut s = scenario(algorithm, "");
        s.duration_s = 10.0;
        s.report_window_s = None;
        let (a, b) = (run(&s, 3, None).unwrap(), run(&s, 3, None).unwrap());
        assert_eq!(
            summary_json(&a.summary).unwrap(),
            summary_json(&b.summary).unwrap(),
            "{algorithm}"
        );
        assert_eq!(
            timeseries_csv(&a.samples).unwrap(),
            timeseries_csv(&b.samples).unwrap(),
            "{algorithm}"
        );
        assert!(a.summary.flows[0].packets_received > 0, "{algorithm}");
    }
}

/// NADA alone on RFC 8867 §5.1's low-capacity leg: 0.6 Mbit/s, 50 ms each way, a
/// 300 ms tail-drop queue, the flow between 0.15 and 1.5 Mbit/s. Its equilibrium is
/// x_curr = XREF RMAX / r_ref = 10 ms x 1.5/0.6 = 25 ms, below QTH: a delay-driven
/// operating point with no loss. The bounds:
/// - coefficient of variation of the 1 s mean target over 20–60 s below 0.15: frame
///   sizes and the queue's jitter move it about ±10 % around the capacity; the
///   bang-bang cycle between RMIN and RMAX this pins against measured 0.8;
/// - loss over the whole run below PLRREF (1 %), the loss ratio RFC 8698 §4.2 treats as
///   the reference level of congestion: a flow settled on delay loses nothing, only
///   its start-up may overshoot (the cycle measured 6 %).
#[test]
fn nada_alone_on_a_low_capacity_tail_drop_link_settles() {
    let text = r#"
name = "nada-0.6"
duration_s = 60.0
sample_interval_ms = 200.0

[link]
capacity_mbps = 0.6
one_way_delay_ms = 50.0

[link.queue]
kind = "tail-drop"
limit_ms = 300.0

[[flows]]
name = "nada"
algorithm = "nada"
min_bitrate_mbps = 0.15
start_bitrate_mbps = 0.15
max_bitrate_mbps = 1.5
"#;
    let s = scream_sim::scenario::load::load_str(text, "nada.toml", None, &[]).expect("valid");
    let r = run(&s, 1, None).expect("runs");
    let mut bins = [(0.0, 0u32); 40];
    for row in &r.samples {
        let (Some(t), true) = (row.target_mbps, row.t_s > 20.0 && row.t_s <= 60.0) else {
            continue;
        };
        let bin = &mut bins[((row.t_s - 20.0 - 1e-9) as usize).min(39)];
        bin.0 += t;
        bin.1 += 1;
    }
    let means: Vec<f64> = bins.iter().map(|&(s, n)| s / f64::from(n.max(1))).collect();
    let mean = means.iter().sum::<f64>() / means.len() as f64;
    let var = means.iter().map(|m| (m - mean).powi(2)).sum::<f64>() / means.len() as f64;
    let cov = var.sqrt() / mean;
    let loss = r.summary.flows[0].loss_ratio;
    assert!(
        cov < 0.15,
        "coefficient of variation {cov} (mean {mean} Mbit/s)"
    );
    assert!(loss < 0.01, "loss {loss}");
    assert!((0.45..=0.7).contains(&mean), "mean target {mean} Mbit/s");
}

/// Two streams of priority 1 and 0.5 on one gcc flow, alone on the constant 5 Mbit/s
/// link. The sender splits the flow's one target 2 : 1 whenever neither stream is at a
/// bound (here never: 0.1 to 10 Mbit/s each), so over the second half:
/// - high/low received rate in [1.8, 2.2]: the encoders hit their targets only on
///   average (frame sizes vary) and the streams share one pacer and one queue, so the
///   measured ratio sits near, not at, 2; the suite's criterion (RFC 8867 §6.1) allows
///   [1.5, 2.5];
/// - the two together use at least 70 % of the link, as a one-stream flow must above:
///   splitting the target must not cost the controller its estimate.
#[test]
#[expect(
    clippy::print_stderr,
    reason = "the figures are the test's report, shown with --nocapture"
)]
fn a_two_stream_gcc_flow_splits_its_rate_by_priority_and_uses_the_link() {
    let streams = "
[[flows.streams]]
name = \"high\"
priority = 1.0
min_bitrate_mbps = 0.1
start_bitrate_mbps = 0.5
max_bitrate_mbps = 10.0

[[flows.streams]]
name = \"low\"
priority = 0.5
min_bitrate_mbps = 0.1
start_bitrate_mbps = 0.5
max_bitrate_mbps = 10.0
";
    let s = scenario("gcc", streams);
    let r = run(&s, 1, None).expect("runs");
    let (mut rx, mut target) = ([0.0; 2], [0.0; 2]);
    let mut rows = [0u32; 2];
    for row in r.samples.iter().filter(|x| x.t_s > 30.0 && x.t_s <= 60.0) {
        let j = row.stream_index as usize;
        rx[j] += row.rx_mbps;
        target[j] += row
            .target_mbps
            .expect("the sender writes each stream's target");
        rows[j] += 1;
    }
    assert!(
        rows[0] > 0 && rows[0] == rows[1],
        "rows per stream {rows:?}"
    );
    let ratio = rx[0] / rx[1];
    let target_ratio = target[0] / target[1];
    let w = r.summary.flows[0].window.as_ref().expect("report window");
    let utilisation = w.throughput_mbps / CAPACITY_MBPS;
    eprintln!(
        "two streams: received high/low {ratio:.3}, target high/low {target_ratio:.3}, utilisation {:.1} %",
        utilisation * 100.0
    );
    assert!((1.8..=2.2).contains(&ratio), "received high/low {ratio}");
    assert!(
        (target_ratio - 2.0).abs() < 1e-6,
        "targets high/low {target_ratio}: no stream at a bound, so exactly 2"
    );
    assert!(
        (0.70..=1.0).contains(&utilisation),
        "utilisation {utilisation}"
    );
}
