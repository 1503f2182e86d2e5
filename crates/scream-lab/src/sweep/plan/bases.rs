//! The base scenarios, each loaded once and checked before anything runs.

use std::path::{Path, PathBuf};

use super::super::SweepError;
use super::super::spec::{RawBase, RawSpec, Seeds};
use super::{Base, ErrFn, check_name};
use scream_sim::scenario::builtin;
use scream_sim::scenario::load::{Override, read_scenario_file};

pub(super) fn load_bases(
    raw: &RawSpec,
    dir: Option<&Path>,
    err: &ErrFn<'_>,
) -> Result<Vec<Base>, SweepError> {
    if raw.bases.is_empty() {
        return Err(err(
            "",
            "no [[base]]: give at least one base scenario (scenario = \"NAME\" or a file path)"
                .to_owned(),
        ));
    }
    let mut bases: Vec<Base> = Vec::new();
    for (i, rb) in raw.bases.iter().enumerate() {
        let idx = i.to_string();
        let at = |key: &str| format!("base.{idx}.{key}");
        let base =
            load_base(rb, raw, dir).map_err(|m| err(&at("scenario"), format!("base[{i}]: {m}")))?;
        check_name(&base.name).map_err(|m| err(&at("name"), format!("base[{i}].name: {m}")))?;
        if bases.iter().any(|b| b.name == base.name) {
            return Err(err(
                &at("name"),
                format!(
                    "base[{i}]: a second base named \"{}\"; give each [[base]] its own name",
                    base.name
                ),
            ));
        }
        bases.push(base);
    }
    Ok(bases)
}

fn load_base(rb: &RawBase, raw: &RawSpec, dir: Option<&Path>) -> Result<Base, String> {
    let set = rb
        .set
        .iter()
        .map(|s| s.parse::<Override>().map_err(|e| e.to_string()))
        .collect::<Result<Vec<_>, _>>()?;
    let looks_like_path = rb.scenario.contains('/') || rb.scenario.ends_with(".toml");
    let (origin, text, base_dir, stem) = if looks_like_path {
        let path = match dir {
            Some(d) if Path::new(&rb.scenario).is_relative() => d.join(&rb.scenario),
            _ => PathBuf::from(&rb.scenario),
        };
        let text = read_scenario_file(&path).map_err(|e| format!("cannot read scenario {e}"))?;
        let origin = path
            .file_name()
            .map_or_else(|| rb.scenario.clone(), |n| n.to_string_lossy().into_owned());
        let stem = path
            .file_stem()
            .map_or_else(|| origin.clone(), |s| s.to_string_lossy().into_owned());
        let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
        (origin, text, parent.map(Path::to_path_buf), stem)
    } else {
        let b = builtin::find(&rb.scenario).ok_or_else(|| {
            format!(
                "unknown scenario \"{}\" (built-in scenarios: {}; or give the path of a .toml file)",
                rb.scenario,
                builtin::names().join(", ")
            )
        })?;
        (
            format!("builtin:{}", b.name),
            b.text.to_owned(),
            None,
            b.name.to_owned(),
        )
    };
    let mut base = Base {
        name: rb.name.clone().unwrap_or(stem),
        scenario: rb.scenario.clone(),
        origin,
        text,
        base_dir,
        set,
        flows: 0,
        seeds: Vec::new(),
    };
    let scenario = base.load(&[]).map_err(|e| e.to_string())?;
    base.flows = scenario.flows.len();
    base.seeds = match &raw.seeds {
        None => vec![scenario.seed],
        Some(Seeds::Count(n)) => (1..=*n).collect(),
        Some(Seeds::List(list)) => list.clone(),
    };
    Ok(base)
}
