//! The packet and event logs on a small run with every kind of drop. A classic-ECN
//! SCReAM flow, an unresponsive ECT(0) constant-bitrate flow of 5.5 Mbit/s and a small
//! Not-ECT one share a bottleneck that marks above 30 ms (and drops the Not-ECT
//! packets it would mark), overflows its 60 ms queue while its capacity is halved to
//! 5 Mbit/s, and loses 1 % of media and 2 % of feedback packets after the serializer.

use std::collections::{BTreeMap, HashSet};
use std::io::{self, Write};
use std::sync::{Arc, Mutex};

use scream_records::timeseries_csv;
use scream_sim::log::{LogOptions, LogReport};
use scream_sim::output::summary_json;
use scream_sim::scenario::load::load_named;
use scream_sim::scenario::{Algorithm, EcnSetting, FlowConfig, Scenario};
use scream_sim::summary::Summary;
use scream_sim::{run, run_with_logs};
use serde_json::Value;

/// A writer whose bytes the test reads afterwards.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Shared {
    fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

fn scenario() -> Scenario {
    let mut s: Scenario = load_named("ericsson-default-ecn", &[]).unwrap();
    s.name = "logs".into();
    s.duration_s = 8.0;
    s.report_window_s = None;
    let link = s.link.as_mut().unwrap();
    link.loss = 0.01;
    link.queue.limit.limit_ms = 60.0;
    link.reverse.as_mut().unwrap().loss = 0.02;
    let cbr = |name: &str, mbps: f64, ecn| FlowConfig {
        name: name.into(),
        algorithm: Algorithm::Cbr,
        start_bitrate_mbps: mbps,
        max_bitrate_mbps: mbps,
        ecn,
        ..FlowConfig::default()
    };
    s.flows.push(cbr("cbr", 5.5, EcnSetting::Classic));
    s.flows.push(cbr("probe", 0.5, EcnSetting::None));
    s
}

struct Logged {
    summary: Summary,
    timeseries: String,
    packets: String,
    events: String,
    report: LogReport,
}

fn run_logged(s: &Scenario, limit_bytes: u64) -> Logged {
    let (packets, events) = (Shared::default(), Shared::default());
    let options = LogOptions {
        packets: Some(Box::new(packets.clone())),
        events: Some(Box::new(events.clone())),
        limit_bytes,
    };
    let (result, report) = run_with_logs(s, s.seed, None, options).unwrap();
    Logged {
        summary: result.summary,
        timeseries: timeseries_csv(&result.samples).unwrap(),
        packets: packets.text(),
        events: events.text(),
        report,
    }
}

fn rows(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn str_of<'a>(row: &'a Value, key: &str) -> &'a str {
    row[key].as_str().unwrap_or("")
}

#[test]
fn logs_change_nothing_about_the_run() {
    let s = scenario();
    let plain = run(&s, s.seed, None).unwrap();
    let logged = run_logged(&s, u64::MAX);
    assert_eq!(
        summary_json(&plain.summary).unwrap(),
        summary_json(&logged.summary).unwrap()
    );
    assert_eq!(timeseries_csv(&plain.samples).unwrap(), logged.timeseries);
}

#[test]
fn every_packet_the_summary_counts_has_one_row_with_its_fate() {
    let s = scenario();
    let l = run_logged(&s, u64::MAX);
    let rows = rows(&l.packets);
    assert_eq!(l.report.packets.as_ref().unwrap().rows, rows.len() as u64);
    assert_eq!(l.report.packets.as_ref().unwrap().truncated, None);
    let ids: HashSet<u64> = rows.iter().map(|r| r["id"].as_u64().unwrap()).collect();
    assert_eq!(ids.len(), rows.len(), "a packet has two rows");

    // (flow, kind, fate or drop cause) -> rows
    let mut count: BTreeMap<(String, String, String), u64> = BTreeMap::new();
    for r in &rows {
        let fate = match str_of(r, "fate") {
            "delivered" => "delivered",
            "in-flight" => "in-flight",
            "dropped" => str_of(r, "drop_cause"),
            other => panic!("unknown fate {other}"),
        };
        let key = (
            str_of(r, "flow").to_owned(),
            str_of(r, "kind").to_owned(),
            fate.to_owned(),
        );
        *count.entry(key).or_default() += 1;
    }
    let n = |flow: &str, kind: &str, fate: &str| {
        count
            .get(&(flow.to_owned(), kind.to_owned(), fate.to_owned()))
            .copied()
            .unwrap_or(0)
    };
    for f in &l.summary.flows {
        let name = f.name.as_str();
        assert_eq!(n(name, "media", "delivered"), f.packets_received, "{name}");
        let queue = n(name, "media", "queue-full") + n(name, "media", "aqm");
        assert_eq!(queue, f.packets_dropped, "{name}");
        assert_eq!(n(name, "media", "path-loss"), f.packets_lost, "{name}");
        // The rest were still under way when the run ended.
        let fated = f.packets_received + f.packets_dropped + f.packets_lost;
        assert_eq!(
            n(name, "media", "in-flight"),
            f.packets_sent - fated,
            "{name}"
        );
        let fb = &f.feedback;
        assert_eq!(n(name, "feedback", "delivered"), fb.delivered, "{name}");
        let fb_dropped: u64 = ["queue-full", "aqm", "path-loss"]
            .iter()
            .map(|c| n(name, "feedback", c))
            .sum();
        assert_eq!(fb_dropped, fb.lost, "{name}");
        let fb_under_way = n(name, "feedback", "in-flight");
        assert_eq!(fb.delivered + fb.lost + fb_under_way, fb.sent, "{name}");
    }
    // Packets were under way at the end (25 ms one way): they have rows too.
    assert!(n("video", "media", "in-flight") > 0, "{count:?}");
    // The scenario makes every cause happen.
    for cause in ["queue-full", "aqm", "path-loss"] {
        let all: u64 = ["video", "cbr", "probe"]
            .iter()
            .map(|f| n(f, "media", cause))
            .sum();
        assert!(all > 0, "no {cause}: {count:?}");
    }
    assert!(n("video", "feedback", "path-loss") > 0, "{count:?}");
    // The AQM drops only Not-ECT packets; the ECT ones it marks instead.
    assert_eq!(n("video", "media", "aqm") + n("cbr", "media", "aqm"), 0);
    assert!(rows.iter().any(|r| str_of(r, "ecn_received") == "ce"));
}

#[test]
fn rows_carry_a_consistent_journey() {
    let s = scenario();
    let l = run_logged(&s, u64::MAX);
    for r in rows(&l.packets) {
        let hops = r["hops"].as_array().unwrap();
        assert_eq!(hops.len(), 1, "one link each way: {r}");
        let hop = &hops[0];
        let sent = r["sent_s"].as_f64().unwrap();
        let enqueue = hop["enqueue_s"].as_f64().unwrap();
        assert_eq!(enqueue, sent, "the link is the first element: {r}");
        let direction = str_of(hop, "direction");
        let expected = if str_of(&r, "kind") == "media" {
            "forward"
        } else {
            "reverse"
        };
        assert_eq!(direction, expected, "{r}");
        assert_eq!(str_of(hop, "link"), "bottleneck");
        match str_of(&r, "fate") {
            "delivered" => {
                let out = hop["dequeue_s"].as_f64().unwrap();
                let received = r["received_s"].as_f64().unwrap();
                assert!(enqueue <= out && out <= received, "{r}");
                assert!(r["drop_cause"].is_null() && r["drop_s"].is_null(), "{r}");
            }
            "in-flight" => {
                assert!(r["received_s"].is_null() && r["drop_s"].is_null(), "{r}");
                assert!(
                    hop["dequeue_s"].as_f64().is_none_or(|out| out >= enqueue),
                    "{r}"
                );
            }
            _ => {
                let at = r["drop_s"].as_f64().unwrap();
                assert!(at >= enqueue, "{r}");
                assert_eq!(str_of(&r, "drop_link"), "bottleneck");
                assert_eq!(str_of(&r, "drop_direction"), direction);
                assert!(
                    r["received_s"].is_null() && r["ecn_received"].is_null(),
                    "{r}"
                );
                // Only a path loss happens after the packet left the serializer.
                let left = !hop["dequeue_s"].is_null();
                assert_eq!(left, str_of(&r, "drop_cause") == "path-loss", "{r}");
            }
        }
        if str_of(&r, "kind") == "media" {
            let ecn = if str_of(&r, "flow") == "probe" {
                "not-ect"
            } else {
                "ect0"
            };
            assert_eq!(str_of(&r, "ecn_sent"), ecn, "{r}");
            assert!(r["seq"].is_u64() && !r["stream"].is_null(), "{r}");
        } else {
            assert!(r["seq"].is_null() && r["stream"].is_null(), "{r}");
        }
    }
}

#[test]
fn ce_marks_show_as_ce_back_offs_in_the_event_log() {
    let s = scenario();
    let l = run_logged(&s, u64::MAX);
    let events = rows(&l.events);
    let ce: Vec<&Value> = events
        .iter()
        .filter(|e| str_of(e, "event") == "backoff" && str_of(e, "cause") == "ce")
        .collect();
    assert!(!ce.is_empty(), "no CE back-off in {} events", events.len());
    for e in &ce {
        assert_eq!(str_of(e, "flow"), "video");
        let before = e["window_before_bytes"].as_u64().unwrap();
        let after = e["window_after_bytes"].as_u64().unwrap();
        assert!(after <= before, "{e}");
    }
    // Target changes follow, per stream; the CBR flow has no controller and no rows.
    assert!(events.iter().any(|e| str_of(e, "event") == "target"
        && str_of(e, "stream") == "video"
        && e["target_mbps"].as_f64().unwrap() < e["previous_mbps"].as_f64().unwrap()));
    assert!(events.iter().all(|e| str_of(e, "flow") == "video"));
    let times: Vec<f64> = events.iter().map(|e| e["t_s"].as_f64().unwrap()).collect();
    assert!(
        times.windows(2).all(|w| w[0] <= w[1]),
        "events out of time order"
    );
    assert_eq!(l.report.cc_events_dropped, 0);
}

#[test]
fn the_cap_truncates_with_a_marker_line() {
    let s = scenario();
    let limit = 50_000;
    let l = run_logged(&s, limit);
    let lines: Vec<&str> = l.packets.lines().collect();
    let (last, kept) = lines.split_last().unwrap();
    let marker: Value = serde_json::from_str(last).unwrap();
    assert_eq!(marker["truncated"], Value::Bool(true));
    assert_eq!(marker["limit_bytes"].as_u64(), Some(limit));
    let omitted = marker["rows_omitted"].as_u64().unwrap();
    assert!(omitted > 0);
    let kept_bytes: usize = kept.iter().map(|k| k.len() + 1).sum();
    assert!(kept_bytes as u64 <= limit && kept_bytes as u64 > limit - 2_000);
    for k in kept {
        let row: Value = serde_json::from_str(k).unwrap();
        assert!(row["id"].is_u64());
    }
    let report = l.report.packets.unwrap();
    assert_eq!(report.rows, kept.len() as u64);
    assert_eq!(report.truncated.map(|t| t.0), Some(omitted));
    assert_eq!(report.bytes, l.packets.len() as u64);
    // The full run had exactly the rows kept plus those left out.
    let full = run_logged(&s, u64::MAX);
    assert_eq!(full.packets.lines().count() as u64, report.rows + omitted);
}
