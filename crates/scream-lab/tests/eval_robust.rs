//! `scream eval robust` is a function of its draw seed: the same seed gives the same
//! bytes whatever the thread count, another seed draws other links. Kept cheap: two
//! low-rate classes, one draw each, two option sets.

use scream_lab::LocalExecutor;
use scream_lab::eval::robust::{
    ConditionClass, RobustConfig, RobustReport, draws, render, run_robust,
};
use scream_lab::eval::{Format, OptionSet};

fn small(seed: u64, threads: usize) -> RobustReport {
    let config = RobustConfig {
        draw_seed: seed,
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
