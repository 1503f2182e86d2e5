//! Loading a scenario and checking it as a whole ([`Scenario::validate`]) in one step.
//!
//! The range and consistency checks run on the deserialised scenario, which no longer
//! knows where a value was written. Reported from here, a value out of range is placed
//! like a key the schema refuses: at the line of its key, or at the `--set` that wrote
//! it (`--set duration_s=0: duration_s must be in (0, 1e6] s (is 0)`), never on a file
//! that does not hold it.

use std::path::Path;

use super::diagnose::Context;
use super::{Location, Override, ScenarioError, Source};
use crate::scenario::{Scenario, ValidationError};

/// [`super::load_named`] followed by [`Scenario::validate`]: a scenario that can run.
pub fn load_checked(name_or_path: &str, overrides: &[Override]) -> Result<Scenario, ScenarioError> {
    let source = Source::named(name_or_path)?;
    load_checked_str(
        &source.text,
        &source.origin,
        source.base_dir.as_deref(),
        overrides,
    )
}

/// [`super::load_str`] followed by [`Scenario::validate`]: a scenario that can run.
pub fn load_checked_str(
    text: &str,
    origin: &str,
    base_dir: Option<&Path>,
    overrides: &[Override],
) -> Result<Scenario, ScenarioError> {
    let scenario: Scenario = super::load_str(text, origin, base_dir, overrides)?;
    match scenario.validate() {
        Ok(()) => Ok(scenario),
        Err(e) => Err(located(&e, text, origin, overrides)),
    }
}

/// `e` placed at the key it names. The text is parsed again, which costs as much as
/// the load did, but only on the way to an error.
fn located(e: &ValidationError, text: &str, origin: &str, overrides: &[Override]) -> ScenarioError {
    let message = e.to_string();
    let ctx = Context::new(text, origin, overrides);
    let location = ctx.locate(&key_path(&e.key));
    // A key checked against another (a start time against `duration_s`) is placed at
    // its own line even when an override changed the other one: say which applied.
    let message = match location {
        Location::Override { .. } => message,
        _ if overrides.is_empty() => message,
        _ => {
            let sets: Vec<String> = overrides
                .iter()
                .map(|o| format!("--set {}", o.raw()))
                .collect();
            format!("{message} (after {})", sets.join(", "))
        }
    };
    ScenarioError::Invalid { location, message }
}

/// The segments of a validation key: `flows[1].path[0]` is `flows`, `1`, `path`, `0`,
/// the path `--set` and the locator walk.
fn key_path(key: &str) -> Vec<String> {
    key.split(['.', '['])
        .map(|seg| seg.trim_end_matches(']'))
        .filter(|seg| !seg.is_empty())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sets(raw: &[&str]) -> Vec<Override> {
        raw.iter()
            .map(|s| s.parse().expect("valid override"))
            .collect()
    }

    const TEXT: &str =
        "duration_s = 10.0\n\n[link]\ncapacity_mbps = 5.0\n\n[[flows]]\nname = \"a\"\n";

    #[test]
    fn validation_keys_become_set_paths() {
        assert_eq!(key_path("flows[1].path[0]"), ["flows", "1", "path", "0"]);
        assert_eq!(
            key_path("link.reverse.queue.limit_ms"),
            ["link", "reverse", "queue", "limit_ms"]
        );
        assert_eq!(key_path("duration_s"), ["duration_s"]);
    }

    #[test]
    fn a_value_out_of_range_set_by_an_override_names_the_override() {
        let e = load_checked_str(TEXT, "my.toml", None, &sets(&["duration_s=0"])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--set duration_s=0: duration_s must be in (0, 1e6] s (is 0)"
        );
    }

    #[test]
    fn a_value_out_of_range_in_the_file_names_its_line() {
        let text = TEXT.replace("capacity_mbps = 5.0", "capacity_mbps = -1.0");
        let e = load_checked_str(&text, "my.toml", None, &[]).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("my.toml:4: link.capacity_mbps must be in"),
            "{e}"
        );
    }

    #[test]
    fn a_key_checked_against_an_overridden_one_says_which_overrides_applied() {
        let text = format!("{TEXT}start_s = 8.0\n");
        let e = load_checked_str(&text, "my.toml", None, &sets(&["duration_s=5"])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "my.toml:8: flows[0].start_s must be < duration_s (after --set duration_s=5)"
        );
    }
}
