//! Checks of the flows that run a baseline rate controller (gcc, nada): one video
//! stream, their own tunables by name, and `[flows.gcc]` on gcc flows only.

use super::{Check, fail};
use crate::rate_control::tunables_of;
use crate::scenario::model::{Algorithm, FlowConfig, SourceKind};

pub(super) fn validate_rate_based(key: &str, f: &FlowConfig) -> Check {
    if f.gcc.is_some() && f.algorithm != Algorithm::Gcc {
        return fail(
            format!("{key}.gcc"),
            format!(
                "applies only to gcc flows (this flow is {})",
                f.algorithm.name()
            ),
        );
    }
    let Some(tunables) = tunables_of(f.algorithm) else {
        return Ok(());
    };
    let name = f.algorithm.name();
    if !f.streams.is_empty() {
        return fail(
            format!("{key}.streams"),
            format!(
                "is not supported on {name} flows: the {name} sender carries one video \
                 stream; set its bitrates and source on the flow itself"
            ),
        );
    }
    if f.source.kind == SourceKind::Audio {
        return fail(
            format!("{key}.source.kind"),
            format!("must be a video source on {name} flows (audio ignores the target)"),
        );
    }
    for (param, v) in &f.params {
        let pkey = format!("{key}.params.{param}");
        let Some(t) = tunables.iter().find(|t| t.name == param) else {
            let known: Vec<&str> = tunables.iter().map(|t| t.name).collect();
            return fail(
                pkey,
                format!("is not a {name} parameter (known: {})", known.join(", ")),
            );
        };
        t.check(*v).or_else(|reason| fail(pkey, reason))?;
    }
    let low = f.params.get("loss_low").copied().unwrap_or(0.02);
    let high = f.params.get("loss_high").copied().unwrap_or(0.1);
    if f.algorithm == Algorithm::Gcc && low > high {
        return fail(
            format!("{key}.params.loss_low"),
            format!("must be <= loss_high ({high}) (is {low})"),
        );
    }
    Ok(())
}
