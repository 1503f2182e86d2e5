//! What a network element needs to know about the packets it carries.

use scream::{Duration, Ecn};

/// A packet as network elements see it: a size, an ECN codepoint an AQM may rewrite,
/// and a hook that tells it how long it spent at a link.
///
/// Queues store the packet by value together with their own bookkeeping (the enqueue
/// time), so implementors carry only what their own endpoints need.
pub trait NetPacket {
    /// Size on the wire in bytes, the unit of queue limits and serialisation.
    fn size_bytes(&self) -> u32;
    /// The ECN codepoint of the IP header.
    fn ecn(&self) -> Ecn;
    /// Rewrites the ECN codepoint (an AQM marking CE).
    fn set_ecn(&mut self, ecn: Ecn);
    /// Called once per link when the packet's last bit leaves the serializer, with its
    /// time at that link: queueing plus its own transmission. The default ignores it.
    fn on_link_exit(&mut self, time_at_link: Duration) {
        let _ = time_at_link;
    }
}
