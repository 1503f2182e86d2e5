//! Checks that need the keys as written (in the file or by `--set`), which serde's
//! defaults hide once the scenario is deserialised: a sender parameter name that the
//! flow does not use (unknown to its sender, or meaningless to a `cbr` or TCP flow),
//! and an AQM key of another queue discipline than the one chosen, which would
//! otherwise be ignored without a word.

use toml_edit::{DocumentMut, Item};

use super::diagnose::{self, Context};
use super::{ScenarioError, item_at};
use crate::scenario::model::{Algorithm, Generation, QueueKind};

/// The first problem with the keys written in `doc`.
pub(super) fn check(doc: &DocumentMut, ctx: &Context<'_>) -> Result<(), ScenarioError> {
    check_params(doc.as_item(), ctx)?;
    for link in link_paths(doc.as_item()) {
        check_queue(doc.as_item(), &link, ctx)?;
    }
    Ok(())
}

fn segs(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|s| (*s).to_owned()).collect()
}

/// Entries of the array of tables at `key` (`flows`, `links`), by index.
fn entries(root: &Item, key: &str) -> usize {
    root.get(key).map_or(0, |list| {
        (0..).take_while(|&i| list.get(i).is_some()).count()
    })
}

/// What a flow's `[flows.params]` may name, by the kind of flow.
enum Takes {
    /// A SCReAM sender's parameters, or a baseline's own tunables (`what` names them in
    /// the error): an unknown name is a typo, answered with the nearest known one.
    Named { what: String, names: Vec<String> },
    /// A flow with no congestion controller to tune reads only `names` (perhaps none);
    /// any other entry would be ignored, so each is refused by name. `reads` says what
    /// it reads, `why` why the rest is meaningless to it.
    Only {
        names: &'static [&'static str],
        reads: &'static str,
        why: &'static str,
    },
}

/// What `[flows.params]` of a flow running `algorithm` may name.
fn takes(algorithm: &str) -> Takes {
    let sender = |generation: Generation| Takes::Named {
        what: "sender".to_owned(),
        names: generation
            .sender_config()
            .param_names()
            .iter()
            .map(|n| (*n).to_owned())
            .collect(),
    };
    match Algorithm::named(algorithm) {
        Some(Algorithm::Cbr) => Takes::Only {
            names: crate::build::CBR_PARAMS,
            reads: "only mss_bytes (the payload of its packets)",
            why: "it has no congestion control to tune",
        },
        Some(a) if a.is_tcp() => Takes::Only {
            names: &[],
            reads: "nothing",
            why: "a TCP flow is set in [flows.tcp]",
        },
        Some(Algorithm::Scream(generation)) => sender(generation),
        Some(a) => Takes::Named {
            what: a.name().to_owned(),
            names: a
                .tunables()
                .unwrap_or_default()
                .iter()
                .map(|t| t.name.to_owned())
                .collect(),
        },
        // An unknown algorithm is reported by the schema check, with a suggestion;
        // until then its parameters are read as the default generation's.
        None => sender(Generation::library_default()),
    }
}

/// `[flows.params]` names must be parameters the flow uses: the SCReAM sender's (the
/// shared ones and those of its generation), a baseline's tunables, `mss_bytes` for a
/// `cbr` flow, none for a TCP flow.
fn check_params(root: &Item, ctx: &Context<'_>) -> Result<(), ScenarioError> {
    for i in 0..entries(root, "flows") {
        let flow = |key: &str| item_at(root, &segs(&["flows", &i.to_string(), key]));
        let default = Algorithm::default().name();
        let algorithm = flow("algorithm").and_then(Item::as_str).unwrap_or(default);
        let params_path = segs(&["flows", &i.to_string(), "params"]);
        let Some(params) = item_at(root, &params_path).and_then(Item::as_table_like) else {
            continue;
        };
        let at = |name: &str| {
            let mut path = params_path.clone();
            path.push(name.to_owned());
            ctx.locate(&path)
        };
        let table = diagnose::dotted(&params_path);
        match takes(algorithm) {
            Takes::Named { what, names } => {
                let Some((name, _)) = params.iter().find(|(n, _)| !names.iter().any(|k| k == n))
                else {
                    continue;
                };
                return Err(ScenarioError::Invalid {
                    location: at(name),
                    message: format!(
                        "unknown {what} parameter \"{name}\" in [{table}]{}",
                        diagnose::suggestion(name, &names)
                    ),
                });
            }
            Takes::Only { names, reads, why } => {
                let ignored: Vec<&str> = params
                    .iter()
                    .map(|(n, _)| n)
                    .filter(|n| !names.contains(n))
                    .collect();
                let Some(first) = ignored.first() else {
                    continue;
                };
                let name = match flow("name").and_then(Item::as_str) {
                    Some(n) if !n.is_empty() => n.to_owned(),
                    _ => format!("flow{i}"),
                };
                return Err(ScenarioError::Invalid {
                    location: at(first),
                    message: format!(
                        "flow \"{name}\" is {algorithm}, which reads {reads} from [{table}]: \
                         remove {} ({why})",
                        ignored.join(", ")
                    ),
                });
            }
        }
    }
    Ok(())
}

/// Paths of every link direction table: `link`, `links.<i>`, and their `reverse`.
fn link_paths(root: &Item) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    let mut push = |path: Vec<String>| {
        if item_at(root, &path).is_some() {
            let mut reverse = path.clone();
            reverse.push("reverse".to_owned());
            found.push(path);
            if item_at(root, &reverse).is_some() {
                found.push(reverse);
            }
        }
    };
    push(segs(&["link"]));
    for i in 0..entries(root, "links") {
        push(segs(&["links", &i.to_string()]));
    }
    found
}

/// Every AQM key written in a queue table must belong to that queue's discipline.
///
/// Except when `--set` changed the kind and the file wrote the key: switching a
/// scenario's AQM from the command line (`--set link.queue.kind=codel` on a file tuned
/// for `l4s-ramp`) leaves the file's keys of the old kind behind, and `--set` has no
/// way to remove them.
fn check_queue(root: &Item, link: &[String], ctx: &Context<'_>) -> Result<(), ScenarioError> {
    let mut queue_path = link.to_vec();
    queue_path.push("queue".to_owned());
    let Some(queue) = item_at(root, &queue_path).and_then(Item::as_table_like) else {
        return Ok(());
    };
    let kind = match queue.get("kind") {
        None => QueueKind::default(),
        // An unknown kind is reported, with a suggestion, when the scenario is read.
        Some(item) => match item.as_str().and_then(QueueKind::from_name) {
            Some(kind) => kind,
            None => return Ok(()),
        },
    };
    let by_override = |path: &[String]| ctx.overridden(path).is_some();
    let mut kind_path = queue_path.clone();
    kind_path.push("kind".to_owned());
    let kind_by_override = by_override(&kind_path);
    for (key, _) in queue.iter() {
        let Some(owner) = QueueKind::owner_of(key).filter(|o| *o != kind) else {
            continue;
        };
        let mut path = queue_path.clone();
        path.push(key.to_owned());
        if kind_by_override && !by_override(&path) {
            continue;
        }
        let table = diagnose::dotted(&queue_path);
        return Err(ScenarioError::Invalid {
            location: ctx.locate(&path),
            message: format!(
                "{table}.{key} applies only to kind = \"{}\", and this queue is kind = \"{}\": \
                 remove the key or set {table}.kind = \"{}\"",
                owner.name(),
                kind.name(),
                owner.name()
            ),
        });
    }
    Ok(())
}
