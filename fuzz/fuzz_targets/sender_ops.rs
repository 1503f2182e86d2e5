//! The sender driven by arbitrary operation sequences (time steps backwards and far
//! forward, stray instants, frames of any size, coarse polling, feedback with loss, CE,
//! reordering, duplicates and forged reports), checked after every step against the
//! model of `crates/scream/tests/sender_proptest.rs`, whose operation and model files
//! this target includes. It must never panic, and every invariant of the model must
//! hold.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../crates/scream/tests/sender_proptest/model.rs"]
mod model;
#[path = "../../crates/scream/tests/sender_proptest/ops.rs"]
mod ops;

fuzz_target!(|data: &[u8]| {
    let (setup, ops) = ops::decode(data);
    if let Err(e) = model::run(&setup, &ops) {
        panic!("{e}\nsetup: {setup:?}\nops: {ops:?}");
    }
});
