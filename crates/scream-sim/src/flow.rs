//! A flow as the simulator sees it once built: its nodes, routes and streams.

use std::sync::Arc;

use crate::scenario::Algorithm;
use scream::Instant;

/// One flow: a sending node, a receiving node, a media route between them and a route
/// back for feedback.
#[derive(Debug, Clone)]
pub struct Flow {
    /// Name.
    pub name: Arc<str>,
    /// Controller kind.
    pub algorithm: Algorithm,
    /// Index of the sending node.
    pub(crate) sender: u32,
    /// Global indices of its streams, in the sender's order.
    pub streams: Vec<u32>,
    /// The route its media takes.
    pub(crate) media_route: u32,
    /// First instant it produces media.
    pub start: Instant,
    /// No media at or after this instant.
    pub stop: Instant,
}

impl Flow {
    /// Length of the active period (start to stop), s.
    pub fn active_secs(&self) -> f64 {
        (self.stop - self.start).as_secs_f64()
    }
}

/// A stream as the simulator sees it.
#[derive(Debug, Clone)]
pub struct StreamInfo {
    /// Name (the flow's name for a single-stream flow).
    pub name: Arc<str>,
    /// Index of its flow.
    pub flow: u32,
}
