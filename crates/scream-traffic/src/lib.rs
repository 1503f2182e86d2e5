//! Sans-I/O traffic other than SCReAM, for the simulator (and, later, for real flows):
//! every model takes time as an argument and answers with what to send, and reads no
//! clock, socket or OS randomness.
//!
//! - [`tcp`]: a packet-level TCP — sender chassis with NewReno recovery and the RFC 6298
//!   timer, congestion laws NewReno, CUBIC and Prague, a receiver with delayed and
//!   accurate-ECN ACKs, bulk and on-off application traffic;
//! - [`rate_control`]: the baseline media controllers GCC (draft-ietf-rmcat-gcc-02) and
//!   NADA (RFC 8698), run at the sender from per-packet feedback, with their tunables
//!   (name, unit, default, range, source) declared once next to each controller;
//! - [`source`]: media sources — a video encoder model driven by a frame-size trace, CBR
//!   audio — and the reading of frame-size traces (the one place that touches files:
//!   a trace is read once, before a run).
//!
//! Depends only on `scream` (time, bitrates, ECN, media frames), `scream-netmodel`
//! (seeded random streams) and `scream-data` (where a `data:` trace is found).

#![warn(missing_docs)]

pub mod rate_control;
pub mod source;
pub mod tcp;
