//! The ECN field of the IP header (RFC 3168 §5), as echoed per packet in RFC 8888.

/// One ECN codepoint. The discriminants are the two-bit values on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Ecn {
    /// 0b00: not ECN-capable transport.
    #[default]
    NotEct = 0b00,
    /// 0b01: ECT(1), the L4S identifier (RFC 9331 §4).
    Ect1 = 0b01,
    /// 0b10: ECT(0), classic ECN-capable transport.
    Ect0 = 0b10,
    /// 0b11: congestion experienced.
    Ce = 0b11,
}

impl Ecn {
    /// The codepoint with this two-bit value; higher bits are ignored.
    pub const fn from_bits(bits: u8) -> Self {
        match bits & 0b11 {
            0b00 => Self::NotEct,
            0b01 => Self::Ect1,
            0b10 => Self::Ect0,
            _ => Self::Ce,
        }
    }

    /// The two-bit value on the wire.
    pub const fn bits(self) -> u8 {
        self as u8
    }

    /// Whether a router may mark rather than drop this packet.
    pub const fn is_ect(self) -> bool {
        !matches!(self, Self::NotEct)
    }

    /// The name used in JSON output and CLI flags: `not-ect`, `ect0`, `ect1`, `ce`.
    pub const fn name(self) -> &'static str {
        match self {
            Self::NotEct => "not-ect",
            Self::Ect0 => "ect0",
            Self::Ect1 => "ect1",
            Self::Ce => "ce",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_bits_round_trip() {
        for e in [Ecn::NotEct, Ecn::Ect0, Ecn::Ect1, Ecn::Ce] {
            assert_eq!(Ecn::from_bits(e.bits()), e);
        }
        assert_eq!(Ecn::from_bits(0b1101), Ecn::Ect1);
    }
}
