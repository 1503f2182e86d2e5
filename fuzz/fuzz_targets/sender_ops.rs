//! The sender driven by arbitrary operation sequences (time steps backwards and far
//! forward, stray instants, frames of any size, coarse polling, feedback with loss, CE,
//! reordering, duplicates and forged reports), checked after every step against the
//! model in `crates/scream/tests/sender_proptest.rs`, which this target shares with the
//! proptest there. It must never panic, and every invariant of the model must hold.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../crates/scream/tests/sender_proptest.rs"]
mod model;

fuzz_target!(|data: &[u8]| {
    let (setup, ops) = model::decode(data);
    if let Err(e) = model::run(&setup, &ops) {
        panic!("{e}\nsetup: {setup:?}\nops: {ops:?}");
    }
});
