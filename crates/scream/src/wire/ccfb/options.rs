//! How to read the `num_reports` field.

/// How a writer encodes `num_reports`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum CountConvention {
    /// The number of metric blocks (RFC 8888 §3.1 with erratum 8166). Zero is allowed.
    #[default]
    Rfc,
    /// The number of metric blocks minus one, as the Ericsson reference writes it.
    /// Cannot express a block without reports.
    MinusOne,
}

impl CountConvention {
    /// Number of metric blocks that a `num_reports` field written this way announces.
    pub const fn count(self, num_reports: u16) -> usize {
        match self {
            Self::Rfc => num_reports as usize,
            Self::MinusOne => num_reports as usize + 1,
        }
    }

    /// The `num_reports` field for `count` metric blocks, if it fits.
    pub fn field(self, count: usize) -> Option<u16> {
        match self {
            Self::Rfc => u16::try_from(count).ok(),
            Self::MinusOne => count.checked_sub(1).and_then(|c| u16::try_from(c).ok()),
        }
    }

    /// `rfc` or `minus-one`, for display and JSON.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Rfc => "rfc",
            Self::MinusOne => "minus-one",
        }
    }
}

/// Which convention the parser applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CountMode {
    /// Always this convention.
    Fixed(CountConvention),
    /// Decide per packet. A writer uses one convention for a whole packet, so the parser
    /// tries both: if only one of them makes the blocks tile the space that the RTCP
    /// length field leaves before the report timestamp, that one is used. Both can fit,
    /// typically when every `num_reports` is odd (count and count+1 then pad to the same
    /// size); then, if the RFC reading would put a non-zero word into a padding slot
    /// (RFC 8888 §3.1 pads with zero), the writer counted minus one; otherwise the packet
    /// is ambiguous and `fallback` is used. The Ericsson reference always ends a block
    /// with the received packet that triggered the report, so its packets are detected.
    Auto {
        /// Convention for ambiguous packets.
        fallback: CountConvention,
    },
}

/// Parser settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ParseOptions {
    /// How to read `num_reports`. Default: automatic detection, falling back to the RFC.
    pub count: CountMode,
}

impl ParseOptions {
    /// Strict RFC 8888 reading.
    pub const RFC: Self = Self {
        count: CountMode::Fixed(CountConvention::Rfc),
    };
    /// Count-minus-one reading (the Ericsson reference).
    pub const MINUS_ONE: Self = Self {
        count: CountMode::Fixed(CountConvention::MinusOne),
    };
    /// Automatic detection, RFC when ambiguous.
    pub const AUTO: Self = Self {
        count: CountMode::Auto {
            fallback: CountConvention::Rfc,
        },
    };
}

impl Default for ParseOptions {
    fn default() -> Self {
        Self::AUTO
    }
}
