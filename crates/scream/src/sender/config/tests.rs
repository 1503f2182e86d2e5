use super::*;
use crate::units::Bitrate;

#[test]
fn defaults_are_valid() {
    assert_eq!(SenderConfig::default().validate(), Ok(()));
    for name in GENERATION_NAMES {
        let c = SenderConfig::for_generation(name).unwrap();
        assert_eq!(c.validate(), Ok(()), "{name}");
        assert_eq!(c.generation.name(), *name);
    }
}

/// A value inside the declared range of `info` and different from its default.
fn probe(info: &ParamInfo) -> f64 {
    if info.unit == "0/1" {
        return 1.0 - info.default;
    }
    let (lo, hi) = (info.min, info.max);
    let mid = if hi.is_finite() && hi < 1e9 {
        lo + (hi - lo) * 0.37
    } else {
        lo.max(1.0) * 3.0
    };
    if (mid - info.default).abs() < 1e-9 {
        (mid + hi) / 2.0
    } else {
        mid
    }
}

#[test]
fn every_parameter_sets_and_reads_back_its_own_field() {
    for generation in GENERATION_NAMES {
        let base = SenderConfig::for_generation(generation).unwrap();
        let infos = base.params();
        assert_eq!(
            infos.iter().map(|i| i.name).collect::<Vec<_>>(),
            base.param_names()
        );
        for info in &infos {
            assert_eq!(
                base.get_param(info.name),
                Some(info.default),
                "{}",
                info.name
            );
            // Cross-field limits (ref_wnd_overhead_max >= ref_wnd_overhead, and draft-00's
            // cwnd_headroom_max and scale_factor_max over their minimums) may refuse
            // a probe; both ends of the declared range must then still be settable
            // from some valid configuration, which the range test covers.
            let mut c = base.clone();
            let v = probe(info);
            match c.set_param(info.name, v) {
                Ok(()) => {
                    let got = c.get_param(info.name).unwrap();
                    let tolerance = if info.unit == "bytes" {
                        0.5
                    } else {
                        1e-9 * v.abs()
                    };
                    assert!(
                        (got - v).abs() <= tolerance,
                        "{}: set {v}, read {got}",
                        info.name
                    );
                    let changed: Vec<_> = infos
                        .iter()
                        .filter(|o| c.get_param(o.name) != base.get_param(o.name))
                        .map(|o| o.name)
                        .collect();
                    assert_eq!(changed, [info.name], "setting {} changed others", info.name);
                }
                Err(e) => assert!(
                    [
                        "ref_wnd_overhead_max",
                        "cwnd_headroom_max",
                        "scale_factor_max"
                    ]
                    .contains(&e.field),
                    "{}: {e}",
                    info.name
                ),
            }
        }
    }
}

#[test]
fn every_declared_range_is_enforced_at_both_ends() {
    for generation in GENERATION_NAMES {
        let base = SenderConfig::for_generation(generation).unwrap();
        for info in base.params() {
            let mut c = base.clone();
            let above = if info.max > 1e6 {
                info.max * 2.0
            } else {
                info.max + 1.0
            };
            let e = c.set_param(info.name, above).unwrap_err();
            assert_eq!(e.field, info.name);
            let below = if info.min_exclusive {
                Some(info.min)
            } else if info.unit == "bytes" {
                (info.min >= 1.0).then_some(info.min - 1.0)
            } else {
                (info.min > 0.0).then_some(info.min * 0.99)
            };
            if let Some(below) = below {
                let e = c.set_param(info.name, below).unwrap_err();
                assert_eq!(e.field, info.name, "{below}");
            }
            assert_eq!(c, base, "{}: a refused value changed the config", info.name);
            assert!(
                !info.source.is_empty() && !info.summary.is_empty(),
                "{}",
                info.name
            );
        }
    }
}

#[test]
fn set_param_uses_seconds_and_bits_per_second() {
    let mut c = SenderConfig::default();
    c.set_param("qdelay_target", 0.1).unwrap();
    assert_eq!(c.v2().unwrap().qdelay_target, Duration::from_millis(100));
    c.set_param("rate_pace_min", 2e5).unwrap();
    assert_eq!(c.v2().unwrap().rate_pace_min, Bitrate::from_kbps(200.0));
    c.set_param("mss_bytes", 1200.0).unwrap();
    assert_eq!(c.mss_bytes, 1200);
}

#[test]
fn unknown_name_and_out_of_range_are_rejected_without_change() {
    let mut c = SenderConfig::default();
    let e = c.set_param("no_such_thing", 1.0).unwrap_err();
    assert!(e.reason.contains("unknown parameter of scream-v2"), "{e}");
    assert!(e.reason.contains("qdelay_target"), "{e}");
    let e = c.set_param("beta_loss", 1.5).unwrap_err();
    assert_eq!(e.field, "beta_loss");
    assert!(e.reason.contains("(0, 1]"));
    let e = c.set_param("qdelay_target", -1.0).unwrap_err();
    assert_eq!(e.field, "qdelay_target");
    let e = c.set_param("beta_loss", f64::NAN).unwrap_err();
    assert_eq!(e.field, "beta_loss");
    assert!(e.reason.contains("finite"));
    assert_eq!(c, SenderConfig::default());
}

#[test]
fn validate_names_the_field_and_range() {
    let c = SenderConfig {
        mss_bytes: 10,
        ..SenderConfig::default()
    };
    let e = c.validate().unwrap_err();
    assert_eq!(e.field, "mss_bytes");
    assert_eq!(e.value, "10");
    assert!(e.reason.contains("[100, 65000]"));
    let mut c = SenderConfig::default();
    c.v2_mut().unwrap().qdelay_target = Duration::from_secs(5);
    let e = c.validate().unwrap_err();
    assert_eq!((e.field, e.value.as_str()), ("qdelay_target", "5s"));
    assert!(e.reason.contains("[0.001 s, 1 s]"), "{e}");
}

#[test]
fn each_generation_takes_only_its_own_parameters_and_the_shared_ones() {
    let mut d = SenderConfig::for_generation("scream-draft00").unwrap();
    assert!(d.v2().is_none());
    assert_eq!(d.draft00().unwrap().owd_target, Duration::from_millis(80));
    d.set_param("owd_target", 0.1).unwrap();
    assert_eq!(d.draft00().unwrap().owd_target, Duration::from_millis(100));
    d.set_param("mss_bytes", 1200.0).unwrap();
    let e = d.set_param("qdelay_target", 0.1).unwrap_err();
    assert!(
        e.reason.contains("unknown parameter of scream-draft00"),
        "{e}"
    );
    assert!(e.reason.contains("owd_target"), "{e}");
    let mut v = SenderConfig::default();
    assert!(v.draft00().is_none() && v.draft00_mut().is_none());
    let e = v.set_param("owd_target", 0.1).unwrap_err();
    assert!(e.reason.contains("unknown parameter of scream-v2"), "{e}");
}
