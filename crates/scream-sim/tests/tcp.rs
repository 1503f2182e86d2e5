//! TCP cross traffic at scenario level: a bulk flow fills its bottleneck, equal flows
//! share it fairly, an L4S flow keeps its queue short, and runs repeat exactly.

mod common;

use scream_records::timeseries_csv;
use scream_sim::output::summary_json;
use scream_sim::scenario::load::load_str;
use scream_sim::{RunResult, run};

fn run_toml(text: &str, seed: u64) -> RunResult {
    let s = load_str(text, "tcp.toml", None, &[]).expect("valid scenario");
    run(&s, seed, None).expect("runs")
}

/// Mean received rate of `flow` over `(from, to]`, Mbit/s.
fn rate(r: &RunResult, flow: &str, from: f64, to: f64) -> f64 {
    common::mean_over(r, flow, from, to, |s| s.rx_mbps)
}

/// Jain's fairness index of `rates`: 1 when all are equal, 1/n when one takes all.
fn jain(rates: &[f64]) -> f64 {
    let sum: f64 = rates.iter().sum();
    let squares: f64 = rates.iter().map(|x| x * x).sum();
    sum * sum / (rates.len() as f64 * squares)
}

/// 10 Mbit/s, 25 ms each way (50 ms RTT), a tail-drop buffer of one bandwidth-delay
/// product (62 500 bytes).
const BDP_LINK: &str = r#"
[link]
capacity_mbps = 10
one_way_delay_ms = 25
[link.queue]
limit_ms = 0
limit_bytes = 62500
"#;

#[test]
fn a_bulk_newreno_flow_fills_a_bdp_buffered_link() {
    let r = run_toml(
        &format!(
            "name = \"reno\"\nduration_s = 30\n{BDP_LINK}\n[[flows]]\nname = \"reno\"\nalgorithm = \"tcp-newreno\"\n"
        ),
        1,
    );
    let utilisation = rate(&r, "reno", 5.0, 30.0) / 10.0;
    assert!(utilisation >= 0.9, "utilisation {utilisation}");
    let f = &r.summary.flows[0];
    assert_eq!(f.algorithm, "tcp-newreno");
    assert!(
        f.packets_dropped > 0,
        "Reno probes until the buffer overflows"
    );
    // The queue never holds more than the buffer: 50 ms at 10 Mbit/s.
    assert!(f.queue_delay_ms.max <= 52.0, "{:?}", f.queue_delay_ms);
    // ACKs count as the flow's feedback; only those on their way at the end are missing.
    let fb = f.feedback;
    assert!(fb.sent > 1000 && fb.sent - fb.delivered < 100, "{fb:?}");
    assert_eq!(f.frames.delivered + f.frames.lost, 0, "TCP has no frames");
    assert_eq!(f.frame_delay_ms.count, 0);
    // The sender's window and RTT reach the samples.
    let srtt = common::mean_over(&r, "reno", 5.0, 30.0, |s| s.srtt_ms.unwrap_or(0.0));
    assert!((50.0..=110.0).contains(&srtt), "srtt {srtt}");
    assert!(
        f.ref_window_bytes.mean > 62_500.0,
        "{:?}",
        f.ref_window_bytes
    );
}

/// Two links: `a`, the bottleneck of [`BDP_LINK`] with 0.5 ms of jitter (without it,
/// the identical periods of deterministic tail drop can lock flows into an arbitrary
/// split: the phase effects of Floyd and Jacobson, 1992), and `b`, 1 Gbit/s with
/// `extra_ms` more one-way delay, for a flow with a longer RTT.
fn two_flows(second: &str, extra_ms: f64) -> String {
    format!(
        r#"
name = "two"
duration_s = 120
[[links]]
name = "a"
capacity_mbps = 10
one_way_delay_ms = 25
jitter_ms = 0.5
[links.queue]
limit_ms = 0
limit_bytes = 62500
[[links]]
name = "b"
capacity_mbps = 1000
one_way_delay_ms = {extra_ms}
[[flows]]
name = "a"
algorithm = "tcp-newreno"
path = ["a"]
[[flows]]
name = "b"
algorithm = "{second}"
start_s = 5
path = ["a", "b"]
"#
    )
}

#[test]
fn two_newreno_flows_with_equal_rtt_share_fairly() {
    let r = run_toml(&two_flows("tcp-newreno", 0.0), 1);
    let rates = [rate(&r, "a", 60.0, 120.0), rate(&r, "b", 60.0, 120.0)];
    let index = jain(&rates);
    assert!(index >= 0.95, "rates {rates:?}, Jain {index}");
    assert!(rates.iter().sum::<f64>() >= 9.0, "{rates:?}");
}

#[test]
fn a_flow_with_four_times_the_rtt_gets_the_smaller_share() {
    // 50 ms against 200 ms: Reno's rate goes as 1/RTT, less a shared queue's part.
    let r = run_toml(&two_flows("tcp-newreno", 75.0), 1);
    let (short, long) = (rate(&r, "a", 60.0, 120.0), rate(&r, "b", 60.0, 120.0));
    assert!(short > 3.0 * long, "{short} vs {long}");
    assert!(short + long >= 9.0, "{short} + {long}");
}

#[test]
fn a_prague_flow_keeps_the_l4s_queue_short() {
    let r = run_toml(
        r#"
name = "prague"
duration_s = 20
[link]
capacity_mbps = 10
one_way_delay_ms = 25
[link.queue]
kind = "dualpi2"
[[flows]]
name = "prague"
algorithm = "tcp-prague"
ecn = "l4s"
"#,
        1,
    );
    let f = &r.summary.flows[0];
    let throughput = rate(&r, "prague", 5.0, 20.0);
    assert!(throughput >= 8.5, "{throughput}");
    assert!(f.ce_ratio > 0.0, "marked");
    assert_eq!(f.packets_dropped, 0, "no drop: marks suffice");
    assert!(f.queue_delay_ms.p99 < 5.0, "{:?}", f.queue_delay_ms);
}

#[test]
fn a_newreno_flow_on_the_same_dualpi2_queue_sees_the_classic_delay() {
    // The contrast that shows the L4S queue above is short for Prague, not for all.
    let r = run_toml(
        r#"
name = "classic"
duration_s = 20
[link]
capacity_mbps = 10
one_way_delay_ms = 25
[link.queue]
kind = "dualpi2"
[[flows]]
name = "reno"
algorithm = "tcp-newreno"
ecn = "classic"
"#,
        1,
    );
    let f = &r.summary.flows[0];
    assert!(f.queue_delay_ms.p50 > 5.0, "{:?}", f.queue_delay_ms);
}

const ON_OFF: &str = r#"
name = "mixed"
duration_s = 20
[link]
capacity_mbps = 10
jitter_ms = 1
[[flows]]
name = "bulk"
algorithm = "tcp-cubic"
[[flows]]
name = "web"
algorithm = "tcp-newreno"
[flows.tcp]
traffic = "on-off"
idle_mean_s = 0.5
"#;

#[test]
fn same_seed_same_output_and_the_seed_moves_on_off_traffic() {
    let outputs = |r: &RunResult| {
        (
            summary_json(&r.summary).unwrap(),
            timeseries_csv(&r.samples).unwrap(),
        )
    };
    let a = outputs(&run_toml(ON_OFF, 7));
    let b = outputs(&run_toml(ON_OFF, 7));
    assert_eq!(a, b);
    let c = outputs(&run_toml(ON_OFF, 8));
    assert_ne!(a.1, c.1);
}

#[test]
fn on_off_objects_are_delivered_between_idle_periods() {
    let r = run_toml(ON_OFF, 1);
    let web = r.summary.flows.iter().find(|f| f.name == "web").unwrap();
    // 30–50 kB objects, each taking a few RTTs behind the bulk flow's queue, then
    // half a second idle on average: between a handful and a few dozen in 20 s.
    let objects = web.throughput_mbps * 20.0 * 1e6 / 8.0 / 40_000.0;
    assert!((5.0..=60.0).contains(&objects), "{objects}");
    let idle_samples = r
        .samples
        .iter()
        .filter(|s| &*s.flow == "web" && s.t_s > 1.0 && s.tx_mbps == 0.0)
        .count();
    assert!(idle_samples > 200, "idle periods: {idle_samples} samples");
}

/// One on-off source alone on a link, starting ON or (`start_idle`) OFF.
fn lone_on_off(start_idle: bool, seed: u64) -> RunResult {
    run_toml(
        &format!(
            "name = \"onoff\"\nduration_s = 20\n{BDP_LINK}\n[[flows]]\nname = \"web\"\n\
             algorithm = \"tcp-newreno\"\n[flows.tcp]\ntraffic = \"on-off\"\n\
             idle_mean_s = 5\nstart_idle = {start_idle}\n"
        ),
        seed,
    )
}

/// Time of the first sample in which `flow` sends, s.
fn first_send(r: &RunResult, flow: &str) -> f64 {
    r.samples
        .iter()
        .find(|s| &*s.flow == flow && s.tx_mbps > 0.0)
        .map_or(f64::INFINITY, |s| s.t_s)
}

#[test]
fn an_on_off_source_starting_idle_waits_an_idle_time_before_its_first_object() {
    // Starting ON, the first object leaves at once.
    assert!(first_send(&lone_on_off(false, 1), "web") < 0.2);
    // Starting OFF, it waits an exponential idle time (mean 5 s): over a few seeds the
    // first object leaves later on average, and at different times.
    let firsts: Vec<f64> = (1..=6)
        .map(|seed| first_send(&lone_on_off(true, seed), "web"))
        .collect();
    let mean = firsts.iter().sum::<f64>() / firsts.len() as f64;
    assert!(mean > 1.0, "{firsts:?}");
    assert!(
        firsts.iter().any(|t| (t - firsts[0]).abs() > 0.1),
        "{firsts:?}"
    );
}
