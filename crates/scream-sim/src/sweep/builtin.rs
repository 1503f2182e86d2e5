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
pub const STUDIES: &[Study] = &[study!("paper-standalone"), study!("paper-hybrid")];

/// The built-in study called `name`.
pub fn find(name: &str) -> Option<&'static Study> {
    STUDIES.iter().find(|s| s.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::Plan;

    /// The studies name the shared data relative to the repository root, where they
    /// are run; the test runs in the crate's folder.
    fn from_repository_root(text: &str) -> String {
        let shared = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/");
        text.replace("../shared/", shared)
    }

    #[test]
    fn every_study_plans_under_its_own_name() {
        let trace = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/data/links/lumos5g-5g_trace_54_walking.tsv"
        );
        for s in STUDIES {
            let planned = Plan::from_str(
                &from_repository_root(s.text),
                &format!("{}.toml", s.name),
                None,
            );
            match planned {
                Ok(plan) => assert_eq!(plan.name, s.name),
                // Without the shared data beside the repository the plan must say which
                // file it misses.
                Err(e) if !std::path::Path::new(trace).exists() => {
                    assert!(e.to_string().contains("link.trace"), "{}: {e}", s.name);
                }
                Err(e) => panic!("{}: {e}", s.name),
            }
        }
    }
}
