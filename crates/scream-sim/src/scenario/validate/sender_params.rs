//! `[flows.params]` of a SCReAM or `cbr` flow, checked against the sender's own
//! declarations (`scream::sender::SenderConfig::set_param`) when the scenario is
//! validated, not when the world is built: a value out of range is then reported at
//! its line, and a sweep's pre-flight check (which loads every point with
//! `load_checked_str`) refuses it before any run starts.

use super::{Check, fail};
use crate::scenario::model::{Algorithm, FlowConfig};
use scream::sender::SenderConfig;

/// Every value must be finite. Then applies every parameter of `f`, in the order the world's builder applies them, to
/// the configuration of the flow's generation; the first refusal names its key.
///
/// Baselines (gcc, nada) check their own tunables, and TCP flows take none; a `cbr`
/// flow reads only the names the builder lets it read (its other names are refused by
/// the loader and the builder, with what it does read).
pub(super) fn validate_sender_params(key: &str, f: &FlowConfig) -> Check {
    for (name, v) in &f.params {
        if !v.is_finite() {
            return fail(format!("{key}.params.{name}"), "must be a finite number");
        }
    }
    if f.algorithm.is_rate_based() || f.algorithm.is_tcp() {
        return Ok(());
    }
    let mut cfg = SenderConfig::for_generation(f.algorithm.name()).unwrap_or_default();
    for (name, &value) in &f.params {
        let at = format!("{key}.params.{name}");
        if f.algorithm == Algorithm::Cbr {
            // The loader refuses its other names; its packet size has its own range.
            let range = crate::build::CBR_MSS_BYTES;
            if name == "mss_bytes" && (!range.contains(&value) || value.fract() != 0.0) {
                return fail(
                    at,
                    format!(
                        "must be a whole number of bytes in [{}, {}] for a cbr flow (is {value})",
                        range.start(),
                        range.end()
                    ),
                );
            }
            continue;
        }
        if let Err(e) = cfg.set_param(name, value) {
            let reason = if cfg.get_param(name).is_none() {
                format!(
                    "is not a parameter of the {} sender (known: {})",
                    f.algorithm.name(),
                    cfg.param_names().join(", ")
                )
            } else if e.field == name.as_str() {
                format!("{} (is {})", e.reason, e.value)
            } else {
                // A relation with another parameter, named by the sender.
                format!("makes `{}` = {} invalid: {}", e.field, e.value, e.reason)
            };
            return fail(at, reason);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::load::load_checked_str;

    const V1: &str = "duration_s = 10.0\n\n[link]\ncapacity_mbps = 5.0\n\n[[flows]]\n\
                      algorithm = \"scream-v1\"\n\n[flows.params]\n";

    fn load_error(params: &str) -> String {
        load_checked_str(&format!("{V1}{params}\n"), "v1.toml", None, &[])
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn a_v1_parameter_out_of_range_is_refused_at_its_line_when_loaded() {
        let info = SenderConfig::for_generation("scream-v1")
            .expect("v1")
            .generation_params()
            .into_iter()
            .find(|p| p.max.is_finite() && p.unit == "1")
            .expect("a bounded ratio among the V1 parameters");
        let e = load_error(&format!("{} = {}", info.name, info.max * 2.0 + 1.0));
        assert!(
            e.starts_with(&format!(
                "v1.toml:10: flows[0].params.{} must be in",
                info.name
            )),
            "{e}"
        );
        assert!(e.contains(&format!("(is {})", info.max * 2.0 + 1.0)), "{e}");
    }

    #[test]
    fn parameters_in_range_load() {
        let info = &SenderConfig::for_generation("scream-v1")
            .expect("v1")
            .generation_params()[0];
        let text = format!("{V1}{} = {}\n", info.name, info.default);
        assert!(load_checked_str(&text, "v1.toml", None, &[]).is_ok());
    }

    #[test]
    fn a_scenario_built_in_code_is_refused_by_validate_too() {
        let mut s = load_checked_str(V1, "v1.toml", None, &[]).expect("loads");
        s.flows[0].params.insert("mss_bytes".to_owned(), 1.0);
        let e = s.validate().unwrap_err();
        assert_eq!(e.key, "flows[0].params.mss_bytes");
        assert!(e.reason.starts_with("must be in"), "{}", e.reason);
        s.flows[0].params.clear();
        s.flows[0].params.insert("no_such_param".to_owned(), 1.0);
        let e = s.validate().unwrap_err();
        assert!(
            e.reason
                .starts_with("is not a parameter of the scream-v1 sender"),
            "{e}"
        );
    }

    #[test]
    fn a_cbr_flow_takes_small_packets_in_its_own_range() {
        let cbr = "duration_s = 10.0\n\n[link]\ncapacity_mbps = 5.0\n\n[[flows]]\n\
                   algorithm = \"cbr\"\nstart_bitrate_mbps = 0.02\n\n[flows.params]\n";
        let load =
            |v: &str| load_checked_str(&format!("{cbr}mss_bytes = {v}\n"), "c.toml", None, &[]);
        // 20 kbit/s audio in 20 ms packets: 38 bytes + the 12-byte RTP header.
        assert!(load("38").is_ok());
        let e = load("0").unwrap_err().to_string();
        assert!(
            e.contains("whole number of bytes in [1, 65000] for a cbr flow (is 0)"),
            "{e}"
        );
        assert!(load("37.5").is_err());
    }
}
