//! Scenarios shipped inside the binary: the files in the repository's `scenarios/`
//! ([`BUILTINS`]) and the RMCAT evaluation cases in `scenarios/rmcat/` ([`RMCAT`], run
//! by `scream suite rmcat`).

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
        builtin!("", $name)
    };
    ($dir:literal, $name:literal) => {
        Builtin {
            name: $name,
            text: include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../scenarios/",
                $dir,
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
    builtin!("paper-step-testapp"),
    builtin!("paper-5g"),
    builtin!("paper-5g-v2"),
    builtin!("paper-tuning"),
    builtin!("paper-tuning-testapp"),
    builtin!("cs244-fig3"),
    builtin!("cs244-fig3-v2"),
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
    builtin!("scream-vs-tcp"),
    builtin!("lte-comparison"),
];

/// The RMCAT evaluation cases (RFC 8867 §5 and §6, docs/rmcat.md), in suite order.
/// They are built-in scenarios like the others (`scream sim rmcat-5.1`), listed apart
/// because some use algorithms (TCP cross traffic, GCC, NADA) that a build may lack:
/// `scream suite rmcat` records such a case as an error and goes on.
pub const RMCAT: &[Builtin] = &[
    builtin!("rmcat/", "rmcat-5.1"),
    builtin!("rmcat/", "rmcat-5.1-100ms"),
    builtin!("rmcat/", "rmcat-5.2"),
    builtin!("rmcat/", "rmcat-5.3"),
    builtin!("rmcat/", "rmcat-5.4"),
    builtin!("rmcat/", "rmcat-5.5"),
    builtin!("rmcat/", "rmcat-5.6"),
    builtin!("rmcat/", "rmcat-5.6-1000ms"),
    builtin!("rmcat/", "rmcat-5.7"),
    builtin!("rmcat/", "rmcat-5.7bis"),
    builtin!("rmcat/", "rmcat-5.8"),
    builtin!("rmcat/", "rmcat-6.1"),
    builtin!("rmcat/", "rmcat-6.2-classic"),
    builtin!("rmcat/", "rmcat-6.2-l4s"),
    builtin!("rmcat/", "rmcat-6.3"),
];

/// The built-in scenario called `name`, among [`BUILTINS`] and [`RMCAT`].
pub fn find(name: &str) -> Option<&'static Builtin> {
    BUILTINS.iter().chain(RMCAT).find(|b| b.name == name)
}

/// Names of the built-in scenarios of [`BUILTINS`] (without the RMCAT cases).
pub fn names() -> Vec<&'static str> {
    BUILTINS.iter().map(|b| b.name).collect()
}

/// Names of the RMCAT cases ([`RMCAT`]).
pub fn rmcat_names() -> Vec<&'static str> {
    RMCAT.iter().map(|b| b.name).collect()
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
        for b in BUILTINS.iter().chain(RMCAT) {
            let doc: toml_edit::DocumentMut = b.text.parse().expect(b.name);
            assert_eq!(doc.get("name").and_then(|n| n.as_str()), Some(b.name));
            assert!(!b.description().is_empty(), "{} has no description", b.name);
            assert!(!b.description().contains('\n'), "{}: one line", b.name);
        }
    }

    #[test]
    fn every_file_in_scenarios_rmcat_is_a_listed_case() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/rmcat");
        let mut files: Vec<String> = std::fs::read_dir(dir)
            .expect("scenarios/rmcat")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .filter_map(|n| n.strip_suffix(".toml").map(str::to_owned))
            .collect();
        files.sort();
        let mut listed = rmcat_names();
        listed.sort_unstable();
        assert_eq!(files, listed);
        assert!(rmcat_names().iter().all(|n| find(n).is_some()));
    }

    #[test]
    fn default_is_paper_step_v2_plus_an_outage_with_the_safe_improvement() {
        let load = |name: &str| -> crate::Scenario {
            crate::scenario::load::load_builtin(name, &[]).expect(name)
        };
        let (mut default, paper) = (load("default"), load("paper-step-v2"));
        let flow = &mut default.flows[0];
        // `fresh-srtt` is the one improvement the robust evaluation finds safe alone on
        // every draw seed it was run with (docs/evaluation.md).
        assert_eq!(flow.improvements, ["fresh-srtt"]);
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
