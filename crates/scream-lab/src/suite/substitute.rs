//! Which flows of a case are the media flows under test, and the overrides that put
//! another algorithm in their place. Read from the case's TOML text, not from the
//! loaded scenario: a case naming an algorithm this build lacks (TCP cross traffic,
//! GCC, NADA) cannot be loaded, yet its media flows and links can still be named.

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
        // The runner substitutes "the first flows"; a cross flow before a media flow
        // would be a mistake in the case file.
        if media.iter().enumerate().any(|(k, &i)| k != i) {
            return Err(
                "lists a cross-traffic flow before a media flow; put the media flows first"
                    .to_owned(),
            );
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

    /// Overrides that make every media flow run `algorithm`; SCReAM generations also
    /// get the suite's RTP-queue discard age.
    pub fn substitute(&self, algorithm: &str) -> Vec<String> {
        let mut out = Vec::new();
        for &i in &self.media {
            out.push(format!("flows.{i}.algorithm=\"{algorithm}\""));
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
    fn cross_traffic_before_media_and_cases_without_media_are_refused() {
        let e = Layout::read("[[flows]]\nalgorithm = \"tcp-newreno\"\n[[flows]]\n")
            .expect_err("tcp first");
        assert!(e.contains("media flows first"), "{e}");
        let e = Layout::read("[[flows]]\nalgorithm = \"cbr\"\n").expect_err("no media");
        assert!(e.contains("no media flow"), "{e}");
        let l = Layout::read("[link]\n[[flows]]\n").expect("one flow");
        assert_eq!(l.link_prefix("bottleneck"), Some("link"));
    }
}
