//! Pacing on a loop clock without catch-up: Ericsson's test application times the next
//! packet from the step the last one left on (`ScreamTx::isOkToTransmit`,
//! `nextTransmitT_ntp = time_ntp + paceInterval_ntp`), so on the 0.1 ms steps of
//! `ac89024` a pacing interval is in effect rounded up to whole steps and the send rate
//! falls to one packet per two, three, ... steps. Both apparatus profiles set
//! `pacing_catch_up = 0` for this; the default catch-up keeps the pacing rate instead.

use scream_sim::scenario::load::load_str;
use scream_sim::{Scenario, run};

/// A V1 L4S flow held at 55 Mbit/s (so that it is paced: V1 paces in L4S mode) over an
/// ample link on the 0.1 ms step grid of `ac89024`, with `params` appended.
fn scenario(params: &str) -> Scenario {
    let text = format!(
        r#"
duration_s = 4.0

[clock]
step_hz = 10000
sender_tick_hz = 65536

[link]
capacity_mbps = 500.0
one_way_delay_ms = 20.0

[[flows]]
algorithm = "scream-v1"
ecn = "l4s"
start_bitrate_mbps = 55.0
min_bitrate_mbps = 55.0
max_bitrate_mbps = 55.0
source = {{ kind = "video-constant", fps = 50.0, phase_ms = 0.0 }}

[flows.params]
mss_bytes = 1200
adaptive_target_rate_scale = 0
{params}
"#
    );
    load_str(&text, "pacing-steps.toml", None, &[]).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// Mean sent rate over the last two seconds, Mbit/s.
fn sent_mbps(s: &Scenario) -> f64 {
    let r = run(s, 1, None).expect("runs");
    let late: Vec<f64> = r
        .samples
        .iter()
        .filter(|row| row.t_s > 2.0)
        .map(|row| row.tx_mbps)
        .collect();
    assert!(!late.is_empty(), "no rows");
    late.iter().sum::<f64>() / late.len() as f64
}

#[test]
fn without_catch_up_a_pacing_interval_is_rounded_up_to_whole_steps() {
    // Pacing at 1.5 x 55 Mbit/s: a 1212-byte packet every 0.118 ms, which without credit
    // for the late step becomes every 0.2 ms (two steps): at most 48.5 Mbit/s.
    let two_steps_mbps = 1212.0 * 8.0 / 0.2e-3 / 1e6;
    let exact = sent_mbps(&scenario("pacing_catch_up = 0.0"));
    assert!(
        exact <= two_steps_mbps * 1.02 && exact > two_steps_mbps * 0.8,
        "one packet per two steps at most: {exact} Mbit/s (limit {two_steps_mbps})"
    );
    // With the default catch-up the missed slots are used and the target rate goes out.
    let credited = sent_mbps(&scenario(""));
    assert!(
        credited > 52.0,
        "the slots passed between steps are used: {credited} Mbit/s"
    );
}
