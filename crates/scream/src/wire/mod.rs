//! Wire formats.

pub mod ccfb;
