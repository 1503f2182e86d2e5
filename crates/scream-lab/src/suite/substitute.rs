//! Which flows of a case are the media flows under test, and the overrides that put
//! another algorithm in their place. A flow is under test by its algorithm (a media
//! congestion controller), wherever it stands in the file: RFC 8867 pairs each video
//! source with a CBR audio source (§4.3), so a case lists them side by side, and the
//! audio, like TCP cross traffic, is left as written and not judged. Read from the
//! case's TOML text, not from the loaded scenario: a case naming an algorithm this
//! build lacks (TCP cross traffic, GCC, NADA) cannot be loaded, yet its media flows
//! and links can still be named.

use toml_edit::{DocumentMut, Item};

/// Algorithm of a flow without an `algorithm` key (the scenario default).
const DEFAULT_ALGORITHM: &str = "scream-v2";
/// The SCReAM sender's RTP-queue discard age in the suite's runs, s (Ericsson's 2016
/// RMCAT runs used 2 s).
pub const MAX_RTP_QUEUE_DELAY_S: f64 = 2.0;

/// Whether `algorithm` is a media congestion controller (the flows under test), as
/// opposed to cross traffic (TCP, CBR).
pub fn is_media(algorithm: &str) -> bool {
    algorithm.starts_with("scream") || algorithm == "gcc" || algorithm == "nada"
}

/// A contender of the suite: a name for the report, the simulator's algorithm it
/// runs, and the flow keys that make it that contender.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Contender {
    /// Name in the report and on the command line.
    pub name: &'static str,
    /// The scenario's `algorithm` of the media flows.
    pub algorithm: &'static str,
    /// Flow keys (dotted below `flows.N.`) and their values.
    pub keys: &'static [(&'static str, &'static str)],
    /// One line on what it is.
    pub about: &'static str,
}

/// The suite's lineup: each algorithm as the field runs it, and the variants the
/// literature compares. `--algorithms lineup` runs all of them.
pub const LINEUP: &[Contender] = &[
    Contender {
        name: "scream-v2",
        algorithm: "scream-v2",
        keys: &[],
        about: "SCReAM V2 (draft-ietf-ccwg-rfc8298bis-screamv2), the library's defaults",
    },
    Contender {
        name: "scream-v1",
        algorithm: "scream-v1",
        keys: &[],
        about: "SCReAM V1 (RFC 8298) without its competing-flows compensation (the library's default)",
    },
    Contender {
        name: "scream-v1-cfc",
        algorithm: "scream-v1",
        keys: &[("params.competing_flows_compensation", "1")],
        about: "SCReAM V1 with its competing-flows compensation on, as Ericsson's 2016 RMCAT slides ran it",
    },
    Contender {
        name: "gcc-draft02",
        algorithm: "gcc",
        keys: &[("gcc.variant", "\"draft-02\"")],
        about: "GCC as draft-ietf-rmcat-gcc-02 writes it (no probing)",
    },
    Contender {
        name: "gcc-libwebrtc",
        algorithm: "gcc",
        keys: &[("gcc.variant", "\"libwebrtc\"")],
        about: "GCC as libwebrtc's goog_cc runs it (probing, trendline gains, additive increase per second)",
    },
    Contender {
        name: "nada",
        algorithm: "nada",
        keys: &[],
        about: "NADA (RFC 8698)",
    },
];

/// The contender of the lineup called `name`; `None` for any other name, which the
/// suite runs as the simulator's algorithm of that name with no keys (`gcc` is GCC's
/// default variant, draft-02).
pub fn contender(name: &str) -> Option<Contender> {
    LINEUP.iter().find(|c| c.name == name).copied()
}

/// What the suite reads from a case's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// Indexes of the media flows, in file order.
    pub media: Vec<usize>,
    /// Number of flows.
    pub flows: usize,
    /// Dotted prefix of each named link (`link` for `[link]`, `links.N`).
    pub links: Vec<(String, String)>,
}

impl Layout {
    /// Reads `text`; an error says why it is not a case the suite can use.
    pub fn read(text: &str) -> Result<Self, String> {
        let doc: DocumentMut = text.parse().map_err(|e| format!("not TOML: {e}"))?;
        let flows = doc.get("flows").and_then(Item::as_array_of_tables);
        let algorithms: Vec<String> = flows
            .map(|a| {
                a.iter()
                    .map(|t| {
                        t.get("algorithm")
                            .and_then(Item::as_str)
                            .unwrap_or(DEFAULT_ALGORITHM)
                            .to_owned()
                    })
                    .collect()
            })
            .unwrap_or_default();
        let media: Vec<usize> = (0..algorithms.len())
            .filter(|&i| is_media(&algorithms[i]))
            .collect();
        if media.is_empty() {
            return Err("has no media flow (scream-*, gcc or nada) to test".to_owned());
        }
        let mut links = Vec::new();
        if let Some(l) = doc.get("link") {
            let name = l.get("name").and_then(Item::as_str).unwrap_or("bottleneck");
            links.push((name.to_owned(), "link".to_owned()));
        } else if let Some(a) = doc.get("links").and_then(Item::as_array_of_tables) {
            for (i, t) in a.iter().enumerate() {
                if let Some(name) = t.get("name").and_then(Item::as_str) {
                    links.push((name.to_owned(), format!("links.{i}")));
                }
            }
        }
        Ok(Self {
            media,
            flows: algorithms.len(),
            links,
        })
    }

    /// The dotted prefix of the link called `name`.
    pub fn link_prefix(&self, name: &str) -> Option<&str> {
        self.links
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, p)| p.as_str())
    }

    /// Overrides that make every media flow run the contender `name` ([`contender`]);
    /// SCReAM generations also get the suite's RTP-queue discard age.
    pub fn substitute(&self, name: &str) -> Vec<String> {
        let (algorithm, keys) = contender(name).map_or((name, &[][..]), |c| (c.algorithm, c.keys));
        let mut out = Vec::new();
        for &i in &self.media {
            out.push(format!("flows.{i}.algorithm=\"{algorithm}\""));
            out.extend(keys.iter().map(|(k, v)| format!("flows.{i}.{k}={v}")));
            if algorithm.starts_with("scream") {
                out.push(format!(
                    "flows.{i}.params.max_rtp_queue_delay={MAX_RTP_QUEUE_DELAY_S}"
                ));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CASE: &str = r#"
duration_s = 10
[[links]]
name = "a"
[[links]]
name = "b"
[[flows]]
[[flows]]
algorithm = "scream-v1"
[[flows]]
algorithm = "tcp-cubic"
[[flows]]
algorithm = "cbr"
"#;

    #[test]
    fn only_media_flows_are_substituted() {
        let l = Layout::read(CASE).expect("a case");
        assert_eq!(l.media, [0, 1]);
        assert_eq!(l.flows, 4);
        let o = l.substitute("gcc");
        assert_eq!(
            o,
            ["flows.0.algorithm=\"gcc\"", "flows.1.algorithm=\"gcc\""]
        );
        let o = l.substitute("scream-v1");
        assert_eq!(o.len(), 4);
        assert!(
            o.iter()
                .all(|k| k.starts_with("flows.0.") || k.starts_with("flows.1."))
        );
        assert_eq!(l.link_prefix("b"), Some("links.1"));
        assert_eq!(l.link_prefix("c"), None);
    }

    #[test]
    fn a_lineup_name_sets_its_algorithm_and_its_keys_on_every_media_flow() {
        let l = Layout::read(CASE).expect("a case");
        let o = l.substitute("gcc-libwebrtc");
        assert_eq!(
            o,
            [
                "flows.0.algorithm=\"gcc\"",
                "flows.0.gcc.variant=\"libwebrtc\"",
                "flows.1.algorithm=\"gcc\"",
                "flows.1.gcc.variant=\"libwebrtc\"",
            ]
        );
        let o = l.substitute("scream-v1-cfc");
        assert!(o.contains(&"flows.1.params.competing_flows_compensation=1".to_owned()));
        assert!(o.contains(&"flows.1.algorithm=\"scream-v1\"".to_owned()));
        // Both GCC variants are named, and the plain name is the draft's.
        let names: Vec<&str> = LINEUP.iter().map(|c| c.name).collect();
        assert!(names.contains(&"gcc-draft02") && names.contains(&"gcc-libwebrtc"));
        assert_eq!(l.substitute("gcc")[0], "flows.0.algorithm=\"gcc\"");
        assert_eq!(l.substitute("gcc").len(), 2);
    }

    #[test]
    fn media_flows_are_found_by_algorithm_wherever_they_stand() {
        // Video, its audio, video, its audio (RFC 8867 §4.3 pairs).
        let text = "[[flows]]\n[[flows]]\nalgorithm = \"cbr\"\n\
                    [[flows]]\nalgorithm = \"gcc\"\n[[flows]]\nalgorithm = \"cbr\"\n";
        let l = Layout::read(text).expect("a case");
        assert_eq!(l.media, [0, 2]);
        let o = l.substitute("nada");
        assert_eq!(
            o,
            ["flows.0.algorithm=\"nada\"", "flows.2.algorithm=\"nada\""]
        );
    }

    #[test]
    fn a_case_without_media_is_refused() {
        let e = Layout::read("[[flows]]\nalgorithm = \"cbr\"\n").expect_err("no media");
        assert!(e.contains("no media flow"), "{e}");
        let l = Layout::read("[link]\n[[flows]]\n").expect("one flow");
        assert_eq!(l.link_prefix("bottleneck"), Some("link"));
    }
}
