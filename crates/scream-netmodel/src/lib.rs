//! Network elements as sans-I/O state machines, generic over the packet they carry.
//!
//! The same code drives the discrete-event simulator and a real-time link emulator:
//! nothing here reads a clock, opens a socket or draws OS randomness. Time comes in as
//! [`scream::Instant`] arguments and every random choice draws from a seeded
//! [`rng::RngStream`].
//!
//! The unit of composition is the [`DirectedLink`]: one direction of a link, made of
//! a queue with its AQM ([`queue`]), a serializer running at the capacity of the moment
//! ([`capacity`], possibly read from a trace file, [`trace`], or generated from a seeded
//! model, [`synthetic`]), and the path effects that follow it ([`effects`]: propagation
//! delay, jitter, loss). A packet type only has to implement [`NetPacket`].
//!
//! Each model declares the keys a scenario writes to configure it ([`keys`]: name,
//! unit, default, range, doc), next to its code; loaders and documentation derive from
//! those declarations.

pub mod capacity;
pub mod effects;
pub mod keys;
pub mod link;
pub mod packet;
pub mod queue;
pub mod rng;
pub mod synthetic;
pub mod trace;

pub use capacity::{Capacity, MahimahiTrace, RateSchedule, TraceEnd};
pub use effects::{Jitter, LossModel, PathEffects, ProbabilitySchedule};
pub use link::{DirectedLink, DropCause, Dropped, LinkStats};
pub use packet::NetPacket;
pub use queue::{Queue, QueueLimit, QueueLimitKeys};
pub use rng::RngStream;
pub use trace::{
    RateUnit, TableFacts, TableSpec, TimeUnit, TraceError, TraceFormat, load_capacity_trace,
    load_capacity_trace_with_time_unit, parse_capacity_trace, parse_capacity_trace_with_time_unit,
    table_facts,
};
