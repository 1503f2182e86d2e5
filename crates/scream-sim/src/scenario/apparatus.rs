//! Apparatus profiles: the test set-up a published study ran, as scenario defaults.
//!
//! A scenario that writes `[apparatus] kind = "...", vintage = "..."` is completed
//! from that profile's fragment (`scenarios/apparatus/KIND-VINTAGE.toml`, a partial
//! scenario) before it is checked: every key the fragment has and the scenario (with
//! its `--set` overrides) does not is added. What the scenario writes always wins,
//! so a study can vary one mechanic of the apparatus (`--set link.one_way_delay_ms=30`)
//! and keep the others.
//!
//! Two rules keep a merge from mixing incompatible keys:
//! - a table whose `kind` the scenario writes differently from the fragment (a
//!   `tail-drop` queue where the profile has a `netqueue`) is the scenario's alone;
//! - a flow whose `algorithm` the scenario writes differently from the fragment's
//!   takes none of the fragment's `params` (they are another generation's).
//!
//! The fragment's `[flow]` table applies to every flow of the scenario: the studies
//! ran one video stream, and a second flow of a profiled scenario is another instance
//! of the same application.

use toml_edit::{DocumentMut, Item, Table};

/// Why a scenario's `[apparatus]` table names no profile: the dotted key at fault and
/// what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct UnknownProfile {
    pub(super) key: &'static str,
    pub(super) message: String,
}

/// One profile: an apparatus at one vintage.
#[derive(Debug, Clone, Copy)]
pub struct Profile {
    /// The `apparatus.kind` that selects it.
    pub kind: &'static str,
    /// The `apparatus.vintage` that selects it (the reference commit it mirrors).
    pub vintage: &'static str,
    /// What it is, in one line.
    pub summary: &'static str,
    /// The partial scenario merged under the scenario's own keys.
    pub fragment: &'static str,
}

macro_rules! profile {
    ($kind:literal, $vintage:literal, $summary:literal) => {
        Profile {
            kind: $kind,
            vintage: $vintage,
            summary: $summary,
            fragment: include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../scenarios/apparatus/",
                $kind,
                "-",
                $vintage,
                ".toml"
            )),
        }
    };
}

/// Every profile, oldest vintage first.
pub const PROFILES: &[Profile] = &[
    profile!(
        "ericsson-testapp",
        "ac89024",
        "Ericsson's SCReAM test application (scream_v_a) as of 2021-10-26, which TSP 2022 ran"
    ),
    profile!(
        "ericsson-testapp",
        "0924c0b",
        "Ericsson's SCReAM test application (scream_v_a) as of 2023-08-17, the last V1-only code"
    ),
];

/// The profile `kind` at `vintage`.
pub fn find(kind: &str, vintage: &str) -> Option<&'static Profile> {
    PROFILES
        .iter()
        .find(|p| p.kind == kind && p.vintage == vintage)
}

/// Completes `doc` from the profile its `[apparatus]` table names, if any. Errors name
/// the `apparatus` key at fault and list the known kinds or vintages.
pub(super) fn complete(doc: &mut DocumentMut) -> Result<(), UnknownProfile> {
    let Some(table) = doc.get("apparatus").and_then(Item::as_table_like) else {
        // Absent, or of the wrong type: serde reports the latter with its line.
        return Ok(());
    };
    let text = |key: &str| table.get(key).and_then(Item::as_str).map(str::to_owned);
    let (Some(kind), Some(vintage)) = (text("kind"), text("vintage")) else {
        return Ok(());
    };
    let profile = find(&kind, &vintage).ok_or_else(|| unknown(&kind, &vintage))?;
    let fragment: DocumentMut = profile
        .fragment
        .parse()
        .expect("the built-in apparatus fragments are valid TOML (tested)");
    merge_fragment(doc, &fragment);
    Ok(())
}

fn unknown(kind: &str, vintage: &str) -> UnknownProfile {
    let mut kinds: Vec<&str> = PROFILES.iter().map(|p| p.kind).collect();
    kinds.dedup();
    if !kinds.contains(&kind) {
        return UnknownProfile {
            key: "apparatus.kind",
            message: format!("unknown apparatus `{kind}` (known: {})", kinds.join(", ")),
        };
    }
    let vintages: Vec<&str> = PROFILES
        .iter()
        .filter(|p| p.kind == kind)
        .map(|p| p.vintage)
        .collect();
    UnknownProfile {
        key: "apparatus.vintage",
        message: format!(
            "`{kind}` has no vintage `{vintage}` (vintages: {})",
            vintages.join(", ")
        ),
    }
}

/// Adds to `doc` what `fragment` has and `doc` lacks, by the module's rules.
fn merge_fragment(doc: &mut DocumentMut, fragment: &DocumentMut) {
    for (key, item) in fragment.iter() {
        match key {
            "flow" => {
                let Some(flow) = item.as_table() else {
                    continue;
                };
                if let Some(flows) = doc.get_mut("flows").and_then(Item::as_array_of_tables_mut) {
                    for target in flows.iter_mut() {
                        merge_flow(target, flow);
                    }
                }
            }
            _ => merge_item(doc.as_table_mut(), key, item),
        }
    }
}

fn merge_flow(target: &mut Table, flow: &Table) {
    let same_algorithm = match (target.get("algorithm"), flow.get("algorithm")) {
        (Some(a), Some(b)) => a.as_str() == b.as_str(),
        _ => true,
    };
    for (key, item) in flow.iter() {
        if key == "params" && !same_algorithm {
            continue;
        }
        merge_item(target, key, item);
    }
}

/// Puts `item` at `key` of `target` if absent; merges tables key by key unless the two
/// name different `kind`s.
fn merge_item(target: &mut Table, key: &str, item: &Item) {
    match (target.get_mut(key), item.as_table()) {
        (None, _) => {
            target.insert(key, item.clone());
        }
        (Some(existing), Some(sub)) => {
            let Some(existing) = existing.as_table_mut() else {
                return;
            };
            let kinds_differ = matches!(
                (existing.get("kind"), sub.get("kind")),
                (Some(a), Some(b)) if a.as_str() != b.as_str()
            );
            if kinds_differ {
                return;
            }
            for (k, v) in sub.iter() {
                merge_item(existing, k, v);
            }
        }
        (Some(_), None) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn merged(scenario: &str, fragment: &str) -> DocumentMut {
        let mut doc: DocumentMut = scenario.parse().unwrap();
        merge_fragment(&mut doc, &fragment.parse().unwrap());
        doc
    }

    #[test]
    fn the_scenario_wins_and_missing_keys_come_from_the_fragment() {
        let doc = merged(
            "duration_s = 5\n[link]\none_way_delay_ms = 30\n",
            "sample_interval_ms = 50\n[link]\none_way_delay_ms = 20\ntrace_end = \"loop\"\n",
        );
        assert_eq!(doc["link"]["one_way_delay_ms"].as_integer(), Some(30));
        assert_eq!(doc["link"]["trace_end"].as_str(), Some("loop"));
        assert_eq!(doc["sample_interval_ms"].as_integer(), Some(50));
        assert_eq!(doc["duration_s"].as_integer(), Some(5));
    }

    #[test]
    fn a_table_of_another_kind_is_left_alone() {
        let doc = merged(
            "[link.queue]\nkind = \"tail-drop\"\n",
            "[link.queue]\nkind = \"codel\"\ntarget_ms = 5\n",
        );
        assert_eq!(doc["link"]["queue"]["kind"].as_str(), Some("tail-drop"));
        assert!(doc["link"]["queue"].get("target_ms").is_none());
        let same = merged(
            "[link.queue]\nkind = \"codel\"\n",
            "[link.queue]\nkind = \"codel\"\ntarget_ms = 5\n",
        );
        assert_eq!(same["link"]["queue"]["target_ms"].as_integer(), Some(5));
    }

    #[test]
    fn the_flow_table_reaches_every_flow_and_params_only_of_the_same_algorithm() {
        let doc = merged(
            "[[flows]]\nname = \"a\"\n[[flows]]\nname = \"b\"\nalgorithm = \"scream\"\n",
            "[flow]\nalgorithm = \"scream-v1\"\npriority = 0.7\n[flow.params]\nmss_bytes = 1200\n",
        );
        let flows = doc["flows"].as_array_of_tables().unwrap();
        let a = flows.get(0).unwrap();
        let b = flows.get(1).unwrap();
        assert_eq!(a["algorithm"].as_str(), Some("scream-v1"));
        assert_eq!(a["params"]["mss_bytes"].as_integer(), Some(1200));
        assert_eq!(b["algorithm"].as_str(), Some("scream"));
        assert_eq!(b["priority"].as_float(), Some(0.7));
        assert!(b.get("params").is_none());
    }

    #[test]
    fn every_fragment_parses_and_names_its_own_profile() {
        for p in PROFILES {
            let doc: DocumentMut = p.fragment.parse().unwrap_or_else(|e| {
                panic!("{}-{}: {e}", p.kind, p.vintage);
            });
            assert!(
                doc.get("apparatus").is_none(),
                "{}-{}: a fragment does not select a profile itself",
                p.kind,
                p.vintage
            );
        }
    }

    #[test]
    fn an_unknown_kind_or_vintage_lists_the_known_ones() {
        let mut doc: DocumentMut = "[apparatus]\nkind = \"ericsson-testapp\"\nvintage = \"2020\"\n"
            .parse()
            .unwrap();
        let e = complete(&mut doc).unwrap_err();
        assert_eq!(e.key, "apparatus.vintage");
        assert!(
            e.message.contains("ac89024") && e.message.contains("0924c0b"),
            "{e:?}"
        );
        let mut doc: DocumentMut = "[apparatus]\nkind = \"ns3\"\nvintage = \"x\"\n"
            .parse()
            .unwrap();
        let e = complete(&mut doc).unwrap_err();
        assert_eq!(e.key, "apparatus.kind");
        assert!(e.message.contains("ericsson-testapp"), "{e:?}");
    }
}
