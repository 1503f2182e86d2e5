//! Sweep specs shipped inside the binary (the files in the repository's `studies/`):
//! the published SCReAM studies, runnable by name (`scream sweep paper-hybrid`).

/// One built-in study.
#[derive(Debug, Clone, Copy)]
pub struct Study {
    /// Name used on the command line.
    pub name: &'static str,
    /// The spec TOML.
    pub text: &'static str,
}

macro_rules! study {
    ($name:literal) => {
        Study {
            name: $name,
            text: include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../studies/",
                $name,
                ".toml"
            )),
        }
    };
}

/// All built-in studies.
pub const STUDIES: &[Study] = &[
    study!("tuning"),
    study!("paper-standalone"),
    study!("paper-hybrid"),
    study!("paper-standalone-testapp"),
    study!("paper-hybrid-testapp"),
    study!("paper-search-testapp"),
    study!("testapp-check"),
];

/// The built-in study called `name`.
pub fn find(name: &str) -> Option<&'static Study> {
    STUDIES.iter().find(|s| s.name == name)
}

/// The plan of `spec`: the spec file at that path, or the built-in study of that name
/// when no such file exists. An error names the built-in studies, in case a study
/// name was misspelt.
pub fn plan_of(spec: &std::path::Path) -> Result<crate::sweep::Plan, String> {
    use crate::sweep::Plan;
    if !spec.exists() {
        if let Some(study) = spec.to_str().and_then(find) {
            return Plan::from_str(study.text, &format!("{}.toml", study.name), None)
                .map_err(|e| e.to_string());
        }
    }
    Plan::from_file(spec).map_err(|e| {
        let names: Vec<&str> = STUDIES.iter().map(|s| s.name).collect();
        format!("{e} (built-in studies: {})", names.join(", "))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::Plan;

    #[test]
    fn every_study_plans_under_its_own_name_or_names_the_data_it_lacks() {
        for s in STUDIES {
            match Plan::from_str(s.text, &format!("{}.toml", s.name), None) {
                Ok(plan) => assert_eq!(plan.name, s.name),
                // Without the fetched traces the plan must say which file it misses and
                // the line that gets it.
                Err(e) => {
                    let text = e.to_string();
                    assert!(
                        text.contains("link.trace") && text.contains("scream data fetch"),
                        "{}: {text}",
                        s.name
                    );
                }
            }
        }
    }
}
