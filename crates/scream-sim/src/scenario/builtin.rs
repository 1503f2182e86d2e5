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
    builtin!("paper-step-v2"),
    builtin!("paper-5g"),
    builtin!("paper-5g-v2"),
    builtin!("paper-tuning"),
    builtin!("ericsson-default"),
    builtin!("ericsson-default-ecn"),
    builtin!("ericsson-default-delay"),
    builtin!("5g-synthetic"),
    builtin!("lte-synthetic"),
    builtin!("l4s-dualpi2-50mbps"),
    builtin!("two-flows"),
    builtin!("gcc-vs-scream"),
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
    fn default_is_paper_step_v2_plus_an_outage_with_every_improvement() {
        let load = |name: &str| -> crate::Scenario {
            crate::scenario::load::load_builtin(name, &[]).expect(name)
        };
        let (mut default, paper) = (load("default"), load("paper-step-v2"));
        let flow = &mut default.flows[0];
        assert_eq!(flow.improvements, ["all"]);
        flow.improvements.clear();
        let link = default.link.as_mut().expect("one link");
        let outage: Vec<[f64; 2]> = link
            .capacity_steps
            .iter()
            .copied()
            .filter(|s| s[1] == 0.0)
            .collect();
        assert_eq!(outage.len(), 1, "one outage");
        // The step after the outage restores the capacity it started from.
        let back = *link
            .capacity_steps
            .iter()
            .find(|s| s[0] > outage[0][0])
            .expect("capacity returns");
        assert_eq!(Some(back[1]), link.capacity_mbps);
        link.capacity_steps
            .retain(|s| s[0] != outage[0][0] && s[0] != back[0]);
        default.name = paper.name.clone();
        default.description = paper.description.clone();
        assert_eq!(default, paper);
    }
}
