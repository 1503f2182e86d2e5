use super::*;

const HOUR: Duration = Duration::from_secs(3600);

fn lte() -> &'static SyntheticModel {
    preset("lte").expect("shipped")
}

fn five_g() -> &'static SyntheticModel {
    preset("5g-walking").expect("shipped")
}

/// Time-weighted statistics of rows spanning `span_ns`: mean rate (Mbit/s), share of
/// time at zero, and the zero-rate stretches (ns).
fn stats(rows: &[(u64, f64)], span_ns: u64) -> (f64, f64, Vec<u64>) {
    let (mut bits, mut zero_ns, mut stretches) = (0.0, 0u64, Vec::new());
    let mut run = 0u64;
    for (i, (t, bps)) in rows.iter().enumerate() {
        let end = rows.get(i + 1).map_or(span_ns, |r| r.0);
        bits += bps * (end - t) as f64 / 1e9;
        if *bps == 0.0 {
            zero_ns += end - t;
            run += end - t;
        } else if run > 0 {
            stretches.push(run);
            run = 0;
        }
    }
    if run > 0 {
        stretches.push(run);
    }
    let secs = span_ns as f64 / 1e9;
    (
        bits / secs / 1e6,
        zero_ns as f64 / span_ns as f64,
        stretches,
    )
}

#[test]
fn every_preset_is_well_formed() {
    for m in PRESETS {
        assert!(m.start < m.states.len(), "{}", m.name);
        assert!(m.redraw_s > 0.0, "{}", m.name);
        assert!(m.gaps.min_ms <= m.gaps.max_ms, "{}", m.name);
        for (i, s) in m.states.iter().enumerate() {
            assert_eq!(s.next.len(), m.states.len(), "{}/{}", m.name, s.name);
            assert_eq!(s.next[i], 0.0, "{}/{} never follows itself", m.name, s.name);
            assert!(s.next.iter().sum::<f64>() > 0.0, "{}/{}", m.name, s.name);
            assert!(s.min_mbps <= s.max_mbps, "{}/{}", m.name, s.name);
            assert!(s.min_dwell_s <= s.mean_dwell_s, "{}/{}", m.name, s.name);
        }
    }
    assert_eq!(preset_names(), ["lte", "5g-walking"]);
    assert!(preset("wifi").is_none());
}

#[test]
fn the_same_seed_and_element_repeat_the_trace_and_others_change_it() {
    let span = Duration::from_secs(120);
    let a = lte().rows(1, "link/x", span);
    assert_eq!(a, lte().rows(1, "link/x", span));
    assert_ne!(a, lte().rows(2, "link/x", span));
    assert_ne!(a, lte().rows(1, "link/y", span));
}

#[test]
fn a_shorter_span_is_the_beginning_of_a_longer_one() {
    for m in PRESETS {
        let short = m.rows(7, "l", Duration::from_secs(30));
        let long = m.rows(7, "l", Duration::from_secs(90));
        let prefix: Vec<_> = long.into_iter().filter(|r| r.0 < 30_000_000_000).collect();
        assert_eq!(short, prefix, "{}", m.name);
    }
}

#[test]
fn rows_start_at_zero_increase_and_stay_in_their_bands() {
    for m in PRESETS {
        let rows = m.rows(3, "l", Duration::from_secs(600));
        assert_eq!(rows[0].0, 0, "{}", m.name);
        assert!(rows.windows(2).all(|w| w[0].0 < w[1].0), "{}", m.name);
        for (_, bps) in &rows {
            let mbps = bps / 1e6;
            let in_band = m
                .states
                .iter()
                .any(|s| mbps >= s.min_mbps * (1.0 - 1e-9) && mbps <= s.max_mbps * (1.0 + 1e-9));
            assert!(in_band || *bps == 0.0, "{}: {mbps} Mbit/s", m.name);
        }
    }
}

/// The long-run figures docs/scenarios.md quotes for `synthetic:lte`.
#[test]
fn lte_spans_a_few_to_tens_of_mbits_with_short_frequent_gaps() {
    let span_ns = HOUR.as_nanos() as u64;
    let rows = lte().rows(1, "link/bottleneck", HOUR);
    let (mean, zero, gaps) = stats(&rows, span_ns);
    assert!((8.0..16.0).contains(&mean), "mean {mean} Mbit/s");
    // 0.5 gaps/s of 50 ms on average: 2.5 % of the time.
    assert!((0.015..0.035).contains(&zero), "zero share {zero}");
    let per_s = gaps.len() as f64 / 3600.0;
    assert!((0.4..0.6).contains(&per_s), "{per_s} gaps/s");
    assert!(gaps.iter().all(|g| *g <= 160_000_000), "gaps stay short");
}

/// The long-run figures docs/scenarios.md quotes for `synthetic:5g-walking`.
#[test]
fn five_g_walking_runs_at_hundreds_of_mbits_with_second_long_outages() {
    let span_ns = HOUR.as_nanos() as u64;
    let rows = five_g().rows(1, "link/bottleneck", HOUR);
    let (mean, zero, outages) = stats(&rows, span_ns);
    assert!((200.0..600.0).contains(&mean), "mean {mean} Mbit/s");
    assert!((0.02..0.08).contains(&zero), "outage share {zero}");
    let mean_outage_s = outages.iter().sum::<u64>() as f64 / outages.len() as f64 / 1e9;
    assert!(
        (0.8..1.3).contains(&mean_outage_s),
        "mean outage {mean_outage_s} s"
    );
    assert!(
        outages.iter().all(|o| *o >= 500_000_000),
        "at least 0.5 s each"
    );
    let per_min = outages.len() as f64 / 60.0;
    assert!(
        (1.0..4.0).contains(&per_min),
        "{per_min} outages per minute"
    );
}

#[test]
fn gaps_zero_the_rate_and_the_state_rate_resumes_after() {
    let rows = [(0, 5.0), (10, 7.0), (20, 9.0)];
    // A gap across a row boundary, one ending exactly on a row, one running to the end.
    let gaps = [(5, 12), (15, 20), (25, 30)];
    assert_eq!(
        overlay_gaps(&rows, &gaps, 30),
        [
            (0, 5.0),
            (5, 0.0),
            (12, 7.0),
            (15, 0.0),
            (20, 9.0),
            (25, 0.0)
        ]
    );
}

#[test]
fn the_schedule_repeats_after_its_span() {
    use crate::Capacity;
    use scream::Instant;
    let mut c = Capacity::Schedule(five_g().schedule(1, "l", Duration::from_secs(10)));
    for ms in [0, 1_234, 9_999] {
        let a = c.rate_at(Instant::from_millis(ms));
        assert_eq!(a, c.rate_at(Instant::from_millis(ms + 10_000)), "{ms} ms");
    }
}
