//! A scenario's link for a real-time emulator: the same `[link]` table, validation
//! and construction as a simulation, for the emulator's own packet type.
//!
//! `scream link` starts from [`LINK_BASE`] and applies its flags as `--set`
//! overrides of `link.*`, or takes a link of any scenario file. The flows of a
//! scenario are not read: only its links and its seed.

use crate::build::links::link_directions;
use crate::error::SimError;
use crate::scenario::Scenario;
use scream_netmodel::{DirectedLink, NetPacket};

/// The emulator's starting point when no scenario is given: an unlimited link without
/// delay, so that every property comes from a flag or an override. `duration_s` is
/// the emulator's run time (a generated trace spans it); `scream link` sets it.
pub const LINK_BASE: &str = "\
name = \"link\"
duration_s = 60
[link]
capacity_mbps = inf
one_way_delay_ms = 0
";

/// Both directions of the link named `name` (`None`: the first) of `s`, forward
/// then reverse, with `s`'s links validated first. Returns the link's name too.
pub fn emulated_link<P: NetPacket>(
    s: &Scenario,
    name: Option<&str>,
) -> Result<(String, DirectedLink<P>, DirectedLink<P>), SimError> {
    s.validate_links()?;
    let count = s.link_configs().len();
    let i = match name {
        None => 0,
        Some(n) => (0..count)
            .find(|&i| s.link_name(i) == n)
            .ok_or_else(|| SimError::Param {
                key: "links".into(),
                reason: format!(
                    "has no link named `{n}` (links: {})",
                    (0..count)
                        .map(|i| s.link_name(i))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            })?,
    };
    let (forward, reverse) = link_directions(s, i, s.seed)?;
    Ok((s.link_name(i), forward, reverse))
}
