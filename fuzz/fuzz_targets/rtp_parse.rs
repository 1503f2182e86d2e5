//! The RTP header parser on arbitrary bytes: it must never panic, its views must agree
//! with the bytes, and whatever it accepts must re-emit to bytes that parse to the same
//! header.
#![no_main]

use libfuzzer_sys::fuzz_target;
use scream::wire::rtp::{Packet, Repr, classify};

fuzz_target!(|data: &[u8]| {
    let _ = classify(data);
    let parsed = Repr::parse_bytes(data);
    let Ok(packet) = Packet::new_checked(data) else {
        assert!(parsed.is_err());
        return;
    };
    let repr = parsed.expect("a checked packet parses");
    assert_eq!(
        packet.header_len() + packet.payload().len() + packet.padding_len(),
        packet.total_len()
    );
    assert_eq!(repr.payload_len, packet.payload().len());
    for index in 0..16 {
        assert_eq!(
            packet.csrc(index),
            repr.csrcs.as_slice().get(index).copied()
        );
    }
    let _ = (packet.extension_profile(), packet.extension_data());

    let mut out = vec![0; repr.buffer_len()];
    assert_eq!(repr.emit_bytes(&mut out), Ok(out.len()));
    assert_eq!(Repr::parse_bytes(&out), Ok(repr));
    // Without extension and padding the header is reproduced exactly.
    if !packet.extension() && !packet.padding() {
        assert_eq!(out[..packet.header_len()], data[..packet.header_len()]);
    }
});
