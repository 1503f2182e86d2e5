//! The IP header fields a link emulator on a TUN device reads and writes: version,
//! destination and the ECN field (RFC 3168 §5: the two low bits of the IPv4 TOS octet
//! or of the IPv6 Traffic Class).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use scream::Ecn;

/// IPv4 header without options, bytes (RFC 791 §3.1).
const IPV4_MIN_HEADER: usize = 20;
/// IPv6 fixed header, bytes (RFC 8200 §3).
const IPV6_HEADER: usize = 40;

fn v4_header_len(p: &[u8]) -> Option<usize> {
    let ihl = usize::from(p.first()? & 0x0f) * 4;
    (ihl >= IPV4_MIN_HEADER && p.len() >= ihl).then_some(ihl)
}

/// The IP version of a well-formed enough header (4 or 6).
fn version(p: &[u8]) -> Option<u8> {
    match p.first()? >> 4 {
        4 => v4_header_len(p).map(|_| 4),
        6 => (p.len() >= IPV6_HEADER).then_some(6),
        _ => None,
    }
}

/// The packet's ECN codepoint; `None` if it is not an IPv4 or IPv6 packet.
pub fn ecn(p: &[u8]) -> Option<Ecn> {
    match version(p)? {
        4 => Some(Ecn::from_bits(p[1] & 0b11)),
        _ => Some(Ecn::from_bits((p[1] >> 4) & 0b11)),
    }
}

/// The destination address; `None` if it is not an IPv4 or IPv6 packet.
pub fn destination(p: &[u8]) -> Option<IpAddr> {
    match version(p)? {
        4 => {
            let b: [u8; 4] = p.get(16..20)?.try_into().ok()?;
            Some(IpAddr::V4(Ipv4Addr::from(b)))
        }
        _ => {
            let b: [u8; 16] = p.get(24..40)?.try_into().ok()?;
            Some(IpAddr::V6(Ipv6Addr::from(b)))
        }
    }
}

/// Writes the ECN codepoint (updating the IPv4 header checksum); returns whether the
/// packet is IP and was written.
pub fn set_ecn(p: &mut [u8], ecn: Ecn) -> bool {
    match version(p) {
        Some(4) => {
            p[1] = (p[1] & !0b11) | ecn.bits();
            let Some(ihl) = v4_header_len(p) else {
                return false;
            };
            p[10] = 0;
            p[11] = 0;
            let sum = ipv4_checksum(&p[..ihl]);
            p[10..12].copy_from_slice(&sum.to_be_bytes());
            true
        }
        Some(_) => {
            p[1] = (p[1] & !0b0011_0000) | (ecn.bits() << 4);
            true
        }
        None => false,
    }
}

/// The Internet checksum of an IPv4 header whose checksum field is zero (RFC 791
/// §3.1, RFC 1071).
fn ipv4_checksum(header: &[u8]) -> u16 {
    let mut sum: u32 = header
        .chunks(2)
        .map(|w| u32::from(u16::from_be_bytes([w[0], *w.get(1).unwrap_or(&0)])))
        .sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// Whether `addr` lies in `net`/`prefix`.
pub fn in_network(addr: IpAddr, (net, prefix): (IpAddr, u8)) -> bool {
    match (addr, net) {
        (IpAddr::V4(a), IpAddr::V4(n)) => {
            let mask = u32::MAX
                .checked_shl(32 - u32::from(prefix.min(32)))
                .unwrap_or(0);
            u32::from(a) & mask == u32::from(n) & mask
        }
        (IpAddr::V6(a), IpAddr::V6(n)) => {
            let mask = u128::MAX
                .checked_shl(128 - u32::from(prefix.min(128)))
                .unwrap_or(0);
            u128::from(a) & mask == u128::from(n) & mask
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An IPv4/UDP header as Linux sends it, checksum included (captured with tcpdump:
    /// 10.0.0.1 -> 10.0.0.2, TOS 0x01, TTL 64, id 0x1c46).
    fn v4() -> Vec<u8> {
        vec![
            0x45, 0x01, 0x00, 0x30, 0x1c, 0x46, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 10, 0, 0, 1,
            10, 0, 0, 2,
        ]
    }

    #[test]
    fn ipv4_ce_marking_keeps_the_checksum_valid() {
        let mut p = v4();
        let sum = ipv4_checksum(&p);
        p[10..12].copy_from_slice(&sum.to_be_bytes());
        assert_eq!(ecn(&p), Some(Ecn::Ect1));
        assert!(set_ecn(&mut p, Ecn::Ce));
        assert_eq!(ecn(&p), Some(Ecn::Ce));
        assert_eq!(p[1], 0x03, "the DSCP bits stay");
        // A valid header sums to 0xffff, i.e. its checksum over everything is 0.
        assert_eq!(ipv4_checksum(&p), 0);
        assert_eq!(
            destination(&p),
            Some(IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2)))
        );
    }

    #[test]
    fn ipv6_traffic_class_ecn() {
        let mut p = vec![0u8; 40];
        p[0] = 0x6b; // version 6, traffic class high nibble 0xb
        p[1] = 0x10; // traffic class low nibble 0x1: ECN 01
        p[39] = 7;
        assert_eq!(ecn(&p), Some(Ecn::Ect1));
        assert!(set_ecn(&mut p, Ecn::Ce));
        assert_eq!((p[0], p[1]), (0x6b, 0x30));
        assert_eq!(
            destination(&p).map(|a| a.to_string()).as_deref(),
            Some("::7")
        );
    }

    #[test]
    fn non_ip_and_short_packets_are_refused() {
        for p in [
            &[][..],
            &[0x45, 0][..],
            &[0x60; 39][..],
            &[0x20; 60][..],
            &[0x41; 60][..],
        ] {
            assert_eq!(ecn(p), None, "{p:?}");
            assert_eq!(destination(p), None);
            assert!(!set_ecn(&mut p.to_vec(), Ecn::Ce));
        }
    }

    #[test]
    fn networks_match_by_prefix() {
        let net = (IpAddr::V4(Ipv4Addr::new(10, 200, 2, 0)), 24);
        assert!(in_network("10.200.2.77".parse().unwrap(), net));
        assert!(!in_network("10.200.1.2".parse().unwrap(), net));
        assert!(in_network(
            "10.1.1.1".parse().unwrap(),
            (IpAddr::V4(Ipv4Addr::UNSPECIFIED), 0)
        ));
        assert!(!in_network("::1".parse().unwrap(), net));
    }
}
