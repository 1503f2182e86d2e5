//! The receiver driven by operations decoded from arbitrary bytes (clock steps and
//! jumps, genuine and forged packets, polls, probes): the same model and invariants as
//! the property test `crates/scream/tests/receiver_proptest.rs`, which this includes.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../crates/scream/tests/receiver_proptest.rs"]
mod model;

fuzz_target!(|data: &[u8]| {
    if let Some((setup, ops)) = model::decode(data) {
        if let Err(violation) = model::run(setup, &ops) {
            panic!("{violation}");
        }
    }
});
