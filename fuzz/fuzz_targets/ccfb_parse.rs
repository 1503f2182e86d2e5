//! The RFC 8888 parser on arbitrary bytes: it must never panic, and whatever it accepts
//! must re-emit to bytes that parse to the same packet.
#![no_main]

use libfuzzer_sys::fuzz_target;
use scream::wire::ccfb::{
    CountConvention, CountMode, Packet, ParseOptions, Repr, TimestampUnwrapper, decode_feedback,
    parse_compound,
};

const OPTIONS: [ParseOptions; 4] = [
    ParseOptions::RFC,
    ParseOptions::MINUS_ONE,
    ParseOptions::AUTO,
    ParseOptions {
        count: CountMode::Auto {
            fallback: CountConvention::MinusOne,
        },
    },
];

fuzz_target!(|data: &[u8]| {
    for options in &OPTIONS {
        let _ = parse_compound(data, options);
        let _ = decode_feedback(data, options, &TimestampUnwrapper::new());
        let Ok(packet) = Packet::new_checked(data, options) else {
            continue;
        };
        let repr = Repr::parse(&packet);
        let mut out = vec![0; repr.buffer_len()];
        let convention = packet.count_convention();
        assert_eq!(repr.emit_with(&mut out, convention), Ok(out.len()));
        let fixed = ParseOptions {
            count: CountMode::Fixed(convention),
        };
        assert_eq!(Repr::parse_bytes(&out, &fixed), Ok(repr));
    }
});
