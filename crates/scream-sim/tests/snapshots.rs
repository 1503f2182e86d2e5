//! Snapshot of every built-in scenario's summary, in rounded integers.
//!
//! Any change to the algorithm or the network model shows up here as a reviewable diff
//! of `tests/snapshots/<scenario>.txt`. After an intended change, regenerate with
//! `UPDATE_SNAPSHOTS=1 cargo test -p scream-sim --test snapshots` and commit the diff
//! with the change that caused it.

use std::fmt::Write as _;
use std::path::PathBuf;

use scream_sim::scenario::builtin::BUILTINS;
use scream_sim::scenario::load::load_builtin;
use scream_sim::summary::Distribution;
use scream_sim::{Scenario, Summary, run};

fn snapshot_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots")
}

fn ms(d: &Distribution) -> String {
    format!("{:.0}/{:.0}/{:.0}/{:.0}", d.mean, d.p50, d.p95, d.p99)
}

/// Rounding is coarse on purpose: the snapshot should move when behaviour moves, not
/// when the last bit of a float does.
fn render(s: &Summary) -> String {
    let mut out = String::new();
    for l in &s.links {
        if l.capacity_mean_mbps.is_infinite() {
            let _ = writeln!(out, "link {} {}: unlimited", l.name, l.direction);
            continue;
        }
        let _ = writeln!(
            out,
            "link {} {}: capacity {:.0} kbit/s, utilisation {:.0} %",
            l.name,
            l.direction,
            l.capacity_mean_mbps * 1000.0,
            l.utilization * 100.0
        );
    }
    for f in &s.flows {
        let _ = writeln!(out, "flow {} ({})", f.name, f.algorithm);
        let _ = writeln!(
            out,
            "  throughput {:.0} kbit/s, target mean {:.0} kbit/s",
            f.throughput_mbps * 1000.0,
            f.target_bitrate_mbps.mean * 1000.0
        );
        let _ = writeln!(
            out,
            "  queue delay ms mean/p50/p95/p99 {}",
            ms(&f.queue_delay_ms)
        );
        let _ = writeln!(
            out,
            "  estimated queue delay ms {}",
            ms(&f.estimated_queue_delay_ms)
        );
        let _ = writeln!(out, "  srtt ms {}", ms(&f.srtt_ms));
        let _ = writeln!(out, "  rtp queue delay ms {}", ms(&f.rtp_queue_delay_ms));
        let _ = writeln!(out, "  frame delay ms {}", ms(&f.frame_delay_ms));
        let _ = writeln!(
            out,
            "  frames delivered/lost/discarded {}/{}/{}",
            f.frames.delivered, f.frames.lost, f.frames.discarded
        );
        let _ = writeln!(
            out,
            "  loss {:.1} permille, CE {:.1} permille",
            f.loss_ratio * 1000.0,
            f.ce_ratio * 1000.0
        );
        let _ = writeln!(
            out,
            "  ref window mean {:.0} B, bytes in flight mean {:.0} B",
            f.ref_window_bytes.mean, f.bytes_in_flight.mean
        );
        if f.streams.len() > 1 {
            for st in &f.streams {
                let _ = writeln!(
                    out,
                    "  stream {}: throughput {:.0} kbit/s, target mean {:.0} kbit/s",
                    st.name,
                    st.throughput_mbps * 1000.0,
                    st.target_bitrate_mbps.mean * 1000.0
                );
            }
        }
        if let Some(w) = &f.window {
            let _ = writeln!(
                out,
                "  {:.0}-{:.0} s: throughput {:.0} kbit/s, queue delay ms {}",
                w.from_s,
                w.to_s,
                w.throughput_mbps * 1000.0,
                ms(&w.queue_delay_ms)
            );
        }
    }
    out
}

#[test]
fn builtin_scenario_summaries_match_their_snapshots() {
    let update = std::env::var_os("UPDATE_SNAPSHOTS").is_some();
    let mut mismatches = Vec::new();
    for b in BUILTINS {
        // No override: every built-in runs as shipped, whatever the current directory.
        let scenario: Scenario =
            load_builtin(b.name, &[]).unwrap_or_else(|e| panic!("{}: {e}", b.name));
        let result =
            run(&scenario, scenario.seed, None).unwrap_or_else(|e| panic!("{}: {e}", b.name));
        let actual = format!(
            "scenario {} seed {} duration {:.0} s\n{}",
            b.name,
            scenario.seed,
            scenario.duration_s,
            render(&result.summary)
        );
        let path = snapshot_dir().join(format!("{}.txt", b.name));
        if update {
            std::fs::create_dir_all(snapshot_dir()).expect("create snapshot dir");
            std::fs::write(&path, &actual).expect("write snapshot");
            continue;
        }
        let expected = std::fs::read_to_string(&path).unwrap_or_default();
        if expected != actual {
            mismatches.push(format!(
                "--- {} (expected)\n{expected}+++ actual\n{actual}",
                path.display()
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "summaries changed; if intended, rerun with UPDATE_SNAPSHOTS=1 and commit:\n{}",
        mismatches.join("\n")
    );
}
