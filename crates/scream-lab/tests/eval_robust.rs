//! `scream eval robust` is a function of its draw seeds: the same seed gives the same
//! bytes whatever the thread count, another seed draws other links, and seeds pooled
//! give each seed's draws and runs unchanged. Kept cheap: two low-rate classes, one
//! draw each, two option sets.

use scream_lab::LocalExecutor;
use scream_lab::eval::robust::{
    ConditionClass, RobustConfig, RobustReport, draws, render, run_robust,
};
use scream_lab::eval::{Format, OptionSet};

fn small(seed: u64, threads: usize) -> RobustReport {
    pooled(&[seed], threads)
}

fn pooled(seeds: &[u64], threads: usize) -> RobustReport {
    let config = RobustConfig {
        draw_seeds: seeds.to_vec(),
        draws: 1,
        classes: vec![ConditionClass::DeadStretch, ConditionClass::Bursty],
        option_sets: vec![OptionSet::faithful(), OptionSet::all()],
    };
    run_robust(&config, &LocalExecutor::new(threads), &|_, _| {})
}

#[test]
fn the_same_seed_gives_the_same_report_and_another_seed_other_links() {
    let a = small(3, 2);
    let b = small(3, 1);
    assert_eq!(render(&a, Format::Markdown), render(&b, Format::Markdown));
    assert_eq!(render(&a, Format::Csv), render(&b, Format::Csv));
    let other = draws(&a.config.classes, 4, 1);
    assert_ne!(a.draws, other);
    assert_eq!(a.draws, draws(&a.config.classes, 3, 1));

    // Every draw ran under every option set, and the measures are what they say.
    assert_eq!(a.runs.len(), 4);
    for r in &a.runs {
        let m = r.outcome.as_ref().expect("the run finishes");
        let d = &a.draws[r.draw];
        assert!(m.throughput_mbps > 0.0 && m.utilisation <= 1.5, "{m:?}");
        assert!(m.sojourn_p99_ms >= m.sojourn_p95_ms && m.frame_p99_ms >= m.frame_p95_ms);
        assert!(m.silence_s >= 0.0 && m.silence_s <= d.duration_s);
        match d.class {
            // A dead stretch always has a recovery; one flow has no Jain index.
            ConditionClass::DeadStretch => assert!(m.recovery_s.is_some() && m.jain.is_none()),
            _ => assert!(m.recovery_s.is_none() && m.jain.is_none()),
        }
        // Only a sudden drop has a regrowth.
        if d.class != ConditionClass::SuddenDrop {
            assert!(m.regrowth_s.is_none(), "{m:?}");
        }
    }
    // One safety line for the option set that is not faithful, covering both classes.
    assert_eq!(a.safety.len(), 1);
    assert_eq!(a.safety[0].classes.len(), 2);
    let json: serde_json::Value =
        serde_json::from_str(&render(&a, Format::Json)).expect("valid JSON");
    assert_eq!(json["runs"].as_array().map(Vec::len), Some(4));
    assert_eq!(json["draw_seed"], 3);
}

#[test]
fn pooled_seeds_keep_each_seeds_draws_runs_and_verdicts() {
    let (a, b) = (3, 4);
    let alone = [small(a, 1), small(b, 1)];
    let both = pooled(&[a, b], 2);
    assert!(both.config.pooled() && !alone[0].config.pooled());

    // Per class, the pooled draws are those of each seed, counted together.
    for &class in &both.config.classes {
        let count = |r: &RobustReport| r.draws.iter().filter(|d| d.class == class).count();
        assert_eq!(count(&both), count(&alone[0]) + count(&alone[1]), "{class}");
        for row in both.rows.iter().filter(|r| r.class == class) {
            let of = |r: &RobustReport| {
                r.rows
                    .iter()
                    .find(|x| x.class == class && x.options == row.options)
                    .map_or(0, |x| x.runs)
            };
            assert_eq!(row.runs, of(&alone[0]) + of(&alone[1]), "{class}");
        }
    }

    // Each run of a seed's draw measures what it measured from that seed alone.
    assert_eq!(both.runs.len(), alone[0].runs.len() + alone[1].runs.len());
    for one in &alone {
        for r in &one.runs {
            let d = &one.draws[r.draw];
            let twin = both
                .runs
                .iter()
                .find(|p| both.draws[p.draw] == *d && p.options == r.options)
                .expect("the draw is in the pool");
            assert_eq!(twin.outcome, r.outcome, "{}", d.seeded_id());
        }
    }

    // Each seed's own verdict is the verdict of that seed alone.
    let seeds: Vec<u64> = both.per_seed.iter().map(|s| s.draw_seed).collect();
    assert_eq!(seeds, [a, b]);
    for (mine, one) in both.per_seed.iter().zip(&alone) {
        assert_eq!(mine.safety, one.safety);
        assert!(one.per_seed.is_empty());
    }

    // Ids carry the seed once seeds are pooled, and stay unique.
    let mut ids: Vec<String> = both.draws.iter().map(|d| both.config.draw_id(d)).collect();
    assert!(ids.contains(&format!("dead-stretch/s{a}/0")), "{ids:?}");
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), both.draws.len());
    assert_eq!(
        alone[0].config.draw_id(&alone[0].draws[0]),
        "dead-stretch/0"
    );
    for format in [Format::Text, Format::Markdown] {
        let out = render(&both, format);
        assert!(out.contains("Each seed alone"), "{out}");
        assert!(out.contains(&format!("seed {a}")) && out.contains(&format!("seed {b}")));
        assert!(out.contains(&format!("bursty/s{b}/0")), "{out}");
        assert!(!render(&alone[0], format).contains("Each seed alone"));
    }
    let json: serde_json::Value =
        serde_json::from_str(&render(&both, Format::Json)).expect("valid JSON");
    assert_eq!(json["draw_seeds"], serde_json::json!([a, b]));
    assert_eq!(json["draws_per_class"], 2);
    assert_eq!(json["safety_per_seed"].as_array().map(Vec::len), Some(2));
}
