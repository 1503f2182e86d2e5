//! Whole runs that exercise the network's shape: feedback as packets on reverse links,
//! media both ways, several streams per sender, frame phases, frame accounting and the
//! per-link series.

mod common;

use common::mean_over;

use scream_sim::metrics::Sample;
use scream_sim::scenario::load::{load_builtin, load_str};
use scream_sim::summary::LinkSummary;
use scream_sim::{RunResult, Scenario, run};

fn scenario(text: &str) -> Scenario {
    load_str(text, "test.toml", None, &[]).unwrap_or_else(|e| panic!("{e}"))
}

fn builtin(name: &str) -> Scenario {
    load_builtin(name, &[]).unwrap_or_else(|e| panic!("{e}"))
}

/// The summary of the (only) link's reverse direction.
fn reverse_link(r: &RunResult) -> &LinkSummary {
    r.summary
        .links
        .iter()
        .find(|l| l.direction == "reverse")
        .expect("every link has a reverse direction")
}

const ONE_FLOW_WITH_A_NARROW_RETURN: &str = r#"
duration_s = 20.0
[link]
capacity_mbps = 10.0
one_way_delay_ms = 25.0
[link.reverse]
# About 60 feedback packets of ~150 bytes per second need ~75 kbit/s.
capacity_mbps = 0.09
[link.reverse.queue]
kind = "ecn-threshold"
ecn_threshold_ms = 20.0
limit_bytes = 600
[[flows]]
name = "video"
feedback_ecn = "classic"
"#;

#[test]
fn feedback_is_delayed_marked_and_dropped_by_a_reverse_queue() {
    let narrow = run(&scenario(ONE_FLOW_WITH_A_NARROW_RETURN), 1, None).unwrap();
    let mut free_text = ONE_FLOW_WITH_A_NARROW_RETURN.replace("capacity_mbps = 0.09", "");
    free_text = free_text.replace("feedback_ecn = \"classic\"", "");
    let free = run(&scenario(&free_text), 1, None).unwrap();

    let (n, f) = (&narrow.summary.flows[0], &free.summary.flows[0]);
    // Marked: feedback sent ECT(0) waits longer than the threshold at times.
    assert!(reverse_link(&narrow).packets_ce_marked > 0);
    assert_eq!(reverse_link(&free).packets_ce_marked, 0);
    // Dropped: the 600-byte queue overflows; the flow counts what it lost.
    assert!(reverse_link(&narrow).packets_dropped > 0);
    assert_eq!(n.feedback.lost, reverse_link(&narrow).packets_dropped);
    // The rest were still on their way back when the run ended.
    let resolved = n.feedback.delivered + n.feedback.lost;
    assert!(n.feedback.sent >= resolved && n.feedback.sent - resolved < 10);
    assert_eq!(f.feedback.lost, 0);
    // Delayed: serialisation and queueing on the way back lengthen the RTT.
    assert!(
        n.srtt_ms.mean > f.srtt_ms.mean + 5.0,
        "sRTT {} vs {} ms",
        n.srtt_ms.mean,
        f.srtt_ms.mean
    );
    // The media itself still flows.
    assert!(n.throughput_mbps > 3.0, "{}", n.throughput_mbps);
}

#[test]
fn a_dead_return_path_stalls_the_sender_and_it_recovers_when_feedback_returns() {
    let r = run(&builtin("feedback-blackout"), 1, None).unwrap();
    let f = &r.summary.flows[0];
    let before = mean_over(&r, "video", 5.0, 10.0, |s| s.tx_mbps);
    let blind = mean_over(&r, "video", 10.5, 15.0, |s| s.tx_mbps);
    let after = mean_over(&r, "video", 17.0, 22.0, |s| s.rx_mbps);
    let target_before = mean_over(&r, "video", 9.0, 10.0, |s| s.target_mbps.unwrap());
    let target_blind = mean_over(&r, "video", 14.0, 15.0, |s| s.target_mbps.unwrap());
    // Without acknowledgements the window stays full: only what the in-flight timeout
    // releases goes out.
    assert!(blind < 0.5 * before, "{blind} vs {before} Mbit/s");
    assert!(
        target_blind < 0.8 * target_before,
        "target {target_blind} vs {target_before}"
    );
    assert!(after > 0.85 * before, "{after} vs {before} Mbit/s");
    // Everything the receiver sent in the blackout was lost, nothing else.
    assert!(f.feedback.lost > 0);
    let reverse = reverse_link(&r);
    assert_eq!(reverse.packets_lost, f.feedback.lost);
    assert_eq!(reverse.packets_dropped, 0);
}

#[test]
fn two_streams_of_one_sender_split_two_to_one_for_priorities_one_and_a_half() {
    let r = run(&builtin("two-streams"), 1, None).unwrap();
    let streams = &r.summary.flows[0].streams;
    assert_eq!(streams.len(), 2);
    let (high, low) = (streams[0].throughput_mbps, streams[1].throughput_mbps);
    let ratio = high / low;
    // The reference splits 5.11 / 2.56 Mbit/s on this scenario.
    assert!((ratio - 2.0).abs() <= 0.2, "{high} / {low} = {ratio}");
    let total = r.summary.flows[0].throughput_mbps;
    assert!((total - high - low).abs() < 1e-9);
    // One row per stream per sample, flow-level values alike in both.
    let at_10s: Vec<&Sample> = r.samples.iter().filter(|s| s.t_s == 10.0).collect();
    assert_eq!(at_10s.len(), 2);
    assert_eq!(at_10s[0].srtt_ms, at_10s[1].srtt_ms);
    assert_ne!(at_10s[0].target_mbps, at_10s[1].target_mbps);
}

#[test]
fn media_in_both_directions_uses_each_direction_of_the_link() {
    let r = run(
        &scenario(
            r#"
duration_s = 30.0
[link]
capacity_mbps = 8.0
one_way_delay_ms = 20.0
[link.reverse]
capacity_mbps = 3.0
[[flows]]
name = "down"
[[flows]]
name = "up"
direction = "reverse"
"#,
        ),
        1,
        None,
    )
    .unwrap();
    let tput = |name: &str| {
        r.summary
            .flows
            .iter()
            .find(|f| f.name == name)
            .unwrap()
            .throughput_mbps
    };
    // Each flow is limited by its own direction and shares it only with the other's
    // feedback.
    assert!((6.0..8.0).contains(&tput("down")), "{}", tput("down"));
    assert!((2.2..3.0).contains(&tput("up")), "{}", tput("up"));
    let up_rows = r.samples.iter().filter(|s| &*s.flow == "up");
    assert!(up_rows.clone().all(|s| s.capacity_mbps == 3.0));
    let reverse = reverse_link(&r);
    assert!(reverse.utilization > 0.75, "{}", reverse.utilization);
}

#[test]
fn eight_l4s_flows_share_fairly_with_random_frame_phases() {
    let r = run(&builtin("eight-l4s-flows"), 1, None).unwrap();
    let x: Vec<f64> = r
        .summary
        .flows
        .iter()
        .map(|f| f.window.as_ref().unwrap().throughput_mbps)
        .collect();
    let jain =
        x.iter().sum::<f64>().powi(2) / (x.len() as f64 * x.iter().map(|v| v * v).sum::<f64>());
    assert!(jain >= 0.9, "Jain {jain}: {x:?}");
    assert!(x.iter().sum::<f64>() > 8.0, "{x:?}");
}

const TWO_FLOWS_STARTING_TOGETHER: &str = r#"
duration_s = 1.0
[link]
capacity_mbps = 100.0
[[flows]]
name = "a"
[[flows]]
name = "b"
"#;

/// The end of the first sampling period in which flow `name` produced a frame.
fn first_frame_row(r: &RunResult, name: &str) -> f64 {
    r.samples
        .iter()
        .find(|s| &*s.flow == name && s.frame_size_bytes.is_some())
        .map(|s| s.t_s)
        .unwrap()
}

#[test]
fn frame_phases_are_random_per_flow_unless_pinned() {
    let random = scenario(TWO_FLOWS_STARTING_TOGETHER);
    let sent = |r: &RunResult, name: &str| {
        r.samples
            .iter()
            .filter(|s| &*s.flow == name)
            .map(|s| s.tx_mbps)
            .collect::<Vec<f64>>()
    };
    // The phase is drawn from the seed: another seed, other frame instants.
    let (one, two) = (
        run(&random, 1, None).unwrap(),
        run(&random, 2, None).unwrap(),
    );
    assert_ne!(sent(&one, "a"), sent(&two, "a"));
    assert!(random.has_random_element());

    let pinned_text = TWO_FLOWS_STARTING_TOGETHER.replace(
        "name = \"b\"",
        "name = \"b\"\n[flows.source]\nphase_ms = 0.0",
    );
    let pinned_text = pinned_text.replacen(
        "name = \"a\"",
        "name = \"a\"\n[flows.source]\nphase_ms = 0.0",
        1,
    );
    let pinned = scenario(&pinned_text);
    assert!(!pinned.has_random_element());
    let a = run(&pinned, 1, None).unwrap();
    let b = run(&pinned, 99, None).unwrap();
    assert_eq!(
        sent(&a, "a"),
        sent(&b, "a"),
        "no random element: the seed is moot"
    );
    assert_eq!(sent(&a, "b"), sent(&b, "b"));
    assert!(first_frame_row(&a, "a") <= 0.02 + 1e-9);
    assert!(first_frame_row(&a, "b") <= 0.02 + 1e-9);
}

#[test]
fn every_frame_is_delivered_lost_or_discarded_and_only_delivered_ones_have_a_delay() {
    let r = run(
        &scenario(
            r#"
duration_s = 20.0
[link]
capacity_mbps = 10.0
loss = 0.01
[[flows]]
name = "video"
"#,
        ),
        1,
        None,
    )
    .unwrap();
    let f = &r.summary.flows[0];
    assert!(f.frames.lost > 0, "{:?}", f.frames);
    assert_eq!(f.frame_delay_ms.count, f.frames.delivered);
    let counted = f.frames.delivered + f.frames.lost + f.frames.discarded + f.frames.unfinished;
    // 50 fps for 20 s, less the frames of the first period's phase offset.
    assert!((998..=1000).contains(&counted), "{counted}");
    assert!(f.frames.loss_ratio > 0.0 && f.frames.loss_ratio < 0.5);
}

#[test]
fn link_rows_account_for_every_drop_and_mark_of_the_run() {
    let r = run(&builtin("ericsson-default"), 1, None).unwrap();
    let forward: Vec<_> = r
        .link_samples
        .iter()
        .filter(|l| l.direction == "forward")
        .collect();
    let reverse_rows = r
        .link_samples
        .iter()
        .filter(|l| l.direction == "reverse")
        .count();
    assert_eq!(forward.len(), reverse_rows);
    assert_eq!(forward.len(), 1000, "20 s / 20 ms");
    let marks: u64 = forward.iter().map(|l| l.ce_marked_packets).sum();
    assert_eq!(marks, r.summary.links[0].packets_ce_marked);
    assert_eq!(marks, r.summary.flows[0].packets_ce);
    // Capacity follows the steps: 5 Mbit/s between 3 and 6 s.
    let at = |t: f64| {
        forward
            .iter()
            .find(|l| (l.t_s - t).abs() < 1e-9)
            .unwrap()
            .capacity_mbps
    };
    assert_eq!((at(2.0), at(4.0), at(7.0)), (10.0, 5.0, 10.0));
    assert!(forward.iter().any(|l| l.queue_bytes > 0));
}

#[test]
fn an_inactive_flow_has_empty_cells_not_zeros() {
    let r = run(&builtin("two-flows"), 1, None).unwrap();
    let early = r
        .samples
        .iter()
        .find(|s| &*s.flow == "video-2" && s.t_s < 19.0)
        .unwrap();
    assert_eq!(early.target_mbps, None);
    assert_eq!(early.srtt_ms, None);
    assert_eq!(early.tx_mbps, 0.0);
    let late = r
        .samples
        .iter()
        .find(|s| &*s.flow == "video-2" && s.t_s > 21.0)
        .unwrap();
    assert!(late.target_mbps.is_some());
}
