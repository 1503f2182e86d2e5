//! SCReAM V2's own part of the sender's statistics.

/// SCReAM V2's own state.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct V2Stats {
    /// Send window headroom factor applied to the reference window.
    pub window_headroom: f64,
}
