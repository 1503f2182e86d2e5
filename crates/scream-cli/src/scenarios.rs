//! `scream scenarios`: the built-in scenarios with their descriptions.

use scream_sim::scenario::builtin::BUILTINS;

/// The listing, one scenario per line: name, then description.
pub(crate) fn listing() -> String {
    let width = BUILTINS.iter().map(|b| b.name.len()).max().unwrap_or(0);
    let mut out = String::new();
    for b in BUILTINS {
        out.push_str(&format!("{:<width$}  {}\n", b.name, b.description()));
    }
    out
}
