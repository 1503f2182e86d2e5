//! A UDP socket that sends and reads the ECN codepoint of every datagram, with
//! segmentation offload (GSO) for runs of equal-sized datagrams and receive offload
//! (GRO) where the kernel has them.

use std::io::{self, IoSliceMut};
use std::net::SocketAddr;

use quinn_udp::{EcnCodepoint, RecvMeta, Transmit, UdpSockRef, UdpSocketState};
use scream::Ecn;

/// Receive buffers per `recvmmsg` call.
const RECV_BATCH: usize = 32;
/// Bytes per receive buffer: the largest UDP payload, which also holds the largest run
/// of segments GRO may coalesce (the kernel caps a GRO run at 64 KiB).
const RECV_BUF_BYTES: usize = 65_536;
/// Socket buffer size asked for in both directions. A media sender bursts a whole
/// frame at high rates and a link emulator holds a queue in user space, so the
/// kernel's default of about 200 kB would drop on the first key frame above a few
/// hundred Mbit/s.
const SOCKET_BUFFER_BYTES: usize = 8 << 20;
/// Largest GSO super-datagram (the kernel's limit is 64 KiB of UDP payload).
const MAX_GSO_BYTES: usize = 65_000;

/// What went wrong with sends that did not leave; sends are never fatal (UDP is
/// unreliable anyway and the congestion controller sees a lost packet).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SendErrors {
    /// Datagrams dropped because the socket's send buffer was full.
    pub buffer_full: u64,
    /// Datagrams the kernel refused for another reason.
    pub other: u64,
}

/// A datagram as it arrived: its source, its ECN codepoint and its payload.
#[derive(Debug, Clone, Copy)]
pub struct Datagram<'a> {
    /// Source address.
    pub from: SocketAddr,
    /// ECN codepoint of its IP header (Not-ECT where the platform cannot read it).
    pub ecn: Ecn,
    /// UDP payload.
    pub payload: &'a [u8],
}

/// A non-blocking UDP socket with ECN.
pub struct EcnSocket {
    io: mio::net::UdpSocket,
    state: UdpSocketState,
    bufs: Vec<Vec<u8>>,
    meta: Vec<RecvMeta>,
    errors: SendErrors,
}

impl std::fmt::Debug for EcnSocket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EcnSocket")
            .field("local", &self.io.local_addr().ok())
            .field("errors", &self.errors)
            .finish_non_exhaustive()
    }
}

fn codepoint(ecn: Ecn) -> Option<EcnCodepoint> {
    match ecn {
        Ecn::NotEct => None,
        Ecn::Ect0 => Some(EcnCodepoint::Ect0),
        Ecn::Ect1 => Some(EcnCodepoint::Ect1),
        Ecn::Ce => Some(EcnCodepoint::Ce),
    }
}

fn from_codepoint(ecn: Option<EcnCodepoint>) -> Ecn {
    ecn.map_or(Ecn::NotEct, |c| Ecn::from_bits(c as u8))
}

impl EcnSocket {
    /// Binds `addr` (port 0 picks a free port).
    pub fn bind(addr: SocketAddr) -> io::Result<Self> {
        let io = mio::net::UdpSocket::bind(addr)?;
        let state = UdpSocketState::new(UdpSockRef::from(&io))?;
        // Larger buffers are a wish: an unprivileged process may get less, which costs
        // drops at high rates, not correctness.
        let _ = state.set_send_buffer_size(UdpSockRef::from(&io), SOCKET_BUFFER_BYTES);
        let _ = state.set_recv_buffer_size(UdpSockRef::from(&io), SOCKET_BUFFER_BYTES);
        Ok(Self {
            io,
            state,
            bufs: vec![vec![0; RECV_BUF_BYTES]; RECV_BATCH],
            meta: vec![RecvMeta::default(); RECV_BATCH],
            errors: SendErrors::default(),
        })
    }

    /// The address the socket is bound to.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.local_addr()
    }

    /// Sends failed so far.
    pub fn send_errors(&self) -> SendErrors {
        self.errors
    }

    /// Most datagrams one [`EcnSocket::send_segments`] call may carry (1 without GSO).
    pub fn max_segments(&self) -> usize {
        self.state.max_gso_segments().max(1)
    }

    /// Sends one datagram to `to` with ECN codepoint `ecn`. Returns whether it left.
    pub fn send(&mut self, to: SocketAddr, ecn: Ecn, payload: &[u8]) -> bool {
        self.send_segments(to, ecn, payload, payload.len())
    }

    /// Sends `contents` as datagrams of `segment` bytes each (the last may be shorter)
    /// in one system call where the kernel offers GSO, one by one otherwise. Returns
    /// whether all of them left.
    pub fn send_segments(
        &mut self,
        to: SocketAddr,
        ecn: Ecn,
        contents: &[u8],
        segment: usize,
    ) -> bool {
        if contents.is_empty() || segment == 0 {
            return true;
        }
        let count = contents.len().div_ceil(segment);
        if count > 1 && (count > self.max_segments() || contents.len() > MAX_GSO_BYTES) {
            // Every chunk is tried, even after one fails: each is a packet of its own.
            let mut all_left = true;
            for c in contents.chunks(segment) {
                all_left &= self.send_segments(to, ecn, c, c.len());
            }
            return all_left;
        }
        let transmit = Transmit {
            destination: to,
            ecn: codepoint(ecn),
            contents,
            segment_size: (count > 1).then_some(segment),
            src_ip: None,
        };
        match self.state.try_send(UdpSockRef::from(&self.io), &transmit) {
            Ok(()) => true,
            Err(e) => {
                let n = count as u64;
                if e.kind() == io::ErrorKind::WouldBlock {
                    self.errors.buffer_full += n;
                } else {
                    self.errors.other += n;
                }
                false
            }
        }
    }

    /// Reads waiting datagrams, up to `budget` of them, handing each to `f`. Returns
    /// whether the socket was drained (false: the budget ran out first and more may be
    /// waiting, so the caller must read again before it sleeps).
    pub fn recv_each(
        &mut self,
        budget: usize,
        mut f: impl FnMut(Datagram<'_>),
    ) -> io::Result<bool> {
        let mut left = budget;
        while left > 0 {
            let mut slices: Vec<IoSliceMut<'_>> =
                self.bufs.iter_mut().map(|b| IoSliceMut::new(b)).collect();
            let n = match self
                .state
                .recv(UdpSockRef::from(&self.io), &mut slices, &mut self.meta)
            {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(true),
                // An ICMP error of an earlier send surfaces on a later read; it says
                // nothing about the datagrams waiting.
                Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => continue,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            for (meta, buf) in self.meta.iter().zip(&self.bufs).take(n) {
                let ecn = from_codepoint(meta.ecn);
                let stride = meta.stride.max(1);
                for payload in buf[..meta.len.min(buf.len())].chunks(stride) {
                    left = left.saturating_sub(1);
                    f(Datagram {
                        from: meta.addr,
                        ecn,
                        payload,
                    });
                }
            }
        }
        Ok(false)
    }

    pub(crate) fn source(&mut self) -> &mut mio::net::UdpSocket {
        &mut self.io
    }
}
