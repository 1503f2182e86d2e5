//! Routes: the directed links a packet crosses, in order, and the node it reaches.

/// One route.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Route {
    /// Indices of the directed links crossed, in order.
    pub(crate) links: Vec<u32>,
    /// Index of the node at the end.
    pub(crate) dest: u32,
}

/// Index of link `i`'s forward direction among the directed links.
pub(crate) fn forward(i: u32) -> u32 {
    2 * i
}

/// Index of link `i`'s reverse direction among the directed links.
pub(crate) fn reverse(i: u32) -> u32 {
    2 * i + 1
}
