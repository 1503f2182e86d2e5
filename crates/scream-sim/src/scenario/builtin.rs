//! Scenarios shipped inside the binary (the files in the repository's `scenarios/`).

/// One built-in scenario.
#[derive(Debug, Clone, Copy)]
pub struct Builtin {
    /// Name used on the command line (`scream sim NAME`).
    pub name: &'static str,
    /// The scenario TOML.
    pub text: &'static str,
}

macro_rules! builtin {
    ($name:literal) => {
        Builtin {
            name: $name,
            text: include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../scenarios/",
                $name,
                ".toml"
            )),
        }
    };
}

/// All built-in scenarios, in the order `scream scenarios` lists them.
pub const BUILTINS: &[Builtin] = &[
    builtin!("default"),
    builtin!("paper-step"),
    builtin!("ericsson-default"),
    builtin!("ericsson-default-ecn"),
    builtin!("ericsson-default-delay"),
    builtin!("lumos5g"),
    builtin!("lte"),
    builtin!("l4s-dualpi2-50mbps"),
    builtin!("two-flows"),
    builtin!("two-streams"),
    builtin!("eight-l4s-flows"),
    builtin!("feedback-blackout"),
];

/// The built-in scenario called `name`.
pub fn find(name: &str) -> Option<&'static Builtin> {
    BUILTINS.iter().find(|b| b.name == name)
}

/// Names of all built-in scenarios.
pub fn names() -> Vec<&'static str> {
    BUILTINS.iter().map(|b| b.name).collect()
}

impl Builtin {
    /// The scenario's one-line `description` (empty if it has none).
    pub fn description(&self) -> String {
        self.text
            .parse::<toml_edit::DocumentMut>()
            .ok()
            .and_then(|doc| doc.get("description")?.as_str().map(str::to_owned))
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_has_a_matching_name_and_a_description() {
        for b in BUILTINS {
            let doc: toml_edit::DocumentMut = b.text.parse().expect(b.name);
            assert_eq!(doc.get("name").and_then(|n| n.as_str()), Some(b.name));
            assert!(!b.description().is_empty(), "{} has no description", b.name);
            assert!(!b.description().contains('\n'), "{}: one line", b.name);
        }
    }

    #[test]
    fn default_is_paper_step_under_another_name() {
        // Everything but the name, the description and comments must match.
        let strip = |text: &str| -> Vec<String> {
            text.lines()
                .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
                .filter(|l| !l.starts_with("name =") && !l.starts_with("description ="))
                .map(str::to_owned)
                .collect()
        };
        let default = find("default").expect("default exists");
        let paper = find("paper-step").expect("paper-step exists");
        assert_eq!(strip(default.text), strip(paper.text));
    }
}
