//! Wire formats.

pub mod ccfb;
pub mod rtp;
