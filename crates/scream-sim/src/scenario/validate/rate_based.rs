//! Checks of the flows that run a baseline rate controller (gcc, nada): video streams
//! only, their own tunables by name, and `[flows.gcc]` on gcc flows only.

use super::{Check, fail};
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
    let Some(tunables) = f.algorithm.tunables() else {
        return Ok(());
    };
    let name = f.algorithm.name();
    // One controller sets every stream's encoder target; an audio source ignores it.
    for (j, st) in f.effective_streams("").iter().enumerate() {
        if st.source.kind == SourceKind::Audio {
            let at = if f.streams.is_empty() {
                format!("{key}.source.kind")
            } else {
                format!("{key}.streams[{j}].source.kind")
            };
            return fail(
                at,
                format!("must be a video source on {name} flows (audio ignores the target)"),
            );
        }
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
