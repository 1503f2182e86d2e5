//! `[apparatus]` profiles through the loader: a scenario naming one gets the profile's
//! mechanics, keeps what it writes itself, and an unknown vintage is refused by key.

use scream_sim::scenario::load::{Override, load_builtin, load_str};
use scream_sim::scenario::{QueueKind, Scenario};

fn testapp(vintage: &str, extra: &str) -> Result<Scenario, String> {
    let text = format!(
        "duration_s = 1\n[apparatus]\nkind = \"ericsson-testapp\"\nvintage = \"{vintage}\"\n\
         [link]\ncapacity_mbps = 20\n{extra}\n[[flows]]\nname = \"video\"\n"
    );
    load_str(&text, "t.toml", None, &[]).map_err(|e| e.to_string())
}

#[test]
fn each_vintage_brings_its_own_loop_queue_and_delays() {
    let old = testapp("ac89024", "").expect("loads");
    let new = testapp("0924c0b", "").expect("loads");
    assert_eq!(old.clock.step_hz, 10_000.0);
    assert_eq!(new.clock.step_hz, 65_536.0);
    for s in [&old, &new] {
        let link = s.link.as_ref().expect("one link");
        assert_eq!(link.queue.kind, QueueKind::NetQueue);
        assert_eq!(s.clock.sender_tick_hz, 65_536.0);
        assert_eq!(s.sample_interval_ms, 50.0);
        assert_eq!(s.flows[0].packets_per_report, 1);
        assert_eq!(s.flows[0].report_window, 1);
        s.validate().expect("a profiled scenario is valid");
    }
    assert_eq!(old.link.as_ref().unwrap().one_way_delay_ms, Some(20.0));
    assert_eq!(new.link.as_ref().unwrap().one_way_delay_ms, Some(30.0));
    assert_eq!(old.flows[0].priority, 0.7);
    assert_eq!(new.flows[0].priority, 1.0);
}

#[test]
fn what_the_scenario_or_a_set_writes_wins() {
    let s = testapp("0924c0b", "one_way_delay_ms = 0").expect("loads");
    assert_eq!(s.link.as_ref().unwrap().one_way_delay_ms, Some(0.0));
    let sets = [
        "apparatus.vintage=ac89024"
            .parse::<Override>()
            .expect("override"),
        "flows.0.priority=0.3"
            .parse::<Override>()
            .expect("override"),
    ];
    let s: Scenario = load_builtin("paper-tuning-testapp", &sets).expect("loads");
    assert_eq!(s.clock.step_hz, 10_000.0, "the override picks the vintage");
    assert_eq!(s.flows[0].priority, 0.3);
    assert_eq!(
        s.flows[0].max_bitrate_mbps, 100.0,
        "the study's own default"
    );
}

#[test]
fn an_unknown_vintage_is_refused_by_its_key() {
    let e = testapp("2019", "").unwrap_err();
    assert!(e.contains("apparatus.vintage"), "{e}");
    assert!(e.contains("ac89024, 0924c0b"), "{e}");
}
