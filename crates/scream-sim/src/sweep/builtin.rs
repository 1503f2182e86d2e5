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

    #[test]
    fn every_study_plans_under_its_own_name() {
        for s in STUDIES {
            let plan = Plan::from_str(s.text, &format!("{}.toml", s.name), None)
                .unwrap_or_else(|e| panic!("{}: {e}", s.name));
            assert_eq!(plan.name, s.name);
        }
    }
}
