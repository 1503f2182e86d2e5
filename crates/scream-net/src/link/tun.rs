//! The emulator on a TUN device (Linux): the kernel of a router namespace routes the
//! traffic to emulate into the device (policy routing, see scripts/netns-bottleneck.sh);
//! each IP packet crosses the forward link if its destination lies in the forward
//! network and the reverse link otherwise, and is written back into the device, from
//! where the kernel routes it on. TCP, UDP and anything else cross the same queues,
//! and an AQM's CE mark is written into the IP header.

use std::io;
use std::net::IpAddr;
use std::os::fd::AsRawFd;

use super::{Direction, LinkCounters, LinkDatagram, RECV_BUDGET};
use crate::ip;
use crate::poller::Poller;
use scream::Instant;

/// Largest packet read from the device (its MTU is at most this).
const MAX_PACKET: usize = 65_535;

/// A TUN device carrying the emulated traffic.
pub struct TunPort {
    dev: ::tun::Device,
    name: String,
    forward_net: (IpAddr, u8),
    buf: Vec<u8>,
}

impl std::fmt::Debug for TunPort {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TunPort")
            .field("name", &self.name)
            .field("forward_net", &self.forward_net)
            .finish_non_exhaustive()
    }
}

impl TunPort {
    /// Opens (or creates) the TUN device `name` and brings it up; packets to
    /// `forward_net` (address, prefix length) take the forward link. Needs
    /// CAP_NET_ADMIN.
    pub fn open(name: &str, forward_net: (IpAddr, u8)) -> io::Result<Self> {
        let mut cfg = ::tun::Configuration::default();
        cfg.tun_name(name).up();
        let dev = ::tun::create(&cfg).map_err(|e| {
            io::Error::other(format!(
                "cannot open TUN device {name}: {e} (needs root or CAP_NET_ADMIN, and /dev/net/tun)"
            ))
        })?;
        dev.set_nonblock()?;
        Ok(Self {
            dev,
            name: name.to_owned(),
            forward_net,
            buf: vec![0; MAX_PACKET],
        })
    }

    /// The device's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    pub(super) fn register(&mut self, poller: &mut Poller) -> io::Result<()> {
        poller.register_fd(self.dev.as_raw_fd())
    }

    pub(super) fn read(
        &mut self,
        now: Instant,
        [forward, reverse]: [&mut Direction; 2],
        counters: &mut LinkCounters,
    ) -> io::Result<bool> {
        for _ in 0..RECV_BUDGET {
            let n = match self.dev.recv(&mut self.buf) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(true),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            let p = &self.buf[..n.min(self.buf.len())];
            let (Some(ecn), Some(dst)) = (ip::ecn(p), ip::destination(p)) else {
                counters.foreign += 1;
                continue;
            };
            let wire = u32::try_from(p.len()).unwrap_or(u32::MAX);
            let d = LinkDatagram::new(p.to_vec(), ecn, wire, 0);
            if ip::in_network(dst, self.forward_net) {
                forward.input(now, d);
            } else {
                reverse.input(now, d);
            }
        }
        Ok(false)
    }

    /// Writes a packet that crossed a link back into the device, with the ECN
    /// codepoint the link left on it.
    pub(super) fn send(&mut self, mut d: LinkDatagram) -> bool {
        if ip::ecn(&d.payload) != Some(d.ecn) {
            ip::set_ecn(&mut d.payload, d.ecn);
        }
        self.dev.send(&d.payload).is_ok()
    }
}
