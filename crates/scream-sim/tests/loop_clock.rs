//! The loop clock (`[clock]`): on the grid of a discrete-time test application, a V1
//! flow whose rate adjustment interval is one tick longer than its frame period
//! adjusts on every other frame, as Ericsson's `scream_v_a` at 0924c0b does (frames
//! every 1310 ticks, `kRateAdjustInterval_ntp` 1311 ticks); in continuous time with the
//! default tolerance it adjusts on every frame.

use scream_sim::scenario::load::{load_checked_str, load_str};
use scream_sim::{Scenario, run};

/// A V1 flow over an ample link whose fast increase ramps 1 Mbit/s per second from
/// 1 Mbit/s, with `extra` appended (a `[clock]` table, more `[flows.params]`).
fn scenario(clock: &str, params: &str) -> Scenario {
    let text = format!(
        r#"
duration_s = 3.0
{clock}

[link]
capacity_mbps = 200.0
one_way_delay_ms = 20.0

[[flows]]
algorithm = "scream-v1"
start_bitrate_mbps = 1.0
max_bitrate_mbps = 50.0
source = {{ kind = "video-constant", fps = 50.0, phase_ms = 0.0 }}

[flows.params]
ramp_up_speed = 1e6
ramp_up_scale = 100.0
adaptive_target_rate_scale = 0
{params}
"#
    );
    load_str(&text, "loop-clock.toml", None, &[]).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

const TICK_CLOCK: &str = "[clock]\nstep_hz = 65536\nsender_tick_hz = 65536";
/// 1311 ticks, `kRateAdjustInterval_ntp` at 0924c0b.
const INTERVAL_1311: &str = "rate_adjust_interval = 0.0200042724609375";

/// How far the target rose, Mbit/s, from its start to its mean over the last second.
fn ramp(s: &Scenario) -> f64 {
    let r = run(s, 1, None).expect("runs");
    let late: Vec<f64> = r
        .samples
        .iter()
        .filter(|row| row.t_s > 2.0)
        .filter_map(|row| row.target_mbps)
        .collect();
    assert!(!late.is_empty(), "no target rows");
    late.iter().sum::<f64>() / late.len() as f64 - 1.0
}

#[test]
fn on_the_tick_clock_a_1311_tick_interval_adjusts_every_other_frame() {
    let exact = format!("{INTERVAL_1311}\nrate_adjust_tolerance = 0");
    let continuous = ramp(&scenario("", INTERVAL_1311));
    let ticks = ramp(&scenario(TICK_CLOCK, &exact));
    let ticks_1310 = ramp(&scenario(
        TICK_CLOCK,
        "rate_adjust_interval = 0.0199890136718750\nrate_adjust_tolerance = 0",
    ));
    assert!(continuous > 1.0, "the ramp runs: {continuous}");
    // Half the adjustments: about half the rise (within 15 %).
    let ratio = ticks / continuous;
    assert!((0.42..0.58).contains(&ratio), "{ticks} / {continuous}");
    // An interval of exactly the frame period adjusts on every frame again.
    let ratio = ticks_1310 / continuous;
    assert!((0.9..1.1).contains(&ratio), "{ticks_1310} / {continuous}");
}

#[test]
fn the_loop_clock_table_is_written_back_only_when_set() {
    let plain = scenario("", "");
    let text = toml_edit::ser::to_string(&plain).expect("toml");
    assert!(!text.contains("[clock]"), "{text}");
    let clocked = scenario(TICK_CLOCK, "");
    let text = toml_edit::ser::to_string(&clocked).expect("toml");
    let back: Scenario = toml_edit::de::from_str(&text).expect("reads back");
    assert_eq!(back.clock, clocked.clock);
    assert_eq!(back.clock.step_hz, 65_536.0);
}

#[test]
fn a_clock_out_of_range_or_unknown_is_refused_by_name() {
    let text = "duration_s = 1.0\n[clock]\nstep_hz = 50\n";
    let e = load_checked_str(text, "c.toml", None, &[])
        .expect_err("50 Hz is refused")
        .to_string();
    assert!(
        e.contains("c.toml:3") && e.contains("clock.step_hz") && e.contains("[1000, 1e9] Hz"),
        "{e}"
    );
    let text = "duration_s = 1.0\n[clock]\nstep_hx = 65536\n";
    let e = load_str::<Scenario>(text, "c.toml", None, &[])
        .expect_err("a misspelt key is refused")
        .to_string();
    assert!(e.contains("step_hx") && e.contains("step_hz"), "{e}");
}
