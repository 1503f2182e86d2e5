//! The sans-I/O part of the package: `Sender`, `Receiver` and the RFC 8888 codec,
//! mirroring the library's contract (every input takes `now`, every output is a
//! `poll_*`) with times as integer nanoseconds on the caller's clock.
//!
//! - `sender`: `Sender`; `outputs`: what it hands back (`SentPacket`, `Event`).
//! - `receiver`: `Receiver`, whose feedback comes out as RFC 8888 bytes.
//! - `ccfb`: `PacketReport`, `Feedback`, `encode_feedback`, `decode_feedback`.
//! - `args`: the argument checks every method runs first; `stats`: `stats()` dicts.

use pyo3::prelude::*;

mod args;
mod ccfb;
mod outputs;
mod receiver;
mod sender;
mod stats;

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<sender::Sender>()?;
    m.add_class::<outputs::SentPacket>()?;
    m.add_class::<outputs::Event>()?;
    m.add_class::<receiver::Receiver>()?;
    ccfb::register(m)
}
